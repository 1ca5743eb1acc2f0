#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gdb 13 on a recording (DESIGN.md "Debugging faces"): `hermit replay
# --gdbserver-only` serves the recording of a two-thread program on
# 127.0.0.1, and gdb in batch mode runs tests/gdb/replay.py, which asserts
# breakpoints, threads, globals and locals, reverse-continue (from hits it
# knows and by searching), reverse-stepi, reverse-finish, reverse-step,
# reverse-next, a watchpoint forwards and backwards, `monitor when` and
# `monitor goto` (its exit status is the verdict); the same with checkpoints
# made wherever they can be; `hermit replay` starting gdb itself
# (tests/gdb/launch.py); ls and python3 (tests/gdb/real.py);
# tests/gdb/checkpoints.py on a long one-thread program, with and without
# checkpoints; Ctrl-C (tests/gdb/interrupt.py, and on the terminal of the
# gdb hermit starts: tests/gdb/ctrlc.py); a program behind a wrapper that
# execs it (tests/gdb/execfollow.py, execraw.py); only the owner served,
# vFile only on the recording's files (tests/gdb/owner.py); a watchpoint
# on a local written in a loop, backwards (tests/gdb/rwatchlocal.py);
# reverse-continue from single steps after a hit (tests/gdb/rcontsteps.py);
# and going back by breakpoints put in late (tests/gdb/rcontlate.py).
# gdb waits 60 s for the stub's replies, not its default 2: on a loaded
# host (load 10 on 2 cores) the first reply came later, gdb went on to
# vMustReplyEmpty and took the late qSupported reply for its answer.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

command -v gdb >/dev/null 2>&1 || skip "gdb is not installed"
gdb -batch -nx -ex 'python print(1)' >/dev/null 2>&1 || skip "this gdb has no Python"
export HERMIT_DATA_DIR="$WORK/data"

hm "$WORK/rec" record start -- "$GUESTS/gdbtwo"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec.err" >&2; fail "recording gdbtwo exited $st"; }
grep -qx 'counter 33' "$WORK/rec" || fail "gdbtwo printed: $(cat "$WORK/rec")"

