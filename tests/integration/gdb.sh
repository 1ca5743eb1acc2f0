#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gdb 13 on a recording (DESIGN.md "Debugging faces"): `hermit replay
# --gdbserver-only` serves the recording of a two-thread program on
# 127.0.0.1, and gdb in batch mode runs tests/gdb/replay.py, which asserts
# breakpoints, threads, globals and locals, reverse-continue (from hits it
# knows and by searching), reverse-stepi, reverse-finish, reverse-step,
# reverse-next, a watchpoint forwards and backwards, `monitor when` and
# `monitor goto` (its exit status is the verdict).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

command -v gdb >/dev/null 2>&1 || skip "gdb is not installed"
gdb -batch -nx -ex 'python print(1)' >/dev/null 2>&1 || skip "this gdb has no Python"
export HERMIT_DATA_DIR="$WORK/data"

hm "$WORK/rec" record start -- "$GUESTS/gdbtwo"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec.err" >&2; fail "recording gdbtwo exited $st"; }
grep -qx 'counter 33' "$WORK/rec" || fail "gdbtwo printed: $(cat "$WORK/rec")"

timeout -k 5 120 "$HERMIT" replay --gdbserver-only >"$WORK/serve" 2>"$WORK/serve.err" &
server=$!
port=
for i in $(seq 1 100); do
	port=$(sed -n 's/.*127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$WORK/serve")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { kill "$server"; cat "$WORK/serve.err" >&2; fail "hermit replay did not print its port"; }
grep -q "^gdb -ex 'target extended-remote 127.0.0.1:$port' /" "$WORK/serve" ||
	fail "the gdb command printed is not right: $(cat "$WORK/serve")"
# Only loopback: nothing listens on another address.
if command -v ss >/dev/null 2>&1; then
	ss -ltn | grep ":$port " | grep -vq '127.0.0.1:' && fail "port $port listens beyond 127.0.0.1"
fi

HERMIT_GDB_PORT=$port timeout -k 5 120 gdb -batch -nx -x "$TESTS_SRCDIR/gdb/replay.py" \
	"$GUESTS/gdbtwo" >"$WORK/gdb.out" 2>&1
st=$?
wait "$server"
[ "$st" = 0 ] && grep -qx PASS "$WORK/gdb.out" ||
	{ cat "$WORK/gdb.out" "$WORK/serve.err" >&2; fail "the gdb script failed ($st)"; }
exit 0
