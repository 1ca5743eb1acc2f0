// SPDX-License-Identifier: BSD-3-Clause
// hermit-dap driven by @vscode/debugadapter-testsupport's DebugClient, as
// VS Code drives it, on a recording of tests/guests/dapprog (two threads
// racing on `counter`, then six writes to `slots`). Run by
// tests/integration/dap.sh, which records the guest and sets HERMIT_DAP,
// GUESTS, HERMIT_DATA_DIR and DAPPROG_STDOUT (what the recording printed).
// Addresses come from `nm`, instructions from `objdump`: the guest is built
// without PIE, so they are the run-time ones.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const DAP = process.env.HERMIT_DAP;
const PROG = path.join(process.env.GUESTS, 'dapprog');
const STDOUT = process.env.DAPPROG_STDOUT;
// A bound for a hung adapter, not a measure of speed: replays of a busy
// machine take seconds.
const TIMEOUT = 120000;

function symbols() {
	const out = cp.execFileSync('nm', [PROG], { encoding: 'utf8' });
	const sym = {};
	for (const line of out.split('\n')) {
		const m = /^([0-9a-f]+) \w (\w+)$/.exec(line);
		if (m) sym[m[2]] = parseInt(m[1], 16);
	}
	return sym;
}
const SYM = symbols();
const hex = (n) => '0x' + n.toString(16);

async function session(launchArgs) {
	const dc = new DebugClient(DAP, '--log=warn', 'hermit', { env: process.env }, false);
	dc.defaultTimeout = TIMEOUT;
	dc.outputs = [];
	dc.on('output', (e) => dc.outputs.push(e.body));
	await dc.start();
	const init = await dc.initializeRequest();
	assert.equal(init.body.supportsStepBack, true);
	assert.equal(init.body.supportsDataBreakpoints, true);
	const initialized = dc.waitForEvent('initialized');
	await dc.launchRequest(Object.assign({ stopOnEntry: true }, launchArgs));
	await initialized;
	return dc;
}

// Send REQUEST and wait for the stopped event it brings.
async function stopAfter(dc, request) {
	const stopped = dc.waitForEvent('stopped');
	await request;
	return (await stopped).body;
}

async function pc(dc, threadId) {
	const st = await dc.stackTraceRequest({ threadId });
	assert.ok(st.body.stackFrames.length >= 1);
	return parseInt(st.body.stackFrames[0].instructionPointerReference, 16);
}

async function readInt(dc, addr) {
	const r = await dc.customRequest('readMemory', { memoryReference: hex(addr), count: 4 });
	return Buffer.from(r.body.data, 'base64').readInt32LE(0);
}

async function dataBreakpoint(dc, name, bytes) {
	const info = await dc.customRequest('dataBreakpointInfo', bytes ? { name, bytes } : { name });
	assert.ok(info.body.dataId, `no dataId for ${name}: ${info.body.description}`);
	assert.deepEqual(info.body.accessTypes, ['write', 'read', 'readWrite']);
	return info.body.dataId;
}

// Continue until exited and terminated (the end of the recording may be
// a stop of its own first).
async function runToEnd(dc, threadId) {
	const exited = dc.waitForEvent('exited');
	const terminated = dc.waitForEvent('terminated');
	let ended = false;
	terminated.then(() => { ended = true; });
	for (let i = 0; i < 3 && !ended; i++) {
		const stopped = dc.waitForEvent('stopped').catch(() => null);
		await dc.continueRequest({ threadId });
		const st = await Promise.race([stopped, terminated.then(() => null)]);
		if (st) assert.equal(st.body.reason, 'end of recording', JSON.stringify(st.body));
	}
	return { exited: (await exited).body, terminated: await terminated };
}

