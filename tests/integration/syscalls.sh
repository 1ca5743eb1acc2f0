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

# three_ways NAME GUEST ARGS...: under run, record and replay, exit 0 and
# print what the guest prints natively, or $WORK/NAME.want where that is.
three_ways() {
	name=$1
	shift
	if [ -e "$WORK/$name.want" ]; then
		cp "$WORK/$name.want" "$WORK/$name.native"
	else
		timeout -k 5 "$TEST_TIMEOUT" "$@" >"$WORK/$name.native" 2>"$WORK/$name.native.err" ||
			{ cat "$WORK/$name.native.err" >&2; fail "$name: exited $? natively"; }
	fi
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
# ENOSYS as natively (x32 numbers killed the guest with SIGSYS). Not
# compared with a native run: a kernel may run x32 calls.
cat >"$WORK/enosys.want" <<'OUT'
999: -1 Function not implemented
x32 getpid: -1 Function not implemented
x32 past the table: -1 Function not implemented
0x7fffffff: -1 Function not implemented
OUT
three_ways enosys "$GUESTS/badsys" enosys

# int $0x80 from 64-bit code, and a 32-bit program: refused in one line,
# exit 125 (they died of SIGSYS).
# A kernel without IA32 emulation (CONFIG_IA32_EMULATION off, or
# ia32_emulation=false) faults int $0x80 before seccomp sees it: the
# program dies of SIGSEGV natively, and under hermit as natively.
"$GUESTS/badsys" int80 >/dev/null 2>&1
native=$?
hm "$WORK/int80" run -- "$GUESTS/badsys" int80
st=$?
if [ "$native" = 139 ]; then
	echo "int80: not checked: this kernel has no IA32 emulation (int \$0x80 faults natively)" >&2
	[ "$st" = 139 ] || { cat "$WORK/int80.err" >&2; fail "int80: hermit exited $st, not 139 as natively"; }
else
	[ "$st" = 125 ] || { cat "$WORK/int80.err" >&2; fail "int80: hermit exited $st, not 125"; }
	[ "$(wc -l <"$WORK/int80.err")" = 1 ] && grep -q "32-bit system call (int \$0x80" "$WORK/int80.err" ||
		{ cat "$WORK/int80.err" >&2; fail "int80: not one line that says why"; }
fi
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
# want NAME: the expected output of NAME, from stdin.
want() {
	cat >"$WORK/$1.want"
}

# rows NAME MODE ARGS...: `hermit ARGS... -- sysrows MODE` (run or record
# start, then a replay of the recording) must print $WORK/NAME.want.
rows() {
	name=$1 mode=$2
	shift 2
	hm "$WORK/$name.out" "$@" -- "$GUESTS/sysrows" "$mode"
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/$name.out.err" >&2; fail "$name: hermit $* exited $st"; }
	diff -u "$WORK/$name.want" "$WORK/$name.out" || fail "$name: hermit $* printed other output"
	if [ "$1" = record ]; then
		hm "$WORK/$name.rep" replay --autopilot
		st=$?
		[ "$st" = 0 ] || { tail -20 "$WORK/$name.rep.err" >&2; fail "$name: replay exited $st"; }
		diff -u "$WORK/$name.want" "$WORK/$name.rep" || fail "$name: the replay printed other output"
	fi
}

# memfd: the guest's own file, which a replay writes again.
three_ways memfd "$GUESTS/sysrows" memfd

# Refused, each with its documented errno, with namespaces or without
# (where hermit's user may be root, who would get them).
want refused <<'OUT'
userfaultfd: Function not implemented
perf_event_open: Function not implemented
bpf: Operation not permitted
fanotify_init: Operation not permitted
name_to_handle_at: Operation not supported
open_by_handle_at: Operation not permitted
mq_open: Function not implemented
OUT
rows refused refused run
rows refused refused record start
cp "$WORK/refused.want" "$WORK/refused-nons.want"
rows refused-nons refused run --no-namespace

# process_vm_readv/writev and pidfd_getfd reach guest processes, not
# hermit's init (pid 1 of the guest's namespace): EPERM there.
want pvm <<'OUT'
process_vm_readv: ok
read: child's word
process_vm_writev: ok
child now: parent wrote
process_vm_readv(1): Operation not permitted
OUT
rows pvm pvm run
rows pvm pvm record start
want pidfd <<'OUT'
pidfd_open: ok
pidfd_getfd: ok
read: via pidfd_getfd
pidfd_getfd(1): Operation not permitted
OUT
rows pidfd pidfd run
rows pidfd pidfd record start

# System V message queues: inside the guest's IPC namespace they replay;
# the host's (--no-namespace) are refused with ENOSYS.
three_ways msg "$GUESTS/sysrows" msg
echo "msgget: Function not implemented" | want msg-nons
rows msg-nons msg run --no-namespace

# inotify: what another process did to a watched folder is input, which
# a replay gives back without anyone touching the folder.
mkdir "$WORK/watched" || fail "cannot make a folder"
hm "$WORK/inotify.rec" record start -- "$GUESTS/sysrows" inotify "$WORK/watched" &
bg=$!
i=0
until grep -q watching "$WORK/inotify.rec.err" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || { kill $bg; fail "inotify: the guest never watched"; }
	sleep 0.1
done
touch "$WORK/watched/from-outside"
wait $bg
st=$?
[ "$st" = 0 ] || { cat "$WORK/inotify.rec.err" >&2; fail "inotify: record exited $st"; }
echo "event: mask 0x100 name from-outside" | diff -u - "$WORK/inotify.rec" ||
	fail "inotify: record printed other output"
TEST_TIMEOUT=20 hm "$WORK/inotify.rep" replay --autopilot
st=$?
[ "$st" = 0 ] || { tail -5 "$WORK/inotify.rep.err" >&2; fail "inotify: replay exited $st"; }
diff -u "$WORK/inotify.rec" "$WORK/inotify.rep" || fail "inotify: the replay printed other output"

# A file the guest maps shared and another process then writes: the
# guest's own child replays; a process outside the guest is named when the
# recording ends (a replay cannot see what it wrote).
printf 'first: AAAAAAAA\nthen: CCCCCCCC\n' | want mapchild
printf AAAAAAAA >"$WORK/shared"
hm "$WORK/mapchild.out" run -- "$GUESTS/sysrows" mapchild "$WORK/shared"
diff -u "$WORK/mapchild.want" "$WORK/mapchild.out" || fail "mapchild: hermit run printed other output"
printf AAAAAAAA >"$WORK/shared"
hm "$WORK/mapchild.rec" record start -- "$GUESTS/sysrows" mapchild "$WORK/shared"
diff -u "$WORK/mapchild.want" "$WORK/mapchild.rec" || fail "mapchild: record printed other output"
grep "mapped shared" "$WORK/mapchild.rec.err" &&
	fail "mapchild: a write by the guest's own child was taken for one from outside"
hm "$WORK/mapchild.rep" replay --autopilot
st=$?
[ "$st" = 0 ] || { tail -5 "$WORK/mapchild.rep.err" >&2; fail "mapchild: replay exited $st"; }
diff -u "$WORK/mapchild.want" "$WORK/mapchild.rep" || fail "mapchild: the replay printed other output"
printf AAAAAAAA >"$WORK/shared"
mkfifo "$WORK/go" || fail "cannot make a fifo"
hm "$WORK/mapshared" record start -- "$GUESTS/sysrows" mapshared "$WORK/shared" <"$WORK/go" &
bg=$!
exec 7>"$WORK/go"
i=0
until grep -q mapped "$WORK/mapshared.err" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || { kill $bg; fail "mapshared: the guest never mapped the file"; }
	sleep 0.1
done
printf BBBBBBBB | dd of="$WORK/shared" conv=notrunc 2>/dev/null
echo >&7
exec 7>&-
wait $bg
st=$?
[ "$st" = 0 ] || { cat "$WORK/mapshared.err" >&2; fail "mapshared: record exited $st"; }
grep -q "warn: '$WORK/shared', which the guest mapped shared, was changed by a process outside the guest" \
	"$WORK/mapshared.err" || { cat "$WORK/mapshared.err" >&2; fail "mapshared: no word of the write from outside"; }
# Leaks of the host (tests/guests/hostleaks.c): each mode prints the same
# in two runs, under record and in the replay, and what it prints is
# hermit's virtual world (docs/determinism.md), not the host's.
# leak NAME ARGS...: `hostleaks ARGS...` twice under run, then recorded
# and replayed: all four the same; $WORK/NAME.want, where there is one,
# is what they must print, the microseconds of virtual times apart (they
# count the C library's calls and ticks before main).
leak() {
	name=$1
	shift
	same_twice "$name" -- "$GUESTS/hostleaks" "$@"
	if [ -e "$WORK/$name.want" ]; then
		sed -E 's/^(adjtimex: 0, time [0-9]+|RUSAGE_(SELF|THREAD): utime 0)\.[0-9]{6}/\1.uuuuuu/' \
			"$WORK/$name.1" | diff -u "$WORK/$name.want" - ||
			fail "$name: hermit run printed other output"
	fi
	hm "$WORK/$name.rec" record start -- "$GUESTS/hostleaks" "$@"
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/$name.rec.err" >&2; fail "$name: record exited $st"; }
	diff -u "$WORK/$name.1" "$WORK/$name.rec" || fail "$name: record printed other output"
	hm "$WORK/$name.rep" replay --autopilot
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/$name.rep.err" >&2; fail "$name: replay exited $st"; }
	diff -u "$WORK/$name.1" "$WORK/$name.rep" || fail "$name: the replay printed other output"
}
# adjtimex: the virtual clock (HERMIT_EPOCH), synchronized; no setting.
# The gettimeofday after clock_adjtime is a stop (10 us later) with the
# fast path off, and read in the guest (the same microsecond) with it on
# (docs/fastpath.md).
case ${HERMIT_FASTPATH:-1} in
0) next_us=10 ;;
*) next_us=0 ;;
esac
want adjtimex <<OUT
adjtimex: 0, time 1767225600.uuuuuu, offset 0, freq 0, status 0
adjtimex: between two gettimeofday calls: yes
clock_adjtime(CLOCK_REALTIME): 0, $next_us us before the next gettimeofday
clock_adjtime(CLOCK_MONOTONIC): Operation not supported
adjtimex(ADJ_FREQUENCY): Operation not permitted
OUT
leak adjtimex adjtimex
# PR_GET_TSC said hermit's PR_TSC_SIGSEGV; rdtsc faults where asked
want tsc <<'OUT'
PR_GET_TSC: PR_TSC_ENABLE
rdtsc: ran
PR_SET_TSC(PR_TSC_SIGSEGV): 0
PR_GET_TSC: PR_TSC_SIGSEGV
rdtsc: SIGSEGV
PR_SET_TSC(PR_TSC_ENABLE): 0
PR_GET_TSC: PR_TSC_ENABLE
rdtsc: ran
PR_SET_TSC(7): Invalid argument
OUT
leak tsc tsc
# PR_GET_SECCOMP said 2 (hermit's filter) from the start
want seccomp <<'OUT'
PR_GET_SECCOMP: 0
PR_GET_SECCOMP after a filter: 2
PR_GET_SECCOMP in a child: 2
OUT
leak seccomp seccomp
# maxrss was 0, wait4 gave the host's figures of the child
want rusage <<'OUT'
RUSAGE_SELF: utime 0.uuuuuu stime 0.000000 maxrss 4096 minflt 0 majflt 0 nvcsw 0 nivcsw 0 inblock 0 oublock 0
RUSAGE_THREAD: utime 0.uuuuuu stime 0.000000 maxrss 4096 minflt 0 majflt 0 nvcsw 0 nivcsw 0 inblock 0 oublock 0
wait4: utime 0.000000 stime 0.000000 maxrss 4096 minflt 0 majflt 0 nvcsw 0 nivcsw 0 inblock 0 oublock 0
RUSAGE_CHILDREN: utime 0.000000 stime 0.000000 maxrss 4096 minflt 0 majflt 0 nvcsw 0 nivcsw 0 inblock 0 oublock 0
OUT
leak rusage rusage
# free counts moved with a write, /proc's fsid with each mount
mkdir "$WORK/fs" || fail "cannot make a folder"
want statfs <<'OUT'
statfs: bfree half of blocks, bavail bfree, ffree half of files, fsid 1 0
fstatfs: bfree half of blocks, bavail bfree, ffree half of files, fsid 1 0
statfs(/proc): bfree half of blocks, bavail bfree, ffree half of files, fsid 2 0
statfs and fstatfs agree: yes
OUT
leak statfs statfs "$WORK/fs"
# the inode generation of a new file was the file system's random draw
if timeout 20 "$GUESTS/hostleaks" getversion "$WORK/fs/gen" >"$WORK/gen-native" 2>&1 &&
	grep -q '^FS_IOC_GETVERSION: -*[0-9]' "$WORK/gen-native"; then
	echo "FS_IOC_GETVERSION: 0" | want getversion
	leak getversion getversion "$WORK/fs/gen"
