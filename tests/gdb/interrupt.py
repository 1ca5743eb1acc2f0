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
import socket
import sys
import time


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def packet(body):
    return b"$" + body + b"#" + b"%02x" % (sum(body) & 0xff)


class Rsp:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def reply(self):
        """The next packet's body (acks and O output skipped)."""
        while True:
            m = re.search(rb"\$([^#]*)#[0-9a-f]{2}", self.buf)
            if m:
                self.buf = self.buf[m.end():]
                if m.group(1).startswith(b"O") and m.group(1) != b"OK":
                    self.out += bytes.fromhex(m.group(1)[1:].decode())
                    continue
                return m.group(1)
            data = self.s.recv(4096)
            if not data:
                fail("the connection closed")
            self.buf += data

    def ask(self, body):
        self.send(packet(body))
        return self.reply()

    def monitor(self, cmd):
        self.out = b""
        r = self.ask(b"qRcmd," + cmd.encode().hex().encode())
        if r != b"OK":
            fail("monitor %s: %r" % (cmd, r))
        return self.out.decode().strip()


rsp = Rsp(int(os.environ["HERMIT_GDB_PORT"]))
rsp.send(b"+")
if rsp.ask(b"QStartNoAckMode") != b"OK":
    fail("no QStartNoAckMode")
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
