# SPDX-License-Identifier: BSD-3-Clause
# gdb -batch -x patched.py: gdb against `hermit replay --gdbserver-only`
# (port in HERMIT_GDB_PORT) on a recording of tests/guests/patchloop, whose
# spin() loop has two counted sites (a 2-byte `call *%rax` and a 2-byte
# backward `jne`), patched in the guest's memory (docs/preemption.md). gdb
# must see the original program only: the bytes and instructions of spin()
# as the ELF file has them, every stepi landing on one of its instruction
# boundaries, and reverse-stepi retracing the same pcs, while `monitor
# when` shows the loop's ticks being counted. Any failure exits 1.
import os
import re
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, fail, check, connect, passed  # noqa: E402

STEPS = 200


def when():
    """(event, task, ticks, pc) from `monitor when`"""
    text = run("monitor when").strip()
    m = re.match(r"event (\d+) \(task (\d+) at tick (\d+), pc (0x[0-9a-f]+)\)", text)
    check(m is not None, "monitor when said %r" % text)
    return tuple(int(g, 0) for g in m.groups())


def pc():
    return int(gdb.parse_and_eval("$pc")) & 0xffffffffffffffff


try:
    run("set pagination off")
    run("set confirm off")
    run("set sysroot /")
    # From the ELF file, before any process exists: spin()'s bytes and
    # instruction boundaries.
    lo = int(gdb.parse_and_eval("(long)&spin"))
    file_insns = run("x/24i spin")
    hi = int(re.findall(r"^\s*(?:=> )?(0x[0-9a-f]+)", file_insns, re.M)[-1], 16)
    file_bytes = run("x/%dxb spin" % (hi - lo))
    bounds = set(int(a, 16) for a in
                 re.findall(r"^\s*(?:=> )?(0x[0-9a-f]+) <spin", file_insns, re.M))
    check(len(bounds) >= 20, "spin() has %d instructions in the file" % len(bounds))

    run("target extended-remote 127.0.0.1:%s" % os.environ["HERMIT_GDB_PORT"])
    run("break *spin")
    run("continue")
    base = lo  # a PIE is loaded elsewhere than the file says
    lo = int(gdb.parse_and_eval("(long)&spin"))
    delta = lo - base
    check(pc() == lo, "not at spin: %#x, not %#x" % (pc(), lo))

    def insns(text):
        """x/Ni's lines without the load address: `<spin+N>: insn`"""
        text = re.sub(r"^\s*(=> )?0x[0-9a-f]+ ", "", text, flags=re.M)
        text = re.sub(r"0x[0-9a-f]+ (<[^>]*>)", r"\1", text)
        return [re.sub(r"\s*#.*", "", line) for line in text.split("\n")]

    # The loop is patched by now (at exec); memory reads show the file's.
    got_bytes = run("x/%dxb spin" % (hi - base))
    check(re.findall(r"\t(0x[0-9a-f]{2})", got_bytes) ==
          re.findall(r"\t(0x[0-9a-f]{2})", file_bytes),
          "x/xb on spin differs from the file:\n%s\n%s" % (got_bytes, file_bytes))
    got_insns = run("x/24i spin")
    check(insns(got_insns) == insns(file_insns),
          "x/24i on spin differs from the file:\n%s\n%s" % (got_insns, file_insns))

    # Forwards, one instruction at a time through the loop's turns: every
    # pc is an instruction of spin() (or of twice(), which it calls).
    ev0, task0, t0, p0 = when()
    check(p0 == lo, "monitor when's pc %#x, not spin's %#x" % (p0, lo))
    tw_lo = int(gdb.parse_and_eval("(long)&twice"))
    trail = [pc()]
    for i in range(STEPS):
        run("stepi")
        p = pc()
        in_spin = p - delta in bounds
        in_twice = tw_lo <= p < tw_lo + 16
        check(in_spin or in_twice,
              "stepi %d landed at %#x, not on an instruction of spin or twice" % (i + 1, p))
        trail.append(p)
    ev1, task1, t1, p1 = when()
    check(p1 == trail[-1], "monitor when's pc %#x, not $pc %#x" % (p1, trail[-1]))
    check(t1 > t0, "the loop's ticks were not counted: tick %d, then %d" % (t0, t1))
    print("forwards: %d steps, ticks %d -> %d" % (STEPS, t0, t1))

    # Backwards, the same pcs in the reverse order, and the ticks back.
    for i in range(STEPS):
        run("reverse-stepi")
        want = trail[STEPS - 1 - i]
        check(pc() == want, "reverse-stepi %d: at %#x, not %#x" % (i + 1, pc(), want))
    ev2, task2, t2, p2 = when()
    check((ev2, task2, t2, p2) == (ev0, task0, t0, p0),
          "back at the start of the steps, monitor when is %r, not %r" %
          ((ev2, task2, t2, p2), (ev0, task0, t0, p0)))

    # After the loop: the instruction that follows its backward jne, hit
    # once, after 1,000,000 turns with no event between. reverse-stepi
    # goes back from the loop's last tick (counting steps from the
    # interval's start would take millions of single steps).
    jne = [int(a, 16) for a, op in
           re.findall(r"^\s*(?:=> )?(0x[0-9a-f]+) <spin\+\d+>:\s+(\w+)", file_insns, re.M)]
    ops = re.findall(r"^\s*(?:=> )?0x[0-9a-f]+ <spin\+\d+>:\s+(\w+)", file_insns, re.M)
    at = [jne[i] for i in range(len(ops)) if ops[i] == "jne"]
    check(len(at) == 1, "spin() has %d jne in the file" % len(at))
    after = jne[jne.index(at[0]) + 1] + delta
    run("delete")
    run("break *%#x" % after)
    run("continue")
    check(pc() == after, "continue to after the loop: at %#x, not %#x" % (pc(), after))
    ev3, task3, t3, p3 = when()
    run("reverse-stepi")
    # (the jne, or the start of the patched site that took it along with
    # the instructions before it: a site steps as one instruction)
    back = pc() - delta
    check(back in bounds and at[0] - 5 < back <= at[0],
          "reverse-stepi after the loop: at %#x, not the jne at %#x" % (pc(), at[0] + delta))
    run("stepi")
    check(when() == (ev3, task3, t3, p3), "stepi back: %r, not %r" % (when(), (ev3, task3, t3, p3)))

    passed()
except gdb.error as e:
    fail("gdb: %s" % e)
