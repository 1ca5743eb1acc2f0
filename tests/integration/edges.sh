#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Corners of the process model that once hung hermit or changed what the
# guest saw (tests/guests/edges.c): each must end, and print what it does
# natively.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
TEST_TIMEOUT=30

expect_status 0 run -- "$GUESTS/edges" pthread_exit
printf 'worker 0\nworker 1\nworker 2\n' | diff -u - "$WORK/status" || fail "pthread_exit: the worker did not run on"

expect_status 0 run -- "$GUESTS/edges" thread_exec
echo 'exec from a thread' | diff -u - "$WORK/status" || fail "thread_exec: wrong output"

# A fault on an instruction that is a preemption site is the guest's: it
# dies of SIGSEGV (139) whatever the seed, and never spins.
for s in 1 2 3 4 5 6; do
	expect_status 139 run --chaos --seed "$s" -- "$GUESTS/edges" fault
done

expect_status 0 run -- "$GUESTS/edges" sigchld
echo 'sleep left 0' | diff -u - "$WORK/status" || fail "sigchld: an ignored SIGCHLD cut the sleep short"

expect_status 0 run -- "$GUESTS/edges" timeout
echo 'timeout struct 1.000000000, elapsed 3.0 s' | diff -u - "$WORK/status" ||
	fail "timeout: sigtimedwait's read-only timeout was changed"
exit 0
