/* SPDX-License-Identifier: BSD-3-Clause */
/* `hermit replay [ID] [--autopilot] [-q]`: replay a recording (DESIGN.md "Replay"). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/common.h"
#include "replayer/replayer.h"

static void replay_usage(int ok)
{
	fprintf(ok ? stdout : stderr,
		"usage: hermit replay [ID] [--autopilot] [-q] [--port N] [--gdb PATH]\n"
		"                          [--gdbserver-only]\n"
		"\n"
		"Run a recording again, exactly: the same output, exit status and events,\n"
		"under gdb (reverse execution included), or without a debugger.\n"
		"ID is a recording of 'hermit record list'; without one, the newest.\n"
		"\n"
		"  --autopilot        replay without a debugger\n"
		"  --port N           serve gdb on 127.0.0.1:N (default: a free port)\n"
		"  --gdb PATH         the gdb to start (default: gdb)\n"
		"  --gdbserver-only   print the gdb command to connect, and serve\n"
		"  -q, --quiet   do not show the guest's stdout and stderr\n"
		"  --log=LEVEL   error, warn, info, debug or trace (default warn)\n"
		"\n"
		"A replay that departs from the recording stops with a line naming the\n"
		"event and exits 122. Under gdb, going back starts from a checkpoint\n"
		"('monitor checkpoints' lists them; HERMIT_CHECKPOINTS=0 turns them off).\n");
}

int cli_replay(int argc, char **argv)
{
	struct replay_options o = { 0 };
	int autopilot = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--autopilot") == 0) {
			autopilot = 1;
		} else if (strcmp(a, "--gdbserver-only") == 0) {
			o.gdbserver_only = 1;
		} else if ((strcmp(a, "--port") == 0 || strcmp(a, "--gdb") == 0) && i + 1 < argc) {
			if (a[2] == 'g') {
				o.gdb = argv[++i];
			} else {
				char *end;
				long port = strtol(argv[++i], &end, 10);

				if (*end || port < 0 || port > 65535) {
					hm_error("invalid --port '%s': expected 0 to 65535",
						 argv[i]);
					return HM_EXIT_INTERNAL;
				}
				o.port = (int)port;
			}
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			o.quiet = 1;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			replay_usage(1);
			return 0;
		} else if (strncmp(a, "--log=", 6) == 0) {
			enum hm_log_level level;

			if (hm_log_parse_level(a + 6, &level) < 0) {
				hm_error("invalid --log '%s': expected error, warn, info, debug or "
					 "trace",
					 a + 6);
				return HM_EXIT_INTERNAL;
			}
			hm_log_set_level(level);
		} else if (a[0] == '-') {
			hm_error("unknown option '%s' for 'hermit replay'", a);
			return HM_EXIT_INTERNAL;
		} else if (o.id) {
			hm_error("more than one recording given ('%s' and '%s')", o.id, a);
			return HM_EXIT_INTERNAL;
		} else {
			o.id = a;
		}
	}
	return autopilot ? replay_autopilot(&o) : replay_gdb(&o);
}
