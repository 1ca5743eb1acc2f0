# SPDX-License-Identifier: BSD-3-Clause
# Shared by the bench scripts: the time of a run and the median of several.
# Sourced after `tmp` (a scratch folder) and `die` are defined.

# Set REPLY to the time of day in seconds. Bash 5's EPOCHREALTIME and a
# variable (not a command substitution) spare a fork, which matters next
# to /bin/true's few milliseconds.
if [ -n "${EPOCHREALTIME:-}" ]; then
	now() { REPLY=${EPOCHREALTIME/,/.}; }
else
	now() { REPLY=$(date +%s.%N); }
fi

# Seconds that one run of "$@" takes; dies if it fails.
time_once() {
	local t0

	now
	t0=$REPLY
	"$@" >/dev/null 2>"$tmp/stderr" || {
		local rc=$?
		cat "$tmp/stderr" >&2
		die "'$*' failed with status $rc"
	}
	now
	awk -v a="$t0" -v b="$REPLY" 'BEGIN { printf "%.6f\n", b - a }'
}

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}


# For the hermit-dap benches: node and the DAP test client
# (tests/dap/node_modules, from `npm ci --prefix tests/dap`); dies without.
need_dap_client() {
	command -v node >/dev/null || die "node is not installed"
	[ -d "$here/../tests/dap/node_modules/@vscode/debugadapter-testsupport" ] ||
		die "run 'npm ci --prefix tests/dap' first"
}
