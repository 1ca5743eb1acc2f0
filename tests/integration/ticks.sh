#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Counted ticks (issue "Exact progress without a PMU"; DESIGN.md "Progress
# without a PMU"): threads that race without syscalls come out the same on
# every run, chaos seed and replay, whatever the host's speed, and a CPU
# hog on every core cannot change that.
#
# - counter_race, 2 x 30,000,000 unlocked increments: 20 runs print one
#   total; --chaos --seed 1..10 each repeat their own total three times,
#   and at least two seeds differ; a recording of each seed replays to its
#   total with exit 0.
# - fibrace (recursion, no loops), libspin (the loop in a dlopen'd
#   library), alarmloop (SIGALRM in a busy loop, by virtual time that
#   ticks move): the same under run, chaos and replay.
# - sigcount (signals from outside, every few milliseconds, while the
#   thread runs patched loops of both trampoline forms): each stops it at
#   a wall-clock moment, inside a count too; the recording replays with
#   exit 0, so not one tick was lost or counted twice at those stops.
# - jitrace (a race in code made at run time, which nothing counts): the
#   spin watch preempts it, metadata.json, record list --json and the
#   verify report count those preemptions, and the replay finds each.
# - jitcall (the same, returning to counted code between calls): the spin
#   watch preempts at the next tick, which a replay reaches quickly.
#
# - mmapslice (a child computes alone while its parent waits for it, and
#   maps anonymous memory between its loops: a recording stops at those
#   mmaps, a replay does not): the replay ends its timeslices where the
#   recording did (it diverged at the first one). Again with failed execs
#   in place of the mmaps (a shell's search of its PATH): the recording
#   counts what the child counted after each (it lost it, and diverged).
#   And an mmap between a stop and an exec (`mapexec`): a recording must
#   lose what was counted before the mmap at the exec, as a replay does.
#
# Every part runs in its own subshell so that one failure does not hide
# the others.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export HERMIT_DATA_DIR="$WORK/data"
TEST_TIMEOUT=120

# Keep both cores busy the whole time: host speed must not matter.
hog

# one_line FILE: FILE's only line, a number.
one_line() {
	[ "$(wc -l <"$1")" -eq 1 ] && grep -qx '[0-9][0-9]*' "$1" ||
		{ cat "$1" "$1.err" >&2; fail "$1 is not one number"; }
	cat "$1"
}

# record_replay NAME ARGS...: record ARGS, replay it; the replay must exit
# 0 and print what the recording printed.
record_replay() {
	name=$1
	shift
	hm "$WORK/$name.rec" record start "$@"
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/$name.rec.err" >&2; fail "$name: record exited $st"; }
	hm "$WORK/$name.rep" replay --autopilot
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/$name.rep.err" >&2; fail "$name: replay exited $st"; }
	diff -u "$WORK/$name.rec" "$WORK/$name.rep" || fail "$name: the replay printed other output"
}

t_runs() {
	for i in $(seq 20); do
		hm "$WORK/run.$i" run -- "$GUESTS/counter_race" ||
			{ tail -5 "$WORK/run.$i.err" >&2; fail "counter_race: run $i failed"; }
		one_line "$WORK/run.$i" >/dev/null
		diff -u "$WORK/run.1" "$WORK/run.$i" || fail "counter_race: runs 1 and $i differ"
	done
}

t_chaos() {
	: >"$WORK/totals"
	for seed in $(seq 10); do
		for i in 1 2 3; do
			hm "$WORK/chaos.$seed.$i" run --chaos --seed "$seed" -- "$GUESTS/counter_race"
			st=$?
			[ "$st" = 0 ] || { tail -5 "$WORK/chaos.$seed.$i.err" >&2; fail "chaos seed $seed: run $i exited $st"; }
			one_line "$WORK/chaos.$seed.$i" >/dev/null
			diff -u "$WORK/chaos.$seed.1" "$WORK/chaos.$seed.$i" ||
				fail "chaos seed $seed: runs 1 and $i differ"
		done
		cat "$WORK/chaos.$seed.1" >>"$WORK/totals"
		record_replay "chaos-rr.$seed" --chaos --seed "$seed" -- "$GUESTS/counter_race"
		diff -u "$WORK/chaos.$seed.1" "$WORK/chaos-rr.$seed.rec" ||
			fail "chaos seed $seed: the recording printed another total than the runs"
	done
	[ "$(sort -u "$WORK/totals" | wc -l)" -ge 2 ] ||
		{ cat "$WORK/totals" >&2; fail "chaos: seeds 1 to 10 all gave the same total"; }
}

