# SPDX-License-Identifier: BSD-3-Clause
# Shared by the integration tests (strace's tests/init.sh pattern): run
# hermit under a timeout so a wedged tracee cannot hang `make check`, and
# compare outputs with `diff -u` so a failure shows the difference.

: "${HERMIT:?HERMIT must name the hermit binary}"
: "${GUESTS:?GUESTS must name the built guest programs}"
TEST_TIMEOUT=${TEST_TIMEOUT:-60}
export HERMIT_EPOCH=${HERMIT_EPOCH:-2026-01-01T00:00:00Z}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hermit-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# hm OUT ARGS...: run `hermit ARGS...` with stdout to OUT and stderr to
# OUT.err; prints nothing, returns hermit's exit status.
hm() {
	out=$1
	shift
	timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" "$@" >"$out" 2>"$out.err"
}

# same_twice NAME ARGS...: `hermit run ARGS...` twice must print the same
# bytes and exit the same way; the output stays in $WORK/NAME.1.
same_twice() {
	name=$1
	shift
	hm "$WORK/$name.1" run "$@"
	s1=$?
	hm "$WORK/$name.2" run "$@"
	s2=$?
	[ "$s1" -lt 124 ] || { cat "$WORK/$name.1.err" >&2; fail "$name: hermit exited $s1"; }
	diff -u "$WORK/$name.1" "$WORK/$name.2" || fail "$name: the two runs printed different output"
	[ "$s1" = "$s2" ] || fail "$name: exit statuses differ ($s1, $s2)"
	[ -s "$WORK/$name.1" ] || fail "$name: printed nothing"
}

# same_thrice NAME ARGS...: `hermit run ARGS...` three times must exit 0 and
# print the same bytes each time; the output stays in $WORK/NAME.1.
same_thrice() {
	name=$1
	shift
	for i in 1 2 3; do
		hm "$WORK/$name.$i" run "$@"
		st=$?
		[ "$st" = 0 ] || { tail -20 "$WORK/$name.$i.err" >&2; fail "$name: run $i: hermit exited $st"; }
	done
	[ -s "$WORK/$name.1" ] || fail "$name: printed nothing"
	for i in 2 3; do
		diff -u "$WORK/$name.1" "$WORK/$name.$i" ||
			fail "$name: runs 1 and $i printed different output"
	done
}

# hog: keep every core busy until the test ends (host speed must not
# matter to what hermit decides); the PIDs are in $HOGS.
hog() {
	n=$(nproc 2>/dev/null || echo 2)
	HOGS=
	for _ in $(seq "$n"); do
		sh -c 'while :; do :; done' &
		HOGS="$HOGS $!"
	done
	trap 'kill $HOGS 2>/dev/null; rm -rf "$WORK"' EXIT
}

# expect_status WANT ARGS...: `hermit ARGS...` must exit WANT.
expect_status() {
	want=$1
	shift
	hm "$WORK/status" "$@"
	got=$?
	[ "$got" = "$want" ] || { cat "$WORK/status.err" >&2; fail "hermit $* exited $got, not $want"; }
}

# run_fuzzer NAME CORPUS SECONDS: the libFuzzer target $FUZZ_BIN/NAME for
# SECONDS from a copy of the seed corpus tests/fuzz/CORPUS; skips, saying
# why, where configure found no clang with libFuzzer. Fails on a crash, a
# leak or a hang, showing the input.
run_fuzzer() {
	: "${FUZZ_BIN:?FUZZ_BIN must name the folder of the fuzz targets}"
	target="$FUZZ_BIN/$1"
	[ -x "$target" ] || skip "no fuzz target built: configure found no clang with libFuzzer (Debian package clang)"
	mkdir "$WORK/corpus" || fail "cannot make a corpus folder"
	cp "$TESTS_SRCDIR/fuzz/$2/"* "$WORK/corpus/" || fail "no seed corpus"
	ASAN_OPTIONS=detect_leaks=1 timeout -k 5 $(($3 + 60)) "$target" \
		-max_total_time="$3" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-artifact_prefix="$WORK/" "$WORK/corpus" >"$WORK/fuzz.log" 2>&1
	st=$?
	if [ "$st" != 0 ]; then
		tail -40 "$WORK/fuzz.log" >&2
		for crash in "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-*; do
			[ -e "$crash" ] && echo "input: $(od -An -tx1 "$crash" | head -5)" >&2
		done
		fail "$1 exited $st"
	fi
	grep -q 'Done [0-9]* runs' "$WORK/fuzz.log" || { tail -5 "$WORK/fuzz.log" >&2; fail "the fuzzer did not report its runs"; }
	echo "$1: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$WORK/fuzz.log")"
}
