# SPDX-License-Identifier: BSD-3-Clause
# fastpath_streams.py ON OFF: the event logs (events.xz, docs/record-replay.md
# "The event log") of one program recorded with the fast path on and off
# (docs/fastpath.md "Recording and replay") differ only as the design says:
# drop from OFF the frames of the reads the fast path answers in the guest
# (clock_gettime of ids 0 to 7, gettimeofday with no timezone, time), and
# each task's frames are the same in both, in kind, syscall, args[0] and
# args[1], result, ticks and output digest, and in their payloads but for
# those of stat calls (the host's times of a file from outside, such as
# the pipe or file stdout is, which differ from one recording to the next
# in either mode). What may differ besides is what carries the clock's
# values: the argument registers a clock_gettime that the fast code hands
# to the kernel leaves unused (args[2] to [5], its scratch), and the end
# frame's count of events, which is OFF's less the dropped frames. Prints
# what it found; exit 1 at the first other difference.
import lzma
import struct
import sys

END = 32
STATS = (4, 5, 6, 262, 332)  # stat, fstat, lstat, newfstatat, statx


def frames(path):
    data = lzma.open(path).read()
    if data[:8] != b"HMEVLOG3":
        sys.exit(f"{path}: not an event log")
    out, i = [], 8
    while i < len(data):
        (n,) = struct.unpack_from("<I", data, i)
        body = data[i + 4 : i + 4 + n]
        i += 8 + n
        out.append((struct.unpack_from("<12q", body), body[96:]))
    return out


def fast(f):
    kind, nr, a0, a1 = f[0], f[2], f[3], f[4]
    return kind == 1 and ((nr == 228 and 0 <= a0 <= 7) or (nr == 96 and a1 == 0) or nr == 201)


def per_task(fr):
    tasks = {}
    for f, p in fr:
        if f[0] != END:
            tasks.setdefault(f[1], []).append((f, p))
    return tasks


on_all, off_all = frames(sys.argv[1]), frames(sys.argv[2])
dropped = sum(1 for f, _ in off_all if fast(f))
if any(fast(f) for f, _ in on_all):
    sys.exit("FAIL: the log made with the fast path on has a frame of a read it answers")
on, off = per_task(on_all), per_task([x for x in off_all if not fast(x[0])])
if sorted(on) != sorted(off):
    sys.exit(f"FAIL: tasks {sorted(on)} on, {sorted(off)} off")
payloads = 0
for task in sorted(on):
    if len(on[task]) != len(off[task]):
        sys.exit(f"FAIL: task {task}: {len(on[task])} frames on, {len(off[task])} off but the reads")
    for k, ((x, px), (y, py)) in enumerate(zip(on[task], off[task])):
        key = lambda f: (f[0], f[2], f[3], f[4], f[9], f[10], f[11])
        scratch = x[2] == 228 and x[3:5] == y[3:5]
        if key(x) != key(y) or (x[5:9] != y[5:9] and not scratch):
            sys.exit(f"FAIL: task {task} frame {k}: on {x}, off {y}")
        if px != py and x[2] not in STATS:
            sys.exit(f"FAIL: task {task} frame {k}: {x}: other payloads")
        payloads += px != py
end_on, end_off = on_all[-1][0], off_all[-1][0]
if end_on[0] != END or end_off[0] != END or end_on[1] != end_off[1]:
    sys.exit(f"FAIL: end frames {end_on}, {end_off}")
if end_off[2] - end_on[2] != dropped:
    sys.exit(f"FAIL: {end_on[2]} events on, {end_off[2]} off, {dropped} reads")
print(f"same but {dropped} reads, {payloads} stat payloads")
