# SPDX-License-Identifier: BSD-3-Clause
# A raw gdb remote-protocol client for the tests that must speak RSP
# themselves, below what gdb sends (execraw.py, interrupt.py, owner.py):
# framing, no-ack mode, O-packet output, monitor commands and qXfer reads.
import re
import socket
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def packet(body):
    return b"$" + body + b"#" + b"%02x" % (sum(body) & 0xff)


class Rsp:
    def __init__(self, port, what="the connection"):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buf = b""
        self.out = b""  # what O packets printed since the last monitor()
        self.what = what

    def send(self, data):
        self.s.sendall(data)

    def reply(self):
        """The next packet's body, unescaped; acks skipped, O output kept
        in self.out."""
        while True:
            m = re.search(rb"\$([^#]*)#[0-9a-f]{2}", self.buf, re.S)
            if m:
                self.buf = self.buf[m.end():]
                body = m.group(1)
                if body.startswith(b"O") and body != b"OK":
                    self.out += bytes.fromhex(body[1:].decode())
                    continue
                return re.sub(rb"\}(.)", lambda e: bytes([e.group(1)[0] ^ 0x20]), body,
                              flags=re.S)
            data = self.s.recv(4096)
            if not data:
                fail(self.what + " closed")
            self.buf += data

    def ask(self, body):
        self.send(packet(body))
        return self.reply()

    def no_ack(self):
        """Ack what the stub sent at connection and leave ack mode."""
        self.send(b"+")
        if self.ask(b"QStartNoAckMode") != b"OK":
            fail("no QStartNoAckMode")

    def monitor(self, cmd):
        self.out = b""
        r = self.ask(b"qRcmd," + cmd.encode().hex().encode())
        if r != b"OK":
            fail("monitor %s: %r" % (cmd, r))
        return self.out.decode().strip()

    def xfer(self, obj):
        data, off = b"", 0
        while True:
            r = self.ask(b"qXfer:%s:read::%x,800" % (obj, off))
            if r[:1] not in (b"m", b"l"):
                fail("qXfer:%s: %r" % (obj.decode(), r))
            data += r[1:]
            off += len(r) - 1
            if r[:1] == b"l":
                return data
