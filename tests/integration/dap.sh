#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hermit-dap as VS Code drives it (DESIGN.md "Debugging faces"): node runs
# tests/dap/dap.test.js with @vscode/debugadapter-testsupport on a
# recording of tests/guests/dapprog (two threads racing): entry,
# instruction breakpoints, steps by instruction both ways, reverseContinue
# to the previous hit and to the start, a data breakpoint forwards and
# backwards, six at once, the output events, exited and terminated,
# readMemory and disassemble against objdump, and malformed messages;
# then tests/dap/step.test.js on a recording of tests/guests/dapsteps:
# breakpoints by line, next, stepIn, stepOut, stepBack, reverseStepOut,
# goto, forwards and backwards; then tests/dap/inspect.test.js on a
# recording of tests/guests/inspectme: stackTrace through libc, scopes,
# variables, evaluate, breakpoint conditions and hit counts, data
# breakpoints on variables, modules and loadedSources.
# Without node the test is skipped; without tests/dap/node_modules it
# fails (CI installs them: npm ci --prefix tests/dap).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
: "${HERMIT_DAP:?HERMIT_DAP must name the hermit-dap binary}"

command -v node >/dev/null 2>&1 || skip "node is not installed (Debian package nodejs)"
[ -d "$TESTS_SRCDIR/dap/node_modules/@vscode/debugadapter-testsupport" ] ||
	fail "tests/dap/node_modules is missing: run 'npm ci --prefix tests/dap'"
command -v objdump >/dev/null 2>&1 || fail "objdump is not installed (Debian package binutils)"
export HERMIT_DATA_DIR="$WORK/data"

# tests/dap/step.test.js's guest, recorded first: dap.test.js launches
# the newest recording (dapprog's)
hm "$WORK/steps" record start -- "$GUESTS/dapsteps"
st=$?
[ "$st" = 0 ] || { cat "$WORK/steps.err" >&2; fail "recording dapsteps exited $st"; }
DAPSTEPS_ID=$(sed -n "s/^hermit: recording '\(dapsteps-[0-9]*\)'$/\1/p" "$WORK/steps.err")
[ -n "$DAPSTEPS_ID" ] || fail "no recording id in: $(cat "$WORK/steps.err")"
export DAPSTEPS_ID

hm "$WORK/rec" record start -- "$GUESTS/dapprog"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec.err" >&2; fail "recording dapprog exited $st"; }
grep -q '^counter [0-9]*$' "$WORK/rec" || fail "dapprog printed: $(cat "$WORK/rec")"

DAPPROG_STDOUT=$(cat "$WORK/rec"; echo x)
DAPPROG_STDOUT=${DAPPROG_STDOUT%x}
export DAPPROG_STDOUT HERMIT_DAP
# hermit-dap finds hermit beside itself; the tests give it no other.
for t in dap step; do
	timeout -k 5 900 node "$TESTS_SRCDIR/dap/$t.test.js" >"$WORK/$t.out" 2>&1
	st=$?
	if [ "$st" != 0 ]; then
		cat "$WORK/$t.out" >&2
		fail "tests/dap/$t.test.js exited $st"
	fi
	grep -E '^# (tests|pass|fail|todo)' "$WORK/$t.out"
done
hm "$WORK/rec2" record start -- "$GUESTS/inspectme"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec2.err" >&2; fail "recording inspectme exited $st"; }
INSPECTME_ID=$(sed -n "s/^hermit: recording '\(.*\)'\$/\1/p" "$WORK/rec2.err")
[ -n "$INSPECTME_ID" ] || fail "no recording id in: $(cat "$WORK/rec2.err")"
GUESTS_SRC="$TESTS_SRCDIR/guests"
export INSPECTME_ID GUESTS_SRC
timeout -k 5 900 node "$TESTS_SRCDIR/dap/inspect.test.js" >"$WORK/inspect.out" 2>&1
st=$?
if [ "$st" != 0 ]; then
	cat "$WORK/inspect.out" >&2
	fail "tests/dap/inspect.test.js exited $st"
fi
grep -E '^# (tests|pass|fail)' "$WORK/inspect.out"
