// SPDX-License-Identifier: BSD-3-Clause
// bench/dap.sh's session: stop at each call of the comparator, and time
// stackTrace + scopes + variables of the top frame as VS Code sends them.
'use strict';

const { DebugClient } = require('@vscode/debugadapter-testsupport');

async function stopAfter(dc, request) {
	const stopped = dc.waitForEvent('stopped');
	await request;
	return (await stopped).body;
}

(async () => {
	const dc = new DebugClient(process.env.HERMIT_DAP, '--log=warn', 'hermit', { env: process.env }, false);
	dc.defaultTimeout = 120000;
	await dc.start();
	await dc.initializeRequest();
	const initialized = dc.waitForEvent('initialized');
	await dc.launchRequest({ stopOnEntry: true });
	await initialized;
	let st = await stopAfter(dc, dc.configurationDoneRequest());
	await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'by_value' }] });
	const ms = [];
	let depth = 0;
	for (let i = 0; i < Number(process.env.STOPS); i++) {
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		if (st.reason !== 'function breakpoint') break;
		const t0 = process.hrtime.bigint();
		const trace = await dc.stackTraceRequest({ threadId: st.threadId });
		const scopes = await dc.scopesRequest({ frameId: trace.body.stackFrames[0].id });
		for (const s of scopes.body.scopes.filter((x) => !x.expensive && x.name !== 'Registers'))
			await dc.variablesRequest({ variablesReference: s.variablesReference });
		ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
		depth = trace.body.totalFrames;
	}
	await dc.stop();
	if (ms.length < 2) throw new Error('too few stops');
	const rest = ms.slice(1).sort((a, b) => a - b);
	const median = rest[Math.floor(rest.length / 2)];
	console.log(`stackTrace + scopes + variables, ${depth} frames: first stop ${ms[0].toFixed(1)} ms, ` +
		`then median ${median.toFixed(1)} ms over ${rest.length} stops (target 50 ms)`);
})().catch((e) => {
	console.error(`bench: ${e.message}`);
	process.exit(1);
});
