#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Real multithreaded programs, not written for hermit, print the same
# bytes on every run under it (issue "Deterministic threads"): python3 with
# 8 threads that print as they interleave (5 runs), `sort --parallel=4` of
# a generated file (3 runs, and the output is the sorted input) and
# `xz -T2` of a generated file (3 runs, the same bytes as xz makes outside
# hermit, and it decompresses to the input).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export LC_ALL=C

# same_runs N NAME ARGS...: `hermit run ARGS...` N times must exit 0 and
# print the same bytes each time; the output stays in $WORK/NAME.1.
same_runs() {
	n=$1
	name=$2
	shift 2
	i=1
	while [ $i -le "$n" ]; do
		hm "$WORK/$name.$i" run "$@"
		st=$?
		[ "$st" = 0 ] || { tail -20 "$WORK/$name.$i.err" >&2; fail "$name: run $i: hermit exited $st"; }
		[ $i = 1 ] || diff -u "$WORK/$name.1" "$WORK/$name.$i" >"$WORK/$name.diff" ||
			{ head -40 "$WORK/$name.diff"; fail "$name: runs 1 and $i printed different output"; }
		i=$((i + 1))
	done
	[ -s "$WORK/$name.1" ] || fail "$name: printed nothing"
}

# A file of 300,000 lines in a fixed pseudo-random order: enough for
# sort to split the work between threads (it starts a thread only for
# 128 Ki lines or more, coreutils sort.c SUBTHREAD_LINES_HEURISTIC).
awk 'BEGIN { srand(1); for (i = 0; i < 300000; i++) printf "%08d line %d\n", int(rand() * 100000000), i }' \
	>"$WORK/lines" || fail "cannot make the input file"

# ---- sort --parallel=4 (hermit shows 4 CPUs, so sort uses 4 threads) ----
sort "$WORK/lines" >"$WORK/sort.want" || fail "sort outside hermit failed"
same_runs 3 sort -- sort --parallel=4 "$WORK/lines"
cmp "$WORK/sort.want" "$WORK/sort.1" || fail "sort --parallel=4 under hermit: not the sorted input"

# ---- xz -T2 ----
# 2 MB in blocks of 256 KiB, so the two threads each get several blocks.
# xz's multithreaded output depends on the block size, not on the number
# of threads, so it must be the bytes xz makes outside hermit.
head -c 2000000 "$WORK/lines" >"$WORK/xzin"
XZ="xz -T2 --block-size=262144 -c"
$XZ "$WORK/xzin" >"$WORK/xz.want" || fail "xz outside hermit failed"
same_runs 3 xz -- $XZ "$WORK/xzin"
xz -dc "$WORK/xz.1" | cmp - "$WORK/xzin" || fail "xz -T2 under hermit: does not decompress to its input"
cmp "$WORK/xz.want" "$WORK/xz.1" || fail "xz -T2 under hermit: not the bytes xz makes outside hermit"

# ---- python3, 8 threads (last: skipped where absent) ----
command -v python3 >/dev/null 2>&1 || skip "python3 part: no python3 on PATH"
PY='import threading, time
def work():
    for i in range(20):
        print(threading.current_thread().name, i)
        time.sleep(0.001)
threads = [threading.Thread(target=work, name="t%d" % n) for n in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("done")'
same_runs 5 py -- python3 -c "$PY"
# Every thread printed 0..19 in order, then "done".
awk '
	$0 == "done" { done = NR; next }
	NF != 2 || $1 !~ /^t[0-7]$/ || $2 != n[$1]++ { print "bad:", $0; bad = 1 }
	END { for (t = 0; t < 8; t++) if (n["t" t] != 20) bad = 1; exit bad || done != 161 || NR != 161 }' "$WORK/py.1" ||
	fail "python3: not 20 lines from each of 8 threads in order, then done"
# A sleeping thread is parked and the others run (DESIGN.md "Blocking"), so
# the threads' lines interleave: not 8 runs of one thread's 20 lines.
runs=$(awk '$0 != "done" { print $1 }' "$WORK/py.1" | uniq | wc -l)
[ "$runs" -gt 8 ] || fail "python3: each thread printed all its lines before the next began: time.sleep (clock_nanosleep TIMER_ABSTIME) did not let the other threads run"
exit 0
