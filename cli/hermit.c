/* SPDX-License-Identifier: BSD-3-Clause */
/* hermit: the command. A thin main over the libraries; see cli.h. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/common.h"

void cli_usage(int ok)
{
	fprintf(ok ? stdout : stderr,
		"usage: hermit [--version] [--help] COMMAND [ARGS...]\n"
		"\n"
		"Run Linux programs deterministically.\n"
		"\n"
		"commands:\n"
		"  run [OPTIONS] -- PROG [ARGS...]   run PROG deterministically\n"
		"  record start [OPTIONS] -- PROG    run PROG and keep the run on disk\n"
		"  record list [--json]              the recordings kept\n"
		"  record rm ID...                   delete recordings\n"
		"  record clean                      delete every recording\n"
		"  replay [ID] --autopilot           replay a recording exactly\n"
		"  log-diff A B [--json]             the first divergence of two event logs\n"
		"  verification-report FILE          summarize a 'run --verify-report' file\n"
		"\n"
		"'hermit COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	int status;

	/* A guest that closes its pipe must not kill its supervisor. */
	signal(SIGPIPE, SIG_IGN);
	/* Ctrl-C reaches the guest through the tracer (recorder/signals.c),
	 * and hermit stays to report how the guest ended; a SIGINT sent to
	 * hermit alone is passed on to the guest (cli/signals.c). */
	cli_forward_signals();
	if (argc < 2) {
		hm_error("no command given: see 'hermit --help'");
		return HM_EXIT_INTERNAL;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("hermit %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		cli_usage(1);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0) {
		status = cli_run(argc - 1, argv + 1);
		hm_log_close();
		return status;
	}
	if (strcmp(argv[1], "log-diff") == 0)
		return cli_log_diff(argc - 1, argv + 1);
	if (strcmp(argv[1], "verification-report") == 0)
		return cli_verification_report(argc - 1, argv + 1);
	if (strcmp(argv[1], "record") == 0 || strcmp(argv[1], "replay") == 0) {
		status = argv[1][2] == 'c' ? cli_record(argc - 1, argv + 1)
					   : cli_replay(argc - 1, argv + 1);
		hm_log_close();
		return status;
	}
	if (argv[1][0] == '-')
		hm_error("unknown option '%s'", argv[1]);
	else
		hm_error("unknown command '%s': see 'hermit --help'", argv[1]);
	return HM_EXIT_INTERNAL;
}
