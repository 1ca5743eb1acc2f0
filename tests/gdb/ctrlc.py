# SPDX-License-Identifier: BSD-3-Clause
# python3 ctrlc.py HERMIT ID GDB-WRAPPER: Ctrl-C in the gdb that `hermit
# replay` starts. `hermit replay ID --gdb GDB-WRAPPER` runs on a pty, as
# on a user's terminal (gdb, hermit and the guest in its foreground
# process group); the recording is of a long run of tests/guests/ticks.
# A continue, then Ctrl-C (0x03 to the pty, which the terminal makes
# SIGINT to every process of the group) while it runs: gdb must report
# SIGINT, `monitor when` must say the replay is short of its end, and
# the session goes on: a continue runs to the program's end, and only
# `quit` ends the replay (exit status 0, no line from hermit saying it
# was interrupted). Prints PASS, or FAIL and why (exit status 1).
import os
import pty
import re
import select
import sys
import time

hermit, rec_id, wrapper = sys.argv[1:4]
out = b""


def fail(msg):
    print("FAIL: " + msg)
    print("---- the terminal ----")
    print(out.decode(errors="replace"))
    sys.exit(1)


pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "dumb"
    os.execv(hermit, [hermit, "replay", rec_id, "--gdb", wrapper])


def expect(pattern, timeout=60):
    """Read the terminal until PATTERN (bytes regex) shows after what was
    matched before; the match."""
    m = expect_maybe(pattern, timeout)
    if not m:
        fail("no %r on the terminal within %d s" % (pattern, timeout))
    return m


expect.pos = 0


def expect_maybe(pattern, timeout):
    """expect(), but None where PATTERN does not show within TIMEOUT."""
    global out
    deadline = time.time() + timeout
    while True:
        m = re.compile(pattern).search(out, expect.pos)
        if m:
            expect.pos = m.end()
            return m
        left = deadline - time.time()
        if left <= 0:
            return None
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if not data:
                fail("the terminal closed while waiting for %r" % pattern)
            out += data


def send(text):
    os.write(fd, text)


PROMPT = rb"\(gdb\) "
expect(PROMPT, 120)
send(b"monitor when\n")
expect(rb"event 0\b")
expect(PROMPT)
send(b"continue\n")
expect(rb"Continuing\.")
# Ctrl-C once the continue runs. gdb loses one that comes while it reads
# a library from the target (the continue's first stop, at the dynamic
# linker's breakpoint, on a busy host), as a user's would be: press again,
# as a user would, until gdb reports it (the replay of 100000 events
# outlasts this on any host; reaching the end first is a failure below).
got = None
for attempt in range(12):
    time.sleep(1.0)
    send(b"\x03")
    got = expect_maybe(rb"received signal SIGINT|exited normally|No more reverse", 5)
    if got:
        break
if not got or got.group(0) != b"received signal SIGINT":
    fail("Ctrl-C did not stop the replay")
expect(PROMPT)
send(b"monitor when\n")
m = expect(rb"event (\d+)([^\r\n]*)\r?\n")
# (how far it got in a second depends on the host: past the start only)
if b"the end" in m.group(2) or int(m.group(1)) < 1:
    fail("after Ctrl-C the replay is at %r" % m.group(0))
expect(PROMPT)
# The session goes on: to done(), at the program's end, and past it.
send(b"break done\n")
expect(PROMPT)
send(b"continue\n")
expect(rb"Breakpoint 1, ")
expect(PROMPT)
send(b"monitor when\n")
expect(rb"event \d+")
expect(PROMPT)
send(b"continue\n")
expect(rb"exited normally|No more reverse-execution history", 120)
expect(PROMPT)
if b"interrupted" in out:
    fail("hermit says the replay was interrupted")
send(b"quit\n")
status = None
deadline = time.time() + 60
while time.time() < deadline:
    try:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            out += os.read(fd, 4096)
    except OSError:
        pass
    p, st = os.waitpid(pid, os.WNOHANG)
    if p == pid:
        status = st
        break
if status is None:
    fail("hermit replay did not end after quit")
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    fail("hermit replay ended with status %#x" % status)
if b"interrupted" in out:
    fail("hermit says the replay was interrupted")
print("PASS")
