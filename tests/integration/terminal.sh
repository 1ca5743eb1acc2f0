#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The outside world: Ctrl-C on hermit's terminal reaches the guest (at a
# scheduling point, DESIGN.md "Signals") and hermit reports how it ended;
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

# Input from a pipe that is written 1 s after start, while the guest
# waits in read: the run waits for it and does not call it a deadlock.
start=$(date +%s)
(sleep 1; echo late line) | timeout 20 "$HERMIT" run -- sh -c 'read x; echo "read: $x"' >"$WORK/late" 2>"$WORK/late.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/late.err" >&2; fail "waiting on outside input exited $st"; }
grep -qx 'read: late line' "$WORK/late" || fail "the late input was not read: $(cat "$WORK/late")"
[ $(($(date +%s) - start)) -lt 15 ] || fail "waiting for outside input took too long"
exit 0
