#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hermit's exit status (DESIGN.md "Exit status of hermit"): the guest's, or
# 128+N for a guest killed by signal N; 125 for hermit's own failures and
# bad usage, 126 for a program that cannot be executed, 127 for one that
# does not exist. Each failure of hermit is one line on stderr that starts
# with "hermit: ".
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

# one_line WHAT [WORD]: stderr of the last expect_status is one line that
# starts with "hermit: " (and names WORD).
one_line() {
	e=$WORK/status.err
	[ "$(wc -l <"$e")" -eq 1 ] && [ "$(wc -c <"$e")" -gt 9 ] &&
		head -c 8 "$e" | grep -qx 'hermit: ' ||
		{ cat "$e" >&2; fail "$1: stderr is not one line starting with 'hermit: '"; }
	[ -z "$2" ] || grep -qF -- "$2" "$e" || { cat "$e" >&2; fail "$1: the message does not name '$2'"; }
}

# ---- the guest's status ----
expect_status 0 run -- true
expect_status 1 run -- false
expect_status 3 run -- sh -c 'exit 3'
expect_status 137 run -- sh -c 'kill -9 $$'
expect_status 143 run -- sh -c 'kill -TERM $$'

# ---- programs that cannot run ----
expect_status 127 run -- "$WORK/no-such-program"
one_line "a missing program" "$WORK/no-such-program"
expect_status 127 run -- hermit-no-such-program-on-path
one_line "a missing program on PATH" hermit-no-such-program-on-path
printf '#!/bin/sh\necho should not run\n' >"$WORK/not-executable"
chmod 644 "$WORK/not-executable"
expect_status 126 run -- "$WORK/not-executable"
one_line "a file without execute permission" "$WORK/not-executable"
[ ! -s "$WORK/status" ] || fail "a file without execute permission: something ran"

# ---- bad usage ----
expect_status 125 run --no-such-option -- true
one_line "an unknown option of run" --no-such-option
expect_status 125 --no-such-option
one_line "an unknown option of hermit" --no-such-option
expect_status 125 bogus
one_line "an unknown command" bogus
expect_status 125 run
one_line "run with nothing to run"
expect_status 125 run --seed abc -- true
one_line "--seed abc" abc
expect_status 125 run --seed=-1 -- true
one_line "--seed=-1" -1
expect_status 125 run --epoch garbage -- true
one_line "--epoch garbage" garbage
(
	unset HERMIT_EPOCH
	expect_status 125 run --strict -- true
	one_line "--strict without an epoch" --strict
) || exit 1
(HERMIT_EPOCH=garbage; expect_status 125 run -- true) || exit 1
one_line "HERMIT_EPOCH=garbage" garbage

# No arguments at all: bad usage, explained on stderr, nothing on stdout.
expect_status 125
[ ! -s "$WORK/status" ] || fail "hermit with no arguments printed on stdout"
one_line "no arguments" "hermit --help"

# ---- what succeeds ----
expect_status 0 --version
grep -Eqx 'hermit [0-9][0-9a-z.+~-]*' "$WORK/status" || fail "hermit --version printed '$(cat "$WORK/status")'"
expect_status 0 run --help
grep -q '^usage: hermit run' "$WORK/status" || fail "hermit run --help printed no usage on stdout"
[ ! -s "$WORK/status.err" ] || fail "hermit run --help wrote on stderr"
expect_status 0 --help
grep -q '^usage: hermit' "$WORK/status" || fail "hermit --help printed no usage on stdout"

# Every subcommand answers --help and -h with its usage on stdout, nothing
# on stderr, exit 0, and does nothing else: `record rm --help` removes no
# recording named --help, `record clean --help` none at all.
export HERMIT_DATA_DIR="$WORK/data"
mkdir -p "$HERMIT_DATA_DIR/recordings/--help" "$HERMIT_DATA_DIR/recordings/-h" \
	"$HERMIT_DATA_DIR/recordings/x-0" || fail "cannot make a data folder"
for cmd in run record "record start" "record list" "record ls" "record rm" "record clean" \
	replay log-diff verification-report; do
	for h in --help -h; do
		# shellcheck disable=SC2086 # $cmd is one or two words on purpose
		expect_status 0 $cmd $h
		grep -q "^usage: hermit ${cmd%% *}" "$WORK/status" ||
			fail "hermit $cmd $h printed no usage on stdout: $(head -n 1 "$WORK/status")"
		[ ! -s "$WORK/status.err" ] || fail "hermit $cmd $h wrote on stderr: $(cat "$WORK/status.err")"
	done
done
# hermit --help names every command
hm "$WORK/help" --help
for cmd in run "record start" "record list" "record rm" "record clean" replay log-diff \
	verification-report; do
	grep -q "^  $cmd" "$WORK/help" || fail "hermit --help does not name '$cmd': $(cat "$WORK/help")"
done
for id in --help -h x-0; do
	[ -d "$HERMIT_DATA_DIR/recordings/$id" ] || fail "a --help removed recording '$id'"
done
# ... and an option that is none of rm's is refused, not taken for an id
expect_status 125 record rm --no-such-option
one_line "record rm --no-such-option" --no-such-option
expect_status 0 record rm -- --help
[ ! -e "$HERMIT_DATA_DIR/recordings/--help" ] || fail "record rm -- --help left the recording '--help'"
for h in --help -h; do
	"${VERIFICATION_REPORT:?VERIFICATION_REPORT must name the program}" $h >"$WORK/vr" 2>"$WORK/vr.err" ||
		fail "verification-report $h exited $?"
	grep -q '^usage: .*verification-report' "$WORK/vr" || fail "verification-report $h printed no usage"
	[ ! -s "$WORK/vr.err" ] || fail "verification-report $h wrote on stderr: $(cat "$WORK/vr.err")"
done
exit 0
