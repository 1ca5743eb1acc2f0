// SPDX-License-Identifier: BSD-3-Clause
// A stop at source level, through @vscode/debugadapter-testsupport as VS
// Code drives hermit-dap, on a recording of tests/guests/inspectme (main
// -> measure -> sort_sum -> qsort in libc -> by_value, structs, arrays,
// pointers, globals, a second thread waiting in read). Run by
// tests/integration/dap.sh, which records the guest (INSPECTME_ID) and
// sets HERMIT_DAP, GUESTS_SRC and HERMIT_DATA_DIR. Lines are found by the
// guest's "line:" markers; by_value is reached ten times (its comparisons
// see *(int *)a = 7, 42, 42, 88, 3, 7, 7, 19, 42, 42, with `compares`
// counting them from 0).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const DAP = process.env.HERMIT_DAP;
const ID = process.env.INSPECTME_ID;
const SRC = fs.readFileSync(path.join(process.env.GUESTS_SRC, 'inspectme.c'), 'utf8').split('\n');
// A bound for a hung adapter, not a measure of speed.
const TIMEOUT = 120000;

function line(marker) {
	const i = SRC.findIndex((l) => l.includes(`/* line:${marker} */`));
	assert.ok(i >= 0, marker);
	return i + 1;
}

async function session() {
	const dc = new DebugClient(DAP, '--log=warn', 'hermit', { env: process.env }, false);
	dc.defaultTimeout = TIMEOUT;
	dc.outputs = [];
	dc.on('output', (e) => dc.outputs.push(e.body));
	await dc.start();
	const init = await dc.initializeRequest();
	for (const cap of ['supportsConditionalBreakpoints', 'supportsHitConditionalBreakpoints',
		'supportsEvaluateForHovers', 'supportsLoadedSourcesRequest', 'supportsModulesRequest'])
		assert.equal(init.body[cap], true, cap);
	const initialized = dc.waitForEvent('initialized');
	await dc.launchRequest({ recording: ID, stopOnEntry: true });
	await initialized;
	dc.entry = await stopAfter(dc, dc.configurationDoneRequest());
	return dc;
}

async function stopAfter(dc, request) {
	const stopped = dc.waitForEvent('stopped');
	await request;
	return (await stopped).body;
}

async function evaluate(dc, expression, frameId, context) {
	const args = { expression, context: context || 'watch' };
	if (frameId) args.frameId = frameId;
	return (await dc.evaluateRequest(args)).body;
}

const value = async (dc, e, frameId) => (await evaluate(dc, e, frameId)).result;

async function children(dc, ref, extra) {
	return (await dc.variablesRequest(Object.assign({ variablesReference: ref }, extra || {}))).body.variables;
}

const byName = (vars, name) => {
	const v = vars.find((x) => x.name === name);
	assert.ok(v, `${name} in ${JSON.stringify(vars.map((x) => x.name))}`);
	return v;
};

async function toComparator(dc, bp) {
	const set = await dc.setFunctionBreakpointsRequest({ breakpoints: [Object.assign({ name: 'by_value' }, bp || {})] });
	assert.equal(set.body.breakpoints[0].verified, true, set.body.breakpoints[0].message);
	const st = await stopAfter(dc, dc.continueRequest({ threadId: dc.entry.threadId }));
	assert.equal(st.reason, 'function breakpoint', JSON.stringify(st));
	return st;
}

async function frames(dc, threadId) {
	return (await dc.stackTraceRequest({ threadId })).body;
}

