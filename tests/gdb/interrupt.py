# SPDX-License-Identifier: BSD-3-Clause
# python3 interrupt.py: gdb's Ctrl-C (a 0x03 byte while the target runs),
# spoken as raw RSP to `hermit replay --gdbserver-only` (port in
# HERMIT_GDB_PORT) on a recording of tests/guests/ticks (6,000 events): a
# continue that is interrupted stops with SIGINT before the end, whether
# the 0x03 comes with the continue or while it runs; so does a
# reverse-continue searching the whole recording for a breakpoint it never
# hits. Prints PASS, or FAIL and why (exit status 1).
import os
import re
import time

from rawrsp import Rsp, fail, packet


rsp = Rsp(int(os.environ["HERMIT_GDB_PORT"]))
rsp.no_ack()
rsp.send(b"+")
rsp.ask(b"?")
rsp.out = b""


def interrupted(what, stop, at_most):
    if not stop.startswith(b"T02"):
        fail("%s: the stop is %r, not SIGINT" % (what, stop))
    when = rsp.monitor("when")
    m = re.match(r"event (\d+)", when)
    if not m or "the end" in when or int(m.group(1)) >= at_most:
        fail("%s: stopped at %r" % (what, when))
    return int(m.group(1))


# Ctrl-C in the same write as the continue.
rsp.send(packet(b"vCont;c") + b"\x03")
first = interrupted("continue with Ctrl-C", rsp.reply(), 6000)
# Ctrl-C while it runs: a replay of 6,000 events takes longer than this.
rsp.send(packet(b"vCont;c"))
time.sleep(0.05)
rsp.send(b"\x03")
second = interrupted("continue, then Ctrl-C", rsp.reply(), 6000)
if second < first:
    fail("the second interrupt went back: event %d, then %d" % (first, second))
# To the end, then back, searching for a breakpoint at an address that is
# never reached (an interrupt stops the search where it is).
stop = rsp.ask(b"vCont;c")
if b"replaylog:end" not in stop:
    fail("continue to the end: %r" % stop)
if rsp.ask(b"Z0,1000,1") != b"OK":
    fail("Z0 refused")
rsp.send(packet(b"bc") + b"\x03")
interrupted("reverse-continue with Ctrl-C", rsp.reply(), 6001)
rsp.send(packet(b"k"))
print("PASS")
