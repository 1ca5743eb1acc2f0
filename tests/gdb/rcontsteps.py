# SPDX-License-Identifier: BSD-3-Clause
# gdb -batch -x rcontsteps.py: on a recording of tests/guests/dapsteps,
# whose compute() calls add() in a loop, a reverse-continue from a
# position reached by single steps after a breakpoint's hit stops at that
# hit (the one stepped from), not at the one before it; a second one stops
# at the hit before. The same from a position that a reverse-stepi reached,
# and with the breakpoint set late (the reverse-continue has to search for
# its hits instead of knowing them). RCONT_AT, RCONT_FN and RCONT_FIRST
# (default add, add, compute) put the breakpoint elsewhere by hand (on
# gdbtwo: bump, bump, main).
import os
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, check, connect, passed  # noqa: E402


def pc():
    return int(gdb.parse_and_eval("$pc"))


def when():
    return run("monitor when").strip()


def hits_forwards(n):
    """continue N times to add's breakpoint: each hit's (pc, monitor when)"""
    seen = []
    for i in range(n):
        run("continue")
        check(gdb.selected_frame().name() == WHERE_FN, "hit %d: stopped in %s"
              % (i + 1, gdb.selected_frame().name()))
        seen.append((pc(), when()))
    check(len({w for _, w in seen}) == n, "monitor when did not change: %r" % seen)
    return seen


def back_to(seen, k, what):
    """reverse-continue: the stop is hit K (1-based) of SEEN"""
    run("reverse-continue")
    got = (pc(), when())
    check(got == seen[k - 1], "%s: stopped at %#x, %r, not hit %d (%#x, %r)"
          % (what, got[0], got[1], k, seen[k - 1][0], seen[k - 1][1]))


WHERE = os.environ.get("RCONT_AT", "add")
WHERE_FN = os.environ.get("RCONT_FN", "add")

try:
    connect()
    # The breakpoint set late (at compute, after the replay began): this
    # replay has not seen all its hits, so the reverse-continues search.
    run("break " + os.environ.get("RCONT_FIRST", "compute"))
    run("continue")
    run("delete")
    run("break " + WHERE)
    seen = hits_forwards(3)
    run("stepi")
    run("stepi")
    check(pc() != seen[2][0], "stepi did not move")
    back_to(seen, 3, "reverse-continue after two stepi (breakpoint set late)")
    back_to(seen, 2, "the second reverse-continue (breakpoint set late)")

    # `run` again, to the first hit: now the breakpoint was there from the
    # start, and the reverse-continues go by the hits this replay passed.
    run("run")
    check((pc(), when()) == seen[0], "run stopped at %r, not hit 1 %r" % (when(), seen[0][1]))
    check(hits_forwards(2) == seen[1:], "hits 2 and 3 differ after run")
    run("stepi")
    run("stepi")
    back_to(seen, 3, "reverse-continue after two stepi")
    back_to(seen, 2, "the second reverse-continue")

    # Forwards to hit 3 again, two steps, one back by reverse-stepi: one
    # step after hit 3, and the reverse-continue from there finds hit 3.
    run("continue")
    check((pc(), when()) == seen[2], "continue after going back: %r" % (when(),))
    run("stepi")
    one = (pc(), when())
    run("stepi")
    run("reverse-stepi")
    check((pc(), when()) == one, "reverse-stepi: %#x, %r, not %#x, %r"
          % (pc(), when(), one[0], one[1]))
    back_to(seen, 3, "reverse-continue after stepi, stepi, reverse-stepi")
    back_to(seen, 2, "the second reverse-continue after reverse-stepi")
except gdb.error as e:
    check(False, "gdb: %s" % e)
passed()