test('launch stops at entry and lists threads', async () => {
	const dc = await session({});
	try {
		const st = await stopAfter(dc, dc.configurationDoneRequest());
		assert.equal(st.reason, 'entry');
		const th = await dc.threadsRequest();
		assert.equal(th.body.threads.length, 1);
		assert.match(th.body.threads[0].name, /dapprog/);
		assert.equal(th.body.threads[0].id, st.threadId);
		const sc = await dc.scopesRequest({ frameId: (await dc.stackTraceRequest({ threadId: st.threadId })).body.stackFrames[0].id });
		const regs = await dc.variablesRequest({ variablesReference: sc.body.scopes.find((s) => s.name === 'Registers').variablesReference });
		const rip = regs.body.variables.find((v) => v.name === 'rip');
		assert.equal(parseInt(rip.value, 16), await pc(dc, st.threadId));
	} finally {
		await dc.stop();
	}
});

test('instruction breakpoints, steps by instruction both ways, reverseContinue', async () => {
	const dc = await session({});
	try {
		const entry = await stopAfter(dc, dc.configurationDoneRequest());
		const bps = await dc.customRequest('setInstructionBreakpoints', { breakpoints: [{ instructionReference: hex(SYM.bump) }] });
		assert.equal(bps.body.breakpoints[0].verified, true);
		let st = await stopAfter(dc, dc.continueRequest({ threadId: entry.threadId }));
		assert.equal(st.reason, 'instruction breakpoint');
		assert.deepEqual(st.hitBreakpointIds, [bps.body.breakpoints[0].id]);
		const t = st.threadId;
		assert.equal(await pc(dc, t), SYM.bump);
		const th = await dc.threadsRequest();
		assert.ok(th.body.threads.length >= 2, 'the workers are listed');
		const first = (await dc.evaluateRequest({ expression: 'when', context: 'repl' })).body.result;

		st = await stopAfter(dc, dc.stepInRequest({ threadId: t, granularity: 'instruction' }));
		assert.equal(st.reason, 'step');
		const next = await pc(dc, t);
		assert.notEqual(next, SYM.bump);
		st = await stopAfter(dc, dc.stepBackRequest({ threadId: t, granularity: 'instruction' }));
		assert.equal(st.reason, 'step');
		assert.equal(await pc(dc, t), SYM.bump, 'stepBack returns to the previous pc');
		await assert.rejects(dc.stepInRequest({ threadId: t, granularity: 'word' }), /no granularity 'word'/);

		// the second hit, then back to the first, then the start
		st = await stopAfter(dc, dc.continueRequest({ threadId: t }));
		assert.equal(st.reason, 'instruction breakpoint');
		const second = (await dc.evaluateRequest({ expression: 'when', context: 'repl' })).body.result;
		assert.notEqual(second, first);
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'instruction breakpoint');
		assert.equal((await dc.evaluateRequest({ expression: 'when', context: 'repl' })).body.result, first);
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'start of recording');
		assert.match(st.description, /start of the recording/);

		// goto N through the repl
		const gone = dc.waitForEvent('stopped');
		const g = await dc.evaluateRequest({ expression: 'goto 5', context: 'repl' });
		assert.match(g.body.result, /going to event 5/);
		assert.equal((await gone).body.reason, 'goto');
		// event 5, or the first stop after it where 5 is an input frame of
		// the call that follows (docs/gdb.md "monitor goto")
		const at5 = (await dc.evaluateRequest({ expression: 'when', context: 'repl' })).body.result;
		const m5 = /^event (\d+)\b/.exec(at5);
		assert.ok(m5 && Number(m5[1]) >= 5, `after goto 5: ${at5}`);
		// (a hover is a C expression: counter is 0 before the workers)
		assert.equal((await dc.evaluateRequest({ expression: 'counter + 1', context: 'hover' })).body.result, '1');
	} finally {
		await dc.stop();
	}
});

