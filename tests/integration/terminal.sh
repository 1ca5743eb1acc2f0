#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The outside world: Ctrl-C on hermit's terminal reaches the guest (at a
# scheduling point, DESIGN.md "Signals") and hermit reports how it ended;
# so does a SIGINT sent to hermit alone, which hermit passes on;
# input that arrives late on a pipe from outside does not hang the run.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

command -v python3 >/dev/null 2>&1 || skip "python3 is needed to drive a pseudo-terminal"

# A shell that traps SIGINT, under hermit on a pseudo-terminal; ^C is
# typed once it says it is ready. Its handler exits 5.
cat >"$WORK/drive-tty.py" <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "run", "--", "sh", "-c",
             "trap 'echo got INT; exit 5' INT; echo ready; while :; do sleep 1; done"])
out, sent, t0 = b"", False, time.time()
while time.time() - t0 < 20:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            d = os.read(fd, 1024)
        except OSError:
            break
        if not d:
            break
        out += d
    if b"ready" in out and not sent:
        time.sleep(0.3)
        os.write(fd, b"\x03")
        sent = True
_, st = os.waitpid(pid, 0)
print(out.decode(errors="replace").replace("\r", ""))
print("exit", os.waitstatus_to_exitcode(st))
PY
timeout 60 python3 "$WORK/drive-tty.py" "$HERMIT" >"$WORK/pty.out" 2>&1 || fail "the pseudo-terminal driver failed: $(cat "$WORK/pty.out")"
grep -q 'got INT$' "$WORK/pty.out" || { cat "$WORK/pty.out" >&2; fail "the guest's SIGINT handler did not run"; }
grep -qx 'exit 5' "$WORK/pty.out" || { cat "$WORK/pty.out" >&2; fail "hermit did not exit with the guest's status 5"; }

# `kill -INT <hermit's pid>` reaches hermit alone (the terminal's Ctrl-C
# reaches its whole process group): hermit passes it on to the guest.
# kill_int NAME ARGS...: `hermit ARGS...` in the background (timeout makes
# a process group of its own for it); once the guest printed ready, SIGINT
# to hermit alone. $WORK/NAME and NAME.err are its stdout and stderr, $st
# its exit status.
kill_int() {
	name=$1
	shift
	timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" "$@" >"$WORK/$name" 2>"$WORK/$name.err" &
	tp=$!
	i=0
	until grep -q ready "$WORK/$name" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le 300 ] || { kill "$tp"; cat "$WORK/$name.err" >&2; fail "$name: the guest did not say ready"; }
		sleep 0.1
	done
	hp=$(ps -o pid= --ppid "$tp" | tr -d ' ')
	[ -n "$hp" ] && [ "$(readlink "/proc/$hp/exe")" = "$(readlink -f "$HERMIT")" ] ||
		{ kill "$tp"; fail "$name: no hermit under timeout ($tp): '$hp'"; }
	kill -INT "$hp"
	i=0
	while kill -0 "$hp" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le 200 ] || { kill "$tp"; cat "$WORK/$name" "$WORK/$name.err" >&2; fail "$name: hermit still runs 20 s after its SIGINT"; }
		sleep 0.1
	done
	wait "$tp"
	st=$?
}
GUEST_INT="trap 'echo got INT; n=1' INT; echo ready; n=0; while [ \$n = 0 ]; do /bin/true; done; echo still running; exit 7"
# A guest that handles it runs on, to its own exit status.
kill_int int run -- sh -c "$GUEST_INT"
printf 'ready\ngot INT\nstill running\n' | diff -u - "$WORK/int" || fail "the guest did not take hermit's SIGINT"
[ "$st" = 7 ] || { cat "$WORK/int.err" >&2; fail "hermit with a guest that handles SIGINT exited $st, not 7"; }
# One that does not dies of it: 130.
kill_int intdie run -- sh -c 'echo ready; while :; do /bin/true; done'
[ "$st" = 130 ] || { cat "$WORK/intdie.err" >&2; fail "hermit with a guest that dies of SIGINT exited $st, not 130"; }
# A recording holds it where it came, and its replay delivers it there.
export HERMIT_DATA_DIR="$WORK/data"
kill_int intrec record start -- sh -c "$GUEST_INT"
[ "$st" = 7 ] || { cat "$WORK/intrec.err" >&2; fail "record start with a guest that handles SIGINT exited $st, not 7"; }
hm "$WORK/intrep" replay --autopilot
st=$?
[ "$st" = 7 ] || { cat "$WORK/intrep.err" >&2; fail "the replay of the SIGINT exited $st, not 7"; }
diff -u "$WORK/intrec" "$WORK/intrep" || fail "the replay of the SIGINT printed other lines"

# A guest's signal to its whole process group (kill(0, sig)), which hermit
# shares, is the guest's: hermit stays to report what it did. (setsid: a
# group of their own, away from this script's.)
if command -v setsid >/dev/null 2>&1; then
	timeout -k 5 "$TEST_TIMEOUT" setsid -w "$HERMIT" run -- sh -c 'trap "" TERM; kill -TERM 0; echo after' \
		>"$WORK/grp" 2>"$WORK/grp.err"
	st=$?
	[ "$st" = 0 ] && grep -qx after "$WORK/grp" ||
		{ cat "$WORK/grp.err" >&2; fail "kill -TERM 0 from a guest that ignores it: exit $st, printed '$(cat "$WORK/grp")'"; }
	export HERMIT_DATA_DIR="$WORK/grpdata"
	timeout -k 5 "$TEST_TIMEOUT" setsid -w "$HERMIT" record start -- sh -c 'kill -HUP 0; echo not here' \
		>"$WORK/grprec" 2>"$WORK/grprec.err"
	st=$?
	[ "$st" = 129 ] || { cat "$WORK/grprec.err" >&2; fail "record start of a guest that sends SIGHUP to its group exited $st, not 129"; }
	"$HERMIT" record list --json | grep -q '"status":[[:space:]]*"complete"' ||
		fail "the recording of kill -HUP 0 is not complete: $("$HERMIT" record list)"
	hm "$WORK/grprep" replay --autopilot
	st=$?
	[ "$st" = 129 ] || { cat "$WORK/grprep.err" >&2; fail "the replay of kill -HUP 0 exited $st, not 129"; }
else
	echo "SKIP: kill 0 part: no setsid"
fi

# Input from a pipe that is written 1 s after start, while the guest
# waits in read: the run waits for it and does not call it a deadlock.
start=$(date +%s)
(sleep 1; echo late line) | timeout 20 "$HERMIT" run -- sh -c 'read x; echo "read: $x"' >"$WORK/late" 2>"$WORK/late.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/late.err" >&2; fail "waiting on outside input exited $st"; }
grep -qx 'read: late line' "$WORK/late" || fail "the late input was not read: $(cat "$WORK/late")"
[ $(($(date +%s) - start)) -lt 15 ] || fail "waiting for outside input took too long"
exit 0