# serve NAME SCRIPT PROGRAM: serve the latest recording, run gdb with
# SCRIPT on PROGRAM against it (with RAW=1, python3 SCRIPT speaks RSP
# itself); the output in $WORK/NAME.out, the server's in
# $WORK/NAME.serve(.err). Fails unless the script says PASS.
serve() {
	name=$1 script=$2 program=$3
	timeout -k 5 300 "$HERMIT" replay --gdbserver-only >"$WORK/$name.serve" \
		2>"$WORK/$name.serve.err" &
	server=$!
	port=
	for i in $(seq 1 100); do
		port=$(sed -n 's/.*127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$WORK/$name.serve")
		[ -n "$port" ] && break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		kill "$server"
		cat "$WORK/$name.serve.err" >&2
		fail "$name: hermit replay did not print its port"
	fi
	if ! grep -q "^gdb -ex 'target extended-remote 127.0.0.1:$port' /" "$WORK/$name.serve"; then
		kill "$server"
		fail "$name: the gdb command printed is not right: $(cat "$WORK/$name.serve")"
	fi
	if command -v ss >/dev/null 2>&1 && ss -ltn | grep ":$port " | grep -vq '127.0.0.1:'; then
		kill "$server"
		fail "$name: port $port listens beyond 127.0.0.1"
	fi
	if [ "${RAW:-0}" = 1 ]; then
		HERMIT_GDB_PORT=$port timeout -k 5 120 python3 "$TESTS_SRCDIR/gdb/$script" \
			"$program" >"$WORK/$name.out" 2>&1
	else
		# (gdb waits 2 s for a reply by default; hermit replay answers its
		# first packets at once, but a busy host can delay any reply)
		HERMIT_GDB_PORT=$port timeout -k 5 300 gdb -batch -nx -iex 'set remotetimeout 60' \
			-x "$TESTS_SRCDIR/gdb/$script" "$program" >"$WORK/$name.out" 2>&1
	fi
	st=$?
	wait "$server"
	[ "$st" = 0 ] && grep -qx PASS "$WORK/$name.out" ||
		{ cat "$WORK/$name.out" "$WORK/$name.serve.err" >&2; fail "$name: the gdb script failed ($st)"; }
}

serve replay replay.py "$GUESTS/gdbtwo"
# Only its owner is served (another uid's connection is closed unserved),
# and vFile opens only the recording's files, read-only (tests/gdb/owner.py).
RAW=1 serve owner owner.py "$GUESTS/gdbtwo"
# The same, with a checkpoint wherever one can be made (before the
# workers start and after they end): every search and seek that can
# starts from one, and the answers must not change.
HERMIT_CHECKPOINT_EVERY=1 serve replay-checkpoints replay.py "$GUESTS/gdbtwo"

# The one command: `hermit replay` starts gdb itself, connected (here gdb
# is a wrapper that runs it in batch mode with tests/gdb/launch.py), and
# `monitor goto` needs no flush there.
cat >"$WORK/gdb-batch" <<EOF
#!/bin/sh
exec gdb -batch -nx -iex 'set remotetimeout 60' "\$@" -x "$TESTS_SRCDIR/gdb/launch.py"
EOF
chmod +x "$WORK/gdb-batch"
timeout -k 5 120 "$HERMIT" replay --gdb "$WORK/gdb-batch" >"$WORK/launch.out" 2>"$WORK/launch.err"
st=$?
[ "$st" = 0 ] && grep -qx PASS "$WORK/launch.out" ||
	{ cat "$WORK/launch.out" "$WORK/launch.err" >&2; fail "hermit replay with gdb: exit $st"; }
# The same command with gdb's default remote timeout (2 s): hermit starts
# gdb once the replay answers, so connecting and the first replies need no
# longer wait (tests/gdb/ready.py; the replay is not moved there).
cat >"$WORK/gdb-default" <<EOF
#!/bin/sh
exec gdb -batch -nx "\$@" -x "$TESTS_SRCDIR/gdb/ready.py"
EOF
chmod +x "$WORK/gdb-default"
timeout -k 5 120 "$HERMIT" replay --gdb "$WORK/gdb-default" >"$WORK/ready.out" 2>"$WORK/ready.err"
st=$?
[ "$st" = 0 ] && grep -qx PASS "$WORK/ready.out" ||
	{ cat "$WORK/ready.out" "$WORK/ready.err" >&2; fail "hermit replay with gdb's default remote timeout: exit $st"; }
# monitor goto's refusals: one line each, saying why (gdb prints the
# stub's console output on its stderr).
for line in "hermit: cannot go to event '-1': not an event (0 to [0-9]*)" \
	"hermit: cannot go to event 'abc': not an event (0 to [0-9]*)" \
	"hermit: cannot go to event 99999999: the recording ends at [0-9]*"; do
	cat "$WORK/launch.out" "$WORK/launch.err" | grep -qx "$line" ||
		{ cat "$WORK/launch.err" >&2; fail "hermit replay with gdb: no line '$line'"; }
done

# Real programs, not built for the tests: coreutils' ls and python3 (the
# system's: gdb needs the ELF file, not a wrapper script), with a
# breakpoint on libc's write (tests/gdb/real.py).
for prog in /bin/ls /usr/bin/python3; do
	name=real-$(basename "$prog")
	export HERMIT_DATA_DIR="$WORK/$name"
	case $prog in
	*/ls) hm "$WORK/rec-$name" record start -- "$prog" / ;;
	*) hm "$WORK/rec-$name" record start -- "$prog" -c 'print(6 * 7)' ;;
	esac
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/rec-$name.err" >&2; fail "recording $prog exited $st"; }
	HERMIT_FIRST_BYTES=$(head -c 8 "$WORK/rec-$name" | od -An -tx1 | tr -d ' \n')
	[ -n "$HERMIT_FIRST_BYTES" ] || fail "$prog printed nothing"
	export HERMIT_FIRST_BYTES
	serve "$name" real.py "$prog"
