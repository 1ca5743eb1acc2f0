# SPDX-License-Identifier: BSD-3-Clause
# gdb -batch -x replay.py: drives real gdb against `hermit replay
# --gdbserver-only` (port in HERMIT_GDB_PORT) on a recording of
# tests/guests/gdbtwo, and asserts; any failure exits gdb with status 1.
import os
import re
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check  # noqa: E402


def counter():
    return int(gdb.parse_and_eval("counter"))


def func():
    return gdb.selected_frame().name()


def pc():
    return int(gdb.parse_and_eval("$pc"))


def when():
    return run("monitor when").strip()


stops = []


def on_stop(event):
    kinds = [b.type for b in getattr(event, "breakpoints", [])]
    stops.append(kinds)


gdb.events.stop.connect(on_stop)
WATCH_KINDS = (gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT)


try:
    run("set pagination off")
    run("set confirm off")
    run("set sysroot /")
    run("target extended-remote 127.0.0.1:%s" % os.environ["HERMIT_GDB_PORT"])
    check(when().startswith("event 0"), "the replay does not start at event 0: " + when())
    run("break bump")

    # Each hit of bump, forwards: the global grows, 'by' is 1 or 10.
    seen = []
    for i in range(3):
        run("continue")
        check(func() == "bump", "hit %d: stopped in %s, not bump" % (i, func()))
        by = int(gdb.parse_and_eval("by"))
        check(by in (1, 10), "hit %d: by = %d" % (i, by))
        seen.append((counter(), when(), pc()))
    check(seen[0][0] < seen[2][0], "counter did not grow: %r" % seen)
    check(len({w for _, w, _ in seen}) == 3, "monitor when did not change: %r" % seen)
    bp_pc = seen[2][2]

    # Both workers and the main thread are there.
    threads = gdb.selected_inferior().threads()
    check(len(threads) >= 3, "info threads lists %d threads" % len(threads))

    # reverse-continue: back to the previous hit, with the earlier value.
    run("reverse-continue")
    check(func() == "bump", "reverse-continue stopped in %s" % func())
    check((counter(), when()) == seen[1][:2],
          "reverse-continue: %r, not the second hit %r" % ((counter(), when()), seen[1][:2]))
    run("reverse-continue")
    check((counter(), when()) == seen[0][:2], "second reverse-continue: %r" % ((counter(), when()),))

    # reverse-stepi: one instruction back, still in bump; stepi forward again.
    run("reverse-stepi")
    back = pc()
    check(back != bp_pc and func() == "bump", "reverse-stepi: pc %#x in %s" % (back, func()))
    w = when()
    run("stepi")
    check(pc() == bp_pc, "stepi after reverse-stepi: pc %#x, not %#x" % (pc(), bp_pc))
    check(when() != w, "monitor when did not move with stepi")

    # reverse-finish: out of bump, into its caller, before the call.
    run("reverse-finish")
    check(func() == "worker", "reverse-finish stopped in %s, not worker" % func())

    # reverse-stepi from a function's first instruction: back onto the
    # call that led there (found by a breakpoint on that call).
    run("delete")
    run("break *bump")
    run("continue")
    entry = int(gdb.parse_and_eval("(long)&bump"))
    check(pc() == entry, "break *bump stopped at %#x, not %#x" % (pc(), entry))
    sp = int(gdb.parse_and_eval("$sp"))
    run("reverse-stepi")
    insn = run("x/i $pc")
    check(func() == "worker" and "call" in insn and "bump" in insn,
          "reverse-stepi from bump's entry: %s in %s" % (insn.strip(), func()))
    check(int(gdb.parse_and_eval("$sp")) == sp + 8, "reverse-stepi: sp %#x, not %#x + 8"
          % (int(gdb.parse_and_eval("$sp")), sp))
    run("stepi")
    check(pc() == entry and int(gdb.parse_and_eval("$sp")) == sp,
          "stepi onto bump again: pc %#x sp %#x" % (pc(), int(gdb.parse_and_eval("$sp"))))

    # A watchpoint on the global stops at each write, after it.
    run("delete")
    run("watch counter")
    for i in range(2):
        before = counter()
        run("continue")
        check(stops and any(k in WATCH_KINDS for k in stops[-1]) and counter() != before,
              "watch %d: counter %d -> %d, stop %r" % (i, before, counter(), stops[-1:]))
        check(func() == "bump", "watch %d stopped in %s" % (i, func()))

    # monitor goto: back to the event of the second hit; gdb refreshes its
    # view with flushregs.
    run("delete")
    m = re.match(r"event (\d+)", seen[1][1])
    check(m is not None, "monitor when said %r" % seen[1][1])
    # (the main thread: the worker gdb has selected may not exist yet there)
    run("thread 1")
    run("monitor goto %s" % m.group(1))
    run("maintenance flush register-cache")
    check(re.match(r"event %s \(" % m.group(1), when()) is not None,
          "after monitor goto %s: %s" % (m.group(1), when()))

    # Forwards to the end: the program's total, and the process is kept.
    run("continue")
    check(counter() == 33, "at the end counter is %d" % counter())

    # A breakpoint set only now: this replay never saw its hits, so the
    # reverse-continue has to look for them. The last call adds the last part.
    run("break bump")
    run("reverse-continue")
    check(func() == "bump", "reverse-continue from the end stopped in %s" % func())
    by = int(gdb.parse_and_eval("by"))
    check(counter() + by == 33, "the last hit of bump has counter %d, by %d" % (counter(), by))

    # reverse-step leaves bump for the line that called it; reverse-next
    # goes back over a line of worker without entering bump.
    run("delete")
    run("reverse-step")
    sal = gdb.selected_frame().find_sal()
    check(func() == "worker", "reverse-step from bump's first line stopped in %s" % func())
    check(pc() == sal.pc, "reverse-step stopped at %#x, inside line %d" % (pc(), sal.line))
    call_line = sal.line
    run("reverse-next")
    check(func() == "worker", "reverse-next stopped in %s" % func())
    check(gdb.selected_frame().find_sal().line != call_line,
          "reverse-next stayed on line %d" % call_line)
    check(counter() + by == 33, "reverse-next ran bump backwards: counter %d" % counter())
    run("next")
    check(func() == "worker" and gdb.selected_frame().find_sal().line == call_line,
          "next after reverse-next: %s line %d" % (func(), gdb.selected_frame().find_sal().line))

    # A watchpoint backwards: from the end, reverse-continue stops at each
    # write of the global, before it (the old value still there); forwards
    # again, after the write, with the new value.
    run("continue")
    check(counter() == 33, "at the end again counter is %d" % counter())
    run("watch counter")
    later = 33
    for i in range(3):
        run("reverse-continue")
        check(stops and any(k in WATCH_KINDS for k in stops[-1]),
              "reverse watch %d: stop %r" % (i, stops[-1:]))
        check(func() == "bump", "reverse watch %d stopped in %s" % (i, func()))
        by = int(gdb.parse_and_eval("by"))
        check(counter() + by == later,
              "reverse watch %d: counter %d + by %d, not %d" % (i, counter(), by, later))
        if i == 0:
            # it stopped at the writing instruction itself: one step writes
            at = pc()
            run("stepi")
            check(counter() == later, "reverse watch: the instruction at %#x did not write" % at)
            run("reverse-stepi")
            check(pc() == at and counter() + by == later, "reverse-stepi back to the write")
        later = counter()
    run("continue")
    check(stops and any(k in WATCH_KINDS for k in stops[-1]) and counter() == later + by,
          "watch forwards after going back: counter %d, not %d" % (counter(), later + by))

    # A read watchpoint: forwards it stops after the instruction that reads
    # the global (bump's `int before = counter`), backwards before it. An
    # access watchpoint stops at the write too.
    run("delete")
    run("break bump")
    run("reverse-continue")
    check(func() == "bump", "reverse-continue to bump stopped in %s" % func())
    c0, by = counter(), int(gdb.parse_and_eval("by"))
    run("delete")
    run("rwatch counter")
    run("continue")
    check(stops and gdb.BP_READ_WATCHPOINT in stops[-1], "rwatch: stop %r" % stops[-1:])
    check(func() == "bump" and counter() == c0,
          "rwatch stopped in %s, counter %d (not %d)" % (func(), counter(), c0))
    read_pc, read_when = pc(), when()
    run("reverse-continue")
    check(stops and gdb.BP_READ_WATCHPOINT in stops[-1], "reverse rwatch: stop %r" % stops[-1:])
    check(func() == "bump" and pc() < read_pc, "reverse rwatch stopped at %#x in %s, not before %#x"
          % (pc(), func(), read_pc))
    run("stepi")
    check(pc() == read_pc and when() == read_when,
          "stepi over the read: %#x at %s, not %#x at %s" % (pc(), when(), read_pc, read_when))
    run("reverse-continue")
    run("reverse-continue")
    check(stops and gdb.BP_READ_WATCHPOINT in stops[-1] and func() == "bump",
          "the read before: stop %r in %s" % (stops[-1:], func()))
    check(counter() < c0, "the read before has counter %d, not less than %d" % (counter(), c0))
    run("continue")
    run("continue")
    check(pc() == read_pc and when() == read_when,
          "rwatch forwards again: %#x at %s, not %#x at %s" % (pc(), when(), read_pc, read_when))
    run("delete")
    run("awatch counter")
    run("continue")
    check(stops and gdb.BP_ACCESS_WATCHPOINT in stops[-1] and func() == "bump",
          "awatch: stop %r in %s" % (stops[-1:], func()))
    check(counter() == c0 + by, "awatch after the read: counter %d, not %d" % (counter(), c0 + by))
    run("reverse-continue")
    check(stops and gdb.BP_ACCESS_WATCHPOINT in stops[-1] and counter() == c0,
          "reverse awatch to the write: stop %r, counter %d" % (stops[-1:], counter()))
    run("reverse-continue")
    check(stops and gdb.BP_ACCESS_WATCHPOINT in stops[-1] and pc() < read_pc,
          "reverse awatch to the read: stop %r at %#x" % (stops[-1:], pc()))
    # a stepi over the read reports it too
    run("stepi")
    check(stops and gdb.BP_ACCESS_WATCHPOINT in stops[-1] and pc() == read_pc,
          "stepi over the read: stop %r at %#x" % (stops[-1:], pc()))

    # More watchpoints than x86 has debug registers (the stub took 4, and
    # gdb could not insert a fifth): five on bytes nothing writes (main's
    # code) and one on the global. Forwards the global's write stops;
    # backwards, the write before it.
    run("delete")
    for off in range(0, 40, 8):
        run("watch *(long *)((char *)&main + %d)" % off)
    run("watch counter")
    c0 = counter()
    run("continue")
    check(stops and any(k in WATCH_KINDS for k in stops[-1]) and func() == "bump",
          "six watchpoints: stop %r in %s" % (stops[-1:], func()))
    c1 = counter()
    check(c1 != c0, "six watchpoints: counter still %d" % c1)
    run("reverse-continue")
    check(stops and any(k in WATCH_KINDS for k in stops[-1]) and func() == "bump",
          "six watchpoints backwards: stop %r in %s" % (stops[-1:], func()))
    check(counter() == c0, "six watchpoints backwards: counter %d, not %d" % (counter(), c0))

    # count_down's first instruction is also its loop's head: from its last
    # pass there, reverse-stepi lands on the jump back; from its first, on
    # the call in main.
    run("delete")
    run("break *count_down")
    run("reverse-continue")
    entry = int(gdb.parse_and_eval("(long)&count_down"))
    check(pc() == entry, "reverse-continue to count_down: pc %#x" % pc())
    run("reverse-stepi")
    insn = run("x/i $pc")
    check(func() == "count_down" and "jne" in insn,
          "reverse-stepi from count_down's last pass: %s" % insn.strip())
    run("reverse-continue")
    run("reverse-continue")
    check(pc() == entry and int(gdb.parse_and_eval("$ecx")) == 3,
          "count_down's first pass: pc %#x ecx %d" % (pc(), int(gdb.parse_and_eval("$ecx"))))
    # The x87 and SSE registers, as main set them before the call.
    xmm1 = float(gdb.parse_and_eval("$xmm1.v2_double[0]"))
    st0 = float(gdb.parse_and_eval("$st0"))
    check(xmm1 == 2.5 and st0 == 1.0, "xmm1 %r, st0 %r: not 2.5 and 1" % (xmm1, st0))
    if int(gdb.parse_and_eval("have_avx")):
        ymm1 = [float(gdb.parse_and_eval("$ymm1.v4_double[%d]" % i)) for i in range(4)]
        check(ymm1 == [2.5, 0.0, 4.0, 0.0], "ymm1 %r, not 2.5, 0, 4, 0" % ymm1)
    ftag = int(gdb.parse_and_eval("$ftag"))
    top = (int(gdb.parse_and_eval("$fstat")) >> 11) & 7
    check((ftag >> (2 * top)) & 3 == 0 and ftag | (3 << (2 * top)) == 0xffff,
          "ftag %#x: st0 (physical %d) valid, the others empty" % (ftag, top))
    check(int(gdb.parse_and_eval("$mxcsr")) == 0x1f80 and
          int(gdb.parse_and_eval("$fctrl")) == 0x37f,
          "mxcsr %#x fctrl %#x" % (int(gdb.parse_and_eval("$mxcsr")),
                                   int(gdb.parse_and_eval("$fctrl"))))
    run("reverse-stepi")
    insn = run("x/i $pc")
    check(func() == "main" and "call" in insn and "count_down" in insn,
          "reverse-stepi from count_down's first pass: %s in %s" % (insn.strip(), func()))

    # Nothing reads the global before main calls count_down: a
    # reverse-continue with a read watchpoint searches back, stretch by
    # stretch, to the start of history (not to the program's end).
    run("delete")
    run("rwatch counter")
    run("reverse-continue")
    check(gdb.selected_inferior().pid > 0 and when().startswith("event 0, the start"),
          "reverse rwatch with no read before: %s" % when())

    # printf's first call goes through the lazy binding resolver: from its
    # first instruction, reverse-stepi lands on the resolver's jump, not on
    # the PLT's (whose GOT slot held printf only later), and stepi comes
    # back to printf.
    run("delete")
    run("break *printf")
    run("continue")
    entry = int(gdb.parse_and_eval("(long)&printf"))
    check(pc() == entry, "break *printf stopped at %#x, not %#x" % (pc(), entry))
    run("reverse-stepi")
    back = run("x/i $pc").strip()
    run("stepi")
    check(pc() == entry, "stepi after reverse-stepi from printf's entry (from %s): %#x"
          % (back, pc()))
    run("kill")
except gdb.error as e:
    fail("gdb: %s" % e)
print("PASS")
os._exit(0)
