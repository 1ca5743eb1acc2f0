#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Multithreaded guests (issue "Deterministic threads"): each runs three
# times under hermit with identical output, and what it prints is what the
# model (DESIGN.md "Serialization", "Blocking", "Time") implies: locks
# exclude, every item gets through, timed waits time out after exactly
# their timeout of virtual time, sleepers wake shortest first, timers fire
# on virtual time, a seed always repeats its own interleaving, and shared
# futexes wake as many waiters as the kernel would, in its order, and a
# signal to the process goes to the thread the kernel would give it to.
#
# Every guest is checked in its own subshell so that one failure does not
# hide the others; the test fails if any did.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

EPOCH_S=1767225600	# $HERMIT_EPOCH, 2026-01-01T00:00:00Z
# Virtual time may run ahead of a timeout by what the few syscalls around
# the wait cost (10 us each, docs/determinism.md), never by more than this.
SLACK_NS=10000000

# within NAME VALUE LOW HIGH: LOW <= VALUE <= HIGH (integers).
within() {
	[ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ] ||
		fail "$1 is '$2', not between $3 and $4"
}

# ---- mutex: 4 x 10,000 increments under one mutex ----
t_mutex() {
	same_thrice mutex -- "$GUESTS/mutex"
	o=$WORK/mutex.1
	grep -qx 'count 40000' "$o" || { cat "$o" >&2; fail "mutex: the final count is not 40000"; }
	# The log is written under the lock: counts rise, each thread's marks
	# come in step order, and a thread at step K has added K+1 itself.
	awk '
		BEGIN { split("0 2500 5000 7500 9999", w, " ") }
		$1 == "thread" && $3 == "step" && $5 == "count" {
			n++
			if ($6 <= last || $6 < $4 + 1) { print "bad count:", $0; bad = 1 }
			last = $6
			if ($4 != w[++k[$2]]) { print "bad step:", $0; bad = 1 }
			next
		}
		$1 != "count" { print "unexpected:", $0; bad = 1 }
		END {
			for (t = 0; t < 4; t++) if (k[t] != 5) { print "thread", t, "logged", k[t] + 0, "marks"; bad = 1 }
			exit bad || n != 20
		}' "$o" || fail "mutex: the log is not 5 marks per thread in step order with rising counts"
}

