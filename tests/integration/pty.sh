#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Pseudo-terminals the guest makes are the guest's own, as its pipes are
# (recorder/pty.c, docs/record-replay.md "Terminals the guest makes"):
# a guest opens /dev/ptmx, unlocks it and talks to a child on its slave,
# in canonical mode with echo, with echo off and raw (tests/guests/
# ptyguest.c); python3's pty.fork runs /bin/echo on a pty. Each runs
# natively, under `hermit run`, and under `hermit record start` then
# `hermit replay --autopilot`, which must print the same (the replay used
# to find the slave locked: EIO at its open, a divergence); and runs give
# the same events every time (--verify-strict), with chaos too.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=60

export HERMIT_DATA_DIR="$WORK/data"

[ -e /dev/ptmx ] && timeout 10 "$GUESTS/ptyguest" >/dev/null 2>&1 ||
	skip "no pseudo-terminals here (/dev/ptmx)"

# three_ways NAME ARGS...: natively, run, record and replay.
three_ways() {
	name=$1
	shift
	timeout -k 5 "$TEST_TIMEOUT" "$@" >"$WORK/$name.native" 2>"$WORK/$name.native.err" ||
		{ cat "$WORK/$name.native.err" >&2; fail "$name: exited $? natively"; }
	[ -s "$WORK/$name.native" ] || fail "$name: printed nothing natively"
	for how in run record replay; do
		case $how in
		run) hm "$WORK/$name.$how" run -- "$@" ;;
		record) hm "$WORK/$name.$how" record start -- "$@" ;;
		replay) hm "$WORK/$name.$how" replay --autopilot ;;
		esac
		st=$?
		[ "$st" = 0 ] || { tail -20 "$WORK/$name.$how.err" >&2; fail "$name: hermit $how exited $st"; }
		diff -u "$WORK/$name.native" "$WORK/$name.$how" ||
			fail "$name: hermit $how printed other output"
	done
}

three_ways ptyguest "$GUESTS/ptyguest"

for i in 1 2 3; do
	hm "$WORK/strict.$i" run --verify-strict -- "$GUESTS/ptyguest"
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/strict.$i.err" >&2; fail "verify-strict run $i exited $st"; }
done
for seed in 1 2 3; do
	hm "$WORK/chaos.$seed" run --chaos --seed "$seed" --verify -- "$GUESTS/ptyguest"
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/chaos.$seed.err" >&2; fail "chaos seed $seed exited $st"; }
	diff -u "$WORK/ptyguest.native" "$WORK/chaos.$seed" || fail "chaos seed $seed printed other output"
done

if command -v python3 >/dev/null 2>&1 && python3 -c 'import pty' 2>/dev/null; then
	cat >"$WORK/ptyfork.py" <<'PY'
import os, pty
pid, fd = pty.fork()
if pid == 0:
    os.execv('/bin/echo', ['echo', 'hello from the pty'])
out = b''
while True:
    try:
        b = os.read(fd, 1024)
    except OSError:  # EIO: the slave's last holder has gone
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
print(repr(out), os.waitstatus_to_exitcode(st))
PY
	three_ways python python3 "$WORK/ptyfork.py"
else
	echo "pty.sh: no python3 with its pty module: its case skipped"
fi
exit 0
