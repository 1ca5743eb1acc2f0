#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Record and replay overhead (issue "Record and replay"). For each
# workload: the median wall time natively, under `hermit run`, under
# `hermit record start` and under `hermit replay --autopilot -q`, the
# ratios to native, and the size of the recording's events.xz: bytes in
# all and per frame (one frame per stopped syscall, read or preemption).
#
#   cpuloop        a CPU-bound loop, no syscalls
#   syscall-loop   getppid() and write() to /dev/null: not stopped by run
#   read-file      cat of a 64 MiB file of random bytes (made in the temp
#                  folder) to /dev/null: 128 KiB reads, which a recording
#                  stops on (hidden) and keeps as references to a copy of
#                  the file in files/ (docs/record-replay.md); events.xz
#                  stays small (target: record at most 1.5x native, under
#                  1 MiB of log)
#   /bin/true      start-up and shut-down
#   sqlite3        a script creating a table, 2000 rows, an index, queries
#   gcc -c         compiling a 300-line C file
#   pipeline       seq 1 1000000 | sort -n | md5sum
#   tar czf        a tree of 200 files (2 MiB) into a gzipped archive
#   make -j2       a small project (8 C files and a link), every target
#                  made again (make -B)
#   compileall     python3 -m compileall -f of a tree of 40 modules
#
# Where a workload matches one that rr's authors published (O'Callahan et
# al., "Engineering Record And Replay For Deployability", USENIX ATC
# 2017, as issue "Speed of record and replay" quotes them), a second line
# gives rr's recording overhead beside ours: read-file against their cp
# (1.49x, 24.5x without rr's in-process syscall buffer), make -j2 against
# their make (7.85x). Their machine and workloads were theirs: the
# comparison is of orders of magnitude, not of the last digit.
#
# Each line ends with replay/record: the replay's time over the
# recording's (issue 14 asks for the pipeline and tar within 2x).
#
# Not a test: it prints figures and exits 0, or 1 when a workload fails.
# Environment: HERMIT (default ../hermit from here), CC, RUNS (default 5),
# ONLY (an extended regular expression: the workloads whose names match).
# and WORKLOADS (names to run, separated by spaces; default all).

set -u

here=$(cd "$(dirname "$0")" && pwd)
HERMIT=${HERMIT:-$here/../hermit}
CC=${CC:-cc}
RUNS=${RUNS:-5}
export HERMIT_EPOCH=${HERMIT_EPOCH:-2026-01-01T00:00:00Z}

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$HERMIT" ] || die "cannot run '$HERMIT': no such executable (set HERMIT)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hermit-bench.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
export HERMIT_DATA_DIR="$tmp/data"

for prog in cpuloop syscall-loop; do
	"$CC" -O2 -Wall -Wextra -pthread -o "$tmp/$prog" "$here/$prog.c" -lseccomp ||
		die "cannot build '$prog'"
done
head -c $((64 << 20)) /dev/urandom >"$tmp/big" || die "cannot write a 64 MiB file"
{
	echo 'create table t(id integer primary key, name text, v real);'
	echo 'begin;'
	for i in $(seq 1 2000); do echo "insert into t(name, v) values ('n$i', $i * 1.5);"; done
	echo 'commit;'
	echo 'create index tv on t(v);'
	echo 'select count(*), sum(v), max(name) from t where v > 100;'
} >"$tmp/script.sql"
for i in $(seq 1 60); do
	printf 'static int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' "$i" "$i"
	printf 'int g%d(void) { return f%d(%d) + %d; }\n' "$i" "$i" "$i" "$i"
	printf 'struct s%d { int a; double b; char c[%d]; };\n\n\n' "$i" "$i"
done >"$tmp/unit.c"
for i in $(seq 1 200); do
	mkdir -p "$tmp/tree/d$((i % 10))" || die "cannot make a tree"
	head -c 7500 /dev/urandom | base64 >"$tmp/tree/d$((i % 10))/f$i"
done
# make -j2: 8 C files of 40 small functions each, and a program of them.
mkdir -p "$tmp/proj" "$tmp/pytree/pkg" || die "cannot make the project folders"
for f in 0 1 2 3 4 5 6 7; do
	for i in $(seq 1 40); do
		printf 'int m%d_%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i ^ %d; return s; }\n' \
			"$f" "$i" "$i"
	done >"$tmp/proj/m$f.c"