done

# A program started through a wrapper that execs it: `sh -c 'exec
# gdbtwo'`, env, and a shell script (removed before the replay: the
# recording keeps it). gdb starts on the wrapper's program and must
# follow the exec (tests/gdb/execfollow.py: a pending breakpoint in
# gdbtwo hit, reverse execution back across the exec to the start, catch
# exec and break main), and go back across it into the wrapper's program
# (tests/gdb/execback.py: a breakpoint on its execve hit again, catch exec
# going back, reverse-stepi and stepi around the exec; with a checkpoint
# at every event too); and raw RSP without exec-events+ gets no exec stop,
# with them T05exec:<path> (tests/gdb/execraw.py).
printf '#!/bin/sh\nexec "%s" "$@"\n' "$GUESTS/gdbtwo" >"$WORK/wrap.sh"
chmod +x "$WORK/wrap.sh"
for how in sh env script; do
	export HERMIT_DATA_DIR="$WORK/exec-$how"
	case $how in
	sh) first=/bin/sh
		hm "$WORK/rec-exec-$how" record start -- /bin/sh -c "exec '$GUESTS/gdbtwo'" ;;
	env) first=/usr/bin/env
		hm "$WORK/rec-exec-$how" record start -- /usr/bin/env "$GUESTS/gdbtwo" ;;
	script) first=/bin/sh
		hm "$WORK/rec-exec-$how" record start -- "$WORK/wrap.sh" ;;
	esac
	st=$?
	[ "$how" = script ] && rm "$WORK/wrap.sh"
	[ "$st" = 0 ] || { cat "$WORK/rec-exec-$how.err" >&2; fail "recording gdbtwo through $how exited $st"; }
	grep -qx 'counter 33' "$WORK/rec-exec-$how" || fail "gdbtwo through $how printed: $(cat "$WORK/rec-exec-$how")"
	HERMIT_EXEC_PROG="$GUESTS/gdbtwo" serve exec-$how execfollow.py "$first"
	[ "$how" = script ] ||
		HERMIT_EXEC_PROG="$GUESTS/gdbtwo" serve execback-$how execback.py "$first"
done
export HERMIT_DATA_DIR="$WORK/exec-sh"
HERMIT_CHECKPOINT_EVERY=1 HERMIT_EXEC_PROG="$GUESTS/gdbtwo" serve execback-cp execback.py /bin/sh
export HERMIT_DATA_DIR="$WORK/exec-sh"
RAW=1 serve exec-raw execraw.py "$GUESTS/gdbtwo"

# A watchpoint on a local written in a loop with no syscall, within one
# event interval in which main runs in three stretches (it waits in read()
# while the worker runs): forwards to four writes, back to each write
# before, to before the first, to the breakpoint at the function's entry,
# and forwards again (tests/gdb/rwatchlocal.py); scoped and by location,
# with and without checkpoints.
export HERMIT_DATA_DIR="$WORK/rwatch"
hm "$WORK/rec-rwatch" record start -- "$GUESTS/inspectme"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-rwatch.err" >&2; fail "recording inspectme exited $st"; }
HERMIT_CHECKPOINTS=0 serve rwatch rwatchlocal.py "$GUESTS/inspectme"
HERMIT_CHECKPOINT_EVERY=1 serve rwatch-checkpoints rwatchlocal.py "$GUESTS/inspectme"
WATCH=-l HERMIT_CHECKPOINTS=0 serve rwatch-location rwatchlocal.py "$GUESTS/inspectme"
WATCH=-l HERMIT_CHECKPOINT_EVERY=1 serve rwatch-location-checkpoints rwatchlocal.py \
	"$GUESTS/inspectme"

