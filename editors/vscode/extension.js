// SPDX-License-Identifier: BSD-3-Clause
// The Hermit debugger in VS Code: a debug type "hermit" served by the
// hermit-dap executable (docs/dap.md), and "Hermit: pick a recording",
// which lists `hermit record list --json` in a quick pick and gives the
// chosen id to launch.json's ${command:hermit.pickRecording}.
'use strict';

const vscode = require('vscode');
const cp = require('child_process');

function setting(name, def) {
	return vscode.workspace.getConfiguration('hermit').get(name) || def;
}

function listRecordings() {
	return new Promise((resolve, reject) => {
		cp.execFile(setting('hermitPath', 'hermit'), ['record', 'list', '--json'],
			{ maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
				if (err) {
					reject(new Error(stderr.trim() || err.message));
					return;
				}
				try {
					resolve(JSON.parse(stdout));
				} catch (e) {
					reject(new Error(`hermit record list --json: ${e.message}`));
				}
			});
	});
}

async function pickRecording() {
	let recs;
	try {
		recs = await listRecordings();
	} catch (e) {
		vscode.window.showErrorMessage(`Hermit: cannot list the recordings: ${e.message}`);
		return undefined;
	}
	if (!recs.length) {
		vscode.window.showInformationMessage('Hermit: no recordings yet (hermit record start -- PROG)');
		return undefined;
	}
	// the newest first
	recs.sort((a, b) => String(b.created).localeCompare(String(a.created)));
	const item = await vscode.window.showQuickPick(recs.map((r) => ({
		label: r.id,
		description: r.command,
		detail: `${r.status}, ${r.events} events, ${r.created}`,
	})), { placeHolder: 'The recording to replay' });
	return item ? item.label : undefined;
}

// The custom request reverseStepOut (docs/dap.md): back to the call of
// the current function, in the thread the debugger stands in.
async function reverseStepOut() {
	const session = vscode.debug.activeDebugSession;
	const item = vscode.debug.activeStackItem;
	if (!session || session.type !== 'hermit') return;
	const threadId = item && item.threadId !== undefined ? item.threadId : undefined;
	try {
		await session.customRequest('reverseStepOut', threadId !== undefined ? { threadId } : {});
	} catch (e) {
		vscode.window.showErrorMessage(`Hermit: reverse step out: ${e.message || e}`);
	}
}

function activate(context) {
	context.subscriptions.push(
		vscode.commands.registerCommand('hermit.pickRecording', pickRecording),
		vscode.commands.registerCommand('hermit.reverseStepOut', reverseStepOut),
		vscode.debug.registerDebugAdapterDescriptorFactory('hermit', {
			createDebugAdapterDescriptor() {
				return new vscode.DebugAdapterExecutable(setting('dapPath', 'hermit-dap'), []);
			},
		}));
}

function deactivate() {}

module.exports = { activate, deactivate };