test('a data breakpoint on counter: each write forwards, the last write backwards', async () => {
	const dc = await session({});
	try {
		const entry = await stopAfter(dc, dc.configurationDoneRequest());
		const id = await dataBreakpoint(dc, 'counter');
		assert.equal(id, `${hex(SYM.counter)}/4`);
		const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: id, accessType: 'write' }] });
		assert.equal(set.body.breakpoints[0].verified, true);
		const writes = [];
		let t = entry.threadId;
		for (;;) {
			const st = await stopAfter(dc, dc.continueRequest({ threadId: t }));
			if (st.reason !== 'data breakpoint') {
				assert.equal(st.reason, 'end of recording');
				break;
			}
			t = st.threadId;
			assert.deepEqual(st.hitBreakpointIds, [set.body.breakpoints[0].id]);
			const m = /a write to 0x[0-9a-f]+ \(4 bytes\): (\d+) -> (\d+)/.exec(st.description);
			assert.ok(m, st.description);
			assert.equal(Number(m[2]), await readInt(dc, SYM.counter), 'stopped after the write');
			writes.push([Number(m[1]), Number(m[2])]);
			if (writes.length === 4) {
				// backwards: the last write (the fourth), then the third
				for (const k of [3, 2]) {
					const back = await stopAfter(dc, dc.reverseContinueRequest({ threadId: t }));
					assert.equal(back.reason, 'data breakpoint');
					const b = /the last write to 0x[0-9a-f]+ \(4 bytes\): (\d+) -> (\d+)/.exec(back.description);
					assert.ok(b, back.description);
					assert.deepEqual([Number(b[1]), Number(b[2])], writes[k]);
					assert.equal(await readInt(dc, SYM.counter), writes[k][0], 'stopped before the write');
					t = back.threadId;
				}
				// and forwards again to where it was
				for (const k of [2, 3]) {
					const fwd = await stopAfter(dc, dc.continueRequest({ threadId: t }));
					assert.match(fwd.description, new RegExp(`: ${writes[k][0]} -> ${writes[k][1]}$`));
					t = fwd.threadId;
				}
			}
		}
		// two threads, three bumps each, each changing the value
		assert.equal(writes.length, 6, JSON.stringify(writes));
		for (let i = 1; i < writes.length; i++) assert.equal(writes[i][0], writes[i - 1][1]);
		assert.equal(`counter ${writes[5][1]}\n`, STDOUT);
	} finally {
		await dc.stop();
	}
});

test('six data breakpoints at once', async () => {
	const dc = await session({});
	try {
		const entry = await stopAfter(dc, dc.configurationDoneRequest());
		const ids = [];
		for (let i = 0; i < 6; i++) ids.push(await dataBreakpoint(dc, hex(SYM.slots + 4 * i), 4));
		const set = await dc.setDataBreakpointsRequest({ breakpoints: ids.map((dataId) => ({ dataId })) });
		assert.equal(set.body.breakpoints.length, 6);
		for (const b of set.body.breakpoints) assert.equal(b.verified, true, b.message);
		let t = entry.threadId;
		for (let i = 0; i < 6; i++) {
			const st = await stopAfter(dc, dc.continueRequest({ threadId: t }));
			assert.equal(st.reason, 'data breakpoint');
			assert.deepEqual(st.hitBreakpointIds, [set.body.breakpoints[i].id], `slot ${i}`);
			t = st.threadId;
		}
		const { exited } = await runToEnd(dc, t);
		assert.equal(exited.exitCode, 0);
	} finally {
		await dc.stop();
	}
});

test('to the end: the output events, exited and terminated', async () => {
	const dc = await session({ stopOnEntry: false });
	try {
		// the end of the recording is a stop (history can be gone back
		// over from there); continuing from it ends the session
		const end = await stopAfter(dc, dc.configurationDoneRequest());
		assert.equal(end.reason, 'end of recording');
		const exited = dc.waitForEvent('exited');
		const terminated = dc.waitForEvent('terminated');
		await dc.continueRequest({ threadId: end.threadId });
		assert.equal((await exited).body.exitCode, 0);
		await terminated;
		const text = (cat) => dc.outputs.filter((o) => o.category === cat).map((o) => o.output).join('');
		assert.equal(text('stdout'), STDOUT);
		assert.equal(text('stderr'), 'dapprog done\n');
	} finally {
		await dc.stop();
	}
});

