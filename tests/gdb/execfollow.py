# SPDX-License-Identifier: BSD-3-Clause
# gdb -x execfollow.py WRAPPER: a recording of tests/guests/gdbtwo run
# through a wrapper that execs it (`sh -c 'exec gdbtwo'`, env, a shell
# script), under gdb, which starts on the wrapper's program. gdb must
# follow the exec (exec-events): a pending breakpoint on gdbtwo's bump()
# is hit, in gdbtwo.c, with gdbtwo as the inferior's program; a
# reverse-continue from there goes back across the exec (gdb is told of
# it, and loads the wrapper's program again: tests/gdb/execback.py) to the
# start, where reverse-stepi and reverse-continue stay ("No more
# reverse-execution history"); `catch exec` stops there, where qXfer:exec-file
# names gdbtwo, and `break main` then continue hits gdbtwo's main; a
# continue through every hit reaches the end with the recorded output.
# Prints PASS, or FAIL and why (gdb's exit status 1).
import os
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check, connect, passed  # noqa: E402

PROG = os.environ["HERMIT_EXEC_PROG"]


def when():
    return run("monitor when").strip()


def frame_name():
    return gdb.selected_frame().name() or ""


def frame_file():
    sal = gdb.selected_frame().find_sal()
    return sal.symtab.filename if sal.symtab else ""


def progname():
    return gdb.selected_inferior().progspace.filename or ""


try:
    run("set breakpoint pending on")
    connect()
    start_prog = progname()
    check(os.path.basename(PROG) not in start_prog,
          "gdb started on %r, not on the wrapper" % start_prog)
    run("break bump")
    out = run("continue")
    check("executing new program" in out, "no exec followed: %r" % out)
    check(frame_name() == "bump", "break bump stopped in %r (%s)" % (frame_name(), when()))
    check(frame_file().endswith("gdbtwo.c"), "bump is in %r" % frame_file())
    check(os.path.realpath(progname()) == os.path.realpath(PROG),
          "gdb's program is %r, not %r" % (progname(), PROG))
    bt = run("bt")
    check("worker" in bt, "bt at bump: %r" % bt)
    first = when()
    # backwards: across the exec, into the wrapper (bump is pending
    # there), to the start
    out = run("reverse-continue")
    at_start = when()
    check("the start" in at_start and progname() == start_prog,
          "reverse-continue stopped at %s in %r (%r)" % (at_start, progname(), out))
    run("reverse-stepi")
    check(when() == at_start, "reverse-stepi at the start: %s" % when())
    run("reverse-continue")
    check(when() == at_start, "reverse-continue at the start: %s" % when())
    run("continue")
    check(frame_name() == "bump" and when() == first,
          "forwards again from the start: %s, not %s" % (when(), first))
    # every hit, to the end
    hits = 1
    for i in range(20):
        out = run("continue")
        if "exited" in out or "the end" in when():
            break
        check(frame_name() == "bump", "a continue stopped in %r" % frame_name())
        hits += 1
    check(hits == 6, "%d hits of bump, not 6" % hits)
    # from the start again: catch exec stops at the exec, and break main
    run("delete")
    run("catch exec")
    # (run replays from the start, and goes on to the first stop)
    # (run replays from the start, where gdb loads the wrapper's program
    # again, as exec-file names it, and goes on to the first stop)
    out = run("run")
    check(", exec 1 by task 0" in when(), "catch exec: %r at %s" % (out, when()))
    check(os.path.realpath(progname()) == os.path.realpath(PROG),
          "gdb's program at the exec is %r" % progname())
    run("delete")
    run("break main")
    run("continue")
    check(frame_name() == "main" and frame_file().endswith("gdbtwo.c"),
          "break main stopped in %r of %r" % (frame_name(), frame_file()))
    run("delete")
    out = run("continue")
    check("the end" in when(), "continue to the end: %s" % when())
except gdb.error as e:
    fail("gdb: %s (at %s)" % (e, when()))
passed()
