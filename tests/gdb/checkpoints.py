# SPDX-License-Identifier: BSD-3-Clause
# gdb -batch -x checkpoints.py: drives real gdb against `hermit replay
# --gdbserver-only` (port in HERMIT_GDB_PORT) on a recording of
# tests/guests/ticks (TICKS events, default 6,000, tick(i) every 500), and
# asserts what reverse execution finds. With CHECKPOINTS=1 it also asserts
# that checkpoints were made and that the searches started from them; with
# CHECKPOINTS=0 (hermit run with HERMIT_CHECKPOINTS=0, or a guest that
# writes a file, which ends them) that there were none. Every stop is printed on a STOP line: gdb.sh compares them between
# the two runs. Any failure exits gdb with status 1.
import os
import re
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check  # noqa: E402


def value(name):
    return int(gdb.parse_and_eval(name))


def func():
    return gdb.selected_frame().name()


def when():
    return run("monitor when").strip()


def checkpoints():
    """([(event, threads) of each checkpoint], how many seeks started from one)"""
    text = run("monitor checkpoints").strip()
    if text == "checkpoints are off":
        return [], 0
    m = re.match(r"(\d+) checkpoints?(?: at events (.*))?; one every \d+ events; "
                 r"(\d+) restored$", text)
    check(m is not None, "monitor checkpoints said %r" % text)
    at = [(int(e), int(t)) for e, t in
          re.findall(r"(\d+) \((\d+) threads?\)", m.group(2) or "")]
    check(len(at) == int(m.group(1)), "monitor checkpoints: %r" % text)
    return at, int(m.group(3))


def stop(what):
    print("STOP %s: %s i=%d last=%d sum=%d pos=%d %s" % (
        what, func(), value("i") if func() == "tick" else -1, value("last"), value("sum"),
        value("pos"), when()))


want = os.environ["CHECKPOINTS"] == "1"
n = int(os.environ.get("TICKS", "6000"))
threads = int(os.environ.get("THREADS", "1"))
top = (n - 1) // 500 * 500  # the last tick
mid = n // 2 + 100
try:
    run("set pagination off")
    run("set confirm off")
    run("set sysroot /")
    run("target extended-remote 127.0.0.1:%s" % os.environ["HERMIT_GDB_PORT"])

    # Forwards to the end (the program prints, once): checkpoints are made
    # on the way. Back to done().
    run("continue")
    run("break done")
    run("reverse-continue")
    check(func() == "done" and value("last") == top, "not at done: %s" % func())
    stop("done")
    at, restored = checkpoints()
    if want:
        check(len(at) >= 5 and at == sorted(at), "checkpoints at %r" % at)
        if threads > 1:
            check(any(t == threads + 1 for _, t in at),
                  "no checkpoint while the %d threads ran: %r" % (threads, at))
    else:
        check(at == [] and restored == 0, "checkpoints made: %r" % at)

    # A breakpoint set only now: no hit is known, a reverse-continue
    # searches. Each one goes back to the tick before.
    run("delete")
    run("break tick")
    for want_i in (top, top - 500, top - 1000):
        run("reverse-continue")
        check(func() == "tick" and value("i") == want_i,
              "reverse-continue: %s i=%d, not tick(%d)" % (func(), value("i"), want_i))
        check(value("last") == want_i - 500, "last is %d at tick(%d)" % (value("last"), want_i))
        stop("tick %d" % want_i)
    if want:
        at2, restored = checkpoints()
        check(restored >= 3, "the searches did not start from checkpoints: %d" % restored)

    # Forwards again: the next tick, with its global as it was.
    run("continue")
    check(value("i") == top - 500, "continue after reverse: tick(%d)" % value("i"))
    stop("forwards")

    # monitor goto: to an event in the middle, then back to the tick
    # before it and forwards to the one after.
    run("delete")
    run("monitor goto %d" % mid)
    run("maintenance flush register-cache")
    check(when().startswith("event %d " % mid), "after monitor goto %d: %s" % (mid, when()))
    run("break tick")
    run("reverse-continue")
    back = value("i")
    check(func() == "tick" and mid - 600 <= back < mid,
          "reverse-continue from %d: tick(%d)" % (mid, back))
    stop("back from %d" % mid)
    run("continue")
    check(value("i") == back + 500, "forwards from tick(%d): tick(%d)" % (back, value("i")))
    stop("forwards from %d" % back)

    # reverse-stepi and stepi where the search starts from a checkpoint.
    run("delete")
    pc = value("$pc")
    run("reverse-stepi")
    check(value("$pc") != pc, "reverse-stepi did not move")
    run("stepi")
    check(value("$pc") == pc, "stepi after reverse-stepi: %#x, not %#x" % (value("$pc"), pc))
    stop("stepi")

    run("kill")
    print("PASS")
    gdb.flush()
    os._exit(0)
except gdb.error as e:
    fail("gdb: %s" % e)
