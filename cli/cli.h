/* SPDX-License-Identifier: BSD-3-Clause */
/* cli: the `hermit` subcommands, their options and their exit codes. */
#ifndef HERMIT_CLI_H
#define HERMIT_CLI_H

/* `hermit run [OPTIONS] -- PROG [ARGS...]`; returns hermit's exit status. */
int cli_run(int argc, char **argv);
/* Print the usage of `hermit` (to stdout when OK, else stderr). */
void cli_usage(int ok);
void cli_run_usage(int ok);

struct rec_options;

/* `hermit run --verify[-strict]`: run twice and compare; write the JSON
 * report to REPORT if not NULL. Returns hermit's exit status: 122 for a
 * divergence, else the guest's. */
int cli_verify(struct rec_options *opts, int strict, const char *report);
/* `verification-report FILE`: 0 (same), 122 (diverged) or 125. */
int cli_verification_report(int argc, char **argv);

#endif /* HERMIT_CLI_H */