# ---- condvar: bounded queue, 2 producers x 10 items, 2 consumers; timedwait ----
t_condvar() {
	same_thrice condvar -- "$GUESTS/condvar"
	o=$WORK/condvar.1
	grep -qx 'consumed 20' "$o" || fail "condvar: not 20 items consumed"
	# Each item is put once and got once; the queue is FIFO, so each
	# producer's items come out in the order they went in.
	awk '
		$1 == "producer" && $3 == "put" { put[$4]++; np++ }
		$1 == "consumer" && $3 == "got" {
			got[$4]++; ng++
			split($4, pk, ":")
			if (pk[2] != next_k[pk[1]]++) { print "out of order:", $0; bad = 1 }
		}
		END {
			for (p = 0; p < 2; p++) for (k = 0; k < 10; k++)
				if (put[p ":" k] != 1 || got[p ":" k] != 1) { print "item", p ":" k, "put", put[p ":" k] + 0, "got", got[p ":" k] + 0; bad = 1 }
			exit bad || np != 20 || ng != 20
		}' "$o" || fail "condvar: not every item put once and got once, in order"
	grep -qx 'timedwait timed out' "$o" || { cat "$o" >&2; fail "condvar: pthread_cond_timedwait did not time out"; }
	set -- $(awk '$1 == "timedwait" && $2 == "timeout_ns" { print $3, $5, $9 }' "$o")
	[ $# = 3 ] || fail "condvar: no timedwait timing line"
	within "condvar: CLOCK_REALTIME before the timed wait (seconds)" "${2%.*}" $EPOCH_S $((EPOCH_S + 5))
	within "condvar: virtual time across pthread_cond_timedwait($1 ns) in ns" "$3" "$1" $(($1 + SLACK_NS))
}

# ---- barrier: 4 threads, 6 rounds ----
t_barrier() {
	same_thrice barrier -- "$GUESTS/barrier"
	o=$WORK/barrier.1
	awk '
		$1 == "round" {
			n++
			if ($2 != n - 1 || $3 != "arrivals" || NF != 9 || $8 != "serial") { print "bad:", $0; bad = 1; next }
			delete seen
			for (i = 4; i <= 7; i++) if ($i !~ /^[0-3]$/ || seen[$i]++) { print "bad arrivals:", $0; bad = 1 }
			if ($9 !~ /^[0-3]$/) { print "bad serial thread:", $0; bad = 1 }
		}
		END { exit bad || n != 6 }' "$o" ||
		fail "barrier: not 6 rounds of 4 distinct arrivals and one serial thread each"
	grep -qx 'rounds 6' "$o" || fail "barrier: no 'rounds 6'"
}

# ---- rwlock: 3 readers x 4, 2 writers x 4 ----
t_rwlock() {
	same_thrice rwlock -- "$GUESTS/rwlock"
	o=$WORK/rwlock.1
	! grep 'NOT' "$o" || fail "rwlock: a writer was not alone, or a reader saw a writer inside"
	grep -qx 'value 8' "$o" || fail "rwlock: the value is not 8"
	# The log is written under the lock, so a reader sees as many writes
	# as the log shows before it, and writers count 1..8.
	awk '
		$1 == "writer" && $3 == "sets" { nw++; if ($4 != nw) { print "bad:", $0; bad = 1 } }
		$1 == "reader" && $3 == "sees" { nr++; if ($4 != nw) { print "stale or future value:", $0; bad = 1 } }
		END { exit bad || nw != 8 || nr != 12 }' "$o" ||
		fail "rwlock: not 12 reads and 8 writes, each read seeing every write before it"
}

# ---- semaphore: ping-pong, trywait, timedwait ----
t_semaphore() {
	same_thrice semaphore -- "$GUESTS/semaphore"
	o=$WORK/semaphore.1
	k=0
	: >"$WORK/sem.want"
	while [ $k -lt 10 ]; do
		printf 'ping %d\npong %d\n' $k $k >>"$WORK/sem.want"
		k=$((k + 1))
	done
	head -20 "$o" | diff -u "$WORK/sem.want" - || fail "semaphore: ping and pong do not alternate"
	grep -qx 'sem_trywait EAGAIN' "$o" || fail "semaphore: sem_trywait on an empty semaphore did not fail with EAGAIN"
	grep -qx 'sem_timedwait timed out' "$o" || { cat "$o" >&2; fail "semaphore: sem_timedwait did not time out"; }
	set -- $(awk '$1 == "sem_timedwait" && $2 == "timeout_ns" { print $3, $5, $9 }' "$o")
	[ $# = 3 ] || fail "semaphore: no sem_timedwait timing line"
	within "semaphore: CLOCK_REALTIME before sem_timedwait (seconds)" "${2%.*}" $EPOCH_S $((EPOCH_S + 5))
	within "semaphore: virtual time across sem_timedwait($1 ns) in ns" "$3" "$1" $(($1 + SLACK_NS))
}

# ---- pipe_pc: 30 lines through a pipe between two threads ----
t_pipe_pc() {
	same_thrice pipe_pc -- "$GUESTS/pipe_pc"
	o=$WORK/pipe_pc.1
	seq -f 'got line %02g' 0 29 >"$WORK/pipe_pc.want"
	grep '^got ' "$o" | diff -u "$WORK/pipe_pc.want" - || fail "pipe_pc: the lines did not come through whole and in order"
	awk '
		$1 == "read" { r++; sum += $2; if ($2 < 1 || $2 > 64) bad = 1 }
		$1 == "eof" { eof = $0 }
		END { exit bad || sum != 240 || eof != "eof after 240 bytes in " r " reads" }' "$o" ||
		fail "pipe_pc: the reads do not add up to 240 bytes in at most 64 at a time"
}

# ---- tcp_echo: loopback TCP between two threads ----
t_tcp_echo() {
	same_thrice tcp_echo -- "$GUESTS/tcp_echo"
	o=$WORK/tcp_echo.1
	cat >"$WORK/tcp.want" <<'END'
client: server listening on 127.0.0.1 (port assigned)
client: connected
client: sent 'hello' got back 'hello'
client: sent 'message 1' got back 'message 1'
client: sent 'a somewhat longer message number 2' got back 'a somewhat longer message number 2'
client: sent 'message 3' got back 'message 3'
client: sent 3000 bytes got back 3000 bytes, the same,
client: after shutdown recv returned 0
END
	grep '^client: ' "$o" | sed 's/ in [0-9]* reads$//' | diff -u "$WORK/tcp.want" - ||
		fail "tcp_echo: the client did not get every message back"
	awk '
		$1 == "server" && $2 == "read" { sum += $3 }
		$0 == "server echoed 3057 bytes, peer closed" { closed = 1 }
		END { exit sum != 3057 || !closed }' "$o" || fail "tcp_echo: the server did not echo 3057 bytes and see the client close"
}

# ---- timers: alarm, setitimer, nanosleep, pthread_kill/tgkill, timer_create, timerfd ----
t_timers() {
	same_thrice timers -- "$GUESTS/timers"
	o=$WORK/timers.1
	# elapsed WHAT: elapsed_us of the one line that starts with WHAT.
	elapsed() {
		v=$(awk -v w="$1" 'index($0, w " mono ") == 1 { n++; v = $NF } END { if (n == 1) print v }' "$o")
		[ -n "$v" ] || { cat "$o" >&2; fail "timers: no line '$1'"; }
		echo "$v"
	}
	e=$(elapsed 'alarm SIGALRM seen') || exit 1
	within "timers: virtual us from alarm(1) to SIGALRM" "$e" 1000000 1020000
	k=1
	while [ $k -le 5 ]; do
		e=$(elapsed "itimer tick $k") || exit 1
		within "timers: virtual us from setitimer to tick $k" "$e" $((k * 100000)) $((k * 100000 + 20000))
		k=$((k + 1))
	done
	grep -qx 'itimer ticks 5' "$o" || fail "timers: not 5 itimer ticks"
	e=$(elapsed 'nanosleep 200 ms') || exit 1
	within "timers: virtual us across nanosleep(200 ms)" "$e" 200000 220000
	elapsed 'pthread_kill SIGUSR1 handled by worker' >/dev/null || exit 1
	elapsed 'tgkill SIGUSR2 handled by main' >/dev/null || exit 1
	e=$(elapsed 'timer_create SIGRTMIN fired 1 si_code SI_TIMER value 42') || exit 1
	within "timers: virtual us from timer_settime(300 ms) to its signal" "$e" 300000 320000
	got=$(awk '$1 == "timerfd" { print $2, $3 }' "$o" | tr '\n' ' ')
	[ "$got" = 'expirations 3 expirations 1 ' ] || { grep '^timerfd' "$o" >&2;
		fail "timers: timerfd reads returned '$got', not 3 expirations after 350 ms and then 1"; }
	e=$(awk '$1 == "timerfd" { print $NF }' "$o" | tr '\n' ' ')
	within "timers: virtual us from timerfd_settime to the first read (after a 350 ms sleep)" "${e%% *}" 350000 370000
	e=${e#* }
	within "timers: virtual us from timerfd_settime to the fourth expiration" "${e%% *}" 400000 420000
	# Virtual monotonic time never goes back.
	awk '{ for (i = 1; i < NF; i++) if ($i == "mono") { if ($(i + 1) + 0 < last) bad = 1; last = $(i + 1) + 0 } }
		END { exit bad }' "$o" || fail "timers: CLOCK_MONOTONIC went back"
}

# ---- mtfork: fork from one of three threads ----
t_mtfork() {
	same_thrice mtfork -- "$GUESTS/mtfork"
	o=$WORK/mtfork.1
	for l in 'main: pid 2' 'thread 1 forks; threads in the parent: 3' 'thread 1: the child exited 7' \
		'main: joined thread 1 (returned 0) and thread 2 (returned 0)' 'main: SIGCHLD caught 1 time(s)' \
		'main: threads now 1'; do
		grep -qxF "$l" "$o" || { cat "$o" >&2; fail "mtfork: no line '$l'"; }
	done
	child=$(sed -n 's/^child: pid \([0-9]*\), parent 2, threads 1$/\1/p' "$o")
	[ -n "$child" ] || fail "mtfork: the child did not report one thread and parent pid 2"
	grep -qxF "thread 1 waited for child pid $child" "$o" || fail "mtfork: thread 1 did not wait for the child $child"
}

# log4_ok FILE: 20 lines, each "thread N step K" once, each thread's steps
# in order; and interleaved, since a thread that sleeps is parked while the
# others run (DESIGN.md "Blocking"): not four runs of one thread's 5 steps.
log4_ok() {
	awk '
		NF != 4 || $1 != "thread" || $3 != "step" || $2 !~ /^[0-3]$/ { print "bad:", $0; bad = 1; next }
		$4 != s[$2]++ { print "out of order:", $0; bad = 1 }
		$2 != prev { runs++; prev = $2 }
		END { for (t = 0; t < 4; t++) if (s[t] != 5) bad = 1; exit bad || NR != 20 || runs <= 4 }' "$1" ||
		{ cat "$1" >&2; fail "log4: $1 is not 20 lines of four threads' steps 0..4 in order, interleaved"; }
}

# ---- log4: four threads, a mutex and sleeps; seeds ----
t_log4() {
	same_thrice log4 -- "$GUESTS/log4"
	log4_ok "$WORK/log4.1"
	for s in 1 2 3 4 5; do
		same_twice log4.s$s --seed $s -- "$GUESTS/log4"
		log4_ok "$WORK/log4.s$s.1"
	done
}

# ---- sleepers: 500, 100, 400, 200, 300 ms ----
t_sleepers() {
	same_thrice sleepers -- "$GUESTS/sleepers"
	o=$WORK/sleepers.1
	order=$(awk '$1 == "sleeper" { printf "%s ", $2 }' "$o")
	[ "$order" = "1 3 4 2 0 " ] || { cat "$o" >&2; fail "sleepers: woke in order '$order', not '1 3 4 2 0 '"; }
	# Each woke once its time had passed, and not much later.
	awk '$1 == "sleeper" && !($5 >= $8 + 0 && $5 <= $8 + 20) { print "woke at the wrong time:", $0; bad = 1 }
		END { exit bad }' "$o" || fail "sleepers: a sleeper did not wake after its virtual time"
}

# ---- shfutex: shared futexes, 21 waiters, across fork, threads, aliases ----
# A futex without FUTEX_PRIVATE_FLAG is keyed as the kernel keys it (the
# mapped object and offset in a shared mapping): FUTEX_WAKE wakes all 21
# waiters and says so, waiters wake first in, first out, and the requeues
# return woken plus moved (docs/threads.md, "Futexes"). The same under
# record and replay.
t_shfutex() {
	cat >"$WORK/shfutex.want" <<'EOF'
all: wake 21
all: woken 21
order: wake one 1
order: woken 0
order: wake one 1
order: woken 1
order: wake one 1
order: woken 2
order: wake rest 18
requeue: cmp_requeue stale -11
requeue: cmp_requeue 6
requeue: requeue 4
requeue: woken 0
requeue: wake one moved 1
requeue: woken 1
requeue: wake moved 8
requeue: wake rest 11
requeue: woken 21
EOF
	for m in fork threads alias; do
		same_thrice shfutex.$m -- "$GUESTS/shfutex" $m
		diff -u "$WORK/shfutex.want" "$WORK/shfutex.$m.1" || fail "shfutex $m: not the kernel's counts and order"
	done
	export HERMIT_DATA_DIR="$WORK/data"
	for m in fork threads; do
		hm "$WORK/shfutex.$m.rec" record start -- "$GUESTS/shfutex" $m
		st=$?
		[ $st = 0 ] || { tail -20 "$WORK/shfutex.$m.rec.err" >&2; fail "shfutex $m: record start exited $st"; }
		diff -u "$WORK/shfutex.want" "$WORK/shfutex.$m.rec" || fail "shfutex $m: the recorded run printed other output"
		hm "$WORK/shfutex.$m.rep" replay --autopilot
		st=$?
		[ $st = 0 ] || { tail -20 "$WORK/shfutex.$m.rep.err" >&2; fail "shfutex $m: replay exited $st"; }
		diff -u "$WORK/shfutex.want" "$WORK/shfutex.$m.rep" || fail "shfutex $m: the replay printed other output"
	done
}

# ---- sigroute: a signal to the process whose main thread blocks it goes
# to a thread that does not, as complete_signal() chooses (kernel/signal.c):
# natively, under run (with --verify, and with chaos seeds), and recorded
# then replayed, the same worker's handler runs and its pause() or read()
# returns EINTR ----
t_sigroute() {
	export HERMIT_DATA_DIR="$WORK/data"
	for c in "pause 1" "read 1" "pause 3" "read 3" "pause 3 stay" "read 4 stay" "pause 4 mixed" \
		"read 3 mixed" "pause 3 order" "read 4 order"; do
		n=$(echo "$c" | tr ' ' _)
		# shellcheck disable=SC2086
		timeout -k 5 60 "$GUESTS/sigroute" $c >"$WORK/sr.$n.native" ||
			fail "sigroute $c: exited $? natively"
		grep -q 'returned EINTR 1 of 1' "$WORK/sr.$n.native" ||
			{ cat "$WORK/sr.$n.native" >&2; fail "sigroute $c: no worker's call returned EINTR natively"; }
		for how in verify chaos1 chaos2 record replay; do
			# shellcheck disable=SC2086
			case $how in
			verify) hm "$WORK/sr.$n.$how" run --verify -- "$GUESTS/sigroute" $c ;;
			chaos*) hm "$WORK/sr.$n.$how" run --verify --chaos --seed "${how#chaos}" -- "$GUESTS/sigroute" $c ;;
			record) hm "$WORK/sr.$n.$how" record start -- "$GUESTS/sigroute" $c ;;
			replay) hm "$WORK/sr.$n.$how" replay --autopilot ;;
			esac
			st=$?
			[ $st = 0 ] || { tail -20 "$WORK/sr.$n.$how.err" >&2; fail "sigroute $c: $how exited $st"; }
			diff -u "$WORK/sr.$n.native" "$WORK/sr.$n.$how" || fail "sigroute $c: $how printed other output"
		done
	done
}

failed=
for t in mutex condvar barrier rwlock semaphore pipe_pc tcp_echo timers mtfork log4 sleepers shfutex sigroute; do
	[ -x "$GUESTS/$t" ] || fail "$t: the guest $GUESTS/$t is not built"
	(t_$t) || failed="$failed $t"
done
[ -z "$failed" ] || fail "failed:$failed"
exit 0
