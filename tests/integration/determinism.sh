#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Each guest under tests/guests/ run twice under hermit prints the same
# bytes, and what it prints is what the determinism model (DESIGN.md) says:
# clocks start at the epoch, sleeping moves time without waiting, the seed
# drives every source of randomness, the first guest process is pid 2,
# inode numbers and times repeat, directories list sorted by name.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

EPOCH=2026-01-01T00:00:00Z
EPOCH_S=1767225600

# field FILE NAME: the second word of the line of FILE that starts with NAME.
field() {
	awk -v k="$2" '$1 == k { print $2; found = 1; exit } END { if (!found) exit 1 }' "$1" ||
		fail "$1: no '$2' line"
}

# within VALUE LOW HIGH: LOW <= VALUE (whole part) <= HIGH.
within() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { split(v, p, "."); exit !(p[1] + 0 >= lo && p[1] + 0 <= hi) }'
}

# Files for the atime part, made well before the runs that read them.
printf 'x\n' >"$WORK/atime.f"
touch -m -d 2001-01-01T00:00:00Z "$WORK/atime.f"
touch -d 2020-02-02T00:00:00Z "$WORK/atime.set"

# ---- clock ----
same_twice clock --epoch="$EPOCH" -- "$GUESTS/clock"
c=$WORK/clock.1
for k in realtime gettimeofday time; do
	v=$(field "$c" $k)
	within "$v" $EPOCH_S $((EPOCH_S + 5)) ||
		fail "clock: $k is $v with --epoch=$EPOCH, not $EPOCH_S (+ at most 5 s)"
done
# Sleeping 1.5 s must move virtual time by at least 1.5 s.
slept=$(field "$c" slept)
[ "$slept" -ge 1500000000 ] || fail "clock: nanosleep(1.5 s) advanced realtime by only $slept ns"
after=$(field "$c" realtime_after_sleep)
within "$after" $((EPOCH_S + 1)) $((EPOCH_S + 6)) ||
	fail "clock: realtime after the sleep is $after, not $((EPOCH_S + 1)) (+ at most 5 s)"

# HERMIT_EPOCH (set by lib.sh) gives the same output as --epoch.
hm "$WORK/clock.env" run -- "$GUESTS/clock" || fail "clock: hermit exited $? with HERMIT_EPOCH"
diff -u "$c" "$WORK/clock.env" || fail "clock: HERMIT_EPOCH=$HERMIT_EPOCH and --epoch=$EPOCH differ"

# Another epoch: the clocks follow it.
same_twice clock2 --epoch=2031-07-15T12:34:56Z -- "$GUESTS/clock"
E2=1941885296
for k in realtime gettimeofday time; do
	v=$(field "$WORK/clock2.1" $k)
	within "$v" $E2 $((E2 + 5)) ||
		fail "clock: $k is $v with --epoch=2031-07-15T12:34:56Z, not $E2 (+ at most 5 s)"
done

