#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Calls whose replay rests on what the recording kept of them (issue 14,
# "what a large outside suite found"; docs/record-replay.md): ioctls on a
# terminal whose output only an old request number names, select past
# FD_SETSIZE, sends that block on a full buffer, a 100 GiB sparse file
# mapped, openat2, and recordings of another format. Each is recorded and
# replayed: the same stdout and exit status, or, where a replay cannot be
# made, one line that says why and the exit status the docs give.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=120

export HERMIT_DATA_DIR="$WORK/data"
OUTSIDE="$GUESTS/outside"

# both NAME TIMES [OPTIONS --] ARGS...: in $WORK/NAME, record `outside
# ARGS` (which must exit 0), then replay it TIMES times: each exits 0 and
# prints what the recording printed.
both() {
	name=$1 times=$2
	shift 2
	opts=
	case " $* " in
	*" -- "*)
		while [ "$1" != -- ]; do
			opts="$opts $1"
			shift
		done
		shift
		;;
	esac
	mkdir -p "$WORK/$name"
	# shellcheck disable=SC2086 # OPTS: words, or nothing
	(cd "$WORK/$name" && hm "$WORK/$name.rec" record start $opts -- "$OUTSIDE" "$@")
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/$name.rec.err" >&2; fail "$name: recording exited $st"; }
	[ -s "$WORK/$name.rec" ] || fail "$name: the recording printed nothing"
	i=1
	while [ "$i" -le "$times" ]; do
		(cd "$WORK" && hm "$WORK/$name.rep" replay --autopilot)
		st=$?
		[ "$st" = 0 ] || { tail -5 "$WORK/$name.rep.err" >&2; fail "$name: replay $i exited $st"; }
		diff -u "$WORK/$name.rec" "$WORK/$name.rep" || fail "$name: replay $i printed other output"
		i=$((i + 1))
	done
	echo "$name: recorded and replayed $times times"
}

# ioctls on a pty master (a device: outside, so a replay answers them from
# the log): TIOCGETD, TCGETA, TIOCGSOFTCAR and TIOCGLCKTRMIOS are older
# than the _IOC encoding and write all the same.
both ioctl 2 ioctl
grep -q '^TIOCGETD = 0 [0-9a-f]\{8\}$' "$WORK/ioctl.rec" || fail "ioctl: $(cat "$WORK/ioctl.rec")"
grep -q abab "$WORK/ioctl.rec" && fail "ioctl: a buffer was left unfilled: $(cat "$WORK/ioctl.rec")"

# ioctl FIONBIO on stdout, a pipe from outside: the flag it sets is read
# back by fcntl(F_GETFL), which no mode stops, so a replay makes the
# ioctl too rather than answer it. Recorded and replayed through a pipe
# (as `hermit record start -- node x.js | tee log` is): node sets its
# stdout pipe non-blocking so, and checked the flag at its exit; answered
# from the log, every replay of it diverged there.
piped() {
	name=$1
	shift
	# (a data folder of their own: the sparse case below measures its own)
	HERMIT_DATA_DIR="$WORK/piped" timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" record start -- "$@" \
		2>"$WORK/$name.rec.err" | cat >"$WORK/$name.rec"
	[ -s "$WORK/$name.rec" ] || { tail -5 "$WORK/$name.rec.err" >&2; fail "$name: the piped recording printed nothing"; }
	(
		HERMIT_DATA_DIR="$WORK/piped" timeout -k 5 "$TEST_TIMEOUT" "$HERMIT" replay --autopilot \
			2>"$WORK/$name.rep.err"
		echo $? >"$WORK/$name.st"
	) | cat >"$WORK/$name.rep"
	st=$(cat "$WORK/$name.st")
	[ "$st" = 0 ] || { tail -5 "$WORK/$name.rep.err" >&2; fail "$name: the piped replay exited $st"; }
	diff -u "$WORK/$name.rec" "$WORK/$name.rep" || fail "$name: the piped replay printed other output"
	echo "$name: recorded and replayed through pipes"
}
piped nbflag "$OUTSIDE" nbflag
grep -qx "after FIONBIO 1: non-blocking; after FIONBIO 0: blocking" "$WORK/nbflag.rec" ||
	fail "nbflag: $(cat "$WORK/nbflag.rec")"