t_record() {
	record_replay plain-rr -- "$GUESTS/counter_race"
	diff -u "$WORK/run.1" "$WORK/plain-rr.rec" 2>/dev/null ||
		{ [ ! -e "$WORK/run.1" ] || fail "counter_race: the recording printed another total than run"; }
}

# same_everywhere NAME ARGS...: run three times, chaos seed 3 three times,
# and a recording of each replayed: the same output each way.
same_everywhere() {
	what=$1
	shift
	same_thrice "$what" -- "$@"
	same_thrice "$what-chaos" --chaos --seed 3 -- "$@"
	record_replay "$what-rr" -- "$@"
	diff -u "$WORK/$what.1" "$WORK/$what-rr.rec" || fail "$what: recorded another output than run"
	record_replay "$what-chaos-rr" --chaos --seed 3 -- "$@"
	diff -u "$WORK/$what-chaos.1" "$WORK/$what-chaos-rr.rec" ||
		fail "$what: recorded another output than run under chaos"
}

t_fib() {
	same_everywhere fib "$GUESTS/fibrace"
	grep -q '^fib 2178309 2178309 calls [0-9]*$' "$WORK/fib.1" ||
		{ cat "$WORK/fib.1" >&2; fail "fibrace: wrong output"; }
}

t_lib() {
	same_everywhere lib "$GUESTS/libspin" "$GUESTS/libspinlib.so"
	one_line "$WORK/lib.1" >/dev/null
}

t_alarm() {
	same_everywhere alarm "$GUESTS/alarmloop"
	grep -q '^alarm after [1-9][0-9]* spins$' "$WORK/alarm.1" ||
		{ cat "$WORK/alarm.1" >&2; fail "alarmloop: wrong output"; }
}

# Signals from outside stop the thread wherever it is, inside a site's
# count too (docs/preemption.md): the tracer must put it back at the site,
# or the budget it writes is overwritten and the recording's ticks differ
# from the replay's, which has no such stops (a divergence, exit 122).
t_outside() {
	rm -f "$WORK/outside.ready"
	(
		while [ ! -e "$WORK/outside.ready" ]; do
			sleep 0.01
		done
		while :; do
			pkill -USR1 -x sigcount 2>/dev/null
			sleep 0.01
		done
	) &
	killer=$!
	hm "$WORK/outside.rec" record start -- "$GUESTS/sigcount" 200000000 "$WORK/outside.ready"
	st=$?
	kill "$killer"
	wait "$killer" 2>/dev/null
	[ "$st" = 0 ] || { tail -5 "$WORK/outside.rec.err" >&2; fail "sigcount: record exited $st"; }
	grep -qx '8aa011a73501de01 a61160c826ca0a01' "$WORK/outside.rec" ||
		{ cat "$WORK/outside.rec" >&2; fail "sigcount: wrong loop results"; }
	hm "$WORK/outside.rep" replay --autopilot
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/outside.rep.err" >&2; fail "sigcount: replay exited $st"; }
	diff -u "$WORK/outside.rec" "$WORK/outside.rep" || fail "sigcount: the replay printed other output"
}

# uncounted FILE: the uncounted_preemptions of FILE (metadata.json: N;
# a verify report: N,M), the preemptions the spin watch made.
uncounted() {
	preemptions "$1" uncounted
}

# preemptions FILE KIND: FILE's KIND_preemptions, "N" or "N,M".
preemptions() {
	tr -d ' \t\n' <"$1" | grep -o "\"$2_preemptions\":\\(\\[[0-9]*,[0-9]*\\]\\|[0-9]*\\)" |
		sed 's/.*://; s/[][]//g'
}

