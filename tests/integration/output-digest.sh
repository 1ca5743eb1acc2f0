#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A replay compares what the guest writes to the outside with the
# recording (docs/record-replay.md, "Output"): mapprint prints a file it
# maps, half with write(2) and half with writev(2), and copies it into a
# file with pwrite64(2). Its replay matches; a replay of the same recording
# with the copy of the mapped file changed (same size, so every call and
# result is the recorded one) prints other bytes and must stop with 122,
# naming the write or the writev whose output differs, also with -q.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=60

export HERMIT_DATA_DIR="$WORK/data"
REC="$HERMIT_DATA_DIR/recordings"
command -v python3 >/dev/null 2>&1 || skip "python3 reads the manifest here: no python3 on PATH"

mkdir "$WORK/d"
printf 'total 60000000\n' >"$WORK/d/text"
hm "$WORK/rec" record start -- "$GUESTS/mapprint" "$WORK/d/text" "$WORK/d/out"
st=$?
[ "$st" = 0 ] || { tail -20 "$WORK/rec.err" >&2; fail "the recorded run exited $st"; }
printf 'total 60000000\n15 bytes into out\n' | diff -u - "$WORK/rec" || fail "the recorded run printed other output"
cmp -s "$WORK/d/text" "$WORK/d/out" || fail "the recorded run did not copy the file"
rid=$(sed -n "s/^hermit: recording '\(.*\)'\$/\1/p" "$WORK/rec.err")
[ -n "$rid" ] && [ -d "$REC/$rid" ] || { cat "$WORK/rec.err" >&2; fail "record start printed no id"; }

# The replay as it was recorded.
hm "$WORK/rep" replay "$rid" --autopilot
st=$?
[ "$st" = 0 ] || { tail -20 "$WORK/rep.err" >&2; fail "the replay exited $st, not 0"; }
diff -u "$WORK/rec" "$WORK/rep" || fail "the replay printed other output"

# tampered NAME TEXT: a copy of the recording, as $REC/NAME, in which the
# mapped file holds TEXT (same size) instead of what was recorded.
tampered() {
	cp -R "$REC/$rid" "$REC/$1"
	copy=$(python3 - "$REC/$1" "$WORK/d/text" <<'PY'
import json, os, sys
d, path = sys.argv[1:]
for e in json.load(open(os.path.join(d, "manifest.json")))["files"]:
    if e["path"] == path:
        print(os.path.join(d, e["file"]))
PY
)
	[ -n "$copy" ] && [ -f "$copy" ] || fail "$1: the recording keeps no copy of the mapped file"
	# a new file, never the shared object the copy may be a link to
	rm -f "$copy"
	printf '%s' "$2" >"$copy"
}

# diverges NAME CALL REPLAY-ARGS...: the replay exits 122 with one line
# saying the output of CALL differs.
diverges() {
	name=$1 call=$2
	shift 2
	hm "$WORK/$name" replay "$@"
	st=$?
	[ "$st" = 122 ] || { tail -20 "$WORK/$name.err" >&2; fail "$name: the replay exited $st, not 122"; }
	grep '^hermit: ' "$WORK/$name.err" >"$WORK/$name.lines"
	[ "$(wc -l <"$WORK/$name.lines")" = 1 ] || { cat "$WORK/$name.err" >&2; fail "$name: not one line from hermit"; }
	grep -q "^hermit: replay diverged at event [0-9][0-9]*: the output differs: the recording has task 0 $call(0x1, .*, output [0-9a-f]\{16\}, the replay made task 0 $call(0x1, .*, output [0-9a-f]\{16\}\$" "$WORK/$name.lines" ||
		fail "$name: the line does not say that the output of $call differs: $(cat "$WORK/$name.lines")"
}

tampered first "total 30000201
"
diverges first write first --autopilot
printf 'total 3' | diff -u - "$WORK/first" || fail "first: the replay printed more, or else, than the differing write"
diverges firstq write first --autopilot -q
[ ! -s "$WORK/firstq" ] || fail "firstq: replay -q printed on stdout"
tampered second "total 60000001
"
diverges second writev second --autopilot
