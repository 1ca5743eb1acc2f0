#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Preemption and chaos (issue "Preemption and chaos"; DESIGN.md
# "Preemption", "Chaos"): a thread spinning on a flag that another sets
# after a long loop, neither making syscalls, finishes; an unlocked counter
# loses updates under some --chaos seeds and not under others, and every
# seed repeats its own total; --chaos finds a known order violation and a
# known atomicity violation within 50 seeds and the failing seed fails
# again on every rerun; hermit names its tick source on stderr once; and
# the --preempt, --sched-seed and --chaos-seeded-timeslice options do what
# they say.
#
# Every part is checked in its own subshell so that one failure does not
# hide the others; the test fails if any did.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

# What spinflag's computation comes to (plain 64-bit arithmetic: the same
# natively and under hermit, whatever the interleaving).
SPIN_RESULT='done 7314ebcbad17568b'

# counter_of FILE: N from racy's one line "counter N" (2 <= N <= 4000).
counter_of() {
	n=$(sed -n 's/^counter \([0-9][0-9]*\)$/\1/p' "$1")
	[ -n "$n" ] && [ "$(wc -l <"$1")" -eq 1 ] && [ "$n" -ge 2 ] && [ "$n" -le 4000 ] ||
		{ cat "$1" >&2; fail "racy: $1 is not one line 'counter N' with 2 <= N <= 4000"; }
	echo "$n"
}

# pmu_absent: whether this host certainly has no PMU. The x86 core PMU
# registers itself as the event source "cpu" ("cpu_core", "cpu_atom" on
# hybrids) for PERF_TYPE_RAW (arch/x86/events/core.c,
# init_hw_perf_events); without it a raw perf_event_open fails with ENOENT.
# `perf stat` is no probe: it exits 0 with "<not supported>".
pmu_absent() {
	[ -d /sys/bus/event_source/devices ] || return 1
	for d in /sys/bus/event_source/devices/cpu*; do
		[ -e "$d" ] && return 1
	done
	return 0
}

# ---- spinflag: a spin-wait on a flag, no syscalls on either side ----
t_spinflag() {
	for how in default sites chaos1 chaos2 chaos6; do
		set --
		case $how in
		sites) set -- --preempt=sites ;;
		chaos*) set -- --chaos --seed "${how#chaos}" ;; # seeds that once spun for ever
		esac
		hm "$WORK/spin.$how" run "$@" -- "$GUESTS/spinflag"
		st=$?
		[ "$st" != 124 ] && [ "$st" != 137 ] ||
			fail "spinflag ($how): did not finish within $TEST_TIMEOUT s (natively about 0.3 s)"
		[ "$st" = 0 ] || { tail -20 "$WORK/spin.$how.err" >&2; fail "spinflag ($how): hermit exited $st"; }
		echo "$SPIN_RESULT" | diff -u - "$WORK/spin.$how" || fail "spinflag ($how): wrong output"
	done
}