# Code no tick counts (JIT code: anonymous memory made executable with
# mprotect): the spin watch preempts it at wall-clock moments, the
# recording says how many, and the replay finds each of those points
# exactly (registers, stack, ticks) and prints the recorded total.
t_jit() {
	# Long enough that the spin watch (100 ms) finds each thread running
	# on a fast host too: 8000 turns ran 60 ms on one.
	record_replay jit -- "$GUESTS/jitrace" 30000
	grep -qx '[0-9]* of 983040000' "$WORK/jit.rec" || { cat "$WORK/jit.rec" >&2; fail "jitrace: wrong output"; }
	id=$(cat "$HERMIT_DATA_DIR/LAST")
	n=$(uncounted "$HERMIT_DATA_DIR/recordings/$id/metadata.json")
	[ -n "$n" ] && [ "$n" -ge 1 ] ||
		{ cat "$HERMIT_DATA_DIR/recordings/$id/metadata.json" >&2; fail "jitrace: metadata.json does not count the spin watch's preemptions"; }
	hm "$WORK/jit.list" record list --json
	tr -d ' \t\n' <"$WORK/jit.list" | grep -q "\"id\":\"$id\".*\"uncounted_preemptions\":$n" ||
		{ cat "$WORK/jit.list" >&2; fail "jitrace: record list --json does not say $n uncounted preemptions"; }
	hm "$WORK/jit.verify" run --verify --verify-report "$WORK/jit.report" -- "$GUESTS/jitrace" 3000
	st=$?
	[ "$st" = 0 ] || [ "$st" = 122 ] || { cat "$WORK/jit.verify.err" >&2; fail "jitrace: --verify exited $st"; }
	uncounted "$WORK/jit.report" | grep -qx '[0-9]*,[0-9]*' ||
		{ cat "$WORK/jit.report" >&2; fail "jitrace: the verify report does not count uncounted preemptions"; }
}

# Code no tick counts that returns to counted code between calls (an
# interpreter's, most JIT code): the spin watch preempts each thread at
# its next tick, which a replay reaches by its budget. At a point inside
# the generated loop instead, the replay would stop at each of up to
# 10,000,000 visits of its pc and run for minutes (it did: 4 such points,
# killed after 60 s, against 0.6 s now).
t_jitcall() {
	record_replay jitcall -- "$GUESTS/jitcall" 300
	# (the notes race as the guest says: a thread preempted at its loop's
	# tick may hold a norder it loaded before it, where the planner put the
	# range's start, and write it back a slice later, losing the other's
	# notes; the replay prints the same)
	grep -qx '6000000000 of 6000000000, [0-9]* calls noted, order [0-9a-f]*' "$WORK/jitcall.rec" ||
		{ cat "$WORK/jitcall.rec" >&2; fail "jitcall: wrong output"; }
	noted=$(sed -n 's/.*, \([0-9]*\) calls noted.*/\1/p' "$WORK/jitcall.rec")
	[ "$noted" -ge 1 ] && [ "$noted" -le 600 ] ||
		{ cat "$WORK/jitcall.rec" >&2; fail "jitcall: $noted calls noted, not 1 to 600"; }
	meta="$HERMIT_DATA_DIR/recordings/$(cat "$HERMIT_DATA_DIR/LAST")/metadata.json"
	n=$(preemptions "$meta" deferred)
	[ -n "$n" ] && [ "$n" -ge 1 ] ||
		{ cat "$meta" >&2; fail "jitcall: no preemption at a tick by the spin watch"; }
	# Each call is a few ms of the CPU, the watch waits for 100 ms of it.
	[ "$(uncounted "$meta")" = 0 ] ||
		{ cat "$meta" >&2; fail "jitcall: preempted inside the generated code"; }
	hm "$WORK/jitcall.list" record list --json
	tr -d ' \t\n' <"$WORK/jitcall.list" |
		grep -q "\"id\":\"$(cat "$HERMIT_DATA_DIR/LAST")\".*\"deferred_preemptions\":$n[,}]" ||
		{ cat "$WORK/jitcall.list" >&2; fail "jitcall: record list --json does not say $n deferred preemptions"; }
}

t_mmapslice() {
	"$GUESTS/mmapslice" >"$WORK/mmapslice.native" || fail "mmapslice: the native run failed"
	record_replay mmapslice -- "$GUESTS/mmapslice"
	diff -u "$WORK/mmapslice.native" "$WORK/mmapslice.rec" || fail "mmapslice: wrong output"
	# failed execs in place of the mmaps: the recording lost what the
	# child counted after each, the replay did not (it diverged)
	record_replay execslice -- "$GUESTS/mmapslice" exec
	diff -u "$WORK/mmapslice.native" "$WORK/execslice.rec" || fail "mmapslice exec: wrong output"
	# an mmap between a stop and an exec: the recording kept what it
	# counted up to the mmap, the replay lost it at the exec (it diverged)
	"$GUESTS/mmapslice" mapexec >"$WORK/mapexec.native" || fail "mapexec: the native run failed"
	record_replay mapexec -- "$GUESTS/mmapslice" mapexec
	diff -u "$WORK/mapexec.native" "$WORK/mapexec.rec" || fail "mapexec: wrong output"
}

status=0
for t in t_runs t_chaos t_record t_fib t_lib t_alarm t_outside t_jit t_jitcall t_mmapslice; do
	($t) || { echo "$t failed" >&2; status=1; }
done
exit $status
