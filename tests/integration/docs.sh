#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README.md and docs/ are self-contained: every file they name is in the
# repository (no ../ path, no DESIGN.md from elsewhere), and docs/design.md,
# which README points to for the architecture, is there.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99
top=$TESTS_SRCDIR/..

[ -f "$top/docs/design.md" ] || fail "there is no docs/design.md"
grep -q 'docs/design\.md' "$top/README.md" || fail "README.md does not point to docs/design.md"
for doc in "$top/README.md" "$top"/docs/*.md; do
	name=${doc#"$top/"}
	# a path that leaves the repository, or the design by another name
	grep -n '\.\./\|DESIGN\.md\|STYLE\.md' "$doc" && fail "$name names a file outside the repository"
	# the repository's own paths it names (docs/x.md, cli/signals.c, ...)
	grep -o '\(docs\|tests\|bench\|cli\|common\|dwarf\|gdbstub\|recorder\|replayer\|tracer\)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$doc" |
		sort -u >"$WORK/paths"
	# and, in docs/, the pages it links to: [text](page.md)
	case $name in
	docs/*) sed -n 's/.*](\([A-Za-z0-9_.-]*\.md\)).*/docs\/\1/p' "$doc" >>"$WORK/paths" ;;
	esac
	while read -r path; do
		# folders named in prose ("tests/guests/") and file names
		# with wildcards are left alone; files must exist
		case $path in
		*'*'*) continue ;;
		esac
		[ -e "$top/$path" ] || fail "$name names $path, which the repository does not have"
	done <"$WORK/paths"
done
exit 0
