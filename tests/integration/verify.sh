#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hermit run --verify and --verify-strict (DESIGN.md "Analysis"): two runs
# compared, the guest's output passed on once, a JSON report (schema
# hermit.verify/1) that verification-report (also `hermit
# verification-report`) checks and summarizes; a divergence exits 122.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
: "${VERIFICATION_REPORT:?VERIFICATION_REPORT must name the verification-report binary}"

# report ARGS...: `verification-report ARGS...` into $WORK/vr and vr.err,
# returning its status; `hermit verification-report ARGS...` must print
# and return the same.
report() {
	timeout 20 "$VERIFICATION_REPORT" "$@" >"$WORK/vr" 2>"$WORK/vr.err"
	vst=$?
	timeout 20 "$HERMIT" verification-report "$@" >"$WORK/hvr" 2>"$WORK/hvr.err"
	hst=$?
	[ "$hst" = "$vst" ] || fail "hermit verification-report $* exited $hst, verification-report $vst"
	diff -u "$WORK/vr" "$WORK/hvr" || fail "hermit verification-report $* printed other lines"
	diff -u "$WORK/vr.err" "$WORK/hvr.err" || fail "hermit verification-report $* said other things on stderr"
	return "$vst"
}

# A deterministic program: the runs agree, the output comes once.
hm "$WORK/plain" run -- "$GUESTS/random"
expect_status 0 run --verify --verify-report "$WORK/same.json" -- "$GUESTS/random"
diff -u "$WORK/plain" "$WORK/status" || fail "--verify did not pass the guest's output on once"
grep -q 'verify: the two runs agree' "$WORK/status.err" || fail "--verify did not say the runs agree"
grep -q '"schema":[[:space:]]*"hermit.verify/1"' "$WORK/same.json" || fail "the report lacks its schema"
grep -q '"result":[[:space:]]*"same"' "$WORK/same.json" || fail "the report does not say same"
report "$WORK/same.json" || { cat "$WORK/vr.err" >&2; fail "verification-report rejected a good report"; }
grep -q 'result: the two runs were the same' "$WORK/vr" || fail "verification-report summary: $(cat "$WORK/vr")"

# Threads, the whole event stream.
expect_status 0 run --verify-strict --verify-report "$WORK/strict.json" -- "$GUESTS/mutex"
grep -q '"strict":[[:space:]]*true' "$WORK/strict.json" || fail "the strict report does not say strict"
report "$WORK/strict.json" || fail "verification-report rejected the strict report"
grep -q '^  events       same' "$WORK/vr" || fail "the strict summary does not compare events: $(cat "$WORK/vr")"

# A source hermit does not virtualize (/proc's random uuid): divergence.
expect_status 122 run --verify --verify-report "$WORK/diff.json" -- cat /proc/sys/kernel/random/uuid
grep -q 'verify: the runs diverge: stdout' "$WORK/status.err" || fail "--verify did not name stdout as diverging"
grep -q '"result":[[:space:]]*"diverged"' "$WORK/diff.json" || fail "the report does not say diverged"
report "$WORK/diff.json"
st=$?
[ "$st" = 122 ] || fail "verification-report of a divergence exited $st, not 122"
grep -q '^  stdout       DIFFERENT from byte' "$WORK/vr" || fail "the summary does not show where stdout differs: $(cat "$WORK/vr")"

# Bad input: one line, exit 125.
echo 'not json' >"$WORK/bad.json"
for f in "$WORK/bad.json" "$WORK/missing.json"; do
	report "$f"
	st=$?
	[ "$st" = 125 ] || fail "verification-report $f exited $st, not 125"
	[ "$(wc -l <"$WORK/vr.err")" = 1 ] || fail "verification-report $f: not one line: $(cat "$WORK/vr.err")"
done
echo '{"schema": "something/2", "result": "same"}' >"$WORK/other.json"
report "$WORK/other.json"
[ $? = 125 ] && grep -q 'schema' "$WORK/vr.err" || fail "a report of another schema was not refused by name"
expect_status 125 run --verify-report "$WORK/x.json" -- true
exit 0
