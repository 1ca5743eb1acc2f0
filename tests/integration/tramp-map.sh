#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Trampolines mapped from the cache folder (docs/preemption.md "Planning"):
# a program with 1 MB of trampolines or more gets them by an injected
# mmap of the kept file, not written into it at each exec.
#
# - python3 (4 MB of trampolines) prints the lines of /proc/self/maps
#   that name a file of the cache folder: some under `hermit run`, with a
#   cold cache folder and a warm one alike (so a first run lays out the
#   guest as later ones do), none with HERMIT_CACHE_DIR=off; and the
#   digest of its maps is the same in each of two runs.
# - A recording of it replays with exit 0 to the same output, and maps
#   the trampolines too (through the replay's private view, where hermit
#   compares the file's bytes), also with another (cold) cache folder.
# - tests/guests/ownfilter: a guest with a seccomp filter of its own that
#   kills the process at an openat of a name in the Hermit page (where
#   hermit puts the file's name) runs python3 all the same: hermit maps
#   nothing in a process that filters syscalls itself.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export HERMIT_DATA_DIR="$WORK/data"
TEST_TIMEOUT=120

PY=$(command -v python3) || skip "python3: not installed"
grep -q '^Seccomp_filters:' /proc/self/status ||
	skip "this kernel does not say how many seccomp filters a process runs under (Linux < 5.9): hermit maps nothing"
# the real program, not a shim that runs it (pyenv)
PY=$("$PY" -c 'import sys; print(sys.executable)') || skip "python3 does not run"
export HERMIT_CACHE_DIR="$WORK/cache"

cat >"$WORK/maps.py" <<'EOF'
import hashlib, os, sys
maps = open("/proc/self/maps").read()
kept = [l for l in maps.splitlines() if "-emit-" in l]
print(len(kept), "mapped from the cache;", "r-xp" if all(" r-xp " in l for l in kept) else "not r-xp")
print(hashlib.sha256(maps.encode()).hexdigest()[:16], sys.argv[1])
EOF

# mapped ONE: the count of cache lines the run in OUT printed.
mapped() {
	sed -n 's/^\([0-9]*\) mapped from the cache;.*/\1/p' "$1"
}

hm "$WORK/cold" run -- "$PY" "$WORK/maps.py" x
st=$?
[ "$st" = 0 ] || { cat "$WORK/cold.err" >&2; fail "cold: hermit run exited $st"; }
n=$(mapped "$WORK/cold")
[ -n "$n" ] && [ "$n" -gt 0 ] || { cat "$WORK/cold" >&2; fail "cold: no trampolines mapped from the cache folder"; }
grep -q "; r-xp$" "$WORK/cold" || fail "cold: a mapping from the cache folder is not read-only code"
for i in 1 2; do
	hm "$WORK/warm$i" run -- "$PY" "$WORK/maps.py" x
	st=$?
	[ "$st" = 0 ] || fail "warm $i: hermit run exited $st"
	diff -u "$WORK/cold" "$WORK/warm$i" || fail "warm $i: other maps than the run with a cold cache"
done
echo "run: $n mappings from the cache folder, the same maps cold and warm"

HERMIT_CACHE_DIR=off hm "$WORK/off" run -- "$PY" "$WORK/maps.py" x
st=$?
[ "$st" = 0 ] || fail "HERMIT_CACHE_DIR=off: hermit run exited $st"
[ "$(mapped "$WORK/off")" = 0 ] || { cat "$WORK/off" >&2; fail "HERMIT_CACHE_DIR=off: mapped from a cache"; }

hm "$WORK/rec" record start -- "$PY" "$WORK/maps.py" rec
st=$?
[ "$st" = 0 ] || fail "record start exited $st"
# The replay maps them too, through its private view of the cache folder
# (an overlay: hermit compares the bytes), with either cache folder; its
# output comes from the log, so the debug log says whether it mapped.
for c in cache cache2; do
	HERMIT_CACHE_DIR="$WORK/$c" hm "$WORK/rep-$c" replay --autopilot --log=debug
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/rep-$c.err" >&2; fail "replay ($c) exited $st"; }
	diff -u "$WORK/rec" "$WORK/rep-$c" || fail "the replay ($c) printed other output"
	! grep "trampolines written" "$WORK/rep-$c.err" || fail "the replay ($c) wrote trampolines"
	grep -q "bytes of trampolines mapped in process" "$WORK/rep-$c.err" ||
		fail "the replay ($c) mapped no trampolines"
done
echo "record and replay: the same maps, mapped in the replay with either cache folder"

hm "$WORK/own" run -- "$GUESTS/ownfilter" "$PY" -c 'print("ran under a filter of its own")'
st=$?
[ "$st" = 0 ] || { cat "$WORK/own.err" >&2; fail "ownfilter: hermit run exited $st (the guest's filter killed it?)"; }
grep -qx "ran under a filter of its own" "$WORK/own" || fail "ownfilter: python3 did not run"
echo "a guest's own seccomp filter: nothing injected"
exit 0
