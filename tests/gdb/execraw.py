# SPDX-License-Identifier: BSD-3-Clause
# python3 execraw.py PROGRAM: raw RSP to `hermit replay --gdbserver-only`
# (port in HERMIT_GDB_PORT) on a recording of a wrapper that execs
# PROGRAM. A client whose qSupported has no exec-events+ is not offered
# them and gets no exec stop: a continue runs to the end. Then, from the
# start again (vRun), one that offers exec-events+ is offered them back,
# and a continue stops at the exec with T05exec:<hex of PROGRAM's path>;
# there qXfer:exec-file names PROGRAM and qXfer:auxv is PROGRAM's (its
# AT_ENTRY is PROGRAM's entry point, not the wrapper's), and a software
# breakpoint is accepted where one in the wrapper's program was refused
# after the exec; a reverse-continue from the exec goes back across it
# with T05exec:<hex of the wrapper's path>, and from there to the start.
# Prints PASS, or FAIL and why (exit status 1).
import os
import re
import struct
import sys

from rawrsp import Rsp, fail, packet


def at_entry(auxv):
    for i in range(0, len(auxv) - 15, 16):
        key, val = struct.unpack("<QQ", auxv[i:i + 16])
        if key == 9:
            return val
    fail("no AT_ENTRY in auxv")


prog = os.path.realpath(sys.argv[1])
with open(prog, "rb") as f:
    elf = f.read(64)
e_entry = struct.unpack("<Q", elf[24:32])[0]

rsp = Rsp(int(os.environ["HERMIT_GDB_PORT"]))
rsp.s.sendall(b"+")
sup = rsp.ask(b"qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+")
if b"exec-events" in sup:
    fail("exec-events offered to a client without them: %r" % sup)
if rsp.ask(b"QStartNoAckMode") != b"OK":
    fail("no QStartNoAckMode")
rsp.ask(b"!")
rsp.ask(b"?")
wrapper = os.path.realpath(rsp.xfer(b"exec-file").decode())
if wrapper == prog:
    fail("the first program is already %s" % prog)
entry0 = at_entry(rsp.xfer(b"auxv"))
stop = rsp.ask(b"vCont;c")
if b"exec" in stop or b"replaylog:end" not in stop:
    fail("a continue without exec-events stopped with %r" % stop)
# (the end is in PROGRAM, which this client was never told of: its
# breakpoints, for the wrapper's program, go in nowhere)
if rsp.ask(b"Z0,%x,1" % entry0) == b"OK":
    fail("a breakpoint for the wrapper's program went into %s" % prog)

sup = rsp.ask(b"qSupported:multiprocess+;swbreak+;hwbreak+;exec-events+")
if b"exec-events+" not in sup:
    fail("exec-events not offered back: %r" % sup)
stop = rsp.ask(b"vRun;")
if not stop.startswith(b"T05"):
    fail("vRun: %r" % stop)
if os.path.realpath(rsp.xfer(b"exec-file").decode()) != wrapper:
    fail("exec-file at the start is not %s" % wrapper)
stop = rsp.ask(b"vCont;c")
m = re.match(rb"T05exec:([0-9a-f]+);thread:p[0-9a-f]+\.[0-9a-f]+;", stop)
if not m:
    fail("a continue with exec-events stopped with %r" % stop)
path = bytes.fromhex(m.group(1).decode()).decode()
if not path.startswith("/") or os.path.realpath(path) != prog:
    fail("the exec stop names %r, not %s" % (path, prog))
exe = rsp.xfer(b"exec-file").decode()
if os.path.realpath(exe) != prog:
    fail("exec-file after the exec is %r" % exe)
entry = at_entry(rsp.xfer(b"auxv"))
if entry == entry0 or (entry - e_entry) % 4096:
    fail("auxv's AT_ENTRY %#x is not %s's (entry %#x)" % (entry, prog, e_entry))
# '?' repeats the stop, not the exec
if b"exec" in rsp.ask(b"?"):
    fail("'?' told the exec again")
if rsp.ask(b"Z0,%x,1" % entry) != b"OK" or rsp.ask(b"z0,%x,1" % entry) != b"OK":
    fail("a breakpoint at %s's entry refused" % prog)
# back across the exec: an exec stop that names the wrapper (the end of
# its execve call), where exec-file and auxv are the wrapper's again; and
# back from there, with no breakpoints, to the start
stop = rsp.ask(b"bc")
m = re.match(rb"T05exec:([0-9a-f]+);thread:p[0-9a-f]+\.[0-9a-f]+;", stop)
if not m:
    fail("a reverse-continue from the exec stopped with %r" % stop)
path = bytes.fromhex(m.group(1).decode()).decode()
if os.path.realpath(path) != wrapper:
    fail("the exec stop going back names %r, not %s" % (path, wrapper))
if os.path.realpath(rsp.xfer(b"exec-file").decode()) != wrapper:
    fail("exec-file back across the exec is not %s" % wrapper)
if at_entry(rsp.xfer(b"auxv")) != entry0:
    fail("auxv back across the exec is not the wrapper's")
stop = rsp.ask(b"bc")
if b"replaylog:begin" not in stop:
    fail("a reverse-continue before the exec stopped with %r" % stop)
rsp.s.sendall(packet(b"k"))
print("PASS")
