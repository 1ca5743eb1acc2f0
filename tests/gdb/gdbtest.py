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