test('stackTrace: each frame down to main, through qsort in libc; paging; the other thread', async () => {
	const dc = await session();
	try {
		const st = await toComparator(dc);
		const trace = await frames(dc, st.threadId);
		const f = trace.stackFrames;
		assert.equal(trace.totalFrames, f.length);
		const at = (name) => {
			const i = f.findIndex((x) => x.name === name);
			assert.ok(i >= 0, `${name} in ${f.map((x) => x.name).join(' <- ')}`);
			return i;
		};
		assert.equal(f[0].name, 'by_value');
		const sort = at('sort_sum'), measure = at('measure'), main = at('main');
		assert.ok(sort > 1 && measure === sort + 1 && main === measure + 1);
		for (const [i, marker] of [[0, 'compare'], [sort, 'qsort'], [measure, 'measure'], [main, 'main']]) {
			assert.match(f[i].source.path, /tests\/guests\/inspectme\.c$/);
			assert.equal(f[i].source.name, 'inspectme.c');
			assert.equal(f[i].line, line(marker), `${f[i].name}'s line`);
			assert.ok(f[i].column >= 1);
			assert.match(f[i].instructionPointerReference, /^0x[0-9a-f]+$/);
		}
		// between the comparator and its caller: libc (qsort and its
		// merge sort), with or without libc's debug info
		const libc = f.slice(1, sort);
		assert.ok(libc.every((x) => /libc\.so/.test(x.moduleId)), JSON.stringify(libc));
		assert.ok(libc.some((x) => /qsort/.test(x.name)), libc.map((x) => x.name).join(' '));
		for (const x of f) {
			if (!x.source) assert.equal(x.presentationHint, 'subtle', x.name);
		}
		// paging, with the same ids
		const page = await dc.stackTraceRequest({ threadId: st.threadId, startFrame: sort, levels: 2 });
		assert.equal(page.body.totalFrames, f.length);
		assert.deepEqual(page.body.stackFrames.map((x) => [x.id, x.name]), [[f[sort].id, 'sort_sum'], [f[measure].id, 'measure']]);
		// a caller's registers: its pc is its return address
		const sc = await dc.scopesRequest({ frameId: f[measure].id });
		const regs = await children(dc, byName(sc.body.scopes, 'Registers').variablesReference);
		assert.equal(parseInt(byName(regs, 'rip').value, 16), parseInt(f[measure].instructionPointerReference, 16));
		// the worker, waiting in read
		const th = (await dc.threadsRequest()).body.threads;
		assert.equal(th.length, 2);
		const other = th.find((t) => t.id !== st.threadId);
		const w = (await frames(dc, other.id)).stackFrames;
		const wi = w.findIndex((x) => x.name === 'worker');
		assert.ok(wi > 0, w.map((x) => x.name).join(' <- '));
		assert.equal(w[wi].line, line('wait'));
	} finally {
		await dc.stop();
	}
});

