#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A replay depends on the recording, never on the host's file system as it
# is at replay time (DESIGN.md "Replay"; docs/record-replay.md "The file
# system"). Each case records a command in a folder of its own, then
# changes that folder (what the command made is left there, what it read
# is rewritten, what it removed is gone or something else), then replays:
# the same stdout, stderr and exit status each time, and the folder is
# left as the change left it (a replay writes nothing to the host).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=120

export HERMIT_DATA_DIR="$WORK/data"

# state DIR: every path under DIR with its type and size, and every file's
# md5sum, to tell whether a replay changed the host.
state() {
	[ -d "$1" ] || { echo "no folder $1"; return; }
	(cd "$1" && find . -printf '%y %s %p\n' | sort && find . -type f -exec md5sum {} + | sort)
}

# case_ NAME CHANGE REPLAYS -- CMD...: in a new folder $WORK/NAME (filled
# by a function setup_NAME where there is one), record CMD, which must
# exit 0; run the shell code CHANGE there; replay REPLAYS times.
# REC_OPTS: options of record start.
# FS_REPLAY_CASES, when set, names the cases to run (the others pass).
case_() {
	name=$1 change=$2 times=$3
	shift 4
	case " ${FS_REPLAY_CASES:-$name} " in
	*" $name "*) ;;
	*) return 0 ;;
	esac
	dir="$WORK/$name"
	mkdir -p "$dir" || fail "$name: cannot make $dir"
	if command -v "setup_$name" >/dev/null 2>&1; then
		(cd "$dir" && "setup_$name") || fail "$name: setup failed"
	fi
	# shellcheck disable=SC2086 # REC_OPTS: words, or nothing
	(cd "$dir" && hm "$WORK/$name.rec" record start ${REC_OPTS:-} -- "$@")
	rst=$?
	case $rst in
	122 | 124 | 125 | 126 | 127 | 137) tail -20 "$WORK/$name.rec.err" >&2; fail "$name: record start exited $rst" ;;
	esac
	[ "$rst" = 0 ] || { tail -20 "$WORK/$name.rec.err" >&2; fail "$name: the recorded run exited $rst"; }
	grep -v '^hermit: ' "$WORK/$name.rec.err" >"$WORK/$name.rec.guest"
	(cd "$dir" && eval "$change") || fail "$name: the change failed"
	state "$dir" >"$WORK/$name.state"
	i=1
	while [ "$i" -le "$times" ]; do
		(cd "$WORK" && hm "$WORK/$name.rep" replay --autopilot)
		st=$?
		[ "$st" = "$rst" ] || { tail -20 "$WORK/$name.rep.err" >&2; fail "$name: replay $i exited $st, the recorded run $rst"; }
		diff -u "$WORK/$name.rec" "$WORK/$name.rep" || fail "$name: replay $i printed other stdout"
		grep -v '^hermit: ' "$WORK/$name.rep.err" >"$WORK/$name.rep.guest"
		diff -u "$WORK/$name.rec.guest" "$WORK/$name.rep.guest" || fail "$name: replay $i printed other stderr"
		state "$dir" >"$WORK/$name.state2"
		diff -u "$WORK/$name.state" "$WORK/$name.state2" || fail "$name: replay $i changed the host's files"
		i=$((i + 1))
	done
	echo "$name: recorded (exit $rst) and replayed $times times"
}

# The folder it made is still there.
case_ mkdir ':' 3 -- mkdir d
# A file it read, removed since.
setup_read() { printf 'one\ntwo\n' >f; }
case_ read 'rm f' 2 -- sh -c 'while read l; do echo "got $l"; done <f; tail -c 4 f; wc -c f'
# A file it deleted: gone, then a folder in its place.
setup_rm() { echo data >f; }
case_ rm 'mkdir f' 3 -- rm f
setup_rmnons() { echo data >f; }
setup_rmls() { mkdir t && echo 1 >t/a && echo 2 >t/b; }
case_ rmls 'rm -rf t; echo other >t' 2 -- sh -c 'ls t; rm -r t; ls'
# The folder it ran in, gone since, with the file it read there or
# without a file of it in the recording: the replay makes the folder
# again in its private view, not on the host.
setup_gonecwd() { echo kept >f; }
case_ gonecwd 'cd .. && rm -r gonecwd' 2 -- sh -c 'cat f; echo made >g; ls; pwd'
case_ gonecwd2 'cd .. && rm -r gonecwd2' 2 -- sh -c 'pwd; echo in a folder now gone'
for d in gonecwd gonecwd2; do
	[ -e "$WORK/$d" ] && fail "$d: a replay made the folder on the host"
