#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Replay under gdb (issue "gdb on a recording"): a recording of N events
# (EVENTS, default 100000) with a function called before the first and
# after the last. Prints the time of `hermit replay --autopilot`, of the
# same replay under gdb (continue to the end), and of a reverse-continue
# from the last call back to the first, across all N events (the hits are
# known: no search). Then, with and without checkpoints, a breakpoint set
# only at the end: a reverse-continue to its last hit, near the end (from
# the checkpoint before it, or the start), and one across all N events.
#
# Not a test: it prints figures, and exits 1 only when something fails.
# Environment: HERMIT (default ../hermit from here), CC, EVENTS.

set -u
here=$(cd "$(dirname "$0")" && pwd)
HERMIT=${HERMIT:-$here/../hermit}
CC=${CC:-cc}
EVENTS=${EVENTS:-100000}
export HERMIT_EPOCH=${HERMIT_EPOCH:-2026-01-01T00:00:00Z}

die() {
	echo "bench: $*" >&2
	exit 1
}

command -v gdb >/dev/null || die "gdb is not installed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hermit-bench.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
export HERMIT_DATA_DIR="$tmp/data"
"$CC" -O1 -g -o "$tmp/events" "$here/events.c" || die "cannot build events.c"
"$HERMIT" record start -- "$tmp/events" "$EVENTS" >/dev/null 2>&1 || die "recording failed"

. "$here/lib.sh"
autopilot=$(time_once "$HERMIT" replay --autopilot -q) || exit 1

cat >"$tmp/bench.py" <<'PY'
import os, time, gdb
def run(c):
    return gdb.execute(c, to_string=True)
run("set pagination off")
run("set confirm off")
run("set sysroot /")
run("target extended-remote 127.0.0.1:%s" % os.environ["PORT"])
if os.environ["WHAT"] == "forward":
    t = time.time()
    run("continue")
    print("RESULT %.3f" % (time.time() - t))
elif os.environ["WHAT"].startswith("late"):
    # To the end with no breakpoint, then one no replay has seen the
    # hits of: a search, from the checkpoint before the end (or from the
    # start), to mark(N), then across everything to mark(0).
    run("continue")
    run("break mark")
    t = time.time()
    run("reverse-continue")
    near = time.time() - t
    ok = int(gdb.parse_and_eval("i")) > 0
    t = time.time()
    run("reverse-continue")
    far = time.time() - t
    ok = ok and int(gdb.parse_and_eval("i")) == 0
    print("RESULT %.3f %.3f %s" % (near, far, "ok" if ok else "WRONG-HIT"))
else:
    run("break mark")
    run("continue")
    run("continue")
    t = time.time()
    run("reverse-continue")
    dt = time.time() - t
    ok = int(gdb.parse_and_eval("i")) == 0
    print("RESULT %.3f %s" % (dt, "ok" if ok else "WRONG-HIT"))
run("kill")
os._exit(0)
PY

# gdb_run WHAT: serve the recording, run bench.py; its RESULT line goes to
# $tmp/WHAT (no command substitution: its subshell would run the EXIT trap).
gdb_run() {
	"$HERMIT" replay --gdbserver-only >"$tmp/serve" 2>/dev/null &
	local server=$! port=
	for _ in $(seq 1 100); do
		port=$(sed -n 's/.*127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$tmp/serve")
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || die "hermit replay did not start"
	PORT=$port WHAT=$1 gdb -batch -nx -x "$tmp/bench.py" "$tmp/events" 2>/dev/null |
		sed -n 's/^RESULT //p' >"$tmp/$1"
	wait "$server"
}

gdb_run forward
gdb_run reverse
gdb_run late
HERMIT_CHECKPOINTS=0 gdb_run late-none
forward=$(cat "$tmp/forward")
reverse=$(cat "$tmp/reverse")
printf 'replay of %d events: --autopilot %.3f s, under gdb (continue to the end) %s s\n' \
	"$EVENTS" "$autopilot" "${forward:-failed}"
set -- ${reverse:-failed}
printf 'reverse-continue across %d events: %s s, %s (target: 2 s)\n' "$EVENTS" "$1" "${2:-}"
for what in late late-none; do
	set -- $(cat "$tmp/$what") failed failed
	[ "$what" = late ] && how="with checkpoints" || how="without (HERMIT_CHECKPOINTS=0)"
	printf 'a breakpoint set at the end, %s: reverse-continue to its last hit %s s, ' \
		"$how" "$1"
	printf 'then across %d events to its first %s s, %s\n' "$EVENTS" "$2" "${3:-}"
done
exit 0
