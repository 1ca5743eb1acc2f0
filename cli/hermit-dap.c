/* SPDX-License-Identifier: BSD-3-Clause */
/* `hermit-dap`: the Debug Adapter Protocol on stdio, for VS Code and other
 * editors (dap/dap.h, docs/dap.md). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "dap/dap.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: hermit-dap [--hermit PATH] [--log=LEVEL] [--no-prefetch]\n"
		   "\n"
		   "A debug adapter (DAP) on stdin and stdout: an editor starts it and\n"
		   "launches a recording ('hermit record list') with a launch configuration\n"
		   "of type \"hermit\" (docs/dap.md). It replays the recording with\n"
		   "'hermit replay --gdbserver-only' on 127.0.0.1 and talks to it.\n"
		   "\n"
		   "  --hermit PATH  the hermit program (default: the one beside hermit-dap,\n"
		   "                 else hermit on PATH); launch's \"hermit\" overrides it\n"
		   "  --log=LEVEL    error, warn, info, debug or trace, on stderr (default warn)\n"
		   "  --no-prefetch  read a file's DWARF when a question needs it, not before\n");
}

int main(int argc, char **argv)
{
	struct dap_options o = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		enum hm_log_level level;

		if (strcmp(a, "--hermit") == 0 && i + 1 < argc) {
			o.hermit = argv[++i];
		} else if (strcmp(a, "--no-prefetch") == 0) {
			o.no_prefetch = 1;
		} else if (strncmp(a, "--log=", 6) == 0 && hm_log_parse_level(a + 6, &level) == 0) {
			hm_log_set_level(level);
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "hermit-dap: unknown option '%s'\n", a);
			usage(stderr);
			return HM_EXIT_INTERNAL;
		}
	}
	if (isatty(0))
		fprintf(stderr, "hermit-dap: speaks DAP on stdin and stdout, for an editor to "
				"start (--help)\n");
	return dap_serve(&o, 0, 1);
}
