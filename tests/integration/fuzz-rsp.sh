#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The gdb remote protocol stub under libFuzzer for a bounded time
# (FUZZ_SECONDS, default 20), from the seed corpus of gdb traffic: no
# crash, no leak, no hang, and only well-formed packets sent back. Skips,
# saying why, where configure found no clang with libFuzzer.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
: "${FUZZ_BIN:?FUZZ_BIN must name the folder of the fuzz targets}"

target="$FUZZ_BIN/fuzz_rsp"
[ -x "$target" ] || skip "no fuzz target built: configure found no clang with libFuzzer (Debian package clang)"
mkdir "$WORK/corpus" || fail "cannot make a corpus folder"
cp "$TESTS_SRCDIR/fuzz/corpus-rsp/"* "$WORK/corpus/" || fail "no seed corpus"
seconds=${FUZZ_SECONDS:-20}
ASAN_OPTIONS=detect_leaks=1 timeout -k 5 $((seconds + 60)) "$target" \
	-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$WORK/" "$WORK/corpus" >"$WORK/fuzz.log" 2>&1
st=$?
if [ "$st" != 0 ]; then
	tail -40 "$WORK/fuzz.log" >&2
	for crash in "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-*; do
		[ -e "$crash" ] && echo "input: $(od -An -tx1 "$crash" | head -5)" >&2
	done
	fail "fuzz_rsp exited $st"
fi
grep -q 'Done [0-9]* runs' "$WORK/fuzz.log" || { tail -5 "$WORK/fuzz.log" >&2; fail "the fuzzer did not report its runs"; }
echo "fuzz_rsp: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$WORK/fuzz.log")"
