#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Real multithreaded programs, recorded and replayed (issue "Exact
# progress without a PMU"): node with worker_threads, java with two
# threads, python3 with 8 threads, `sort --parallel=4` and `xz -T2`. Each
# is recorded and replayed 5 times; every replay must exit 0 and print
# what its recording printed, and every recording what the program prints
# natively where that is fixed. node and java parts are skipped, with the
# reason printed, where the program is not installed.
#
# Every part runs in its own subshell so that one failure does not hide
# the others.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export HERMIT_DATA_DIR="$WORK/data"
export LC_ALL=C
TEST_TIMEOUT=180

# five NAME ARGS...: record ARGS and replay it, 5 times; each replay exits
# 0 with the recording's stdout. The first recording's output stays in
# $WORK/NAME.rec.1.
five() {
	name=$1
	shift
	for i in 1 2 3 4 5; do
		hm "$WORK/$name.rec.$i" record start -- "$@"
		st=$?
		[ "$st" = 0 ] || { tail -5 "$WORK/$name.rec.$i.err" >&2; fail "$name: recording $i exited $st"; }
		hm "$WORK/$name.rep.$i" replay --autopilot
		st=$?
		[ "$st" = 0 ] || { tail -5 "$WORK/$name.rep.$i.err" >&2; fail "$name: replay $i exited $st"; }
		cmp -s "$WORK/$name.rec.$i" "$WORK/$name.rep.$i" ||
			fail "$name: replay $i printed other output than its recording"
	done
	[ -s "$WORK/$name.rec.1" ] || fail "$name: printed nothing"
}

t_node() {
	command -v node >/dev/null 2>&1 || { echo "SKIP: node part: no node on PATH"; return 0; }
	cat >"$WORK/w.js" <<'JS'
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
if (isMainThread) {
  let done = 0; const sums = [];
  for (let i = 0; i < 2; i++) {
    const w = new Worker(__filename, { workerData: i });
    w.on('message', (m) => { sums[i] = m; if (++done === 2) console.log('sums', sums.join(' ')); });
  }
} else {
  let s = 0;
  for (let i = 0; i < 2000000; i++) s = (s + i * (workerData + 1)) % 1000003;
  parentPort.postMessage(s);
}
JS
	node "$WORK/w.js" >"$WORK/node.want" || fail "node outside hermit failed"
	five node node "$WORK/w.js"
	cmp -s "$WORK/node.want" "$WORK/node.rec.1" || fail "node: recorded $(cat "$WORK/node.rec.1"), not $(cat "$WORK/node.want")"
}

t_java() {
	command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 ||
		{ echo "SKIP: java part: no java and javac on PATH"; return 0; }
	cat >"$WORK/T.java" <<'JAVA'
public class T {
    public static void main(String[] a) throws Exception {
        Thread[] ts = new Thread[2];
        long[] sums = new long[2];
        for (int i = 0; i < 2; i++) {
            final int n = i;
            ts[i] = new Thread(() -> {
                long s = 0;
                for (int k = 0; k < 3000000; k++) s = (s + k * (n + 1)) % 1000003;
                sums[n] = s;
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("sums " + sums[0] + " " + sums[1]);
    }
}
JAVA
	javac -d "$WORK" "$WORK/T.java" || fail "javac failed"
	java -cp "$WORK" T >"$WORK/java.want" || fail "java outside hermit failed"
	five java java -cp "$WORK" T
	cmp -s "$WORK/java.want" "$WORK/java.rec.1" || fail "java: recorded $(cat "$WORK/java.rec.1"), not $(cat "$WORK/java.want")"
}

t_python() {
	command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 part: no python3 on PATH"; return 0; }
	PY='import threading, time
def work():
    for i in range(20):
        print(threading.current_thread().name, i)
        time.sleep(0.001)
threads = [threading.Thread(target=work, name="t%d" % n) for n in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("done")'
	five py python3 -c "$PY"
	[ "$(wc -l <"$WORK/py.rec.1")" = 161 ] || fail "python3: $(wc -l <"$WORK/py.rec.1") lines, not 161"
}

# 300,000 lines in a fixed pseudo-random order: enough for sort to use
# its threads (SUBTHREAD_LINES_HEURISTIC), and 2 MB of them for xz.
awk 'BEGIN { srand(1); for (i = 0; i < 300000; i++) printf "%08d line %d\n", int(rand() * 100000000), i }' \
	>"$WORK/lines" || fail "cannot make the input file"
head -c 2000000 "$WORK/lines" >"$WORK/xzin"

t_sort() {
	sort "$WORK/lines" >"$WORK/sort.want" || fail "sort outside hermit failed"
	five sort sort --parallel=4 "$WORK/lines"
	cmp -s "$WORK/sort.want" "$WORK/sort.rec.1" || fail "sort --parallel=4: not the sorted input"
}

t_xz() {
	xz -T2 --block-size=262144 -c "$WORK/xzin" >"$WORK/xz.want" || fail "xz outside hermit failed"
	five xz xz -T2 --block-size=262144 -c "$WORK/xzin"
	cmp -s "$WORK/xz.want" "$WORK/xz.rec.1" || fail "xz -T2: not the bytes xz makes outside hermit"
}

status=0
for t in t_node t_java t_python t_sort t_xz; do
	($t) || { echo "$t failed" >&2; status=1; }
done
exit $status
