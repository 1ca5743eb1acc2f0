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

# expect_status WANT ARGS...: `hermit ARGS...` must exit WANT.
expect_status() {
	want=$1
	shift
	hm "$WORK/status" "$@"
	got=$?
	[ "$got" = "$want" ] || { cat "$WORK/status.err" >&2; fail "hermit $* exited $got, not $want"; }
}
