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
# Then the event streams on and off (tests/fastpath_streams.py): programs
# that never read the clock (pipe_pc, mutex) give the same log
# (`hermit log-diff`); vclock's quiet mode, whose work and output do not
# depend on the clock's values, gives the same log but for the reads and
# what carries the clock's values. Last, tests/guests/fpsig: every
# fast-path call in a loop on two threads with SIGALRM (ITIMER_REAL) and
# SIGUSR1 from the other thread arriving in between, the handlers reading
# the clock too: on and off, the same twice under run (short timeslices,
# so the threads interleave) and per --chaos seed, and a recording
# replays to what it printed.
#
# Off, two runs of vclock are not compared: on a loaded host the spin watch can stop
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

# streams NAME ARGS...: record ARGS with the fast path on and off, both
# exiting 0, and tests/fastpath_streams.py finds the logs the same but for
# the reads the fast path answers (its line in $WORK/NAME.streams). What
# the program prints is compared there (each write's digest). Standard
# input and output are /dev/null: a pipe's or a file's fstat has the
# host's times, which differ from one recording to the next.
streams() {
	name=$1
	shift
	rm -rf "$HERMIT_DATA_DIR"
	for fp in 1 0; do
		HERMIT_FASTPATH=$fp timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" record start -- "$@" \
			</dev/null >/dev/null 2>"$WORK/$name.rec$fp.err" ||
			{ tail "$WORK/$name.rec$fp.err" >&2; fail "$name: fastpath=$fp: record"; }
	done
	set -- "$HERMIT_DATA_DIR"/recordings/*/events.xz
	[ $# = 2 ] || fail "$name: not two recordings"
	case $1 in */*-0/events.xz) ;; *) fail "$name: the first recording is not $1" ;; esac
	python3 "$TESTS_SRCDIR/fastpath_streams.py" "$1" "$2" >"$WORK/$name.streams" ||
		{ cat "$WORK/$name.streams" >&2; fail "$name: the logs on and off differ"; }
}
for g in pipe_pc mutex; do
	streams "$g" "$GUESTS/$g"
	grep -qx 'same but 0 reads, 0 stat payloads' "$WORK/$g.streams" ||
		fail "$g: $(cat "$WORK/$g.streams")"
	hm "$WORK/$g.diff" log-diff "$g-0" "$g-1" || { cat "$WORK/$g.diff" >&2; fail "$g: log-diff on, off"; }
	grep -q '^the logs are the same' "$WORK/$g.diff" || fail "$g: log-diff said $(cat "$WORK/$g.diff")"
done
streams vclock-quiet "$G" 300 quiet
# 2 x 300 rounds of 8 reads the fast path answers, and 2 in main
grep -qx 'same but 4802 reads, 0 stat payloads' "$WORK/vclock-quiet.streams" ||
	fail "vclock quiet: $(cat "$WORK/vclock-quiet.streams")"

# fpsig: signals among the reads (tests/guests/fpsig.c)
S="$GUESTS/fpsig"
for fp in 1 0; do
	export HERMIT_FASTPATH=$fp
	same_twice "sig$fp" --max-timeslice 3000 -- "$S" 600
	for t in 0 1; do
		grep -Eq "^$t: SIGALRM [1-9][0-9]*, SIGUSR1 [1-9][0-9]+\$" "$WORK/sig$fp.1" ||
			fail "fpsig fastpath=$fp: thread $t handled too few signals: $(grep "^$t: SIG" "$WORK/sig$fp.1")"
	done
	grep -qx 'monotonic: yes' "$WORK/sig$fp.1" || fail "fpsig fastpath=$fp: a clock went back"
	for seed in 1 2; do
		same_twice "sigchaos$fp.$seed" --chaos --seed "$seed" -- "$S" 400
		grep -qx 'monotonic: yes' "$WORK/sigchaos$fp.$seed.1" ||
			fail "fpsig fastpath=$fp seed $seed: a clock went back"
	done
	rm -rf "$HERMIT_DATA_DIR"
	hm "$WORK/sigrec$fp" record start --max-timeslice 3000 -- "$S" 600 ||
		{ tail "$WORK/sigrec$fp.err" >&2; fail "fpsig fastpath=$fp: record"; }
	diff -u "$WORK/sig$fp.1" "$WORK/sigrec$fp" || fail "fpsig fastpath=$fp: the recording printed other output than run"
	hm "$WORK/sigrep$fp" replay --autopilot || { tail "$WORK/sigrep$fp.err" >&2; fail "fpsig fastpath=$fp: replay"; }
	diff -u "$WORK/sigrec$fp" "$WORK/sigrep$fp" || fail "fpsig fastpath=$fp: the replay printed other output"
done
exit 0
