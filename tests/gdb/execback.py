# SPDX-License-Identifier: BSD-3-Clause
# gdb -x execback.py WRAPPER: a recording of tests/guests/gdbtwo run
# through a wrapper that execs it (`sh -c 'exec gdbtwo'`, env), under gdb.
# Going back across the exec goes on in the wrapper's program, as gdb is
# told of it as of an exec (replayer/seek.c, cross_exec): a
# reverse-continue from gdbtwo's bump() stops at the breakpoint on execve
# in the wrapper, at the very position the forward run hit it, with the
# wrapper as gdb's program again; forwards from there gdb follows the
# exec again to the same bump. With `catch exec`, a reverse-continue stops
# before the exec (at the end of the wrapper's execve call), a
# reverse-stepi from there is at its syscall instruction, a stepi from
# there is the exec again; with no breakpoints, back to the start.
# Prints PASS, or FAIL and why (gdb's exit status 1).
import os
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check, connect, passed  # noqa: E402

PROG = os.path.realpath(os.environ["HERMIT_EXEC_PROG"])


def when():
    return run("monitor when").strip()


def frame_name():
    return gdb.selected_frame().name() or ""


def progname():
    return os.path.realpath(gdb.selected_inferior().progspace.filename or "")


def pc():
    return int(gdb.parse_and_eval("$pc"))


try:
    run("set breakpoint pending on")
    connect()
    wrapper = progname()
    check(wrapper != PROG, "gdb started on %r, not on the wrapper" % wrapper)
    run("break execve")
    run("break bump")
    run("continue")
    check("execve" in frame_name() and progname() == wrapper,
          "break execve stopped in %r of %r (%s)" % (frame_name(), progname(), when()))
    at_execve = when()
    out = run("continue")
    check("executing new program" in out and frame_name() == "bump" and progname() == PROG,
          "no exec followed to bump: %r in %r (%s)" % (out, frame_name(), when()))
    first = when()
    # back across the exec, into the wrapper, to its execve
    out = run("reverse-continue")
    check("executing new program" in out, "gdb was told of no exec going back: %r" % out)
    check(progname() == wrapper, "gdb's program back across the exec is %r" % progname())
    check("execve" in frame_name() and when() == at_execve,
          "reverse-continue across the exec stopped in %r at %s, not at %s" %
          (frame_name(), when(), at_execve))
    # and forwards again, into gdbtwo
    out = run("continue")
    check(frame_name() == "bump" and progname() == PROG and when() == first,
          "forwards again: %r of %r at %s, not %s" % (frame_name(), progname(), when(), first))
    # catch exec: back to the end of the wrapper's execve call
    run("delete")
    run("catch exec")
    out = run("reverse-continue")
    pre = when()
    check("before exec 1 by task 0" in pre and progname() == wrapper,
          "catch exec going back: %r at %s in %r" % (out, pre, progname()))
    pre_pc = pc()
    run("reverse-stepi")
    check(pc() == pre_pc - 2 and "before exec" not in when() and progname() == wrapper,
          "reverse-stepi before the exec: pc %#x (%s), not %#x" % (pc(), when(), pre_pc - 2))
    out = run("stepi")
    check(", exec 1 by task 0" in when() and progname() == PROG,
          "stepi over the execve call: %r at %s in %r" % (out, when(), progname()))
    run("reverse-continue")
    check(when() == pre, "catch exec going back again: %s, not %s" % (when(), pre))
    # no breakpoints: back to the start
    run("delete")
    out = run("reverse-continue")
    check("the start" in when() and progname() == wrapper,
          "back to the start: %r at %s in %r" % (out, when(), progname()))
    out = run("continue")
    check("the end" in when(), "continue to the end: %r at %s" % (out, when()))
except gdb.error as e:
    fail("gdb: %s (at %s)" % (e, when()))
passed()