done
# gone NAME DIR LINE [OPTIONS]: record `sh -c pwd` in the new folder DIR
# (with record start's OPTIONS), remove DIR, replay: exit 125, one line
# that matches LINE, and DIR not made again on the host.
gone() {
	name=$1 d=$2 line=$3
	shift 3
	case " ${FS_REPLAY_CASES:-$name} " in
	*" $name "*) ;;
	*) return 0 ;;
	esac
	(cd "$d" && hm "$WORK/$name.rec" record start "$@" -- sh -c pwd) ||
		fail "$name: record start exited $?"
	rmdir "$d"
	(cd "$WORK" && hm "$WORK/$name.rep" replay --autopilot)
	st=$?
	[ -e "$d" ] && { rmdir "$d"; fail "$name: the replay made $d on the host"; }
	[ "$st" = 125 ] || { cat "$WORK/$name.rep.err" >&2; fail "$name: replay exited $st, not 125"; }
	[ "$(wc -l <"$WORK/$name.rep.err")" = 1 ] && grep -q "$line" "$WORK/$name.rep.err" ||
		{ cat "$WORK/$name.rep.err" >&2; fail "$name: not the one line that says why"; }
	echo "$name: refused, exit 125"
}
# Without namespaces there is no view to make it in: refused in one line.
mkdir "$WORK/gonenons" || fail "gonenons: cannot make the folder"
gone gonenons "$WORK/gonenons" "working folder .* is gone" --no-namespace
# In a folder the view does not cover (/dev): not made, on the host or in
# the view; the replay stops in one line with 125, not as a divergence.
if [ -d /dev/shm ] && d=$(mktemp -d /dev/shm/hermit-gone.XXXXXX); then
	gone gonedev "$d" "cannot enter the recorded working folder"
	if [ -d "$d" ]; then rmdir "$d"; fi # (a case left out)
else
	echo "gonedev: no /dev/shm to record in, its case skipped"
fi
# A script it ran, removed since: the kernel reads its first line.
setup_script() { printf '#!/bin/sh\necho script ran "$@"\n' >s.sh && chmod +x s.sh; }
case_ script 'rm s.sh' 3 -- sh -c './s.sh one two'
# The same without namespaces (no private view): the replay must not
# remove the host's new f.
REC_OPTS=--no-namespace
case_ rmnons 'echo new >f' 2 -- rm f
REC_OPTS=
# A folder it renamed: back in place since (the replay's view cannot
# rename a folder of its lower layer: EXDEV), or gone with its files.
setup_mvdir() { mkdir -p t/s && echo A >t/a && echo B >t/s/b; }
case_ mvdir 'mv u t' 2 -- sh -c 'mv t u && ls -R u && cat u/a u/s/b'
setup_mvgone() { setup_mvdir; }
case_ mvgone 'rm -r u' 2 -- sh -c 'mv t u && ls -R u && cat u/a u/s/b'
# cp a b and cat a > b: copy_file_range, from a file rewritten since.
setup_cp() { echo hi >a; }
case_ cp 'rm b; echo changed >a' 3 -- cp a b
setup_catto() { echo hello >a; }
case_ catto 'echo other >a; echo junk >b' 3 -- sh -c 'cat a >b && cat b'
# cat a to the replay's stdout, a file then, a file now.
setup_cat() { printf 'line 1\nline 2\n' >a; }
case_ cat 'rm a' 3 -- cat a
# cp -r of a small tree, the copy removed and the tree changed.
setup_cpr() { mkdir -p src/sub && echo 1 >src/a && echo 2 >src/sub/b && ln -s a src/l; }
case_ cpr 'rm -rf dst; echo 9 >src/a; rm src/sub/b' 3 -- sh -c 'cp -r src dst && ls -lR dst | sed "s/ [A-Z][a-z][a-z] .* / /" && cat dst/sub/b'
# tar czf, then tar xzf of its archive elsewhere.
setup_tarc() { mkdir -p src/sub && echo 1 >src/a && echo 2 >src/sub/b; }
case_ tarc 'rm s.tgz; rm -r src/sub' 2 -- sh -c 'tar czf s.tgz src && tar tzf s.tgz | sort'
setup_tarx() { cp "$WORK/tarc/s.tgz" . 2>/dev/null || { mkdir src && echo 1 >src/a && tar czf s.tgz src && rm -r src; }; }
case_ tarx 'rm -r src; echo broken >s.tgz' 2 -- sh -c 'tar xzf s.tgz && cat src/a && find src | sort'
# sqlite3 on a file database in a folder it makes, changed since.
if command -v sqlite3 >/dev/null 2>&1; then
	case_ sqlite "sqlite3 data/db 'insert into t values(40,41)'" 3 -- sh -c \
		'mkdir data && sqlite3 data/db "create table t(a,b); insert into t values(1,2),(3,4); select * from t;"'
else
	echo "sqlite3: not installed, its case skipped"
