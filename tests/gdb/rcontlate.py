# SPDX-License-Identifier: BSD-3-Clause
# python3 rcontlate.py PROGRAM: raw RSP to `hermit replay --gdbserver-only`
# (port in HERMIT_GDB_PORT) on a recording of tests/guests/dapsteps, the
# packets hermit-dap sends to step over a call and back (dap/step.c):
# breakpoints put in late, at addresses the replay already passed since
# the last event. compute()'s loop calls add() four times in one event
# interval. To the third call (a breakpoint on the call instruction, three
# continues), then the breakpoint on its return address put in (Z0 R) and
# continued to; out again, one step, and `bs` back: the stop must be that
# same pass of R (monitor when, total still 1), not the first pass of R
# since the event, which is what a replay with R's breakpoint in from the
# start counts first. Then `bs` into add, a breakpoint on add put in and
# `bc`: add's first instruction in that same call (its arguments 1 and 2);
# and from there, with R's breakpoint put in again, `bc` to the pass of R
# before (the second call's return: add gave 1, total still 0).
# Prints PASS, or FAIL and why (exit status 1).
import os
import re
import subprocess
import sys

from rawrsp import Rsp, fail, packet

REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"] + \
       ["r%d" % i for i in range(8, 16)] + ["rip"]

prog = sys.argv[1]
syms = {}
for line in subprocess.run(["nm", prog], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16)
call = ret = None
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=compute", prog],
                     capture_output=True, text=True, check=True).stdout
for line in dis.splitlines():
    m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
    if not m:
        continue
    if call is not None and ret is None:
        ret = int(m.group(1), 16)
    if m.group(2).startswith("call") and "<add>" in line:
        call = int(m.group(1), 16)
if call is None or ret is None:
    fail("no call to add in compute: %s" % dis)

rsp = Rsp(int(os.environ["HERMIT_GDB_PORT"]))
rsp.no_ack()
rsp.ask(b"qSupported:swbreak+;hwbreak+")
tid = re.search(rb"thread:([0-9a-f.p]+);", rsp.ask(b"?")).group(1)


def regs():
    if rsp.ask(b"Hg" + tid) != b"OK":
        fail("Hg%s refused" % tid.decode())
    g = rsp.ask(b"g").decode()
    return {n: int.from_bytes(bytes.fromhex(g[16 * i:16 * i + 16]), "little")
            for i, n in enumerate(REGS)}


def total():
    r = rsp.ask(b"m%x,4" % syms["total"])
    return int.from_bytes(bytes.fromhex(r.decode()), "little")


def ok(pkt):
    if rsp.ask(pkt) != b"OK":
        fail("%s refused" % pkt.decode())


def go(pkt, what, pc, want_total):
    stop = rsp.ask(pkt)
    if not stop.startswith(b"T05"):
        fail("%s: stop %r" % (what, stop))
    r = regs()
    if pc is not None and r["rip"] != pc:
        fail("%s: at %#x, not %#x" % (what, r["rip"], pc))
    if total() != want_total:
        fail("%s: total is %d, not %d (another turn of the loop)" % (what, total(), want_total))
    return r


ok(b"Z0,%x,1" % call)
for i, t in enumerate([0, 0, 1]):
    go(b"vCont;c", "continue %d to the call" % (i + 1), call, t)
ok(b"z0,%x,1" % call)
# over the call, as the adapter's next: a breakpoint on its return address
ok(b"Z0,%x,1" % ret)
r = go(b"vCont;c", "continue to the return address", ret, 1)
if r["rax"] != 3:
    fail("add(1, 2) returned %d" % r["rax"])
at_ret = rsp.monitor("when")
ok(b"z0,%x,1" % ret)
go(b"vCont;s:" + tid, "a step after the return", None, 3)
ok(b"Hc" + tid)
go(b"bs", "bs to the return address", ret, 1)
if rsp.monitor("when") != at_ret:
    fail("bs: %r, not %r" % (rsp.monitor("when"), at_ret))
r = go(b"bs", "bs into add", None, 1)
if not syms["add"] < r["rip"] < syms["by_value"]:
    fail("bs from the return address: at %#x, not in add" % r["rip"])
ok(b"Z0,%x,1" % syms["add"])
r = go(b"bc", "bc to add's first instruction", syms["add"], 1)
if (r["rdi"] & 0xffffffff, r["rsi"] & 0xffffffff) != (1, 2):
    fail("bc to add: add(%d, %d), not add(1, 2)" % (r["rdi"], r["rsi"]))
ok(b"z0,%x,1" % syms["add"])
ok(b"Z0,%x,1" % ret)
r = go(b"bc", "bc to the return before", ret, 0)
if r["rax"] != 1:
    fail("bc to the return before: add gave %d, not 1" % r["rax"])
rsp.s.sendall(packet(b"k"))
rsp.s.close()
print("PASS")
