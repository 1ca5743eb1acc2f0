#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A multithreaded process's end (docs/threads.md "A process's end"): when
# it calls exit_group or dies of a signal, the kernel kills its threads and
# reports their ends to hermit in the order its CPUs get to them. Taken in
# that order, a leader reported before its threads was set aside while
# other processes ran, and what its threads' ends changed (the progress
# hermit counts, the futex waiters they wake, the parent's SIGCHLD and
# zombie) fell at wall-clock moments of another process's run: a parent
# polling waitpid(WNOHANG) saw its child's end after 495 polls in one run
# and 995 in the next, and `xz -T2 | md5sum` recorded under --chaos
# replayed with md5sum preempted where the recording had it run on.
#
# tests/guests/groupexit, for each way to end (the leader's exit, another
# thread's exit, abort() in another thread): the same count under `hermit
# run` five times, twice per chaos seed, and a recording replays to it;
# all while a CPU hog keeps every core busy.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export HERMIT_DATA_DIR="$WORK/data"
TEST_TIMEOUT=120

hog

for mode in main thread abort; do
	case $mode in
	abort) end="killed by signal 6" ;;
	*) end="exit status 3" ;;
	esac
	hm "$WORK/$mode.want" run -- "$GUESTS/groupexit" $mode ||
		{ cat "$WORK/$mode.want.err" >&2; fail "$mode: hermit run exited $?"; }
	grep -qx "$mode: [0-9]* polls, $end" "$WORK/$mode.want" ||
		{ cat "$WORK/$mode.want" >&2; fail "$mode: not the child's end: $end"; }
	for i in 2 3 4 5; do
		hm "$WORK/$mode.$i" run -- "$GUESTS/groupexit" $mode ||
			fail "$mode: hermit run $i exited $?"
		diff -u "$WORK/$mode.want" "$WORK/$mode.$i" ||
			fail "$mode: run $i saw the child's end at another point"
	done
	for seed in 1 2 3; do
		for i in 1 2; do
			hm "$WORK/$mode.s$seed.$i" run --chaos --seed $seed -- "$GUESTS/groupexit" $mode ||
				fail "$mode: --chaos --seed $seed exited $?"
		done
		diff -u "$WORK/$mode.s$seed.1" "$WORK/$mode.s$seed.2" ||
			fail "$mode: two runs of --chaos --seed $seed saw the child's end at other points"
		hm "$WORK/$mode.rec$seed" record start --chaos --seed $seed -- "$GUESTS/groupexit" $mode ||
			fail "$mode: record --chaos --seed $seed exited $?"
		diff -u "$WORK/$mode.s$seed.1" "$WORK/$mode.rec$seed" ||
			fail "$mode: the recording of seed $seed saw the child's end at another point than run"
		hm "$WORK/$mode.rep$seed" replay --autopilot ||
			{ cat "$WORK/$mode.rep$seed.err" >&2; fail "$mode: the replay of seed $seed exited $?"; }
		diff -u "$WORK/$mode.rec$seed" "$WORK/$mode.rep$seed" ||
			fail "$mode: the replay of seed $seed printed other output"
	done
done
exit 0
