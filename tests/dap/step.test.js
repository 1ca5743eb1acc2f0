// SPDX-License-Identifier: BSD-3-Clause
// Source-level breakpoints and stepping in hermit-dap, forwards and
// backwards, driven by @vscode/debugadapter-testsupport's DebugClient on a
// recording of tests/guests/dapsteps (main -> compute -> add in a loop, a
// qsort with a comparator, a recursive depth(), two racing threads). Run
// by tests/integration/dap.sh, which records the guest and sets
// HERMIT_DAP, GUESTS, TESTS_SRCDIR, HERMIT_DATA_DIR and DAPSTEPS_ID. Lines
// are found by the "@name" marks in the guest's comments; the line of a pc
// comes from addr2line, globals' addresses from nm (no PIE), so the checks
// do not rest on the adapter's own reading of the debug info.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const DAP = process.env.HERMIT_DAP;
const PROG = path.join(process.env.GUESTS, 'dapsteps');
const SRC = path.join(process.env.TESTS_SRCDIR, 'guests', 'dapsteps.c');
const RECORDING = process.env.DAPSTEPS_ID;
const TIMEOUT = 120000; // a bound for a hung adapter, not a measure of speed

const SOURCE = fs.readFileSync(SRC, 'utf8').split('\n');
// The line marked /* @NAME */.
function L(name) {
	const i = SOURCE.findIndex((l) => l.endsWith(`/* @${name} */`));
	assert.ok(i >= 0, `no line marked @${name}`);
	return i + 1;
}

const SYM = {};
for (const line of cp.execFileSync('nm', [PROG], { encoding: 'utf8' }).split('\n')) {
	const m = /^([0-9a-f]+) \w (\w+)$/.exec(line);
	if (m) SYM[m[2]] = parseInt(m[1], 16);
}
const hex = (n) => '0x' + n.toString(16);

// The source line of ADDR (addr2line), 0 for none.
function lineOf(addr) {
	const out = cp.execFileSync('addr2line', ['-e', PROG, hex(addr)], { encoding: 'utf8' }).trim();
	const m = /:(\d+)/.exec(out);
	return m ? Number(m[1]) : 0;
}

// Line table rows (objdump's decoded lines): the addresses where each
// line starts.
const STARTS = new Set();
// The return addresses of the program's calls (objdump -d).
const RETURNS = new Set();
{
	let prev = null;
	for (const line of cp.execFileSync('objdump', ['-d', PROG], { encoding: 'utf8' }).split('\n')) {
		const m = /^\s+([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t?(\S*)/.exec(line);
		if (!m) continue;
		const addr = parseInt(m[1], 16);
		if (prev && prev.call) RETURNS.add(addr);
		prev = { call: m[2].startsWith('call') };
	}
}
for (const line of cp.execFileSync('objdump', ['--dwarf=decodedline', PROG], { encoding: 'utf8' }).split('\n')) {
	const m = /^dapsteps\.c\s+\d+\s+(0x[0-9a-f]+)/.exec(line);
	if (m) STARTS.add(parseInt(m[1], 16));
}

async function session() {
	const dc = new DebugClient(DAP, '--log=warn', 'hermit', { env: process.env }, false);
	dc.defaultTimeout = TIMEOUT;
	await dc.start();
	const init = await dc.initializeRequest();
	assert.equal(init.body.supportsStepBack, true);
	assert.equal(init.body.supportsSteppingGranularity, true);
	assert.equal(init.body.supportsGotoTargetsRequest, true);
	const initialized = dc.waitForEvent('initialized');
	await dc.launchRequest({ recording: RECORDING, stopOnEntry: true });
	await initialized;
	const entry = await stopAfter(dc, dc.configurationDoneRequest());
	assert.equal(entry.reason, 'entry');
	dc.tid = entry.threadId;
	return dc;
}

async function stopAfter(dc, request) {
	const stopped = dc.waitForEvent('stopped');
	await request;
	return (await stopped).body;
}

// REQ with ARGS (the stopped thread's), and the stop it brings.
async function go(dc, req, args = {}) {
	const st = await stopAfter(dc, dc.customRequest(req, Object.assign({ threadId: dc.tid }, args)));
	dc.tid = st.threadId;
	return st;
}

async function pc(dc) {
	const st = await dc.stackTraceRequest({ threadId: dc.tid });
	return parseInt(st.body.stackFrames[0].instructionPointerReference, 16);
}

async function reg(dc, name) {
	const st = await dc.stackTraceRequest({ threadId: dc.tid });
	const sc = await dc.scopesRequest({ frameId: st.body.stackFrames[0].id });
	const regs = sc.body.scopes.find((s) => s.name === 'Registers');
	const vars = await dc.variablesRequest({ variablesReference: regs.variablesReference });
	return BigInt(vars.body.variables.find((v) => v.name === name).value);
}

async function readInt(dc, sym) {
	const r = await dc.customRequest('readMemory', { memoryReference: hex(SYM[sym]), count: 4 });
	return Buffer.from(r.body.data, 'base64').readInt32LE(0);
}

async function lines(dc, names) {
	const r = await dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: names.map((n) => ({ line: typeof n === 'number' ? n : L(n) })) });
	return r.body.breakpoints;
}

