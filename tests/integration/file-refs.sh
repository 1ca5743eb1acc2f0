#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Reads of regular files are kept by reference to a copy in files/, not as
# bytes in events.xz (docs/record-replay.md "Reads of regular files"):
# cat of a few MiB leaves a log of under a tenth of them (a property of
# the log, not a timing), and replays the same after the file is changed
# and after it is removed; a file the guest writes, reads, changes in
# place and reads again replays the same; `hermit run --verify` passes on
# it twice; a copy missing from files/ and a log of the older format are
# refused with exit 125.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=120

export HERMIT_DATA_DIR="$WORK/data"
D="$WORK/d"
mkdir -p "$D" || fail "cannot make $D"
SIZE=$((4 << 20))
head -c "$SIZE" /dev/urandom >"$D/big" || fail "cannot write a $SIZE-byte file"

# rec NAME CMD...: record CMD in $D, which must exit 0; $id is its id and
# $rec its folder.
rec() {
	name=$1
	shift
	(cd "$D" && hm "$WORK/$name.rec" record start -- "$@")
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/$name.rec.err" >&2; fail "$name: record start exited $st"; }
	id=$(sed -n "s/^hermit: recording '\(.*\)'$/\1/p" "$WORK/$name.rec.err")
	[ -n "$id" ] || fail "$name: record start printed no id"
	rec="$HERMIT_DATA_DIR/recordings/$id"
}

# replay_same NAME WHY: replay the recording $id; its stdout and status
# must be the recording's.
replay_same() {
	(cd "$WORK" && hm "$WORK/$1.rep" replay --autopilot "$id")
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/$1.rep.err" >&2; fail "$1: the replay $2 exited $st"; }
	cmp -s "$WORK/$1.rec" "$WORK/$1.rep" || fail "$1: the replay $2 printed other bytes"
}

# ---- cat of a file: a small log; the same after a change and a removal ----
rec cat cat big
cmp -s "$WORK/cat.rec" "$D/big" || fail "cat: the recorded run did not print the file"
size=$(stat -c %s "$rec/events.xz")
[ "$size" -lt $((SIZE / 10)) ] ||
	fail "cat: events.xz has $size bytes for a read of $SIZE: the bytes were kept, not a reference"
refs=$(find "$rec/files" -type f -size "${SIZE}c" | wc -l)
[ "$refs" = 1 ] || fail "cat: files/ holds $refs copies of the file read, not 1"
head -c "$SIZE" /dev/urandom >"$D/big" || fail "cannot rewrite the file"
replay_same cat "after the file changed"
rm "$D/big"
replay_same cat "after the file was removed"
echo "cat: events.xz $size bytes for $SIZE read; replayed after a change and a removal"

# ---- a file the guest writes, reads, changes in place and reads again ----
# seq writes 1 MiB or so into g, cat reads it back (a copy is made at that
# read), dd overwrites its second 64 KiB in place, cat reads it again (the
# copy no longer matches there), and again after a line is appended.
prog='seq 1 150000 >g && cat g &&
dd if=/dev/zero of=g bs=65536 seek=1 count=1 conv=notrunc 2>/dev/null &&
cat g && echo tail >>g && cat g'
mkdir -p "$WORK/native" && (cd "$WORK/native" && sh -c "$prog") >"$WORK/own.native" ||
	fail "own: the program failed natively"
rec own sh -c "$prog"
cmp -s "$WORK/own.native" "$WORK/own.rec" || fail "own: the recorded run printed other bytes than natively"
replay_same own "of a file the guest wrote"
(cd "$D" && hm "$WORK/own.rep2" replay --autopilot "$id") &&
	cmp -s "$WORK/own.rec" "$WORK/own.rep2" || fail "own: the second replay differs"
echo "own: a file written, read, changed and read again replayed twice"

# ---- hermit run --verify, twice ----
head -c "$SIZE" /dev/urandom >"$D/big" || fail "cannot write the file again"
for i in 1 2; do
	(cd "$D" && hm "$WORK/verify$i" run --verify -- sh -c "cat big >/dev/null; $prog")
	st=$?
	[ "$st" = 0 ] || { tail -20 "$WORK/verify$i.err" >&2; fail "verify: run --verify $i exited $st"; }
	grep -q 'verify: the two runs agree' "$WORK/verify$i.err" || fail "verify: run $i: the runs do not agree"
done
echo "verify: two runs of --verify agree"

# ---- a copy missing from files/ ----
rec gone cat big
copy=$(find "$rec/files" -type f -size "${SIZE}c")
[ -n "$copy" ] || fail "gone: no copy of the file read in files/"
rm -f "$copy"
(cd "$WORK" && hm "$WORK/gone.rep" replay --autopilot "$id")
st=$?
[ "$st" = 125 ] || fail "gone: the replay without the copy exited $st, not 125"
grep -q "names a copy in files/ that is missing or damaged" "$WORK/gone.rep.err" ||
	fail "gone: the replay did not say the copy is missing: $(cat "$WORK/gone.rep.err")"
# A copy cut short (a host crash after a copy without fsync) is found by
# its hash.
rec short cat big
copy=$(find "$rec/files" -type f -size "${SIZE}c")
obj="$HERMIT_DATA_DIR/objects/$(basename "$copy")"
chmod u+w "$copy" && : >"$copy" && head -c "$SIZE" /dev/zero >"$copy" || fail "short: cannot damage the copy"
(cd "$WORK" && hm "$WORK/short.rep" replay --autopilot "$id")
st=$?
[ "$st" = 125 ] || fail "short: the replay with a damaged copy exited $st, not 125"
[ ! -e "$obj" ] || cmp -s "$obj" "$copy" || fail "short: objects/ and files/ do not share the copy"
echo "gone: a missing copy and a damaged one are refused (125)"

# ---- a log of the format before references: refused ----
if command -v python3 >/dev/null 2>&1; then
	rec old cat /dev/null
	python3 - "$rec/events.xz" <<'PY' || fail "old: cannot write a log of the old format"
import lzma, struct, sys, zlib
end = struct.pack("<12q", 32, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
frame = struct.pack("<I", len(end)) + end + struct.pack("<I", zlib.crc32(end))
open(sys.argv[1], "wb").write(lzma.compress(b"HMEVLOG2" + frame, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32))
PY
	(cd "$WORK" && hm "$WORK/old.rep" replay --autopilot "$id")
	st=$?
	[ "$st" = 125 ] || fail "old: the replay of an old log exited $st, not 125"
	grep -q "events.xz is in another event-log format than this hermit's" "$WORK/old.rep.err" ||
		fail "old: $(cat "$WORK/old.rep.err")"
	echo "old: a log of the older format is refused (125)"
fi
exit 0
