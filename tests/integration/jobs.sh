#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Job control and process groups inside the guest (docs/threads.md "Job
# control"): stop signals stop a guest process and its parent's waitpid
# sees it, SIGCONT continues it, a process of many threads stops and goes
# on as a whole, a stopped group left orphaned ends, and a background
# write to a terminal with TOSTOP stops rather than loops
# (tests/guests/jobctl.c). Each case runs natively, under `hermit run`,
# and under `hermit record start` then `hermit replay --autopilot`; all
# must print the same.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=60

export HERMIT_DATA_DIR="$WORK/data"

# native NAME GUEST ARGS...: the guest's output natively, in $WORK/NAME.native.
native() {
	name=$1
	shift
	timeout -k 5 "$TEST_TIMEOUT" "$@" >"$WORK/$name.native" 2>"$WORK/$name.native.err" ||
		{ cat "$WORK/$name.native.err" >&2; fail "$name: exited $? natively"; }
	[ -s "$WORK/$name.native" ] || fail "$name: printed nothing natively"
}

# same NAME HOW ARGS...: `hermit ARGS...` exits 0 and prints what the
# guest printed natively; HOW names the way in messages.
same() {
	name=$1
	how=$2
	shift 2
	hm "$WORK/$name.$how" "$@"
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/$name.$how.err" >&2; fail "$name: hermit $how exited $st"; }
	diff -u "$WORK/$name.native" "$WORK/$name.$how" || fail "$name: hermit $how printed other output"
}

# three_ways NAME GUEST ARGS...: natively, run, record and replay.
three_ways() {
	name=$1
	shift
	native "$name" "$@"
	same "$name" run run -- "$@"
	same "$name" record record start -- "$@"
	same "$name" replay replay --autopilot
}

three_ways signals "$GUESTS/jobctl" signals
three_ways self "$GUESTS/jobctl" self
three_ways threads "$GUESTS/jobctl" threads
three_ways orphan "$GUESTS/jobctl" orphan

# The pty the guest makes: a replay opens /dev/ptmx in a view of the file
# system that does not let it (EIO), so this case is run and recorded only.
if [ -e /dev/ptmx ] && timeout 10 "$GUESTS/jobctl" tostop >/dev/null 2>&1; then
	native tostop "$GUESTS/jobctl" tostop
	same tostop run run -- "$GUESTS/jobctl" tostop
	same tostop record record start -- "$GUESTS/jobctl" tostop
else
	echo "jobs.sh: no pty here: the tostop case is skipped" >&2
fi
exit 0
