#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hermit log-diff A B [--json] (docs/record-replay.md "log-diff"): on event
# logs written here, each differing in one way from a base log, it names
# the first frame that differs, each field that differs with both values
# (also args[3..5], the kind and the ticks, which the one-line description
# leaves out or which the comparison once skipped; the end frame's exit
# status), and for payloads the first byte that differs and the bytes from
# there, in hex; the two sides are never the same text. --json (hermit.log-diff/1) says the same. Then
# two recordings of a shell reading a line whose seventh byte changed.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
command -v python3 >/dev/null 2>&1 || skip "python3 writes the event logs here: no python3 on PATH"

# mklog OUT VARIANT: an event log (docs/record-replay.md "The event log")
# of a brk, a read of 64 bytes and a write, then the end; VARIANT changes
# one thing of it.
mklog() {
	python3 - "$1" "$2" <<'EOF' || fail "cannot write the log $1"
import lzma, struct, sys, zlib
out, variant = sys.argv[1:]
def frame(f, payload=b""):
    body = struct.pack("<12q", *f) + payload
    return struct.pack("<I", len(body)) + body + struct.pack("<I", zlib.crc32(body))
data = bytes(range(64))
# kind, task, nr, args[0..5], ret, ticks, out (an input frame: parks)
frames = [
    [2, 0, 12, 0, 0, 0, 0, 0, 0, 0x555555559000, 0, 0],
    [16, 0, 0, 3, 0x7ffe0000, 4096, 0, 0, 0, 64, 5, 0],
    [0, 0, 1, 1, 0x4000, 5, 0, 0, 0, 5, 7, 0x1234],
]
payloads = [b"", data, b""]
if variant == "args4":
    frames[2][7] = 9
elif variant == "retticks":
    frames[2][9], frames[2][10] = 4, 8
elif variant == "ticks":
    frames[2][10] = 8
elif variant == "out":
    frames[2][11] = 0x5678
elif variant == "kind":
    frames[0][0] = 1
elif variant == "data":
    payloads[1] = data[:37] + b"\xff" + data[38:]
elif variant == "longer":
    payloads[1] = data + b"xyz"
elif variant not in ("base", "cut", "status"):
    sys.exit("unknown variant " + variant)
if variant == "cut":
    frames, payloads = frames[:2], payloads[:2]
body = b"HMEVLOG3" + b"".join(frame(f, p) for f, p in zip(frames, payloads))
if variant != "cut":
    body += frame([32, 1 if variant == "status" else 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0])
open(out, "wb").write(lzma.compress(body, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32))
EOF
}

# two_sides FILE: no line of FILE shows the same text for A and B:
# "  NAME: A x, B y", "    A: bytes" / "    B: bytes", "  A, log: event" /
# "  B, log: event".
two_sides() {
	python3 - "$1" <<'EOF' || fail "$1 shows the same text for A and B: $(cat "$1")"
import re, sys
lines = open(sys.argv[1]).read().split("\n") + [""]
bad = []
for l, nxt in zip(lines, lines[1:]):
    m = re.match(r"^  ([a-z_]+(\[\d\])?): A (.*), B (.*)$", l)
    if m and m.group(1) != "data" and m.group(3) == m.group(4):
        bad.append(l)
    a = re.match(r"^    A: (.*)$", l) or re.match(r"^  A, [^:]*: (.*)$", l)
    b = re.match(r"^    B: (.*)$", nxt) or re.match(r"^  B, [^:]*: (.*)$", nxt)
    if a and (not b or a.group(1) == b.group(1)):
        bad.append(l + " / " + nxt)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
}

# diff_text VARIANT WANT: `log-diff base VARIANT` exits 122 and prints WANT
# (a here-document on stdin), with no side the same text as the other.
diff_text() {
	expect_status 122 log-diff "$WORK/base.xz" "$WORK/$1.xz"
	sed "s|$WORK/||g" "$WORK/status" | diff -u - "$WORK/status.want" ||
		fail "log-diff base $1 printed other lines"
	cp "$WORK/status" "$WORK/$1.out"
	two_sides "$WORK/$1.out"
}

for v in base args4 retticks ticks out kind data longer cut status; do
	mklog "$WORK/$v.xz" "$v"
done
expect_status 0 log-diff "$WORK/base.xz" "$WORK/base.xz"
echo "the logs are the same (4 events)" | diff -u - "$WORK/status" || fail "log-diff of a log with itself"

# args[4] is not in the one-line description: it is the same for both,
# said once, and the field tells A from B
cat >"$WORK/status.want" <<'EOF'
first divergence at event 2 (args[4] differs)
  last the same: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  both: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234
  args[4]: A 0x0, B 0x9
EOF
diff_text args4
cat >"$WORK/status.want" <<'EOF'
first divergence at event 2 (ret and ticks differ)
  last the same: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  A, base.xz: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234
  B, retticks.xz: task 0 write(0x1, 0x4000, 0x5) = 4 at tick 8, output 0000000000001234
  ret: A 5, B 4
  ticks: A 7, B 8
EOF
diff_text retticks
# the ticks alone: a divergence (a replay stops on it too)
cat >"$WORK/status.want" <<'EOF'
first divergence at event 2 (ticks differs)
  last the same: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  A, base.xz: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234
  B, ticks.xz: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 8, output 0000000000001234
  ticks: A 7, B 8