test('scopes and variables: locals, arguments, a struct, an array with paging, a pointer', async () => {
	const dc = await session();
	try {
		const st = await toComparator(dc);
		const f = (await frames(dc, st.threadId)).stackFrames;
		let sc = (await dc.scopesRequest({ frameId: f[0].id })).body.scopes;
		assert.deepEqual(sc.map((s) => s.name), ['Locals', 'Arguments', 'Registers']);
		assert.deepEqual((await children(dc, sc[0].variablesReference)).map((v) => v.name), ['x', 'y']);
		const args = await children(dc, sc[1].variablesReference);
		assert.deepEqual(args.map((v) => [v.name, v.type]), [['a', 'const void *'], ['b', 'const void *']]);

		const measure = f.find((x) => x.name === 'measure');
		sc = (await dc.scopesRequest({ frameId: measure.id })).body.scopes;
		const locals = await children(dc, sc[0].variablesReference);
		// the array: its elements, in pages
		const vals = byName(locals, 'vals');
		assert.equal(vals.type, 'int [6]');
		assert.equal(vals.value, '{42, 7, 19, 3, 88, 25}');
		assert.equal(vals.indexedVariables, 6);
		const page = await children(dc, vals.variablesReference, { start: 2, count: 3 });
		assert.deepEqual(page.map((v) => [v.name, v.value, v.evaluateName]),
			[['[2]', '19', 'vals[2]'], ['[3]', '3', 'vals[3]'], ['[4]', '88', 'vals[4]']]);
		// a struct
		const corner = byName(locals, 'corner');
		assert.equal(corner.type, 'struct point');
		assert.equal(corner.namedVariables, 2);
		assert.deepEqual((await children(dc, corner.variablesReference)).map((v) => [v.name, v.value]), [['x', '6'], ['y', '8']]);
		// a pointer to a struct: its pointee's members, lazily
		const s = byName(await children(dc, sc[1].variablesReference), 's');
		assert.equal(s.type, 'struct shape *');
		assert.ok(s.variablesReference > 0);
		const shape = await children(dc, s.variablesReference);
		assert.deepEqual(shape.map((v) => v.name), ['name', 'origin', 'sides', 'next']);
		assert.match(byName(shape, 'name').value, /"triangle"$/);
		const origin = byName(shape, 'origin');
		assert.equal(origin.evaluateName, 's->origin');
		assert.deepEqual((await children(dc, origin.variablesReference)).map((v) => v.value), ['3', '4']);
		const sides = byName(shape, 'sides');
		assert.equal(sides.indexedVariables, 4);
		assert.deepEqual((await children(dc, sides.variablesReference)).map((v) => v.value), ['3', '4', '5', '0']);
		const next = await children(dc, byName(shape, 'next').variablesReference);
		assert.match(byName(next, 'name').value, /"square"$/);
		assert.equal(byName(next, 'name').evaluateName, 's->next->name');
		// a global 2-D array: rows, then elements
		const grid = await evaluate(dc, 'grid');
		assert.equal(grid.type, 'int [3][4]');
		assert.equal(grid.indexedVariables, 3);
		const row = byName(await children(dc, grid.variablesReference), '[2]');
		assert.equal(row.indexedVariables, 4);
		assert.equal(byName(await children(dc, row.variablesReference), '[1]').value, '21');
		// a large array, paged
		const big = await evaluate(dc, 'big');
		assert.equal(big.indexedVariables, 100);
		const bp = await children(dc, big.variablesReference, { start: 10, count: 3 });
		assert.deepEqual(bp.map((v) => [v.name, v.value]), [['[10]', '100'], ['[11]', '121'], ['[12]', '144']]);
		await assert.rejects(dc.variablesRequest({ variablesReference: 9999 }), /no variables reference/);
	} finally {
		await dc.stop();
	}
});

test('evaluate: members, indexes, pointers, casts, errors, hovers, the repl', async () => {
	const dc = await session();
	try {
		const st = await toComparator(dc);
		const f = (await frames(dc, st.threadId)).stackFrames;
		const measure = f.find((x) => x.name === 'measure').id;
		assert.equal(await value(dc, 's->origin.x', measure), '3');
		assert.equal(await value(dc, 'grid[2][1]'), '21');
		const star = await evaluate(dc, '*current');
		assert.equal(star.type, 'struct shape');
		assert.match(star.result, /^\{name = 0x[0-9a-f]+ "triangle", origin = \{x = 3, y = 4\}, sides = \{3, 4, 5, 0\}, next = 0x[0-9a-f]+\}$/);
		assert.ok(star.variablesReference > 0);
		const scaled = await evaluate(dc, '(long)scale * 2', measure);
		assert.deepEqual([scaled.result, scaled.type], ['4', 'long']);
		assert.equal(await value(dc, '*(int *)a'), '7');
		await assert.rejects(dc.evaluateRequest({ expression: 'nosuch', context: 'watch' }), /no symbol 'nosuch' in current context/);
		await assert.rejects(dc.evaluateRequest({ expression: 'scale', context: 'watch' }), /no symbol 'scale'/);
		await assert.rejects(dc.evaluateRequest({ expression: 'grid[', context: 'repl' }), /expected/);
		const hover = await evaluate(dc, 'current->name', undefined, 'hover');
		assert.match(hover.result, /"triangle"$/);
		assert.equal(hover.type, 'const char *');
		// the repl: a line that is one of hermit's commands is that
		// command; anything else is an expression
		assert.match((await evaluate(dc, 'when', undefined, 'repl')).result, /^event \d+/);
		assert.equal((await evaluate(dc, 'compares', undefined, 'repl')).result, '0');
		await assert.rejects(dc.evaluateRequest({ expression: 'when', context: 'watch' }), /no symbol 'when'/);
	} finally {
		await dc.stop();
	}
});

