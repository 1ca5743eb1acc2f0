#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Ordinary programs, not written for hermit, repeat themselves under it:
# date, ls -li of files made during the run, a shell pipeline of several
# processes with a sleep, and python3's random, time, urandom, uuid4 and
# pid. Their output must also be what the virtual machine implies.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

EPOCH_S=1767225600	# $HERMIT_EPOCH, 2026-01-01T00:00:00Z
export TZ=UTC LC_ALL=C

# ---- date ----
same_twice date -- date
same_twice date-f --epoch=2026-01-01T00:00:00Z -- date -u +%F
echo 2026-01-01 >"$WORK/date-f.want"
diff -u "$WORK/date-f.want" "$WORK/date-f.1" || fail "date -u +%F does not print the epoch's date"

# ---- ls -li of a directory made in the run (in an empty cwd each time) ----
mkdir "$WORK/ls"
cd "$WORK/ls" || fail "cannot enter $WORK/ls"
same_twice ls -- sh -c 'mkdir d && touch d/a d/b && ln d/a d/c && mkdir d/e && ls -li d && rm -r d'
cd / || fail "cannot leave $WORK/ls"
# a and c are one inode; every time is the epoch's minute.
awk '
	$NF == "a" { a = $1 } $NF == "c" { c = $1 }
	NF == 10 && $3 != (($NF == "a" || $NF == "c") ? 2 : ($NF == "e" ? 2 : 1)) { print "links:", $0; bad = 1 }
	NF == 10 && ($7 " " $8 " " $9) != "Jan 1 00:00" { print "time:", $0; bad = 1 }
	NF == 10 { n++ }
	END { if (n != 4 || a == "" || a != c) { print "entries", n, "a", a, "c", c; bad = 1 }; exit bad }
' "$WORK/ls.1" || fail "ls -li: want 4 entries, a and c sharing an inode, times at the epoch"

# ---- a pipeline and a subshell that sleeps ----
same_twice pipe -- sh -c 'seq 1 100 | sort -r | head -5 | tr 0-9 a-j; echo $$; (sleep 1; date +%s)'
printf '%s\n' jj ji jh jg jf 2 >"$WORK/pipe.want"
head -6 "$WORK/pipe.1" | diff -u "$WORK/pipe.want" - || fail "pipeline: wrong output, or the shell is not pid 2"
t=$(sed -n 7p "$WORK/pipe.1")
[ -n "$t" ] && [ "$t" -ge $((EPOCH_S + 1)) ] && [ "$t" -le $((EPOCH_S + 6)) ] ||
	fail "pipeline: date +%s after sleep 1 printed '$t', not $((EPOCH_S + 1)) (+ at most 5 s)"

# ---- sqlite3 reading SQL with quoted strings from its standard input ----
# Its statement scanner (sqlite3_complete) switches through a jump table
# whose base a lea takes once, before the loop: the planner missed that
# table, patched over one of its cases, and sqlite3 died of SIGSEGV.
if command -v sqlite3 >/dev/null 2>&1; then
	SQL="create table t(a, b); insert into t values(1, 'it''s'), (2, \"x;y\"), (3, '[z]'); select a, b from t order by a; select count(*) from t where b like '%;%';"
	same_twice sqlite -- sh -c "printf '%s\\n' \"\$1\" | sqlite3 :memory:" sh "$SQL"
	sh -c "printf '%s\\n' \"\$1\" | sqlite3 :memory:" sh "$SQL" >"$WORK/sqlite.want" ||
		fail "sqlite3 outside hermit failed"
	diff -u "$WORK/sqlite.want" "$WORK/sqlite.1" || fail "sqlite3: other output under hermit"
fi

# ---- python3 (last: skipped where absent) ----
command -v python3 >/dev/null 2>&1 || skip "python3 part: no python3 on PATH"
PY='import random, time, os, uuid; print(random.random(), time.time(), os.urandom(8).hex(), uuid.uuid4(), os.getpid())'
same_twice py -- python3 -c "$PY"
same_twice py.s1 --seed 1 -- python3 -c "$PY"
# Seeds change random, urandom and uuid4; the pid stays, and the time
# stays within the first seconds (it moves with the ticks each seed's
# code runs, docs/preemption.md).
awk '{ print $5 }' "$WORK/py.1" >"$WORK/py.same"
awk '{ print $5 }' "$WORK/py.s1.1" | diff -u "$WORK/py.same" - || fail "python3: the pid depends on the seed"
for f in py.1 py.s1.1; do
	t=$(awk '{ printf "%d", $2 }' "$WORK/$f")
	[ "$t" -ge "$EPOCH_S" ] && [ "$t" -le $((EPOCH_S + 2)) ] ||
		fail "python3: time.time() printed $t, not within 2 s of the epoch $EPOCH_S"
done
for i in 1 3 4; do
	a=$(awk -v i=$i '{ print $i }' "$WORK/py.1")
	b=$(awk -v i=$i '{ print $i }' "$WORK/py.s1.1")
	[ "$a" != "$b" ] || fail "python3: field $i is '$a' with --seed 0 and with --seed 1"
done
[ "$(awk '{ print $5 }' "$WORK/py.1")" = 2 ] || fail "python3: os.getpid() is not 2"
awk -v lo=$EPOCH_S -v hi=$((EPOCH_S + 60)) '{ exit !($2 >= lo && $2 <= hi) }' "$WORK/py.1" ||
	fail "python3: time.time() is not within a minute of the epoch"
exit 0
