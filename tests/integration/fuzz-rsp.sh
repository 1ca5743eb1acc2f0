#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The gdb remote protocol stub under libFuzzer for a bounded time
# (FUZZ_SECONDS, default 20), from a seed corpus of gdb traffic: no crash,
# no leak, no hang, and only well-formed packets sent back (the target
# aborts otherwise).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
run_fuzzer fuzz_rsp corpus-rsp "${FUZZ_SECONDS:-20}"