else
	echo "getversion: not checked: $WORK has no inode generations (FS_IOC_GETVERSION)" >&2
fi
# hermit's tick sites and rdtsc traps unblocked SIGTRAP and SIGSEGV, and
# the exec'd program started with them unblocked
want sigmask <<'OUT'
after exec: User defined signal 1 blocked
after exec: Trace/breakpoint trap blocked
after exec: Segmentation fault blocked
OUT
leak sigmask sigmask
timeout 20 "$GUESTS/hostleaks" sigmask | diff -u "$WORK/sigmask.want" - ||
	fail "sigmask: natively other output"

# ptrace inside a guest is not supported yet: it fails with EPERM (the
# guest's tasks have a tracer, hermit) and hermit says so in one line;
# strace and gdb then end as they do when refused, with no deadlock.
# ptrace_ends NAME ARGS...: `hermit ARGS...` under those rules.
ptrace_ends() {
	name=$1
	shift
	TEST_TIMEOUT=120 hm "$WORK/$name" "$@"
	st=$?
	[ "$st" -lt 121 ] || { tail -20 "$WORK/$name.err" >&2; fail "$name: hermit exited $st"; }
	grep -i deadlock "$WORK/$name.err" && fail "$name: a deadlock report"
	[ "$(grep -c "ptrace inside a guest is not supported yet" "$WORK/$name.err")" = 1 ] ||
		{ cat "$WORK/$name.err" >&2; fail "$name: not one line that says ptrace is not supported"; }
}
if command -v strace >/dev/null; then
	ptrace_ends strace run -- strace -f true
	grep -q "^hermit: warn: '.*strace' called ptrace(PTRACE_" "$WORK/strace.err" ||
		{ cat "$WORK/strace.err" >&2; fail "strace: the line does not name the program and request"; }
	ptrace_ends strace-rec record start -- strace -f true
	ptrace_ends strace-rep replay --autopilot
else
	echo "strace: not checked: no strace here" >&2
fi
if command -v gdb >/dev/null; then
	ptrace_ends gdb run -- gdb -nx -batch -ex run --args "$GUESTS/badsys" ok
else
	echo "gdb: not checked: no gdb here" >&2
fi

exit 0