// Stopped at line NAME: its line (addr2line) and a line start.
async function at(dc, name, what) {
	const p = await pc(dc);
	assert.equal(lineOf(p), L(name), `${what}: at ${hex(p)}, line ${lineOf(p)}, not @${name}`);
	return p;
}

test('a breakpoint by line, one on a blank line, one with no code', async () => {
	const dc = await session();
	try {
		const blank = L('call-add') + 1;
		assert.equal(SOURCE[blank - 1].trim(), '', 'the line after @call-add is blank');
		const bps = await lines(dc, ['compute-first', blank, SOURCE.length + 50]);
		assert.equal(bps[0].verified, true);
		assert.equal(bps[0].line, L('compute-first'));
		assert.equal(bps[1].verified, true);
		assert.equal(bps[1].line, L('qsort'), 'a blank line moves to the next with code');
		assert.equal(bps[2].verified, false);
		assert.match(bps[2].message, /no code/);
		let st = await go(dc, 'continue');
		assert.equal(st.reason, 'breakpoint');
		assert.deepEqual(st.hitBreakpointIds, [bps[0].id]);
		const p = await at(dc, 'compute-first', 'the first breakpoint');
		assert.ok(STARTS.has(p));
		st = await go(dc, 'continue');
		assert.equal(st.reason, 'breakpoint');
		assert.deepEqual(st.hitBreakpointIds, [bps[1].id]);
		await at(dc, 'qsort', 'the moved breakpoint');
		// a source with no code in the program
		const none = await dc.setBreakpointsRequest({ source: { path: '/nowhere/none.c' }, breakpoints: [{ line: 3 }] });
		assert.equal(none.body.breakpoints[0].verified, false);
		await assert.rejects(dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: 'x' }] }), /line/);
	} finally {
		await dc.stop();
	}
});

test('next steps over calls, stepIn enters add, stepOut returns, libc is stepped over', async () => {
	const dc = await session();
	try {
		await lines(dc, ['compute-first']);
		await go(dc, 'continue');
		await lines(dc, []);
		let st = await go(dc, 'next');
		assert.equal(st.reason, 'step');
		await at(dc, 'loop', 'next from @compute-first');
		await go(dc, 'next');
		const call = await at(dc, 'call-add', 'next into the loop');
		// next over the call: add ran (total changed), no stop inside it
		await go(dc, 'next');
		await at(dc, 'loop', 'next over add()');
		await go(dc, 'next');
		assert.equal(await pc(dc), call, 'the next iteration, at the line start');
		assert.equal(await readInt(dc, 'total'), 0);
		// stepIn: add's first line, after the prologue
		st = await go(dc, 'stepIn');
		assert.equal(st.reason, 'step');
		const inAdd = await at(dc, 'add-first', 'stepIn');
		assert.ok(inAdd > SYM.add && inAdd < SYM.by_value, 'in add, past its prologue');
		await go(dc, 'next');
		await at(dc, 'add-return', 'next in add');
		// stepOut: back in compute, at the return address (mid-line)
		st = await go(dc, 'stepOut');
		assert.equal(st.reason, 'step');
		const back = await at(dc, 'call-add', 'stepOut');
		assert.ok(back > call && RETURNS.has(back), 'stepOut stops at the return address');
		// next from mid-line: on to the next line start
		await go(dc, 'next');
		await at(dc, 'loop', 'next after stepOut');
		assert.equal(await readInt(dc, 'total'), 1);
		// qsort has no line info: stepIn goes over it, comparator included
		await lines(dc, ['qsort']);
		st = await go(dc, 'continue');
		assert.equal(st.reason, 'breakpoint');
		await lines(dc, []);
		st = await go(dc, 'stepIn');
		assert.equal(st.reason, 'step');
		await at(dc, 'compute-return', 'stepIn over qsort');
		// instruction granularity still steps one instruction
		const before = await pc(dc);
		await go(dc, 'next', { granularity: 'instruction' });
		const one = await pc(dc);
		assert.ok(one > before && one - before < 16, `${hex(before)} -> ${hex(one)}`);
		await go(dc, 'stepBack', { granularity: 'instruction' });
		assert.equal(await pc(dc), before);
		await assert.rejects(dc.nextRequest({ threadId: dc.tid, granularity: 'word' }), /no granularity 'word'/);
	} finally {
		await dc.stop();
	}
});

