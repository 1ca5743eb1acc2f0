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

exit 0