test('readMemory and disassemble give the program\'s bytes and instructions', async () => {
	const dc = await session({});
	try {
		await stopAfter(dc, dc.configurationDoneRequest());
		const dump = cp.execFileSync('objdump', ['-d', `--disassemble=bump`, PROG], { encoding: 'utf8' });
		const insns = [];
		for (const line of dump.split('\n')) {
			const m = /^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(\S*)/.exec(line);
			if (m) insns.push({ addr: parseInt(m[1], 16), bytes: m[2].trim(), mnemonic: m[3] });
		}
		assert.ok(insns.length >= 4, dump);
		const all = insns.map((i) => i.bytes).join(' ');
		const mem = await dc.customRequest('readMemory', { memoryReference: hex(SYM.bump), count: all.split(' ').length });
		assert.equal(mem.body.address, hex(SYM.bump));
		assert.equal(Buffer.from(mem.body.data, 'base64').toString('hex').replace(/(..)(?!$)/g, '$1 '), all);
		const dis = await dc.customRequest('disassemble', { memoryReference: hex(SYM.bump), instructionOffset: -2, instructionCount: insns.length + 2 });
		const got = dis.body.instructions;
		assert.equal(got.length, insns.length + 2);
		for (let i = 0; i < insns.length; i++) {
			assert.equal(parseInt(got[i + 2].address, 16), insns[i].addr);
			assert.equal(got[i + 2].instructionBytes, insns[i].bytes);
			assert.equal(got[i + 2].instruction.split(' ')[0], insns[i].mnemonic.replace(/q$/, ''));
		}
		assert.equal(got[2].symbol, 'bump');
		assert.ok(parseInt(got[1].address, 16) < SYM.bump);
		const far = await dc.customRequest('readMemory', { memoryReference: '0x10', count: 16 });
		assert.equal(far.body.unreadableBytes, 16);
	} finally {
		await dc.stop();
	}
});

// ---- malformed messages, on the wire ----

function rawAdapter() {
	const child = cp.spawn(DAP, [], { env: process.env });
	const a = { child, buf: Buffer.alloc(0), msgs: [], stderr: '', waiters: [] };
	child.stderr.on('data', (d) => { a.stderr += d; });
	child.stdout.on('data', (d) => {
		a.buf = Buffer.concat([a.buf, d]);
		for (;;) {
			const end = a.buf.indexOf('\r\n\r\n');
			if (end < 0) break;
			const len = Number(/Content-Length: (\d+)/.exec(a.buf.slice(0, end).toString())[1]);
			if (a.buf.length < end + 4 + len) break;
			a.msgs.push(JSON.parse(a.buf.slice(end + 4, end + 4 + len).toString()));
			a.buf = a.buf.slice(end + 4 + len);
		}
		a.waiters = a.waiters.filter((w) => !w());
	});
	return a;
}

// What the adapter said on its console (output events, in order with the
// responses; its stderr has the same lines, but comes when it comes).
function said(a) {
	return a.msgs.filter((m) => m.event === 'output').map((m) => m.body.output).join('');
}

function frame(obj) {
	const body = Buffer.from(typeof obj === 'string' ? obj : JSON.stringify(obj));
	return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

function response(a, seq) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`no response to ${seq}; stderr: ${a.stderr}`)), TIMEOUT);
		const look = () => {
			const m = a.msgs.find((x) => x.type === 'response' && x.request_seq === seq);
			if (m) { clearTimeout(timer); resolve(m); }
			return !!m;
		};
		if (!look()) a.waiters.push(look);
	});
}