// The comparator's `compares` at each stop a run makes.
async function comparesAt(dc, st) {
	return Number(await value(dc, 'compares'));
}

test('conditions and hit counts: forwards and backwards, function and instruction breakpoints', async () => {
	const dc = await session();
	try {
		// a condition: only where *a is 42 (compares 1, 2, 8, 9)
		let st = await toComparator(dc, { condition: '*(int *)a == 42' });
		assert.equal(await comparesAt(dc, st), 1);
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'function breakpoint');
		assert.equal(await comparesAt(dc, st), 2);
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(await comparesAt(dc, st), 8);
		// backwards past the hits where it is false
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'function breakpoint');
		assert.equal(await comparesAt(dc, st), 2);
		assert.equal(await value(dc, '*(int *)a'), '42');

		// a hit count: from the third hit on
		let set = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'by_value', hitCondition: '3' }] });
		assert.equal(set.body.breakpoints[0].verified, true);
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(await comparesAt(dc, st), 5, 'compares 3 and 4 are hits 1 and 2');
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(await comparesAt(dc, st), 6);
		set = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'by_value', hitCondition: '== 2' }] });
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(await comparesAt(dc, st), 8);
		set = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'by_value', hitCondition: 'lots' }] });
		assert.equal(set.body.breakpoints[0].verified, false);
		assert.match(set.body.breakpoints[0].message, /hit condition/);

		// an instruction breakpoint with a condition, at the same place
		const pc = (await frames(dc, st.threadId)).stackFrames[0].instructionPointerReference;
		await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
		const ib = await dc.customRequest('setInstructionBreakpoints', { breakpoints: [{ instructionReference: pc, condition: 'compares == 4' }] });
		assert.equal(ib.body.breakpoints[0].verified, true);
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'instruction breakpoint');
		assert.equal(await comparesAt(dc, st), 4);
		// an error in a condition stops, and says so
		await dc.customRequest('setInstructionBreakpoints', { breakpoints: [{ instructionReference: pc, condition: 'nosuch > 1' }] });
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'instruction breakpoint');
		assert.equal(await comparesAt(dc, st), 5);
		assert.ok(dc.outputs.some((o) => /error in the breakpoint condition 'nosuch > 1': no symbol 'nosuch'/.test(o.output)));
	} finally {
		await dc.stop();
	}
});

test('data breakpoints on a global and on a local: old and new values', async () => {
	const dc = await session();
	try {
		const st0 = await toComparator(dc);
		const f = (await frames(dc, st0.threadId)).stackFrames;
		// a local of a caller, by its scope
		const sort = f.find((x) => x.name === 'sort_sum');
		const locals = (await dc.scopesRequest({ frameId: sort.id })).body.scopes[0];
		const sumInfo = await dc.dataBreakpointInfoRequest({ variablesReference: locals.variablesReference, name: 'sum' });
		assert.match(sumInfo.body.dataId, /^0x[0-9a-f]+\/4$/);
		assert.match(sumInfo.body.description, /^sum \(4 bytes at 0x/);
		// a global, by its name
		const cInfo = await dc.dataBreakpointInfoRequest({ name: 'compares' });
		assert.match(cInfo.body.dataId, /^0x[0-9a-f]+\/8$/);
		// what cannot be watched says why
		const none = await dc.dataBreakpointInfoRequest({ name: 'nosuch' });
		assert.equal(none.body.dataId, null);
		assert.match(none.body.description, /nosuch/);
		const reg = (await dc.scopesRequest({ frameId: sort.id })).body.scopes.find((s) => s.name === 'Registers');
		assert.equal((await dc.dataBreakpointInfoRequest({ variablesReference: reg.variablesReference, name: 'rax' })).body.dataId, null);

		await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
		let set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: cInfo.body.dataId, accessType: 'write' }] });
		assert.equal(set.body.breakpoints[0].verified, true);
		let st = await stopAfter(dc, dc.continueRequest({ threadId: st0.threadId }));
		assert.equal(st.reason, 'data breakpoint');
		assert.match(st.description, /^compares: a write to 0x[0-9a-f]+ \(8 bytes\): 0 -> 1$/);

		set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: sumInfo.body.dataId, accessType: 'write' }] });
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'data breakpoint');
		assert.match(st.description, /^sum: a write to 0x[0-9a-f]+ \(4 bytes\): 0 -> 3$/);
		// (stopped after the writing instruction: on its line, or the
		// loop's increment on the line before)
		const top = (await frames(dc, st.threadId)).stackFrames[0];
		assert.equal(top.name, 'sort_sum');
		assert.ok(top.line === line('sum') || top.line === line('sum') - 1, `line ${top.line}`);
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.match(st.description, /^sum: a write to 0x[0-9a-f]+ \(4 bytes\): 3 -> 10$/);
		assert.equal(await value(dc, 'sum'), '10');
	} finally {
		await dc.stop();
	}
});