test('stepOut in a recursion returns to the right depth', async () => {
	const dc = await session();
	try {
		await lines(dc, ['depth-first']);
		const sp = {};
		for (let n = 3; n >= 0; n--) {
			const st = await go(dc, 'continue');
			assert.equal(st.reason, 'breakpoint');
			// (depth_seen is written by the line stopped at)
			assert.equal(await readInt(dc, 'depth_seen'), n === 3 ? 0 : n + 1);
			sp[n] = await reg(dc, 'rsp');
		}
		await lines(dc, []);
		// depth(0) -> depth(1) -> depth(2): each at the call, with its frame's sp
		for (const n of [1, 2]) {
			const st = await go(dc, 'stepOut');
			assert.equal(st.reason, 'step');
			await at(dc, 'depth-call', `stepOut to depth(${n})`);
			assert.equal(await reg(dc, 'rsp'), sp[n], `stepOut lands in depth(${n})'s frame`);
		}
		// next from there finishes the line: depth(2)'s closing brace
		await go(dc, 'next');
		await at(dc, 'depth-end', 'next after stepOut');
		assert.equal(await reg(dc, 'rsp'), sp[2]);
		// and from there returns into depth(3) mid-line, which it
		// finishes to its closing brace, as gdb does
		await go(dc, 'next');
		await at(dc, 'depth-end', 'next out of depth(2)');
		assert.equal(await reg(dc, 'rsp'), sp[3]);
	} finally {
		await dc.stop();
	}
});

// @call-add runs with i = 0, 1, 2, 3: total is 0, 0, 1, 3 before it.
const TOTALS = [0, 0, 1, 3];

// To the third run of @call-add (a line breakpoint's hit), breakpoints
// cleared: its pc.
async function third(dc) {
	dc.bps = await lines(dc, ['call-add']);
	for (let i = 0; i < 3; i++) {
		const st = await go(dc, 'continue');
		assert.equal(st.reason, 'breakpoint');
		assert.equal(await readInt(dc, 'total'), TOTALS[i]);
	}
	return at(dc, 'call-add', 'the third hit');
}

test('reverseContinue and goto: the previous and next executions of a line', async () => {
	const dc = await session();
	try {
		const p3 = await third(dc);
		let st = await go(dc, 'reverseContinue');
		assert.equal(st.reason, 'breakpoint');
		assert.deepEqual(st.hitBreakpointIds, [dc.bps[0].id]);
		assert.equal(await pc(dc), p3);
		assert.equal(await readInt(dc, 'total'), TOTALS[1]);
		await go(dc, 'continue');
		assert.equal(await readInt(dc, 'total'), TOTALS[2]);
		await lines(dc, []);
		const tg = await dc.customRequest('gotoTargets', { source: { path: SRC }, line: L('call-add') });
		assert.equal(tg.body.targets.length, 2);
		const prev = tg.body.targets.find((t) => /previous/.test(t.label));
		const next = tg.body.targets.find((t) => /next/.test(t.label));
		assert.equal(prev.line, L('call-add'));
		st = await go(dc, 'goto', { targetId: prev.id });
		assert.equal(st.reason, 'goto');
		assert.equal(await pc(dc), p3);
		assert.equal(await readInt(dc, 'total'), TOTALS[1]);
		st = await go(dc, 'goto', { targetId: next.id });
		assert.equal(st.reason, 'goto');
		assert.equal(await readInt(dc, 'total'), TOTALS[2]);
		st = await go(dc, 'goto', { targetId: next.id });
		assert.equal(await readInt(dc, 'total'), TOTALS[3]);
		await assert.rejects(dc.customRequest('goto', { threadId: dc.tid, targetId: 99999 }), /no target/);
	} finally {
		await dc.stop();
	}
});

