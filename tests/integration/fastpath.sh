#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The in-guest virtual clock (docs/fastpath.md): tests/guests/vclock reads
# clock_gettime, gettimeofday and time through libc (the vDSO) in a loop
# on two threads. With the fast path on (HERMIT_FASTPATH=1), `hermit run`
# prints the same twice, and each --chaos seed the same twice. On and off
# (0), a recording replays to what it printed (the replay takes the mode
# from metadata.json, whatever the environment says), and no clock goes
# back. With the fast path on, a recording keeps no event for the reads:
# its log has far fewer frames than the one made with it off.
#
# Off, two runs are not compared: on a loaded host the spin watch can stop
# a thread in the vDSO's syscall stub (code no tick counts) at a
# wall-clock moment, and then the runs differ (docs/fastpath.md); that is
# older than the fast path, which spends far less time there.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export HERMIT_DATA_DIR="$WORK/data"
TEST_TIMEOUT=120
G="$GUESTS/vclock"

frames() {
	python3 -c 'import json,sys,glob; print(json.load(open(glob.glob(sys.argv[1] + "/recordings/*/metadata.json")[0]))["frames"])' "$HERMIT_DATA_DIR"
}

for fp in 1 0; do
	export HERMIT_FASTPATH=$fp
	[ "$fp" = 1 ] || hm "$WORK/run$fp.1" run -- "$G" 1500 || fail "fastpath=$fp: run"
	[ "$fp" = 0 ] || same_twice "run$fp" -- "$G" 1500
	grep -qx 'monotonic: yes' "$WORK/run$fp.1" || fail "fastpath=$fp: a clock went back"
	[ "$(grep -c '^[01] ' "$WORK/run$fp.1")" = 48 ] || fail "fastpath=$fp: not 2 x 24 lines"
	for seed in $([ "$fp" = 1 ] && echo 1 2 3); do
		same_twice "chaos$fp.$seed" --chaos --seed "$seed" -- "$G" 600
		grep -qx 'monotonic: yes' "$WORK/chaos$fp.$seed.1" || fail "fastpath=$fp seed $seed: a clock went back"
	done
	rm -rf "$HERMIT_DATA_DIR"
	hm "$WORK/rec$fp" record start -- "$G" 1500 || { tail "$WORK/rec$fp.err" >&2; fail "fastpath=$fp: record"; }
	# the replay takes the mode from the recording, whatever the environment
	HERMIT_FASTPATH=$((1 - fp)) hm "$WORK/rep$fp" replay --autopilot ||
		{ tail "$WORK/rep$fp.err" >&2; fail "fastpath=$fp: replay"; }
	diff -u "$WORK/rec$fp" "$WORK/rep$fp" || fail "fastpath=$fp: the replay printed other output"
	eval "frames$fp=$(frames)"
done
# (each thread reads 9 clocks a round: off, each is a stop; on, only
# CLOCK_TAI, which the fast path leaves to the syscall)
[ "$frames1" -lt $((frames0 / 5)) ] || fail "fast path on: $frames1 frames, off: $frames0"
exit 0