if command -v node >/dev/null 2>&1; then
	piped node node -e 'console.log("through a pipe")'
else
	echo "node: not installed, its piped case skipped"
fi

# SIOCGIFCONF on a socket of the host's network: its output is a list
# behind a pointer, which no request number sizes. The recording says so;
# the replay stops there (122) and says why, rather than replay a buffer
# the kernel never filled.
mkdir -p "$WORK/ifconf"
(cd "$WORK/ifconf" && hm "$WORK/ifconf.rec" record start --network=host -- "$OUTSIDE" ifconf)
st=$?
[ "$st" = 0 ] || { tail -5 "$WORK/ifconf.rec.err" >&2; fail "ifconf: recording exited $st"; }
grep -q "^hermit: warn: ioctl request 0x8912 .*a replay of this recording stops there" \
	"$WORK/ifconf.rec.err" || { cat "$WORK/ifconf.rec.err" >&2; fail "ifconf: the recording did not warn"; }
hm "$WORK/ifconf.rep" replay --autopilot
st=$?
[ "$st" = 122 ] || { tail -5 "$WORK/ifconf.rep.err" >&2; fail "ifconf: replay exited $st, not 122"; }
grep -q "^hermit: replay stopped at event [0-9]*: ioctl request 0x8912 on descriptor 3 (outside the guest) writes what its number does not size" \
	"$WORK/ifconf.rep.err" || { cat "$WORK/ifconf.rep.err" >&2; fail "ifconf: no line says why the replay stopped"; }
[ -s "$WORK/ifconf.rep" ] && fail "ifconf: the replay printed $(cat "$WORK/ifconf.rep")"
echo "ifconf: the replay stopped at SIOCGIFCONF, saying why"

# select and pselect6 with descriptors 1500 and 1501 (nfds 1502).
both select 2 select
grep -q '^select = 1: 1500:1 1501:0$' "$WORK/select.rec" || fail "select: $(cat "$WORK/select.rec")"

# 8 MiB sent over TCP between two threads of the guest, on the host's
# network: the sends block on the full buffer while the reader is slow.
both sendtcp 3 --network=host -- send tcp
grep -q '^read 8[0-9]* bytes' "$WORK/sendtcp.rec" || fail "sendtcp: $(cat "$WORK/sendtcp.rec")"
# and through a socketpair of its own
both sendpair 2 send

# A sparse file of 100 GiB mapped shared, a few pages touched: once made
# by the guest, once there before (truncate -s). Sparse files take no
# space; the recording copies the mapped file keeping its holes, and
# hashes its data only, so it takes a moment (20 s bounds it: reading the
# holes alone took minutes) and no more disk than its data.
for how in made there; do
	mkdir -p "$WORK/sparse-$how"
	[ "$how" = there ] && { truncate -s 100G "$WORK/sparse-$how/big" || fail "sparse: truncate failed"; }
	(cd "$WORK/sparse-$how" && TEST_TIMEOUT=20 hm "$WORK/sparse-$how.rec" record start -- "$OUTSIDE" sparse big)
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/sparse-$how.rec.err" >&2; fail "sparse ($how): recording exited $st"; }
	grep -q 'changed by a process outside the guest' "$WORK/sparse-$how.rec.err" &&
		fail "sparse ($how): the guest's own writes were taken for another process's"
	used=$(du -sk "$WORK/data" | cut -f1)
	[ "$used" -lt 65536 ] || fail "sparse ($how): the data folder takes $used KiB"
	rm "$WORK/sparse-$how/big"
	(cd "$WORK" && hm "$WORK/sparse-$how.rep" replay --autopilot)
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/sparse-$how.rep.err" >&2; fail "sparse ($how): replay exited $st"; }
	diff -u "$WORK/sparse-$how.rec" "$WORK/sparse-$how.rep" || fail "sparse ($how): the replay printed other output"
	grep -q '^page at 107374178304, then 0$' "$WORK/sparse-$how.rec" || fail "sparse ($how): $(cat "$WORK/sparse-$how.rec")"
	echo "sparse ($how): recorded in $used KiB of data folder, and replayed"
done

