#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# hermit-dap at a stop (issue 15, "Speed"): on a recording of
# tests/guests/inspectme, stopped in the qsort comparator (a stack
# through libc), the time of stackTrace + scopes +
# variables (Locals and Arguments) of the top frame, as VS Code asks for
# them after a stop: at the first stop of the session and the median of
# the next stops; then the same with --no-prefetch (the libraries' DWARF
# read at the first stop that needs it, not while the adapter was idle
# before). Target: at most 50 ms.
#
# Not a test: it prints figures, and exits 1 only when something fails.
# Environment: HERMIT, HERMIT_DAP (default ../hermit, ../hermit-dap from
# here), CC, STOPS (default 9); node and tests/dap/node_modules
# (npm ci --prefix tests/dap).

set -u
here=$(cd "$(dirname "$0")" && pwd)
HERMIT=${HERMIT:-$here/../hermit}
HERMIT_DAP=${HERMIT_DAP:-$here/../hermit-dap}
CC=${CC:-cc}
STOPS=${STOPS:-9}
export HERMIT_EPOCH=${HERMIT_EPOCH:-2026-01-01T00:00:00Z}

die() {
	echo "bench: $*" >&2
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hermit-bench.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
. "$here/lib.sh"
need_dap_client
export HERMIT_DATA_DIR="$tmp/data"
"$CC" -O0 -g -pthread -o "$tmp/inspectme" "$here/../tests/guests/inspectme.c" ||
	die "cannot build inspectme.c"
"$HERMIT" record start -- "$tmp/inspectme" >/dev/null 2>&1 || die "recording failed"
HERMIT_DAP=$HERMIT_DAP STOPS=$STOPS NODE_PATH="$here/../tests/dap/node_modules" \
	node "$here/dap-stop.js" || die "the DAP session failed"
# The same with the DWARF read only when a question needs it: what the
# first stop costs when it comes before the adapter had time to read it.
printf '#!/bin/sh\nexec "%s" --no-prefetch "$@"\n' "$HERMIT_DAP" >"$tmp/no-prefetch"
chmod +x "$tmp/no-prefetch"
printf 'without prefetch: '
HERMIT_DAP=$tmp/no-prefetch STOPS=$STOPS NODE_PATH="$here/../tests/dap/node_modules" \
	node "$here/dap-stop.js" || die "the DAP session failed"
