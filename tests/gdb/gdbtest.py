# SPDX-License-Identifier: BSD-3-Clause
# What the gdb test scripts (replay.py, checkpoints.py) share: run a gdb
# command for its output, and fail the test (gdb's exit status 1).
import os
import gdb


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def fail(msg):
    print("FAIL: " + msg)
    gdb.flush()
    os._exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def connect():
    """gdb set up for a test and connected to the replay (HERMIT_GDB_PORT)"""
    run("set pagination off")
    run("set confirm off")
    run("set sysroot /")
    run("target extended-remote 127.0.0.1:%s" % os.environ["HERMIT_GDB_PORT"])


def passed():
    """the replay killed, PASS said, gdb gone with status 0"""
    run("kill")
    print("PASS")
    gdb.flush()
    os._exit(0)
