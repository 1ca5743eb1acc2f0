#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every syscall a guest makes records and replays, or is refused with the
# errno docs/record-replay.md names ("Refused calls"), never replayed from
# the host as it is at replay time (issue 14).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=60

export HERMIT_DATA_DIR="$WORK/data"

# io_uring: refused with ENOSYS (tests/guests/uring.c falls back to read(2)
# then). A replay prints what the file held when it was recorded, not what
# it holds now.
echo recorded >"$WORK/uring.txt"
hm "$WORK/uring.rec" record start -- "$GUESTS/uring" "$WORK/uring.txt"
st=$?
[ "$st" = 0 ] || { cat "$WORK/uring.rec.err" >&2; fail "uring: record exited $st"; }
echo recorded | diff -u - "$WORK/uring.rec" || fail "uring: record printed other output"
grep -q 'io_uring_setup: ENOSYS' "$WORK/uring.rec.err" ||
	{ cat "$WORK/uring.rec.err" >&2; fail "uring: io_uring_setup was not refused with ENOSYS"; }
echo changed since >"$WORK/uring.txt"
hm "$WORK/uring.rep" replay --autopilot
st=$?
[ "$st" = 0 ] || { cat "$WORK/uring.rep.err" >&2; fail "uring: replay exited $st"; }
echo recorded | diff -u - "$WORK/uring.rep" || fail "uring: the replay read the file as it is now"
hm "$WORK/uring.run" run -- "$GUESTS/uring" "$WORK/uring.txt"
st=$?
[ "$st" = 0 ] || { cat "$WORK/uring.run.err" >&2; fail "uring: run exited $st"; }
grep -q 'io_uring_setup: ENOSYS' "$WORK/uring.run.err" ||
	fail "uring: hermit run let io_uring_setup through"

exit 0