fi
# splice from a file to a pipe (with and without an offset), from a pipe
# to a file, and sendfile to stdout, from a file rewritten since.
if command -v python3 >/dev/null 2>&1 && python3 -c 'import os; os.splice' 2>/dev/null; then
	setup_splice() {
		printf 'spliced bytes here\n' >a
		cat >sp.py <<'EOF'
import os, sys
fd = os.open("a", os.O_RDONLY)
r, w = os.pipe()
print("splice", os.splice(fd, w, 8), os.read(r, 100))
n = os.splice(fd, w, 100, offset_src=8)
print("splice at", n, os.read(r, 100), os.lseek(fd, 0, os.SEEK_CUR))
os.write(w, b"through a pipe\n")
out = os.open("b", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
print("to a file", os.splice(r, out, 100))
os.close(out)
sys.stdout.flush()
print(" sendfile", os.sendfile(1, fd, 0, 7))
print("b:", open("b").read().strip())
EOF
	}
	case_ splice 'echo changed >a; rm b' 3 -- python3 sp.py
else
	echo "python3 with os.splice: not installed, its case skipped"
fi
# python3 writes, renames and lists files.
if command -v python3 >/dev/null 2>&1; then
	setup_py() {
		cat >w.py <<'EOF'
import os, json
os.makedirs("out/deep", exist_ok=True)
with open("out/deep/x.json", "w") as f:
    json.dump({"a": [1, 2, 3]}, f)
with open("out/deep/x.json") as f:
    print(f.read())
os.rename("out/deep/x.json", "out/y.json")
print(sorted(os.listdir("out")), os.path.getsize("out/y.json"))
EOF
	}
	case_ py 'rm -r out; mkdir -p out/deep/x.json' 3 -- python3 w.py
else
	echo "python3: not installed, its case skipped"
fi
# git init, add and commit in a folder, which then gets another commit.
if command -v git >/dev/null 2>&1; then
	setup_git() { echo x >f; }
	case_ git 'git commit -q --allow-empty -m two; echo y >f' 2 -- sh -c \
		'git init -q . && git add f && git -c user.email=a@b -c user.name=a commit -q -m one && git log --format="%H %s" && git status --short'
	# a local clone hard-links the objects (the view refuses links
	# across its layers: EXDEV), then a commit in the clone
	setup_clone() {
		git init -q src && echo a >src/a && mkdir src/d && echo b >src/d/b &&
			git -C src add . && git -C src -c user.email=a@b -c user.name=a commit -q -m one
	}
	case_ clone 'rm -rf dst; git -C src -c user.email=a@b -c user.name=a commit -q --allow-empty -m more' 2 -- sh -c \
		'git clone -q src dst && cd dst && ls -R && git rm -q a && git -c user.email=a@b -c user.name=a commit -q -m two && git log --format=%s'
else
	echo "git: not installed, its cases skipped"
fi
# make -j2 of a small C project (4 files, gcc), its objects and program
# removed and a source changed since; then the program runs.
if command -v make >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1; then
	setup_make() {
		for i in 1 2 3; do
			printf 'int f%d(int x) { return x * %d; }\n' "$i" "$i" >"f$i.c"
		done
		printf '#include <stdio.h>\nint f1(int), f2(int), f3(int);\nint main(void) { printf("%%d\\n", f1(1) + f2(2) + f3(3)); return 0; }\n' >main.c
		printf 'OBJS = main.o f1.o f2.o f3.o\nprog: $(OBJS)\n\tgcc -o $@ $(OBJS)\n%%.o: %%.c\n\tgcc -O1 -c -o $@ $<\n' >Makefile
	}
	case_ make 'rm -f *.o prog; echo "int f3(int x) { return 0; }" >f3.c' 3 -- sh -c 'make -j2 && ./prog'
	case " ${FS_REPLAY_CASES:-make} " in
	*" make "*) grep -qx 14 "$WORK/make.rec" || fail "make: the program printed $(tail -1 "$WORK/make.rec")" ;;
	esac
else
	echo "make and gcc: not installed, their case skipped"
fi
# node writes, appends to, renames and lists files.
if command -v node >/dev/null 2>&1; then
	setup_node() {
		cat >w.js <<'EOF'
const fs = require('fs');
fs.mkdirSync('out/deep', { recursive: true });
fs.writeFileSync('out/deep/x.json', JSON.stringify({ a: [1, 2, 3] }));
console.log(fs.readFileSync('out/deep/x.json', 'utf8'));
fs.renameSync('out/deep/x.json', 'out/y.json');
fs.appendFileSync('out/log.txt', 'one\n');
fs.appendFileSync('out/log.txt', 'two\n');
console.log(fs.readdirSync('out').sort(), fs.statSync('out/y.json').size,
            fs.readFileSync('out/log.txt', 'utf8').length);
EOF
	}
	case_ node 'rm -r out; mkdir -p out/deep/x.json' 3 -- node w.js
else
	echo "SKIP: node part: no node on PATH"
fi
exit 0
