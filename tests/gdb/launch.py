# SPDX-License-Identifier: BSD-3-Clause
# gdb -x launch.py, started by `hermit replay --gdb WRAPPER` itself (the one
# command a user types): gdb is already connected to the recording of
# tests/guests/gdbtwo, `monitor goto` leaves no stale registers behind
# (hermit hands gdb a hook that flushes them after each monitor command),
# and `run` starts the replay over.
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
    check(when().startswith("event 1 "), "after monitor goto 1: " + when())
    run("continue")
    check(gdb.selected_frame().name() == "bump", "continue after goto stopped in %s"
          % gdb.selected_frame().name())
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
