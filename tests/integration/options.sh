#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Options of `hermit run`: the log (--log, --log-file), the epoch (--epoch,
# HERMIT_EPOCH, and the host time printed for reproduction when neither is
# given) and --no-namespace.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

# ---- --log and --log-file ----
expect_status 0 run --log=debug -- true
grep -q '^hermit: debug: ' "$WORK/status.err" ||
	{ cat "$WORK/status.err" >&2; fail "--log=debug wrote no 'hermit: debug: ' line on stderr"; }
expect_status 0 run --log=warn -- true
! grep -q '^hermit: debug: ' "$WORK/status.err" || fail "--log=warn still writes debug lines"
expect_status 0 run --log=debug --log-file "$WORK/log" -- true
grep -q '^hermit: debug: ' "$WORK/log" || fail "--log-file: no debug lines in the file"
! grep -q '^hermit: debug: ' "$WORK/status.err" || fail "--log-file: debug lines still reach stderr"
expect_status 0 run --log=debug --log-file="$WORK/log2" -- sh -c 'echo guest output; echo guest error >&2'
echo 'guest output' | diff -u - "$WORK/status" || fail "--log-file: the guest's stdout changed"
echo 'guest error' | diff -u - "$WORK/status.err" || fail "--log-file: stderr holds more than the guest's"
expect_status 125 run --log=chatty -- true

# ---- the epoch ----
# Neither --epoch nor HERMIT_EPOCH: the host time now, said on stderr.
before=$(date +%s)
(
	unset HERMIT_EPOCH
	expect_status 0 run -- date +%s
) || exit 1
after=$(date +%s)
cp "$WORK/status" "$WORK/noepoch"
line=$(grep -e '--epoch=' "$WORK/status.err") ||
	{ cat "$WORK/status.err" >&2; fail "no --epoch= line on stderr without an epoch"; }
[ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ] || fail "more than one --epoch= line: $line"
case $line in
hermit:*) ;;
*) fail "the --epoch= line does not start with 'hermit:': $line" ;;
esac
epoch=$(printf '%s\n' "$line" | sed -n 's/.*--epoch=\([^ ]*\).*/\1/p')
[ -n "$epoch" ] || fail "cannot find the time in: $line"
got=$(cat "$WORK/noepoch")
[ "$got" -ge "$before" ] && [ "$got" -le $((after + 5)) ] ||
	fail "without an epoch date +%s printed '$got', not the host time ($before..$after)"
# That value repeats the run, as --epoch and as HERMIT_EPOCH.
expect_status 0 run --epoch="$epoch" -- date +%s
diff -u "$WORK/noepoch" "$WORK/status" || fail "--epoch=$epoch does not repeat the run"
! grep -q -e '--epoch=' "$WORK/status.err" || fail "--epoch given, yet hermit printed: $(cat "$WORK/status.err")"
(HERMIT_EPOCH=$epoch; expect_status 0 run -- date +%s) || exit 1
diff -u "$WORK/noepoch" "$WORK/status" || fail "HERMIT_EPOCH=$epoch does not repeat the run"

# HERMIT_EPOCH is honoured, and --epoch wins over it.
(HERMIT_EPOCH=2030-01-01T00:00:00Z; expect_status 0 run -- date -u '+%F %s') || exit 1
t=$(cut -d' ' -f2 "$WORK/status")
[ "$(cut -d' ' -f1 "$WORK/status")" = 2030-01-01 ] && [ "$t" -ge 1893456000 ] && [ "$t" -le 1893456005 ] ||
	fail "HERMIT_EPOCH=2030-01-01T00:00:00Z: date printed '$(cat "$WORK/status")'"
(HERMIT_EPOCH=2030-01-01T00:00:00Z; expect_status 0 run --epoch=2026-01-01T00:00:00Z -- date -u +%F) || exit 1
echo 2026-01-01 | diff -u - "$WORK/status" || fail "--epoch does not override HERMIT_EPOCH"
(HERMIT_EPOCH=2030-01-01; expect_status 0 run -- date -u +%F) || exit 1
echo 2030-01-01 | diff -u - "$WORK/status" || fail "HERMIT_EPOCH=2030-01-01 (a bare date) is not honoured"

# ---- --no-namespace ----
same_twice nons --no-namespace -- echo hello
echo hello | diff -u - "$WORK/nons.1" || fail "--no-namespace: echo hello printed something else"
expect_status 0 run --no-namespace -- sh -c 'echo $$'
[ "$(cat "$WORK/status")" != 2 ] || fail "--no-namespace: the guest is still pid 2 (in a new pid namespace?)"
same_twice nons-date --no-namespace -- date -u '+%F %T'
echo '2026-01-01 00:00:00' | diff -u - "$WORK/nons-date.1" || fail "--no-namespace: time is not virtual"

# python3 (last: skipped where absent), without its pid: that is the host's here.
command -v python3 >/dev/null 2>&1 || skip "python3 part: no python3 on PATH"
same_twice nons-py --no-namespace -- python3 -c \
	'import random, time, os, uuid; print(random.random(), time.time(), os.urandom(8).hex(), uuid.uuid4())'
awk -v lo=1767225600 -v hi=1767225660 '{ exit !($2 >= lo && $2 <= hi) }' "$WORK/nons-py.1" ||
	fail "--no-namespace: python3's time.time() is not within a minute of the epoch"
exit 0