done
printf 'int m0_1(int);\nint main(void) { return m0_1(3) != 2; }\n' >"$tmp/proj/main.c"
{
	printf 'CC = %s\nCFLAGS = -O1\nOBJS = main.o m0.o m1.o m2.o m3.o m4.o m5.o m6.o m7.o\n' "$CC"
	printf 'prog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n'
	printf '%%.o: %%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n'
} >"$tmp/proj/Makefile"
# compileall: 40 modules of 60 functions each.
for m in $(seq 1 40); do
	for i in $(seq 1 60); do
		printf 'def f%d(x, y=%d):\n    return [a * y for a in range(x) if a %% %d]\n\n' "$i" "$i" "$((i + 1))"
	done >"$tmp/pytree/pkg/mod$m.py"
done
: >"$tmp/pytree/pkg/__init__.py"

. "$here/lib.sh"

ratio() {
	awk -v n="$1" -v h="$2" 'BEGIN { printf "%.2f", h / n }'
}

# bench NAME CMD...: native, run, record, replay of CMD, RUNS times each,
# interleaved; the last recording's events.xz is measured.
bench() {
	local name=$1 i t n r rc rp size frames
	local -a tn=() tr=() tc=() tp=()
	shift
	[[ $name =~ ${ONLY:-.} ]] || return 0
	case " ${WORKLOADS:-$name} " in
	*" $name "*) ;;
	*) return 0 ;;
	esac
	for ((i = 0; i < RUNS; i++)); do
		rm -f "$tmp/test.db" "$tmp/unit.o" "$tmp/t.tgz"
		t=$(time_once "$@") || exit 1
		tn+=("$t")
		rm -f "$tmp/test.db" "$tmp/unit.o" "$tmp/t.tgz"
		t=$(time_once "$HERMIT" run -- "$@") || exit 1
		tr+=("$t")
		rm -rf "$HERMIT_DATA_DIR" "$tmp/test.db" "$tmp/unit.o" "$tmp/t.tgz"
		t=$(time_once "$HERMIT" record start -- "$@") || exit 1
		tc+=("$t")
		rm -f "$tmp/test.db" "$tmp/unit.o" "$tmp/t.tgz"
		t=$(time_once "$HERMIT" replay --autopilot -q) || exit 1
		tp+=("$t")
	done
	n=$(median "${tn[@]}")
	r=$(median "${tr[@]}")
	rc=$(median "${tc[@]}")
	rp=$(median "${tp[@]}")
	size=$(stat -c %s "$HERMIT_DATA_DIR"/recordings/*/events.xz)
	frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("frames", 0))' \
		"$HERMIT_DATA_DIR"/recordings/*/metadata.json 2>/dev/null || echo 0)
	printf '%-13s native %7.3f s  run %6sx  record %6sx  replay %6sx  events.xz %8d B, %6s frames, %s B/frame  replay/record %sx\n' \
		"$name" "$n" "$(ratio "$n" "$r")" "$(ratio "$n" "$rc")" "$(ratio "$n" "$rp")" \
		"$size" "$frames" "$(awk -v s="$size" -v f="$frames" 'BEGIN { printf "%.1f", f ? s / f : 0 }')" \
		"$(ratio "$rc" "$rp")"
	case $name in
	read-file) echo "              rr (published, cp): record 1.49x; 24.5x without its syscall buffer" ;;
	"make -j2") echo "              rr (published, make): record 7.85x" ;;
	esac
}

bench cpuloop "$tmp/cpuloop" 300000000
bench syscall-loop "$tmp/syscall-loop" 100000
bench read-file cat "$tmp/big"
bench /bin/true /bin/true
if command -v sqlite3 >/dev/null; then
	bench sqlite3 sh -c "sqlite3 '$tmp/test.db' < '$tmp/script.sql'"
fi
if command -v gcc >/dev/null; then
	bench "gcc -c" gcc -O1 -c "$tmp/unit.c" -o "$tmp/unit.o"
fi
bench pipeline sh -c 'seq 1 1000000 | sort -n | md5sum'
bench "tar czf" tar czf "$tmp/t.tgz" -C "$tmp" tree
if command -v make >/dev/null && command -v "$CC" >/dev/null; then
	bench "make -j2" make -s -B -j2 -C "$tmp/proj"
fi
if command -v python3 >/dev/null; then
	bench compileall python3 -m compileall -q -f "$tmp/pytree"
fi
exit 0
