# SPDX-License-Identifier: BSD-3-Clause
# gdb -x ready.py, started by `hermit replay --gdb WRAPPER` with gdb's own
# remote timeout (2 s, not the 60 the other tests set): hermit starts gdb
# only once the replay answers, so the connection, the first stop's
# registers and `monitor when` need no more than gdb's default wait on any
# host. (Only these few packets, each answered at once: a seek's time
# depends on the host, so nothing here moves the replay.)
import os
import sys
import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdbtest import run, check, passed  # noqa: E402

try:
    check("2" in run("show remotetimeout"), "gdb's remote timeout is not its default: "
          + run("show remotetimeout"))
    check(gdb.selected_inferior().pid > 0, "gdb is not connected to the replay")
    run("info registers rip")
    at = run("monitor when").strip()
    check(at.startswith("event 0"), "the replay does not start at event 0: " + at)
except gdb.error as e:
    print("FAIL: %s" % e)
    gdb.flush()
    os._exit(1)
passed()
