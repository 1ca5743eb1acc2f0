#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Job control and process groups inside the guest (docs/threads.md "Job
# control"): stop signals stop a guest process and its parent's waitpid
# sees it, SIGCONT continues it, a process of many threads stops and goes
# on as a whole, a stopped group left orphaned ends, and a background
# write to a terminal with TOSTOP stops rather than loops
# (tests/guests/jobctl.c), a guest's kill(0, SIGKILL) and kill(0,
# SIGSTOP) reach the guest only, and pid namespaces the guest makes work
# (tests/guests/pidns.c). Each jobctl case runs natively, under `hermit run`,
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
three_ways futex "$GUESTS/jobctl" futex
three_ways threads "$GUESTS/jobctl" threads
three_ways orphan "$GUESTS/jobctl" orphan

# Pid namespaces the guest makes (tests/guests/pidns.c): a namespace's
# processes run and end as natively, and an init that dies of SIGSEGV
# ends its namespace instead of faulting for ever (recorder/pidns.c).
if timeout 10 "$GUESTS/pidns" clone | grep -q '^clone: pid 1 '; then
	three_ways pidns "$GUESTS/pidns" clone segv fork
else
	echo "jobs.sh: this host does not let a process make a pid namespace: pidns skipped" >&2
fi

# A guest's kill(0, sig) reaches the process group it shares with hermit;
# SIGKILL and SIGSTOP, which hermit cannot catch, must reach the guest's
# processes only (recorder/sys_kill.c). Each runs under setsid, natively
# too, so that nothing else is in that group. SIGKILL: the guest and its
# children die, hermit reports 137, its recording is complete and replays
# to 137. SIGSTOP: the guest stops and nothing can continue it, which
# hermit reports as a deadlock (121) instead of being stopped itself.
if command -v setsid >/dev/null 2>&1; then
	KILL0='sleep 100 & sleep 50 & echo before; kill -KILL 0; echo after'
	timeout -k 5 "$TEST_TIMEOUT" setsid -w sh -c "$KILL0" >"$WORK/kill0.native" 2>/dev/null
	st=$?
	[ "$st" = 137 ] || fail "kill -KILL 0 natively: exit $st"
	for how in run record; do
		[ "$how" = run ] && args=run || args="record start"
		# shellcheck disable=SC2086 # args is two words for record
		timeout -k 5 "$TEST_TIMEOUT" setsid -w "$HERMIT" $args -- sh -c "$KILL0" \
			>"$WORK/kill0.$how" 2>"$WORK/kill0.$how.err"
		st=$?
		[ "$st" = 137 ] || { cat "$WORK/kill0.$how.err" >&2; fail "kill -KILL 0: hermit $how exited $st, not 137"; }
		diff -u "$WORK/kill0.native" "$WORK/kill0.$how" || fail "kill -KILL 0: hermit $how printed other output"
	done
	"$HERMIT" record list | grep -q '^sh-0 *complete' ||
		fail "the recording of kill -KILL 0 is not complete: $("$HERMIT" record list)"
	hm "$WORK/kill0.rep" replay --autopilot sh-0
	st=$?
	[ "$st" = 137 ] || { cat "$WORK/kill0.rep.err" >&2; fail "the replay of kill -KILL 0 exited $st, not 137"; }
	diff -u "$WORK/kill0.native" "$WORK/kill0.rep" || fail "kill -KILL 0: the replay printed other output"

	STOP0='echo before; kill -STOP 0; echo after'
	for how in run record; do
		[ "$how" = run ] && args=run || args="record start"
		# shellcheck disable=SC2086
		timeout -k 5 "$TEST_TIMEOUT" setsid -w "$HERMIT" $args -- sh -c "$STOP0" \
			>"$WORK/stop0.$how" 2>"$WORK/stop0.$how.err"
		st=$?
		[ "$st" = 121 ] || { cat "$WORK/stop0.$how.err" >&2; fail "kill -STOP 0: hermit $how exited $st, not 121"; }
		[ "$(cat "$WORK/stop0.$how")" = before ] || fail "kill -STOP 0: hermit $how printed '$(cat "$WORK/stop0.$how")'"
		grep -q 'waits on SIGCONT (stopped)' "$WORK/stop0.$how.err" ||
			{ cat "$WORK/stop0.$how.err" >&2; fail "kill -STOP 0: hermit $how did not report the stopped guest"; }
	done
	"$HERMIT" record list | grep -q '^sh-1 *complete' ||
		fail "the recording of kill -STOP 0 is not complete: $("$HERMIT" record list)"
	hm "$WORK/stop0.rep" replay --autopilot sh-1
	st=$?
	[ "$st" = 121 ] || { cat "$WORK/stop0.rep.err" >&2; fail "the replay of kill -STOP 0 exited $st, not 121"; }
else
	echo "jobs.sh: no setsid: the kill 0 cases are skipped" >&2
fi

# SIGSTOP from outside the guest (another host process): the guest stops,
# hermit waits for the SIGCONT that can only come from there, as natively,
# rather than calling it a deadlock; then the guest goes on.
if command -v pgrep >/dev/null 2>&1 && mkfifo "$WORK/in"; then
	timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" run -- sh -c 'read x; echo "got $x from outside-stop-case"' \
		<"$WORK/in" >"$WORK/ostop" 2>"$WORK/ostop.err" &
	hp=$!
	exec 7>"$WORK/in"
	i=0
	until g=$(pgrep -f '^sh -c read x; echo "got \$x from outside-stop-case"'); do
		i=$((i + 1))
		[ "$i" -le 300 ] || { kill "$hp"; fail "outside stop: no guest process"; }
		sleep 0.1
	done
	kill -STOP "$g"
	# A deadlock would end hermit within a few hundred ms (settle()).
	sleep 1
	kill -0 "$hp" 2>/dev/null || { cat "$WORK/ostop.err" >&2; fail "outside stop: hermit ended while the guest was stopped"; }
	kill -CONT "$g"
	echo hello >&7
	exec 7>&-
	wait "$hp"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/ostop.err" >&2; fail "outside stop: hermit exited $st"; }
	[ "$(cat "$WORK/ostop")" = "got hello from outside-stop-case" ] ||
		fail "outside stop: the guest printed '$(cat "$WORK/ostop")'"
fi

# The pty the guest makes is the guest's own (recorder/pty.c): its
# ioctls and its SIGTTOU happen in the replay too.
if [ -e /dev/ptmx ] && timeout 10 "$GUESTS/jobctl" tostop >/dev/null 2>&1; then
	three_ways tostop "$GUESTS/jobctl" tostop
else
	echo "jobs.sh: no pty here: the tostop case is skipped" >&2
fi
exit 0