test('malformed messages get error responses or a line on stderr, and the adapter goes on', async () => {
	const a = rawAdapter();
	try {
		const w = (b) => a.child.stdin.write(b);
		w(frame({ seq: 1, type: 'request', command: 'initialize', arguments: { adapterID: 'hermit' } }));
		assert.equal((await response(a, 1)).success, true);
		// no Content-Length: dropped with a line
		w('{"seq":2,"type":"request","command":"threads"}');
		w(frame({ seq: 3, type: 'request', command: 'threads' }));
		assert.equal((await response(a, 3)).success, true);
		assert.match(said(a), /dropped a message: text outside a message/);
		// a header without Content-Length
		w('Content-Type: application/json\r\n\r\n');
		w(frame({ seq: 4, type: 'request', command: 'threads' }));
		assert.equal((await response(a, 4)).success, true);
		// a length too short, then too long: each body is cut wrong
		const body = JSON.stringify({ seq: 5, type: 'request', command: 'threads' });
		w(`Content-Length: ${body.length - 5}\r\n\r\n${body}`);
		w(`Content-Length: ${body.length + 40}\r\n\r\n${body}`);
		w(frame({ seq: 6, type: 'request', command: 'threads' }));
		w(frame({ seq: 7, type: 'request', command: 'threads' }));
		assert.equal((await response(a, 7)).success, true);
		assert.ok(!a.msgs.some((m) => m.request_seq === 5), 'a cut message is not answered');
		// not JSON; JSON that is no object
		w(frame('{"seq": 8, "type": "request", "comm'));
		w(frame('[1, 2, 3]'));
		w(frame({ seq: 9, type: 'request', command: 'threads' }));
		assert.equal((await response(a, 9)).success, true);
		assert.match(said(a), /not JSON/);
		assert.match(said(a), /not a JSON object/);
		// an unknown command
		w(frame({ seq: 10, type: 'request', command: 'fly' }));
		const unknown = await response(a, 10);
		assert.equal(unknown.success, false);
		assert.equal(unknown.command, 'fly');
		assert.match(unknown.message, /unrecognized request 'fly'/);
		// wrong argument types
		w(frame({ seq: 11, type: 'request', command: 'launch', arguments: { stopOnEntry: 'yes' } }));
		assert.match((await response(a, 11)).message, /'stopOnEntry' must be true or false/);
		w(frame({ seq: 12, type: 'request', command: 'readMemory', arguments: { memoryReference: '0x1000', count: 'ten' } }));
		const rm = await response(a, 12);
		assert.equal(rm.success, false);
		w(frame({ seq: 13, type: 'request', command: 'evaluate', arguments: 7 }));
		assert.match((await response(a, 13)).message, /'arguments' must be an object/);
		w(frame({ seq: 14, type: 'request', command: 'setDataBreakpoints', arguments: { breakpoints: [{ dataId: 5 }] } }));
		assert.equal((await response(a, 14)).success, false);
		// a request before launch that needs a replay
		w(frame({ seq: 15, type: 'request', command: 'continue', arguments: { threadId: 1 } }));
		assert.match((await response(a, 15)).message, /launch one first/);
		// a recording that is not there
		w(frame({ seq: 16, type: 'request', command: 'launch', arguments: { recording: 'nosuch-9' } }));
		assert.match((await response(a, 16)).message, /nosuch-9/);
		// still answering, with seq numbers in order
		w(frame({ seq: 17, type: 'request', command: 'disconnect' }));
		assert.equal((await response(a, 17)).success, true);
		const seqs = a.msgs.map((m) => m.seq);
		assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
		const code = a.child.exitCode !== null ? a.child.exitCode
			: await new Promise((resolve) => a.child.on('exit', resolve));
		assert.equal(code, 0);
		assert.match(a.stderr, /dropped a message: text outside a message/);
	} finally {
		a.child.kill();
	}
});
