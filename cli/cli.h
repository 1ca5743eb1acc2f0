/* SPDX-License-Identifier: BSD-3-Clause */
/* cli: the `hermit` subcommands, their options and their exit codes. */
#ifndef HERMIT_CLI_H
#define HERMIT_CLI_H

#include "recorder/recorder.h"

/* `hermit run [OPTIONS] -- PROG [ARGS...]`; returns hermit's exit status. */
int cli_run(int argc, char **argv);

/* The options of `run`, which `record start` shares. */
struct cli_run_args {
	struct rec_options opts;
	int verify;	    /* 1: --verify, 2: --verify-strict */
	const char *report; /* --verify-report */
};

/* Parse the options of `hermit CMD` (run or record start) from ARGV[1]
 * on: -1 to go on with *A, or the status to exit with (0 after --help). */
int cli_run_parse(int argc, char **argv, const char *cmd, struct cli_run_args *a);
/* `hermit record start|list|rm|clean ...` */
int cli_record(int argc, char **argv);
void cli_record_usage(int ok);
int cli_record_list(int argc, char **argv);
int cli_record_rm(int argc, char **argv);
/* Remove every recording but those still being recorded. */
int cli_record_clean(int argc, char **argv);
/* `hermit log-diff A B [--json]`: 0 same, 122 diverged, 125 bad input. */
int cli_log_diff(int argc, char **argv);
/* `hermit replay [ID] [--autopilot] [-q]` */
int cli_replay(int argc, char **argv);
/* Catch SIGINT and SIGQUIT: the terminal's are left to the guest, which
 * got them too; one sent to hermit alone is passed on to hermit's
 * descendants in its process group, as the terminal would have. */
void cli_forward_signals(void);
/* Print the usage of `hermit` (to stdout when OK, else stderr). */
void cli_usage(int ok);
void cli_run_usage(int ok);

/* `hermit run --verify[-strict]`: run twice and compare; write the JSON
 * report to REPORT if not NULL. Returns hermit's exit status: 122 for a
 * divergence, else the guest's. */
int cli_verify(struct rec_options *opts, int strict, const char *report);
/* `hermit verification-report FILE` and the program `verification-report
 * FILE`: 0 (same), 122 (diverged) or 125. */
int cli_verification_report(int argc, char **argv);

#endif /* HERMIT_CLI_H */
