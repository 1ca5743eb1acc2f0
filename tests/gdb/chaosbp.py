# SPDX-License-Identifier: BSD-3-Clause
# gdb -batch -x chaosbp.py: gdb against `hermit replay --gdbserver-only`
# (port in HERMIT_GDB_PORT) on a --chaos recording of tests/guests/racy,
# whose two threads race on a counter and are preempted at ticks. A
# breakpoint in the racing loop is hit HITS times (each a stop the
# recording did not have, in the middle of a timeslice), then deleted,
# and a continue must reach the end of the recorded history: a debugger's
# stops must not move a later preemption (gdb.sh also checks that the
# replay printed the recorded total and reported no divergence).
import os
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check, connect, passed  # noqa: E402

HITS = int(os.environ.get("HITS", "25"))

try:
    connect()
    run("break racy.c:24")
    threads = set()
    for i in range(HITS):
        run("continue")
        frame = gdb.selected_frame()
        check(frame.name() == "worker" and frame.find_sal().line == 24,
              "continue %d stopped in %s line %d" % (i + 1, frame.name(), frame.find_sal().line))
        threads.add(gdb.selected_thread().num)
        if i % 5 == 4:
            run("stepi")  # a single step in the loop: one more stop
    run("delete")
    run("continue")
    where = run("monitor when").strip()
    check(where.endswith("the end") or "the end" in where,
          "continue after the breakpoints stopped at %s, not the end of history" % where)
    print("threads hit: %d" % len(threads))
    passed()
except gdb.error as e:
    fail("gdb: %s" % e)
