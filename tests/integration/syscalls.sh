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
# three_ways NAME GUEST ARGS...: natively, under run, record and replay,
# exit 0 and the same output.
three_ways() {
	name=$1
	shift
	timeout -k 5 "$TEST_TIMEOUT" "$@" >"$WORK/$name.native" 2>"$WORK/$name.native.err" ||
		{ cat "$WORK/$name.native.err" >&2; fail "$name: exited $? natively"; }
	for how in run "record start" "replay --autopilot"; do
		if [ "$how" = "replay --autopilot" ]; then
			hm "$WORK/$name.out" replay --autopilot
		else
			hm "$WORK/$name.out" $how -- "$@"
		fi
		st=$?
		[ "$st" = 0 ] || { tail -20 "$WORK/$name.out.err" >&2; fail "$name: hermit $how exited $st"; }
		diff -u "$WORK/$name.native" "$WORK/$name.out" ||
			fail "$name: hermit $how printed other output"
	done
}

# Syscall numbers the kernel does not know, x32's included, fail with
# ENOSYS as natively (x32 numbers killed the guest with SIGSYS).
three_ways enosys "$GUESTS/badsys" enosys

# int $0x80 from 64-bit code, and a 32-bit program: refused in one line,
# exit 125 (they died of SIGSYS).
hm "$WORK/int80" run -- "$GUESTS/badsys" int80
st=$?
[ "$st" = 125 ] || { cat "$WORK/int80.err" >&2; fail "int80: hermit exited $st, not 125"; }
[ "$(wc -l <"$WORK/int80.err")" = 1 ] && grep -q "32-bit system call (int \$0x80" "$WORK/int80.err" ||
	{ cat "$WORK/int80.err" >&2; fail "int80: not one line that says why"; }
# A 32-bit ELF executable that exits 7 with int $0x80 (96 bytes).
printf '\177\105\114\106\001\001\001\000\000\000\000\000\000\000\000\000\002\000\003\000\001\000\000\000\124\200\004\010\064\000\000\000\000\000\000\000\000\000\000\000\064\000\040\000\001\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\000\200\004\010\000\200\004\010\140\000\000\000\140\000\000\000\005\000\000\000\000\020\000\000\270\001\000\000\000\273\007\000\000\000\315\200' >"$WORK/elf32"
chmod +x "$WORK/elf32"
hm "$WORK/elf32.out" run -- "$WORK/elf32"
st=$?
if [ "$st" = 126 ]; then
	echo "elf32: not checked: this kernel cannot run 32-bit programs" >&2
else
	[ "$st" = 125 ] || { cat "$WORK/elf32.out.err" >&2; fail "elf32: hermit exited $st, not 125"; }
	[ "$(wc -l <"$WORK/elf32.out.err")" = 1 ] && grep -q "'$WORK/elf32': it is a 32-bit program" "$WORK/elf32.out.err" ||
		{ cat "$WORK/elf32.out.err" >&2; fail "elf32: not one line that says why"; }
fi

# A setuid program runs with its caller's ids (no_new_privs): hermit says so.
cp "$GUESTS/badsys" "$WORK/suid" && chmod 4755 "$WORK/suid" || fail "cannot make a setuid copy"
hm "$WORK/suid.out" run -- "$WORK/suid" ok
st=$?
[ "$st" = 0 ] || { cat "$WORK/suid.out.err" >&2; fail "suid: hermit exited $st"; }
grep -q "warn: '$WORK/suid' is set-user-ID: the bit is ignored" "$WORK/suid.out.err" ||
	{ cat "$WORK/suid.out.err" >&2; fail "suid: no warning that the setuid bit is ignored"; }

exit 0