# A loop whose sites are patched (tests/guests/patchloop: a 2-byte
# indirect call and a 2-byte backward jne): gdb sees the file's bytes and
# instructions, 200 stepi land on spin()'s own instructions while the
# ticks count, and 200 reverse-stepi retrace them (tests/gdb/patched.py).
export HERMIT_DATA_DIR="$WORK/patched"
hm "$WORK/rec-patched" record start -- "$GUESTS/patchloop"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-patched.err" >&2; fail "recording patchloop exited $st"; }
grep -q '^patched ' "$WORK/rec-patched" || fail "patchloop printed: $(cat "$WORK/rec-patched")"
serve patched patched.py "$GUESTS/patchloop"

# A --chaos recording of a race (tests/guests/racy), replayed under gdb
# with a breakpoint in the racing loop hit 25 times and a few stepi: the
# debugger's stops must not move a later preemption, so a continue reaches
# the end with the recorded total and no divergence (tests/gdb/chaosbp.py).
for seed in 3 5; do
	export HERMIT_DATA_DIR="$WORK/chaos$seed"
	hm "$WORK/rec-chaos$seed" record start --chaos --seed $seed -- "$GUESTS/racy"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/rec-chaos$seed.err" >&2; fail "recording racy (chaos $seed) exited $st"; }
	serve chaos$seed chaosbp.py "$GUESTS/racy"
	! grep -i 'diverge' "$WORK/chaos$seed.serve.err" ||
		fail "chaos $seed: the replay under gdb diverged"
	grep -qx "$(cat "$WORK/rec-chaos$seed")" "$WORK/chaos$seed.serve" ||
		fail "chaos $seed: the replay did not print the recorded '$(cat "$WORK/rec-chaos$seed")'"
done

# reverse-continue from single steps after a breakpoint's hit (the third
# of add's, in compute's loop: tests/gdb/rcontsteps.py) stops at that hit,
# then at the one before; with the breakpoint set late too, and after a
# reverse-stepi; without checkpoints and with one at every event.
export HERMIT_DATA_DIR="$WORK/rcontsteps"
hm "$WORK/rec-rcontsteps" record start -- "$GUESTS/dapsteps"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-rcontsteps.err" >&2; fail "recording dapsteps exited $st"; }
HERMIT_CHECKPOINTS=0 serve rcontsteps rcontsteps.py "$GUESTS/dapsteps"
HERMIT_CHECKPOINT_EVERY=1 serve rcontsteps-checkpoints rcontsteps.py "$GUESTS/dapsteps"
# Breakpoints put in late, at addresses the replay passed since the last
# event (hermit-dap's over a call and back: tests/gdb/rcontlate.py): a
# step back and a reverse-continue stop at the same pass, not the first
# since the event; without checkpoints and with one at every event.
HERMIT_CHECKPOINTS=0 RAW=1 serve rcontlate rcontlate.py "$GUESTS/dapsteps"
HERMIT_CHECKPOINT_EVERY=1 RAW=1 serve rcontlate-checkpoints rcontlate.py "$GUESTS/dapsteps"

# Checkpoints (replayer/checkpoint.c) on a one-thread program of 6,000
# events, one every 500: reverse-continue to a breakpoint set late, a
# goto, reverse-stepi. Without checkpoints the stops must be the same.
export HERMIT_DATA_DIR="$WORK/ticks"
hm "$WORK/rec-ticks" record start -- "$GUESTS/ticks"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-ticks.err" >&2; fail "recording ticks exited $st"; }
grep -qx 'ticks 6000' "$WORK/rec-ticks" || fail "ticks printed: $(cat "$WORK/rec-ticks")"
CHECKPOINTS=1 HERMIT_CHECKPOINT_EVERY=500 serve ticks checkpoints.py "$GUESTS/ticks"
CHECKPOINTS=0 HERMIT_CHECKPOINTS=0 serve ticks-none checkpoints.py "$GUESTS/ticks"
grep '^STOP ' "$WORK/ticks.out" >"$WORK/ticks.stops"
grep '^STOP ' "$WORK/ticks-none.out" >"$WORK/ticks-none.stops"
[ -s "$WORK/ticks.stops" ] && cmp -s "$WORK/ticks.stops" "$WORK/ticks-none.stops" ||
	{ diff "$WORK/ticks.stops" "$WORK/ticks-none.stops" >&2; fail "checkpoints changed the stops"; }