# openat2 records and replays as openat does: the file it read is gone
# at replay time, and the file it made with O_EXCL is there.
mkdir -p "$WORK/openat2"
echo "first content" >"$WORK/openat2/f"
(cd "$WORK/openat2" && hm "$WORK/openat2.rec" record start -- "$OUTSIDE" openat2 f)
st=$?
[ "$st" = 0 ] || { tail -5 "$WORK/openat2.rec.err" >&2; fail "openat2: recording exited $st"; }
printf 'fd 3: first content\nmade: made\n' | diff -u - "$WORK/openat2.rec" || fail "openat2: the recording printed otherwise"
rm "$WORK/openat2/f"
for i in 1 2; do
	(cd "$WORK" && hm "$WORK/openat2.rep" replay --autopilot)
	st=$?
	[ "$st" = 0 ] || { tail -5 "$WORK/openat2.rep.err" >&2; fail "openat2: replay $i exited $st"; }
	diff -u "$WORK/openat2.rec" "$WORK/openat2.rep" || fail "openat2: replay $i printed other output"
done
echo "openat2: replayed twice after the file it read was removed"

# A recording of another format: metadata.json's schema, or the event
# log's magic, says another version. One line, exit 125, nothing run.
# refused WHAT NAME ID LINE: `hermit replay --autopilot ID` exits 125,
# prints nothing, and says on stderr one line that matches LINE.
refused() {
	hm "$WORK/$2" replay --autopilot "$3"
	st=$?
	[ "$st" = 125 ] || { cat "$WORK/$2.err" >&2; fail "$1: replay exited $st, not 125"; }
	[ "$(wc -l <"$WORK/$2.err")" = 1 ] || { cat "$WORK/$2.err" >&2; fail "$1: not one line"; }
	grep -q "$4" "$WORK/$2.err" || { cat "$WORK/$2.err" >&2; fail "$1: the line does not say so"; }
	[ -s "$WORK/$2" ] && fail "$1: the replay printed $(cat "$WORK/$2")"
}
cp -r "$WORK/data/recordings/outside-1" "$WORK/data/recordings/outside-99"
sed -i 's|"hermit.recording/1"|"hermit.recording/2"|' "$WORK/data/recordings/outside-99/metadata.json"
refused "another format" v2 outside-99 \
	"^hermit: cannot open recording 'outside-99': it was made in the recording format 'hermit.recording/2', and this hermit (.*) reads 'hermit.recording/1' only$"
rm -r "$WORK/data/recordings/outside-99"
# Ticks counted otherwise (another planner: metadata.json's "counting"),
# or by a hermit from before the key.
if grep -q '"preempt":[[:space:]]*"sites"' "$WORK/data/recordings/outside-1/metadata.json"; then
	cp -r "$WORK/data/recordings/outside-1" "$WORK/data/recordings/outside-97"
	sed -i 's|"counting":[[:space:]]*"[^"]*"|"counting": "HMPLAN01+HMEMIT01"|' \
		"$WORK/data/recordings/outside-97/metadata.json"
	refused "another counting" cnt outside-97 \
		"^hermit: cannot open recording 'outside-97': its ticks were counted as 'HMPLAN01+HMEMIT01', and this hermit (.*) counts them as '.*': a replay would stop threads elsewhere$"
	sed -i '/"counting":/d' "$WORK/data/recordings/outside-97/metadata.json"
	refused "no counting key" cnt0 outside-97 \
		"^hermit: cannot open recording 'outside-97': an older hermit counted its ticks, otherwise than this one (.*): a replay would stop threads elsewhere$"
	rm -r "$WORK/data/recordings/outside-97"
fi
cp -r "$WORK/data/recordings/outside-1" "$WORK/data/recordings/outside-98"
python3 - "$WORK/data/recordings/outside-98/events.xz" <<'PY' || fail "another log format: cannot rewrite the log"
import lzma, sys
p = sys.argv[1]
data = lzma.open(p).read()
assert data[:7] == b"HMEVLOG" and data[7:8] != b"1"
with lzma.open(p, "wb", check=lzma.CHECK_CRC32) as f:
    f.write(b"HMEVLOG1" + data[8:])
PY
refused "another log format" log1 outside-98 \
	"^hermit: cannot replay 'outside-98': events.xz is in another event-log format than this hermit's (HMEVLOG[0-9]*)$"
echo "another format: refused in one line, exit 125"

exit 0