# ---- racy: 2 x 2000 unlocked increments over --chaos --seed 1..20 ----
t_racy() {
	lost='' kept=''
	for s in $(seq 1 20); do
		same_twice "racy.$s" --chaos --seed "$s" -- "$GUESTS/racy"
		n=$(counter_of "$WORK/racy.$s.1") || exit 1
		if [ "$n" -lt 4000 ]; then
			lost="$lost $s"
		else
			kept="$kept $s"
		fi
	done
	echo "racy: seeds that lost updates:${lost:- none}; that did not:${kept:- none}"
	[ -n "$lost" ] || fail "racy: no seed in 1..20 lost an update under --chaos"
	[ -n "$kept" ] || fail "racy: every seed in 1..20 lost an update under --chaos"
	l=${lost# }
	l=${l%% *}
	# The schedule comes from --sched-seed, which defaults to --seed.
	hm "$WORK/racy.sched" run --chaos --seed 99 --sched-seed "$l" -- "$GUESTS/racy"
	diff -u "$WORK/racy.$l.1" "$WORK/racy.sched" ||
		fail "racy: --chaos --seed 99 --sched-seed $l printed otherwise than --chaos --seed $l"
	# With --preempt=none nothing preempts a thread between its load and
	# its store (no syscalls there, and the loop is far shorter than the
	# spin watch's 100 ms): nothing is lost, even with that seed's chaos.
	hm "$WORK/racy.none" run --preempt=none --chaos --seed "$l" -- "$GUESTS/racy"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/racy.none.err" >&2; fail "racy: --preempt=none: hermit exited $st"; }
	n=$(counter_of "$WORK/racy.none") || exit 1
	[ "$n" = 4000 ] || fail "racy: --preempt=none --chaos --seed $l lost updates (counter $n)"
}

# ---- the other scheduling options repeat their own interleaving ----
t_options() {
	same_twice racy.sts --chaos --chaos-seeded-timeslice --seed 7 -- "$GUESTS/racy"
	counter_of "$WORK/racy.sts.1" >/dev/null || exit 1
	same_twice racy.ss3 --sched-seed 3 -- "$GUESTS/racy"
	counter_of "$WORK/racy.ss3.1" >/dev/null || exit 1
	same_twice racy.css3 --chaos --sched-seed 3 -- "$GUESTS/racy"
	counter_of "$WORK/racy.css3.1" >/dev/null || exit 1
}

# finds GUEST BUGLINE: --chaos --seed 1..50 makes GUEST print BUGLINE (it
# prints "ok" otherwise), the first such seed prints the same on three more
# runs, and without --chaos GUEST prints the same three times. (Not $name:
# same_thrice sets that.)
finds() {
	guest=$1
	bug=$2
	found=
	for s in $(seq 1 50); do
		o=$WORK/$guest.c$s
		hm "$o" run --chaos --seed "$s" -- "$GUESTS/$guest"
		st=$?
		[ "$st" = 0 ] || { tail -20 "$o.err" >&2; fail "$guest: --chaos --seed $s: hermit exited $st"; }
		if grep -qxF "$bug" "$o"; then
			found=$s
			break
		fi
		grep -qx 'ok' "$o" || { cat "$o" >&2; fail "$guest: --chaos --seed $s printed neither '$bug' nor 'ok'"; }
	done
	[ -n "$found" ] || fail "$guest: --chaos found no '$bug' in seeds 1..50"
	echo "$guest: --chaos --seed $found prints '$bug'"
	for i in 1 2 3; do
		hm "$WORK/$guest.r$i" run --chaos --seed "$found" -- "$GUESTS/$guest"
		st=$?
		[ "$st" = 0 ] || { tail -20 "$WORK/$guest.r$i.err" >&2; fail "$guest: rerun $i of seed $found: hermit exited $st"; }
		diff -u "$WORK/$guest.c$found" "$WORK/$guest.r$i" ||
			fail "$guest: rerun $i of --chaos --seed $found printed otherwise"
	done
	same_thrice "$guest.plain" -- "$GUESTS/$guest"
	grep -qxF "$bug" "$WORK/$guest.plain.1" || grep -qx 'ok' "$WORK/$guest.plain.1" ||
		{ cat "$WORK/$guest.plain.1" >&2; fail "$guest: printed neither '$bug' nor 'ok'"; }
}

t_orderviol() {
	finds orderviol 'BUG: used before init'
}

t_atomviol() {
	finds atomviol 'BUG: atomicity'
}

# ---- the line on stderr that names the tick source ----
t_announce() {
	hm "$WORK/ann.sites" run --preempt=sites -- "$GUESTS/racy"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/ann.sites.err" >&2; fail "--preempt=sites: hermit exited $st"; }
	grep 'preemption:' "$WORK/ann.sites.err" >"$WORK/ann.sites.lines"
	[ "$(wc -l <"$WORK/ann.sites.lines")" -eq 1 ] ||
		{ cat "$WORK/ann.sites.err" >&2; fail "--preempt=sites: not one 'preemption:' line on stderr"; }
	grep -q '^hermit: .*preemption: sites' "$WORK/ann.sites.lines" ||
		{ cat "$WORK/ann.sites.err" >&2; fail "--preempt=sites: stderr does not say 'preemption: sites'"; }
	! grep -q 'chaos' "$WORK/ann.sites.lines" || fail "--preempt=sites: the line says chaos without --chaos"

	hm "$WORK/ann.chaos" run --preempt=sites --chaos --seed 1 -- "$GUESTS/racy"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/ann.chaos.err" >&2; fail "--preempt=sites --chaos: hermit exited $st"; }
	grep 'preemption: sites' "$WORK/ann.chaos.err" | grep -q 'chaos' ||
		{ cat "$WORK/ann.chaos.err" >&2; fail "--preempt=sites --chaos: the line does not say chaos"; }

	hm "$WORK/ann.none" run --preempt=none -- "$GUESTS/racy"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/ann.none.err" >&2; fail "--preempt=none: hermit exited $st"; }
	grep -q 'preemption: none' "$WORK/ann.none.err" ||
		{ cat "$WORK/ann.none.err" >&2; fail "--preempt=none: stderr does not say 'preemption: none'"; }

	expect_status 125 run --preempt=bogus -- "$GUESTS/racy"
	grep -q "bogus" "$WORK/status.err" || { cat "$WORK/status.err" >&2; fail "--preempt=bogus: the message does not name 'bogus'"; }

	if ! pmu_absent; then
		echo "SKIP: auto and --preempt=pmu without a PMU: this host may have one (/sys/bus/event_source/devices/cpu*)"
		return 0
	fi
	hm "$WORK/ann.auto" run -- "$GUESTS/racy"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/ann.auto.err" >&2; fail "auto: hermit exited $st"; }
	grep 'preemption:' "$WORK/ann.auto.err" >"$WORK/ann.auto.lines"
	[ "$(wc -l <"$WORK/ann.auto.lines")" -eq 1 ] ||
		{ cat "$WORK/ann.auto.err" >&2; fail "auto: not one 'preemption:' line on stderr"; }
	grep 'preemption: sites' "$WORK/ann.auto.lines" | grep 'no PMU' | grep -q 'perf_event_open' ||
		{ cat "$WORK/ann.auto.err" >&2; fail "auto on a host without a PMU: the line does not say 'sites', 'no PMU' and why (perf_event_open)"; }

	hm "$WORK/ann.pmu" run --preempt=pmu -- "$GUESTS/racy"
	st=$?
	[ "$st" = 125 ] || { cat "$WORK/ann.pmu.err" >&2; fail "--preempt=pmu without a PMU: hermit exited $st, not 125"; }
	[ ! -s "$WORK/ann.pmu" ] || fail "--preempt=pmu without a PMU: the guest ran"
	[ "$(wc -l <"$WORK/ann.pmu.err")" -eq 1 ] && grep -q '^hermit: .*pmu' "$WORK/ann.pmu.err" ||
		{ cat "$WORK/ann.pmu.err" >&2; fail "--preempt=pmu without a PMU: not one 'hermit: ' line naming the pmu"; }
}

for g in spinflag racy orderviol atomviol; do
	[ -x "$GUESTS/$g" ] || fail "the guest $GUESTS/$g is not built"
done
failed=
for t in spinflag racy options orderviol atomviol announce; do
	(t_$t) || failed="$failed $t"
done
[ -z "$failed" ] || fail "failed:$failed"
exit 0
