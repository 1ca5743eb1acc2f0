/* SPDX-License-Identifier: BSD-3-Clause */
/* cli: the `hermit` subcommands, their options and their exit codes. */
#ifndef HERMIT_CLI_H
#define HERMIT_CLI_H

/* `hermit run [OPTIONS] -- PROG [ARGS...]`; returns hermit's exit status. */
int cli_run(int argc, char **argv);
/* Print the usage of `hermit` (to stdout when OK, else stderr). */
void cli_usage(int ok);
void cli_run_usage(int ok);

#endif /* HERMIT_CLI_H */
