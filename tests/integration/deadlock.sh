#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# When the run cannot go on (DESIGN.md "Blocking", "Exit status"): a
# two-mutex deadlock ends with 121 within seconds and a report of every
# thread naming the futex it waits on; --virtual-timeout ends the run with
# 121 once virtual time passes it; --timeout kills a guest that spins
# forever and exits 124 on wall-clock time; sleeping costs no wall time
# (`hermit run -- sleep 100` in under 2 s); a timed wait on the outside
# (`read -t`) gets its time in real time, so input that comes in time is
# read.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

now_ms() {
	date +%s%3N
}

# timed OUT ARGS...: `hermit ARGS...` like hm, then $st is its exit status
# and $ms the wall-clock milliseconds it took.
timed() {
	t0=$(now_ms)
	hm "$@"
	st=$?
	ms=$(($(now_ms) - t0))
}

# ---- a two-mutex deadlock ----
TEST_TIMEOUT=15
timed "$WORK/dl" run -- "$GUESTS/deadlock"
[ "$st" = 121 ] || { cat "$WORK/dl.err" >&2; fail "deadlock: hermit exited $st after $ms ms, not 121"; }
[ "$ms" -lt 10000 ] || fail "deadlock: it took $ms ms to notice, not under 10 s"
! grep 'no deadlock' "$WORK/dl" || fail "deadlock: the guest went on"
# What the guest printed (and flushed) before it hung.
main=$(sed -n 's/^main tid \([0-9]*\)$/\1/p' "$WORK/dl")
t1=$(sed -n 's/^thread 1 tid \([0-9]*\) locked A$/\1/p' "$WORK/dl")
t2=$(sed -n 's/^thread 2 tid \([0-9]*\) locked B$/\1/p' "$WORK/dl")
a=$(sed -n 's/^mutex A \(0x[0-9a-f]*\)$/\1/p' "$WORK/dl")
b=$(sed -n 's/^mutex B \(0x[0-9a-f]*\)$/\1/p' "$WORK/dl")
[ -n "$main" ] && [ -n "$t1" ] && [ -n "$t2" ] && [ -n "$a" ] && [ -n "$b" ] ||
	{ cat "$WORK/dl" >&2; fail "deadlock: the guest did not print its tids, mutexes and 'locked' lines"; }
grep -q futex "$WORK/dl.err" || { cat "$WORK/dl.err" >&2; fail "deadlock: the report does not mention 'futex'"; }

