# SPDX-License-Identifier: BSD-3-Clause
# gdb -x real.py PROGRAM: a real program's recording (not built for the
# tests: no symbols of its own; libc's through `set sysroot /`) under gdb.
# A pending breakpoint on libc's write is hit with stdout's descriptor and
# the first bytes the recording printed (in $HERMIT_FIRST_BYTES, hex);
# forwards to the end (through its other writes), back to the last write,
# back to the start, and forwards to the end again. Prints PASS, or FAIL and why (gdb's exit status 1).
import os
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check  # noqa: E402


def when():
    return run("monitor when").strip()


try:
    run("set pagination off")
    run("set confirm off")
    run("set sysroot /")
    run("set breakpoint pending on")
    run("target extended-remote 127.0.0.1:%s" % os.environ["HERMIT_GDB_PORT"])
    run("break write")
    run("continue")
    name = gdb.selected_frame().name() or ""
    check("write" in name, "break write stopped in %r" % name)
    check(int(gdb.parse_and_eval("$rdi")) == 1, "write's fd is %d, not 1"
          % int(gdb.parse_and_eval("$rdi")))
    # (the first write may carry less than those bytes: python3 writes
    # "42" and "\n" apart)
    want = bytes.fromhex(os.environ["HERMIT_FIRST_BYTES"])
    n = min(len(want), int(gdb.parse_and_eval("$rdx")))
    got = bytes(gdb.selected_inferior().read_memory(int(gdb.parse_and_eval("$rsi")), n))
    check(n > 0 and got == want[:n], "write's buffer holds %r, not %r" % (got, want[:n]))
    hits = [when()]
    for i in range(50):
        run("continue")
        if "the end" in when():
            break
        check("write" in (gdb.selected_frame().name() or ""), "a continue stopped at %s" % when())
        hits.append(when())
    check("the end" in when(), "continue past the last write: %s" % when())
    run("reverse-continue")
    check(when() == hits[-1], "reverse-continue from the end: %s, not %s" % (when(), hits[-1]))
    run("delete")
    run("reverse-continue")
    check(when().startswith("event 0, the start"), "back to the start: %s" % when())
    run("delete")
    run("continue")
    check("the end" in when(), "forwards again: %s" % when())
    run("kill")
except gdb.error as e:
    fail("gdb: %s" % e)
print("PASS")
os._exit(0)
