# SPDX-License-Identifier: BSD-3-Clause
# python3 owner.py PROGRAM: the stub serves only its owner, and only the
# recording's files, read-only. Raw RSP to `hermit replay --gdbserver-only`
# (port in HERMIT_GDB_PORT) on a recording of PROGRAM. As root, a client
# running as uid 65534 (setpriv) connects first and must see the
# connection closed unserved; then the owner connects and is served.
# vFile:open of PROGRAM (kept by the recording) reads its ELF header;
# vFile:open of a host file the recording did not keep, of PROGRAM to
# write, and of a new file with O_CREAT each get F-1 (and nothing is
# created); vFile:pread and vFile:close of a descriptor vFile did not open
# get F-1. Prints PASS, or FAIL and why (exit status 1).
import os
import re
import subprocess
import sys

from rawrsp import Rsp, fail, packet


port = int(os.environ["HERMIT_GDB_PORT"])
program = sys.argv[1]

# Another user first: the connection must end without a reply.
INTRUDER = r"""
import socket, sys
s = socket.create_connection(("127.0.0.1", %d), timeout=20)
s.sendall(b"+$qSupported#37")
got = b""
try:
    while True:
        d = s.recv(4096)
        if not d:
            break
        got += d
except ConnectionResetError:
    pass
except socket.timeout:
    print("served: timed out waiting, got %%r" %% got)
    sys.exit(1)
if got:
    print("served: %%r" %% got)
    sys.exit(1)
print("refused")
""" % port
if os.getuid() == 0:
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        sys.executable, "-c", INTRUDER],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or r.stdout.strip() != "refused":
        fail("uid 65534's connection: %r %r" % (r.stdout, r.stderr))
else:
    print("(not root: no other user's connection tried)")


rsp = Rsp(port, "the owner's connection")
rsp.no_ack()
rsp.ask(b"?")

O_WRONLY, O_RDWR, O_CREAT = 0x1, 0x2, 0x200


def vopen(path, flags):
    return rsp.ask(b"vFile:open:%s,%x,1a4" % (path.encode().hex().encode(), flags))


r = vopen(program, 0)
m = re.match(rb"F([0-9a-f]+)$", r)
if not m:
    fail("vFile:open of the program: %r" % r)
fd = int(m.group(1), 16)
r = rsp.ask(b"vFile:pread:%x,4,0" % fd)
if not r.startswith(b"F4;") or r[3:7] != b"\x7fELF":
    fail("vFile:pread of the program: %r" % r)
if rsp.ask(b"vFile:close:%x" % fd) != b"F0":
    fail("vFile:close of the program's descriptor")

for what, path, flags in (("a host file the recording did not keep", "/etc/passwd", 0),
                          ("the program to write", program, O_WRONLY),
                          ("the program to read and write", program, O_RDWR),
                          ("a new file", "/tmp/hermit-owner-test-%d" % os.getpid(),
                           O_WRONLY | O_CREAT)):
    r = vopen(path, flags)
    if not r.startswith(b"F-1,"):
        fail("vFile:open of %s (%s, flags %#x): %r" % (what, path, flags, r))
if os.path.exists("/tmp/hermit-owner-test-%d" % os.getpid()):
    os.unlink("/tmp/hermit-owner-test-%d" % os.getpid())
    fail("vFile:open with O_CREAT created the file")
# The stub's own descriptors (its log, its socket) are not gdb's.
for fd in (0, 1, 2, 3, 4, 5):
    r = rsp.ask(b"vFile:pread:%x,10,0" % fd)
    if not r.startswith(b"F-1,"):
        fail("vFile:pread of descriptor %d vFile did not open: %r" % (fd, r[:40]))
    r = rsp.ask(b"vFile:close:%x" % fd)
    if not r.startswith(b"F-1,"):
        fail("vFile:close of descriptor %d vFile did not open: %r" % (fd, r))
# Still served: the replay runs to its end.
for i in range(3):
    r = rsp.ask(b"vCont;c")
    if not r.startswith(b"T"):
        break
if not r.startswith(b"W00"):
    fail("continue to the end: %r" % r)
rsp.s.sendall(packet(b"k"))
rsp.s.close()
print("PASS")