// Backwards within one event interval: the loop in sort_sum writes sum
// with no syscall, in main's third stretch of that interval (it waited in
// read() while the worker ran): each reverse-continue stops before the
// write before, then one more must end somewhere (it once hung).
test('a data breakpoint on a local, backwards within one event', async () => {
	const dc = await session();
	try {
		const st0 = await toComparator(dc);
		const sort = (await frames(dc, st0.threadId)).stackFrames.find((x) => x.name === 'sort_sum');
		const locals = (await dc.scopesRequest({ frameId: sort.id })).body.scopes[0];
		const info = await dc.dataBreakpointInfoRequest({ variablesReference: locals.variablesReference, name: 'sum' });
		await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
		await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
		let st = await stopAfter(dc, dc.continueRequest({ threadId: st0.threadId }));
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		st = await stopAfter(dc, dc.continueRequest({ threadId: st.threadId }));
		assert.match(st.description, /: 10 -> 29$/);
		// backwards: the last write, stopped before it
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.equal(st.reason, 'data breakpoint');
		assert.match(st.description, /^sum: the last write to 0x[0-9a-f]+ \(4 bytes\): 10 -> 29$/);
		assert.equal(await value(dc, 'sum'), '10');
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.match(st.description, /^sum: the last write to 0x[0-9a-f]+ \(4 bytes\): 3 -> 10$/);
		assert.equal(await value(dc, 'sum'), '3');
		assert.equal((await frames(dc, st.threadId)).stackFrames[0].name, 'sort_sum');
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.match(st.description, /^sum: the last write to 0x[0-9a-f]+ \(4 bytes\): 0 -> 3$/);
		assert.equal(await value(dc, 'sum'), '0');
		// (`sum = 0` stored the 0 the slot held: the write before is older)
		st = await stopAfter(dc, dc.reverseContinueRequest({ threadId: st.threadId }));
		assert.ok(st.reason, JSON.stringify(st));
	} finally {
		await dc.stop();
	}
});

test('loadedSources and modules', async () => {
	const dc = await session();
	try {
		await toComparator(dc);
		const src = (await dc.customRequest('loadedSources', {})).body.sources;
		assert.ok(src.some((s) => /tests\/guests\/inspectme\.c$/.test(s.path) && s.name === 'inspectme.c'));
		const mods = (await dc.customRequest('modules', {})).body;
		assert.equal(mods.totalModules, mods.modules.length);
		const prog = mods.modules.find((m) => m.name === 'inspectme');
		assert.ok(prog, JSON.stringify(mods));
		assert.match(prog.path, /tests\/guests\/inspectme$/);
		assert.match(prog.symbolStatus, /DWARF/);
		const libc = mods.modules.find((m) => m.name === 'libc.so.6');
		assert.ok(libc, JSON.stringify(mods));
		for (const m of [prog, libc]) assert.match(m.addressRange, /^0x[0-9a-f]+-0x[0-9a-f]+$/);
	} finally {
		await dc.stop();
	}
});
