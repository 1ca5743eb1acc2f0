#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hermit-dap's framing and request dispatcher under libFuzzer for a bounded
# time (FUZZ_SECONDS, default 20), from a seed corpus of client traffic: no
# crash, no leak, no hang, and only well-framed JSON messages with seq in
# order sent back (the target aborts otherwise).
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
run_fuzzer fuzz_dap corpus-dap "${FUZZ_SECONDS:-20}"
