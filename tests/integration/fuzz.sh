#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The event-log reader under libFuzzer for a bounded time (FUZZ_SECONDS,
# default 30), from a seed corpus of real recordings: no crash, no leak,
# no hang.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
run_fuzzer fuzz_evlog corpus-evlog "${FUZZ_SECONDS:-30}"