# ---- random ----
same_twice random -- "$GUESTS/random"
hm "$WORK/random.s0" run --seed 0 -- "$GUESTS/random" || fail "random: hermit --seed 0 exited $?"
diff -u "$WORK/random.1" "$WORK/random.s0" || fail "random: --seed 0 is not the default seed"
same_twice random.s1 --seed 1 -- "$GUESTS/random"
for k in getrandom urandom random at_random; do
	a=$(field "$WORK/random.1" $k)
	b=$(field "$WORK/random.s1.1" $k)
	[ ${#a} = 32 ] || fail "random: $k printed '$a', not 16 bytes in hex"
	[ "$a" != "$b" ] || fail "random: $k is $a with --seed 0 and with --seed 1"
done

# ---- procs: a fresh pid namespace numbers from 1 (hermit's init) ----
same_twice procs -- "$GUESTS/procs"
cat >"$WORK/procs.want" <<'END'
pid 2
ppid 1
echo from the vfork child
vfork+exec pid 3 exited 0
posix_spawn pid 4 exited 0
fork pid 5 waitid pid 5 code exited status 42
signalled pid 6 killed by signal 10
END
diff -u "$WORK/procs.want" "$WORK/procs.1" || fail "procs: not the pids and statuses of a fresh pid namespace"

# ---- identity ----
# First on the host's last CPU, if that is not CPU 0, so that a host CPU
# number reaching the guest cannot pass for virtual CPU 0 by chance.
last=$(taskset -pc $$ 2>/dev/null | sed 's/.*[-,: ]//')
if [ -n "$last" ] && [ "$last" != 0 ]; then
	printf '#!/bin/sh\nexec taskset -c %s "%s" "$@"\n' "$last" "$HERMIT" >"$WORK/hermit-pinned"
	chmod +x "$WORK/hermit-pinned"
	(HERMIT=$WORK/hermit-pinned; hm "$WORK/identity.pinned" run -- "$GUESTS/identity")
	st=$?
	[ $st = 0 ] || { cat "$WORK/identity.pinned.err" >&2; fail "identity: hermit on CPU $last exited $st"; }
	for k in getcpu_syscall cpu; do
		v=$(field "$WORK/identity.pinned" $k)
		[ "$v" = 0 ] || fail "identity: on host CPU $last, $k is '$v', not virtual CPU 0"
	done
fi

same_twice identity -- "$GUESTS/identity"
for kv in "nodename hermit" "hostname hermit" "release 6.1.0-hermit" "sysname Linux" \
	"machine x86_64" "affinity_cpus 4" "getcpu_syscall 0" "cpu 0"; do
	set -- $kv
	v=$(field "$WORK/identity.1" "$1")
	[ "$v" = "$2" ] || fail "identity: $1 is '$v', not '$2'"
done
# ---- CPU pinning ----
# Every guest task runs on one host CPU, the lowest hermit may use, however
# the guest sets its affinity: what the CPU shows without a syscall (the
# per-CPU segment's limit, CPUID's initial APIC id, rdpid) is what a native
# run pinned to that CPU shows. getcpu, the vDSO's getcpu, rdtscp's
# TSC_AUX and the affinity mask are virtual: CPU 0 of 0-3, or the lowest
# CPU the thread set (docs/determinism.md, "Identity").
cat >"$WORK/cpupin.virt" <<'EOF'
virt main getcpu 0 node 0
virt main sched_getcpu 0
virt main rdtscp_aux 0
virt main affinity 0,1,2,3
virt thread getcpu 2 node 0
virt thread sched_getcpu 2
virt thread rdtscp_aux 2
virt thread affinity 2
virt child getcpu 0 node 0
virt child sched_getcpu 0
virt child rdtscp_aux 0
virt child affinity 0,1,2,3
EOF
# cpupin_on CPU NAME: hermit (as $HERMIT runs it) ran the guest into
# $WORK/NAME; its host lines must be those of a native run on CPU.
cpupin_on() {
	taskset -c "$1" "$GUESTS/cpupin" native >"$WORK/cpupin.native.$1" ||
		fail "cpupin: the native run on CPU $1 failed"
	grep '^host' "$WORK/$2" | diff -u "$WORK/cpupin.native.$1" - ||
		fail "cpupin: the guest under hermit ($2) did not run on CPU $1 alone"
	grep '^virt' "$WORK/$2" | diff -u "$WORK/cpupin.virt" - ||
		fail "cpupin: the virtual CPU ($2) is not what hermit answers"
}
first=$(taskset -pc $$ 2>/dev/null | sed 's/.*: *//; s/[-,].*//')
[ -n "$first" ] || fail "cannot read this shell's CPU affinity with taskset"
same_twice cpupin -- "$GUESTS/cpupin"
cpupin_on "$first" cpupin.1
if [ -n "$last" ] && [ "$last" != "$first" ]; then
	(HERMIT=$WORK/hermit-pinned; hm "$WORK/cpupin.pinned" run -- "$GUESTS/cpupin")
	st=$?
	[ $st = 0 ] || { cat "$WORK/cpupin.pinned.err" >&2; fail "cpupin: hermit on CPU $last exited $st"; }
	cpupin_on "$last" cpupin.pinned
fi

# The CPU count glibc reads from /sys (sysconf, get_nprocs) is virtual too.
same_twice ncpu -- sh -c 'getconf _NPROCESSORS_ONLN; getconf _NPROCESSORS_CONF; cat /sys/devices/system/cpu/online'
printf '4\n4\n0-3\n' | diff -u - "$WORK/ncpu.1" || fail "the CPU count in /sys is not the virtual 4"

# ---- files ----
same_twice files -- "$GUESTS/files" "$WORK/files.dir"
f=$WORK/files.1
[ ! -e "$WORK/files.dir" ] || fail "files: the guest did not clean up (did it fail?)"
grep -qx 'hardlink same-inode' "$f" || fail "files: the hard link has its own inode number"
zeta=$(awk '$1 == "zeta" { print $3 }' "$f")
beta=$(awk '$1 == "beta" { print $3 }' "$f")
[ -n "$zeta" ] && [ "$zeta" = "$beta" ] ||
	fail "files: readdir gives the hard link d_ino '$beta' and its target '$zeta'"
# readdir order is name order (ext4 and tmpfs list in hash or creation order).
awk '{ print $1 }' "$f" | sed -n '/^hardlink$/q;p' >"$WORK/files.names"
printf '%s\n' . .. alpha beta mid sub zeta >"$WORK/files.names.want"
diff -u "$WORK/files.names.want" "$WORK/files.names" || fail "files: readdir is not sorted by name"
# getdents, stat and statx agree on every inode number, as the kernel's do.
awk '$2 == "d_ino" && !($3 == $5 && $3 == $NF) { print; bad = 1 } END { exit bad }' "$f" ||
	fail "files: d_ino, st_ino and stx_ino disagree"
# Times the run made are virtual: within seconds of the epoch.
awk -v lo=$EPOCH_S -v hi=$((EPOCH_S + 60)) '
	$2 == "d_ino" {
		for (i = 7; i <= 13; i += 2) {
			split($i, p, ".")
			if ($i != "-" && (p[1] < lo || p[1] > hi)) { print; bad = 1 }
		}
	}
	END { exit bad }' "$f" || fail "files: a time made during the run is not virtual time"

# Access times do not tell a run what earlier runs read: reading a file
# moves its atime on the host (relatime: once after each change), so the
# first run after a change saw another atime than the next (python3's
# stat of its files did). A file read in every run shows the same atime;
# one whose atime was set with its mtime (touch -d, tar x) shows that time.
# (The files were made at the start: a time from the run's first moments
# counts as the run's own.)
same_thrice atime -- sh -c "cat '$WORK/atime.f' >/dev/null; stat -c '%X %Y %Z' '$WORK/atime.f'; stat -c %X '$WORK/atime.set'"
[ "$(sed -n 2p "$WORK/atime.1")" = 1580601600 ] ||
	fail "atime: a file touched to 2020-02-02 shows atime $(sed -n 2p "$WORK/atime.1")"

# ---- tsc (last: this host may not be able to trap rdtsc) ----
hm "$WORK/tsc.1" run -- "$GUESTS/tsc"
s1=$?
hm "$WORK/tsc.2" run -- "$GUESTS/tsc"
s2=$?
[ "$s1" = 0 ] && [ "$s2" = 0 ] || { cat "$WORK/tsc.1.err" >&2; fail "tsc: hermit exited $s1, $s2"; }
[ "$(grep -c '^rdtsc' "$WORK/tsc.1")" = 3 ] || fail "tsc: the guest did not print three readings"
if ! diff -u "$WORK/tsc.1" "$WORK/tsc.2"; then
	if grep -i 'rdtsc' "$WORK/tsc.1.err" "$WORK/tsc.2.err" >&2; then
		skip "tsc: this host does not trap rdtsc (hermit warned as above), so the TSC is the host's"
	fi
	fail "tsc: the two runs read different TSC values and hermit gave no warning about rdtsc"
fi
exit 0