test('stepBack in a function and from its first line to the calling line', async () => {
	const dc = await session();
	try {
		const p3 = await third(dc);
		await lines(dc, []);
		await go(dc, 'stepIn');
		await at(dc, 'add-first', 'stepIn');
		await go(dc, 'next');
		await at(dc, 'add-return', 'next in add');
		const st = await go(dc, 'stepBack');
		assert.equal(st.reason, 'step');
		await at(dc, 'add-first', 'stepBack in add');
		// from add's first line: the calling line's start, in compute
		await go(dc, 'stepBack');
		assert.equal(await pc(dc), p3, 'stepBack out of add to the calling line');
		assert.equal(await readInt(dc, 'total'), TOTALS[2], 'in the same turn of the loop');
	} finally {
		await dc.stop();
	}
});

// Stepping back over add and reverseStepOut go back by breakpoints put
// in late (on add's return address while stepping over it, on its first
// instruction while stepping back): the stub's positions must name the
// same pass however late the breakpoint came (tests/gdb/rcontlate.py).
test('reverseStepOut lands on the call instruction, before the call', async () => {
	const dc = await session();
	try {
		const p3 = await third(dc);
		await lines(dc, []);
		await go(dc, 'stepIn');
		await at(dc, 'add-first', 'stepIn');
		await go(dc, 'next');
		const st = await go(dc, 'reverseStepOut');
		assert.equal(st.reason, 'step');
		const callInsn = await pc(dc);
		await at(dc, 'call-add', 'reverseStepOut');
		assert.ok(callInsn > p3 && RETURNS.has(callInsn + 5), 'at the call instruction');
		const dis = await dc.customRequest('disassemble', { memoryReference: hex(callInsn), instructionCount: 1 });
		assert.match(dis.body.instructions[0].instruction, /^call/);
		assert.equal(await readInt(dc, 'total'), TOTALS[2]);
	} finally {
		await dc.stop();
	}
});

test('stepBack over a call line: on the call line, with the earlier value', async () => {
	const dc = await session();
	try {
		const p3 = await third(dc);
		await lines(dc, []);
		await go(dc, 'next');
		await at(dc, 'loop', 'next');
		assert.equal(await readInt(dc, 'total'), TOTALS[3]);
		const st = await go(dc, 'stepBack');
		assert.equal(st.reason, 'step');
		assert.equal(await pc(dc), p3, 'stepBack over the call lands on the call line');
		assert.equal(await readInt(dc, 'total'), TOTALS[2], 'with the earlier value');
		await go(dc, 'stepBack');
		assert.ok(STARTS.has(await at(dc, 'loop', 'stepBack to the loop')));
	} finally {
		await dc.stop();
	}
});

test('line breakpoints in a thread, and stepping there', async () => {
	const dc = await session();
	try {
		const bps = await lines(dc, ['racer']);
		const st = await go(dc, 'continue');
		assert.equal(st.reason, 'breakpoint');
		assert.deepEqual(st.hitBreakpointIds, [bps[0].id]);
		const th = await dc.threadsRequest();
		assert.ok(th.body.threads.length >= 2, 'a racer runs beside main');
		const t = dc.tid;
		const v = await readInt(dc, 'racy');
		await lines(dc, []);
		await go(dc, 'next');
		assert.equal(dc.tid, t, 'next stays in its thread');
		assert.equal(await readInt(dc, 'racy'), v + 1);
		await go(dc, 'stepBack');
		assert.equal(dc.tid, t);
		await at(dc, 'racer', 'stepBack in the thread');
		assert.equal(await readInt(dc, 'racy'), v);
	} finally {
		await dc.stop();
	}
});

test('the start and the end of the recording stop steps', async () => {
	const dc = await session();
	try {
		// at the first instruction: no line, nothing before
		let st = await go(dc, 'stepBack');
		assert.equal(st.reason, 'start of recording');
		st = await go(dc, 'reverseStepOut').catch((e) => ({ reason: String(e) }));
		assert.match(st.reason, /start of recording|no function/);
		// to the end: stepping there stops there again
		st = await go(dc, 'continue');
		assert.equal(st.reason, 'end of recording');
		const end = await pc(dc);
		for (const req of ['next', 'stepIn', 'stepOut']) {
			st = await go(dc, req);
			assert.equal(st.reason, 'end of recording', req);
			assert.equal(await pc(dc), end);
		}
		// and back from there by a line
		st = await go(dc, 'stepBack');
		assert.notEqual(st.reason, 'end of recording');
	} finally {
		await dc.stop();
	}
});