# The program's output once: a revived checkpoint writes to /dev/null.
n=$(grep -c '^ticks 6000$' "$WORK/ticks.serve")
[ "$n" = 1 ] || fail "the replay printed the program's output $n times"
# gdb's Ctrl-C (tests/gdb/interrupt.py, raw RSP) stops a continue and a
# reverse-continue's search where they are, with SIGINT.
RAW=1 serve ticks-interrupt interrupt.py "$GUESTS/ticks"
# Ctrl-C on the terminal of the gdb that `hermit replay` starts (a pty;
# tests/gdb/ctrlc.py) stops the replay in gdb, as 0x03 does, and ends
# nothing: the terminal's SIGINT reaches hermit and the guest too.
export HERMIT_DATA_DIR="$WORK/ticks-long"
hm "$WORK/rec-long" record start -- "$GUESTS/ticks" 100000
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-long.err" >&2; fail "recording ticks 100000 exited $st"; }
printf '#!/bin/sh\nexec gdb -nx -iex "set remotetimeout 60" -ex "set pagination off" -ex "set confirm off" "$@"\n' \
	>"$WORK/gdb-tty"
chmod +x "$WORK/gdb-tty"
timeout -k 5 300 python3 "$TESTS_SRCDIR/gdb/ctrlc.py" "$HERMIT" ticks-0 "$WORK/gdb-tty" \
	>"$WORK/ctrlc.out" 2>&1
st=$?
[ "$st" = 0 ] && grep -qx PASS "$WORK/ctrlc.out" ||
	{ cat "$WORK/ctrlc.out" >&2; fail "Ctrl-C in hermit replay's gdb ($st)"; }

# The same loop in a thread of its own, beside the main thread (joining
# it) and two waiting on a condition variable: checkpoints are made while
# the four threads live, and revived with all four.
export HERMIT_DATA_DIR="$WORK/ticks-threads"
hm "$WORK/rec-threads" record start -- "$GUESTS/ticks" 6000 - threads
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-threads.err" >&2; fail "recording ticks threads exited $st"; }
THREADS=3 CHECKPOINTS=1 HERMIT_CHECKPOINT_EVERY=500 serve ticks-threads checkpoints.py \
	"$GUESTS/ticks"
CHECKPOINTS=0 HERMIT_CHECKPOINTS=0 serve ticks-threads-none checkpoints.py "$GUESTS/ticks"
grep '^STOP ' "$WORK/ticks-threads.out" >"$WORK/ticks-threads.stops"
grep '^STOP ' "$WORK/ticks-threads-none.out" >"$WORK/ticks-threads-none.stops"
[ -s "$WORK/ticks-threads.stops" ] &&
	cmp -s "$WORK/ticks-threads.stops" "$WORK/ticks-threads-none.stops" ||
	{ diff "$WORK/ticks-threads.stops" "$WORK/ticks-threads-none.stops" >&2
	  fail "checkpoints changed the stops (threads)"; }

# A guest that writes a file half way: checkpoints end there (a revived
# one would see the file as written later), and going back still works.
export HERMIT_DATA_DIR="$WORK/ticks-write"
hm "$WORK/rec-write" record start -- "$GUESTS/ticks" 3000 "$WORK/half"
st=$?
[ "$st" = 0 ] || { cat "$WORK/rec-write.err" >&2; fail "recording ticks 3000 exited $st"; }
TICKS=3000 CHECKPOINTS=0 HERMIT_CHECKPOINT_EVERY=500 serve ticks-write checkpoints.py \
	"$GUESTS/ticks"
exit 0
