# SPDX-License-Identifier: BSD-3-Clause
# gdb -x launch.py, started by `hermit replay --gdb WRAPPER` itself (the one
# command a user types): gdb is already connected to the recording of
# tests/guests/gdbtwo, `monitor goto` leaves no stale registers behind
# (hermit hands gdb a hook that flushes them after each monitor command),
# nor a selected thread that does not exist at the new event; `monitor
# goto` refuses what is not an event of the recording; and `run` starts
# the replay over.
import os
import re
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check  # noqa: E402


def pc():
    return int(gdb.parse_and_eval("$pc"))


def when():
    return run("monitor when").strip()


def landed(n):
    """After `monitor goto N`: at event N, or at the first stop after it
    where N is one of a call's input frames (docs/gdb.md), which a goto
    to that event reaches too. What `monitor when` said."""
    at = when()
    m = re.match(r"event (\d+) ", at)
    check(m is not None and int(m.group(1)) >= n, "after monitor goto %d: %s" % (n, at))
    if m is not None and int(m.group(1)) != n:
        run("monitor goto " + m.group(1))
        check(when() == at, "monitor goto %s went to %r, not %r" % (m.group(1), when(), at))
    return at


try:
    run("set pagination off")
    run("set confirm off")
    check(gdb.selected_inferior().pid > 0, "gdb is not connected to the replay")
    check(when().startswith("event 0"), "the replay does not start at event 0: " + when())
    run("break bump")
    run("continue")
    first_hit = when()
    run("continue")
    check(gdb.selected_frame().name() == "bump", "stopped in %s" % gdb.selected_frame().name())
    m = re.match(r"event (\d+)", when())
    check(m is not None and int(m.group(1)) > 1, "monitor when said %r" % when())
    # The main thread, before and after going back to event 1 (in ld.so):
    # gdb must see the new registers without being told to flush them.
    run("thread 1")
    before = pc()
    run("monitor goto 1")
    after = pc()
    run("maintenance flush register-cache")
    fresh = pc()
    check(fresh != before, "monitor goto 1 did not move the main thread (pc %#x)" % fresh)
    check(after == fresh, "after monitor goto gdb saw pc %#x, not %#x" % (after, fresh))
    landed(1)
    run("continue")
    check(gdb.selected_frame().name() == "bump", "continue after goto stopped in %s"
          % gdb.selected_frame().name())
    # Back to event 5, where the thread gdb has selected (a worker, in
    # bump) does not exist yet: gdb must end up in a live thread whose
    # registers it reads (the stop's, the main thread), not "Could not
    # read registers".
    worker = gdb.selected_thread()
    check(worker.num != 1, "the hit is in thread %d" % worker.num)
    run("monitor goto 5")
    at5 = landed(5)
    try:
        run("info registers rip")
        frame = gdb.selected_frame().name()
    except gdb.error as e:
        fail("after monitor goto 5 from thread %d: %s" % (worker.num, e))
    check(gdb.selected_thread().num == 1 and gdb.selected_thread().is_valid(),
          "after monitor goto 5 gdb is in thread %d" % gdb.selected_thread().num)
    check(pc() != 0 and frame is not None, "no frame at event 5")
    # Bad events: an error (a script stops there), and the replay stays
    # where it was (gdb.sh checks the one-line messages in gdb's output).
    for arg in ("-1", "abc", "5x", "", "99999999", "18446744073709551616"):
        try:
            gdb.execute("monitor goto " + arg)  # its message to gdb's output
            fail("monitor goto %r was taken" % arg)
        except gdb.error:
            pass
        check(when() == at5, "after monitor goto %r: %s, not %s" % (arg, when(), at5))
    # The end is an event too, the one `monitor when` names there.
    run("delete")
    run("continue")
    end = when()
    m = re.match(r"event (\d+), the end", end)
    check(m is not None, "continue without breakpoints stopped at %r" % end)
    run("monitor goto 5")
    run("monitor goto " + m.group(1))
    check(when() == end, "monitor goto %s went to %r, not %r" % (m.group(1), when(), end))
    run("break bump")
    # `run` again: gdb kills (vKill, the session stays), starts over
    # (vRun), writing orig_rax = -1 with the entry's pc as it does, and
    # runs to the first hit.
    run("run")
    check(gdb.selected_frame().name() == "bump" and when() == first_hit,
          "run stopped in %s at %s, not at %s" % (gdb.selected_frame().name(), when(), first_hit))
    run("kill")
except gdb.error as e:
    fail("gdb: %s" % e)
print("PASS")
os._exit(0)