EOF
diff_text ticks
cat >"$WORK/status.want" <<'EOF'
first divergence at event 2 (out differs)
  last the same: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  A, base.xz: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234
  B, out.xz: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000005678
  out: A 0000000000001234, B 0000000000005678
EOF
diff_text out
cat >"$WORK/status.want" <<'EOF'
first divergence at event 0 (kind differs)
  both: task 0 syscall 12(0, 0, 0) = 93824992251904 at tick 0
  kind: A 2 (exit), B 1 (emulated)
EOF
diff_text kind
cat >"$WORK/status.want" <<'EOF'
first divergence at event 1 (data differs)
  last the same: task 0 syscall 12(0, 0, 0) = 93824992251904 at tick 0
  both: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  data: A 64 bytes, B 64 bytes, the first that differs is byte 37:
    A: 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34
    B: ff 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34
EOF
diff_text data
cat >"$WORK/status.want" <<'EOF'
first divergence at event 1 (data differs)
  last the same: task 0 syscall 12(0, 0, 0) = 93824992251904 at tick 0
  both: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  data: A 64 bytes, B 67 bytes, the first that differs is byte 64:
    A: (no more bytes)
    B: 78 79 7a
EOF
diff_text longer
cat >"$WORK/status.want" <<'EOF'
first divergence at event 2 (one log ends)
  last the same: task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5 (input)
  A, base.xz: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234
  B, cut.xz: the end of the log
EOF
diff_text cut
# the end frame keeps hermit's exit status where others keep the task
cat >"$WORK/status.want" <<'EOF'
first divergence at event 3 (exit_status differs)
  last the same: task 0 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234
  A, base.xz: the end of the run (exit status 0)
  B, status.xz: the end of the run (exit status 1)
  exit_status: A 0, B 1
EOF
diff_text status

# --json: the same, as fields and data
expect_status 122 log-diff --json "$WORK/base.xz" "$WORK/retticks.xz"
cp "$WORK/status" "$WORK/retticks.json"
expect_status 122 log-diff "$WORK/base.xz" "$WORK/data.xz" --json
cp "$WORK/status" "$WORK/data.json"
expect_status 122 log-diff --json "$WORK/base.xz" "$WORK/args4.xz"
cp "$WORK/status" "$WORK/args4.json"
expect_status 0 log-diff --json "$WORK/base.xz" "$WORK/base.xz"
cp "$WORK/status" "$WORK/same.json"
python3 - "$WORK" <<'EOF' || fail "log-diff --json is wrong"
import json, os, sys
w = sys.argv[1]
def load(name):
    return json.load(open(os.path.join(w, name)))
bad = []
def want(name, key, value):
    d = load(name)
    got = d
    for k in key:
        got = got[k] if isinstance(got, dict) and k in got or isinstance(got, list) else None
    if got != value:
        bad.append("%s %s is %r, not %r" % (name, key, got, value))
want("same.json", ["schema"], "hermit.log-diff/1")
want("same.json", ["same"], True)
want("same.json", ["events_compared"], 4)
want("retticks.json", ["same"], False)
want("retticks.json", ["index"], 2)
want("retticks.json", ["differs_in"], "result")
want("retticks.json", ["fields"], [{"name": "ret", "a": 5, "b": 4}, {"name": "ticks", "a": 7, "b": 8}])
want("retticks.json", ["a", "ticks"], 7)
want("retticks.json", ["b", "ticks"], 8)
want("args4.json", ["fields"], [{"name": "args[4]", "a": "0x0", "b": "0x9"}])
want("args4.json", ["differs_in"], "arguments")
want("data.json", ["differs_in"], "data")
want("data.json", ["first_byte"], 37)
want("data.json", ["fields"], [])
want("data.json", ["data"], {"offset": 37, "a_bytes": 64, "b_bytes": 64,
                             "a": "25262728292a2b2c2d2e2f3031323334",
                             "b": "ff262728292a2b2c2d2e2f3031323334"})
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

# ---- two recordings of a shell's read: the seventh byte of its input
# changed ----
# (through a pipe: a read from outside is logged with its bytes, a file's
# are not, docs/record-replay.md "Limits"; not cat, whose fstat of the pipe
# sees the pipe's times, which differ; without PWD, which the shell would
# stat, and the times of a folder made just before a run differ too)
export HERMIT_DATA_DIR="$WORK/data"
for text in 'hello world' 'hello World'; do
	printf '%s\n' "$text" | timeout -k 5 "$TEST_TIMEOUT" env -u PWD "$HERMIT" record start -- \
		sh -c 'read -r x; echo "$x"' >/dev/null 2>"$WORK/sh.err"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/sh.err" >&2; fail "record start of read exited $st"; }
done
expect_status 122 log-diff sh-0 sh-1
cp "$WORK/status" "$WORK/sh.out"
two_sides "$WORK/sh.out"
grep -q '^first divergence at event [0-9]* (data differs)$' "$WORK/sh.out" &&
	grep -q '^  both: task 0 read(0, .* (input)$' "$WORK/sh.out" &&
	grep -q '^  data: A [0-9]* bytes\{0,1\}, B [0-9]* bytes\{0,1\}, the first that differs is byte [0-9]*:$' "$WORK/sh.out" &&
	grep -q '^    A: 77' "$WORK/sh.out" && grep -q '^    B: 57' "$WORK/sh.out" ||
	fail "log-diff of the two recordings of read: $(cat "$WORK/sh.out")"
exit 0
