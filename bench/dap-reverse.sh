#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# hermit-dap's reverse steps (bench/dap.sh times a stop) on a recording of N events (EVENTS, default
# 100000: bench/events.c, a syscall per event, mark() before the first
# and after the last). Prints the time of one source-level `stepBack`
# from the line after the last mark() call, and of one `reverseContinue`
# from there to a line breakpoint on the first mark() call, across all
# N events. Needs node and tests/dap/node_modules (npm ci --prefix
# tests/dap).
#
# Not a test: it prints figures, and exits 1 only when something fails.
# Environment: HERMIT, HERMIT_DAP (default ../hermit, ../hermit-dap from
# here), CC, EVENTS.

set -u
here=$(cd "$(dirname "$0")" && pwd)
HERMIT=${HERMIT:-$here/../hermit}
HERMIT_DAP=${HERMIT_DAP:-$here/../hermit-dap}
CC=${CC:-cc}
EVENTS=${EVENTS:-100000}
export HERMIT_EPOCH=${HERMIT_EPOCH:-2026-01-01T00:00:00Z}

die() {
	echo "bench: $*" >&2
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hermit-bench.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
. "$here/lib.sh"
need_dap_client
export HERMIT_DATA_DIR="$tmp/data"
cp "$here/events.c" "$tmp/events.c"
(cd "$tmp" && "$CC" -O0 -g -o events events.c) || die "cannot build events.c"
"$HERMIT" record start -- "$tmp/events" "$EVENTS" >/dev/null 2>&1 || die "recording failed"

cat >"$tmp/bench.js" <<'JS'
'use strict';
const path = require('path');
const { DebugClient } = require(path.join(process.env.TESTS, 'dap/node_modules/@vscode/debugadapter-testsupport'));
const src = path.join(process.env.TMP, 'events.c');
const lines = require('fs').readFileSync(src, 'utf8').split('\n');
const first = lines.findIndex((l) => /mark\(0\);/.test(l)) + 1;
const last = lines.findIndex((l) => /mark\(n\);/.test(l)) + 1;
(async () => {
	const dc = new DebugClient(process.env.HERMIT_DAP, '--log=warn', 'hermit', { env: process.env }, false);
	dc.defaultTimeout = 600000;
	await dc.start();
	await dc.initializeRequest();
	const init = dc.waitForEvent('initialized');
	await dc.launchRequest({ stopOnEntry: true });
	await init;
	const stop = async (p) => { const s = dc.waitForEvent('stopped'); await p; return (await s).body; };
	let st = await stop(dc.configurationDoneRequest());
	const t = st.threadId;
	await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: last + 1 }] });
	st = await stop(dc.continueRequest({ threadId: t }));
	if (st.reason !== 'breakpoint') throw new Error('no stop after the last mark: ' + st.reason);
	await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [] });
	let t0 = process.hrtime.bigint();
	st = await stop(dc.stepBackRequest({ threadId: t }));
	const back = Number(process.hrtime.bigint() - t0) / 1e9;
	if (st.reason !== 'step') throw new Error('stepBack: ' + st.reason);
	await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: first }] });
	t0 = process.hrtime.bigint();
	st = await stop(dc.reverseContinueRequest({ threadId: t }));
	const rc = Number(process.hrtime.bigint() - t0) / 1e9;
	if (st.reason !== 'breakpoint') throw new Error('reverseContinue: ' + st.reason);
	console.log(`stepBack (a line, over mark()): ${back.toFixed(3)} s`);
	console.log(`reverseContinue across ${process.env.EVENTS} events: ${rc.toFixed(3)} s`);
	await dc.stop();
})().catch((e) => { console.error('bench:', e.message || e); process.exit(1); });
JS
echo "hermit-dap on a recording of $EVENTS events"
TESTS="$here/../tests" TMP="$tmp" HERMIT_DAP="$HERMIT_DAP" EVENTS="$EVENTS" node "$tmp/bench.js" || exit 1
