/* SPDX-License-Identifier: BSD-3-Clause */
/* verification-report: a thin main over cli_verification_report. */
#include "config.h"

#include "cli/cli.h"

int main(int argc, char **argv)
{
	return cli_verification_report(argc, argv);
}
