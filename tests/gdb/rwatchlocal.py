# SPDX-License-Identifier: BSD-3-Clause
# A watchpoint on a local written many times within one event interval,
# forwards and backwards (docs/gdb.md "Watchpoints"), on a recording of
# tests/guests/inspectme: sort_sum's `sum += vals[i]` adds the sorted
# values 3, 7, 19, 25, 42, 88 with no syscall in between, in main's third
# stretch of that interval (it waited in read() while the worker ran).
# WATCH="-l" watches the location rather than the scoped expression.
# Run by tests/integration/gdb.sh, with and without checkpoints.
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import check, connect, passed, run  # noqa: E402

SUMS = [3, 10, 29, 54]  # sum after each of the first writes in the loop


def func():
    return gdb.selected_frame().name()


def line():
    return gdb.selected_frame().find_sal().line


def sum_now():
    """sum here, or None where it is not in scope (a stop outside sort_sum)"""
    try:
        return int(gdb.parse_and_eval("sum"))
    except gdb.error:
        return None


connect()
run("break sort_sum")
run("continue")
check(func() == "sort_sum", "the breakpoint stopped in %s" % func())
entry = int(gdb.parse_and_eval("$pc"))
watch = os.environ.get("WATCH", "")
run("watch %s sum" % watch)

# Forwards: each continue stops after the next write, in sort_sum.
for i, want in enumerate(SUMS):
    run("continue")
    check(func() == "sort_sum" and sum_now() == want,
          "continue %d: sum %r in %s, not %d in sort_sum" % (i + 1, sum_now(), func(), want))

# Backwards: each reverse-continue stops before the write that made the
# value the stop before showed, so the value is the one before it.
for i in range(len(SUMS) - 1, 0, -1):
    run("reverse-continue")
    check(func() == "sort_sum" and sum_now() == SUMS[i - 1],
          "reverse-continue to write %d: sum %r in %s (line %d), not %d in sort_sum"
          % (i + 1, sum_now(), func(), line(), SUMS[i - 1]))
# Before the first write of the loop, after `sum = 0`.
run("reverse-continue")
check(func() == "sort_sum" and sum_now() == 0,
      "reverse-continue to the first write: sum %r in %s (line %d)" % (sum_now(), func(), line()))
# Then the breakpoint before the loop and its `sum = 0` (which stores the 0
# the slot held already: no change to stop at).
run("reverse-continue")
pc = int(gdb.parse_and_eval("$pc"))
check(pc == entry, "reverse-continue to sort_sum's entry: %s line %d, pc %#x, not %#x"
      % (func(), line(), pc, entry))

# And forwards again, to the same writes.
for i, want in enumerate(SUMS[:2]):
    run("continue")
    check(func() == "sort_sum" and sum_now() == want,
          "continue again %d: sum %r in %s, not %d" % (i + 1, sum_now(), func(), want))
passed()