# waits_on TID [ADDR]: a line of the report names thread TID (as a whole
# number) and, given ADDR, also 'futex' and ADDR (compared as numbers, so
# that zero padding or capitals do not matter).
waits_on() {
	awk -v tid="$1" -v addr="$2" '
		function val(s,   i, v) {
			s = tolower(s)
			sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		{
			line = " " $0 " "
			if (line !~ ("[^0-9]" tid "[^0-9]")) next
			if (addr == "") { found = 1; next }
			if (line !~ /futex/) next
			rest = $0
			while (match(rest, /0[xX][0-9a-fA-F]+/)) {
				if (val(substr(rest, RSTART, RLENGTH)) == val(addr)) found = 1
				rest = substr(rest, RSTART + RLENGTH)
			}
		}
		END { exit !found }' "$WORK/dl.err"
}
waits_on "$t1" "$b" || { cat "$WORK/dl.err" >&2; fail "deadlock: the report has no line naming thread $t1 and the futex of mutex B at $b"; }
waits_on "$t2" "$a" || { cat "$WORK/dl.err" >&2; fail "deadlock: the report has no line naming thread $t2 and the futex of mutex A at $a"; }
waits_on "$main" || { cat "$WORK/dl.err" >&2; fail "deadlock: the report does not name the main thread $main (in pthread_join)"; }

# ---- --virtual-timeout ----
TEST_TIMEOUT=30
timed "$WORK/vt" run --virtual-timeout 5s -- sh -c 'while :; do sleep 1; done'
[ "$st" = 121 ] || { cat "$WORK/vt.err" >&2; fail "--virtual-timeout 5s: hermit exited $st after $ms ms, not 121"; }
[ "$ms" -lt 10000 ] || fail "--virtual-timeout 5s: took $ms ms of wall time; sleeps are virtual"
# It ends when virtual time passes 5 s: after the sleep 3, before the sleep 6.
timed "$WORK/vt2" run --virtual-timeout 5s -- sh -c 'sleep 3; echo after 3; sleep 3; echo after 6'
[ "$st" = 121 ] || { cat "$WORK/vt2.err" >&2; fail "--virtual-timeout 5s, sleep 3 twice: hermit exited $st, not 121"; }
echo 'after 3' | diff -u - "$WORK/vt2" || fail "--virtual-timeout 5s did not end the run between 3 and 6 virtual seconds"
! grep -i deadlock "$WORK/vt.err" "$WORK/vt2.err" || fail "--virtual-timeout: reported as a deadlock"
# Without the option the same guest ends normally.
expect_status 0 run -- sh -c 'sleep 3; echo after 3; sleep 3; echo after 6'
printf 'after 3\nafter 6\n' | diff -u - "$WORK/status" || fail "sleep 3 twice: wrong output without --virtual-timeout"

# ---- --timeout (wall clock) on a guest that spins without syscalls ----
# The outer timeout (TEST_TIMEOUT) also exits 124, so the wall time tells
# hermit's --timeout from it. The marker finds a guest left behind.
TEST_TIMEOUT=20
marker=hermit-timeout-test-$$
timed "$WORK/to" run --timeout 2s -- sh -c "while :; do :; done; echo $marker"
left=$(pgrep -f "$marker")
[ -z "$left" ] || { kill -9 $left; fail "--timeout 2s: the spinning guest (pids $left) was left running"; }
[ "$st" = 124 ] || { cat "$WORK/to.err" >&2; fail "--timeout 2s: hermit exited $st after $ms ms, not 124"; }
[ "$ms" -ge 1900 ] && [ "$ms" -lt 5000 ] || fail "--timeout 2s: hermit exited 124 after $ms ms, not 2 to 5 s"

# ---- sleep 100 is virtual ----
TEST_TIMEOUT=30
timed "$WORK/sleep" run -- sleep 100
[ "$st" = 0 ] || { cat "$WORK/sleep.err" >&2; fail "sleep 100: hermit exited $st, not 0"; }
[ "$ms" -lt 2000 ] || fail "sleep 100: took $ms ms of wall time, not under 2 s"

# A wait with a timeout is not a deadlock: sigtimedwait with nothing to
# wait for times out after 2 s of virtual time, at once.
timed "$WORK/stw" run -- "$GUESTS/sigtimedwait"
[ "$st" = 0 ] || { cat "$WORK/stw.err" >&2; fail "sigtimedwait: hermit exited $st, not 0"; }
printf 'timed out: yes, elapsed 2.00 s\npending signal: SIGUSR1\n' >"$WORK/stw.want"
diff -u "$WORK/stw.want" "$WORK/stw" || fail "sigtimedwait: wrong output"
[ "$ms" -lt 5000 ] || fail "sigtimedwait: took $ms ms of wall time"

# ---- a wait with a timeout on the outside gets that long in real time ----
# bash's `read -t` selects on its stdin with a timeout. With nothing else to
# run, virtual time would jump to the timeout at once; the outside gets the
# time first, so a line that comes after 0.5 s is read, as natively, and
# with none the read times out (142) after about its 1 s.
TEST_TIMEOUT=30
(sleep 0.5; echo late) | timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" run -- \
	bash -c 'read -t 10 x; echo "got [$x] $?"' >"$WORK/readt" 2>"$WORK/readt.err"
[ "$(cat "$WORK/readt")" = "got [late] 0" ] ||
	{ cat "$WORK/readt.err" >&2; fail "read -t 10: printed '$(cat "$WORK/readt")', not 'got [late] 0'"; }
mkfifo "$WORK/quiet" || fail "mkfifo failed"
exec 8<>"$WORK/quiet" # a writer that never writes
t0=$(now_ms)
timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" run -- bash -c 'read -t 1 x; echo "rc $?"' \
	<"$WORK/quiet" >"$WORK/readt1" 2>"$WORK/readt1.err"
ms=$(($(now_ms) - t0))
exec 8>&-
[ "$(cat "$WORK/readt1")" = "rc 142" ] || fail "read -t 1 with no input: printed '$(cat "$WORK/readt1")'"
[ "$ms" -ge 900 ] && [ "$ms" -lt 5000 ] ||
	fail "read -t 1 with no input: over after $ms ms, not after about 1 s"

# ---- a thread looping on syscalls does not starve one parked on stdin ----
for p in none sites; do
	(sleep 0.5; echo x) | timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" run --preempt=$p -- \
		"$GUESTS/pollin" spin >"$WORK/spin.$p" 2>"$WORK/spin.$p.err"
	st=$?
	[ "$st" = 0 ] && [ "$(cat "$WORK/spin.$p")" = "got the byte" ] ||
		{ cat "$WORK/spin.$p.err" >&2; fail "spin --preempt=$p: exited $st, printed '$(cat "$WORK/spin.$p")'"; }
done
exit 0
