/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit run`: option parsing for a deterministic run. Options follow the
 * original Hermit's names (--seed, --epoch, --no-namespace, --network) and
 * stop at the first word that is not one, so `hermit run ls -l` works
 * without `--`.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/common.h"
#include "recorder/recorder.h"

extern char **environ;

enum {
	OPT_SEED = 256,
	OPT_EPOCH,
	OPT_STRICT,
	OPT_NO_NAMESPACE,
	OPT_NETWORK,
	OPT_LOG,
	OPT_LOG_FILE,
	OPT_HELP,
	OPT_TIMEOUT,
	OPT_VIRTUAL_TIMEOUT,
	OPT_PREEMPT,
	OPT_CHAOS,
	OPT_SCHED_SEED,
	OPT_CHAOS_SEEDED_TIMESLICE,
	OPT_MAX_TIMESLICE,
	OPT_VERIFY,
	OPT_VERIFY_STRICT,
	OPT_VERIFY_REPORT,
};

static const struct option run_options[] = {
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "epoch", required_argument, NULL, OPT_EPOCH },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "no-namespace", no_argument, NULL, OPT_NO_NAMESPACE },
	{ "network", required_argument, NULL, OPT_NETWORK },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "virtual-timeout", required_argument, NULL, OPT_VIRTUAL_TIMEOUT },
	{ "preempt", required_argument, NULL, OPT_PREEMPT },
	{ "chaos", no_argument, NULL, OPT_CHAOS },
	{ "sched-seed", required_argument, NULL, OPT_SCHED_SEED },
	{ "chaos-seeded-timeslice", no_argument, NULL, OPT_CHAOS_SEEDED_TIMESLICE },
	{ "max-timeslice", required_argument, NULL, OPT_MAX_TIMESLICE },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "verify-strict", no_argument, NULL, OPT_VERIFY_STRICT },
	{ "verify-report", required_argument, NULL, OPT_VERIFY_REPORT },
	{ NULL, 0, NULL, 0 },
};

void cli_run_usage(int ok)
{
	fprintf(ok ? stdout : stderr,
		"usage: hermit run [OPTIONS] [--] PROG [ARGS...]\n"
		"\n"
		"Run PROG deterministically: the same thread schedule, time, randomness\n"
		"and process ids on every run.\n"
		"\n"
		"  --seed N            seed of the guest's randomness (default 0)\n"
		"  --epoch TIME        wall-clock time at start, RFC 3339 (or HERMIT_EPOCH);\n"
		"                      default: the host time now, printed to repeat the run\n"
		"  --strict            refuse to run without --epoch or HERMIT_EPOCH\n"
		"  --no-namespace      no user, pid, mount, ipc, uts and network namespaces\n"
		"  --network=host      keep the host network (default: loopback only)\n"
		"  --preempt=SOURCE    auto, pmu, sites or none: what interrupts a thread that\n"
		"                      makes no syscalls (default auto)\n"
		"  --chaos             seeded random priorities and timeslices, to find races\n"
		"  --sched-seed N      seed of the scheduler's choices (default: --seed)\n"
		"  --chaos-seeded-timeslice\n"
		"                      draw the maximum timeslice from the seed too\n"
		"  --max-timeslice N   ticks a thread may run before others get a turn\n"
		"                      (default 1000000)\n"
		"  --verify            run twice; compare output, exit status and event digest\n"
		"                      (a divergence exits 122)\n"
		"  --verify-strict     --verify, comparing the whole event stream\n"
		"  --verify-report FILE  write the comparison as JSON (schema hermit.verify/1)\n"
		"  --timeout DURATION  kill the guest after this much wall-clock time (exit 124)\n"
		"  --virtual-timeout DURATION\n"
		"                      end the run when virtual time passes this (exit 121)\n"
		"  --log=LEVEL         error, warn, info, debug or trace (default warn)\n"
		"  --log-file FILE     write the log to FILE instead of stderr\n"
		"  --help              show this help\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The host time now, whole seconds, for a run without an epoch. */
static int64_t host_epoch(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * HM_NS_PER_SEC;
}

/* Whether the in-guest clock is on where HERMIT_FASTPATH is not set. */
#define CLI_FASTPATH_DEFAULT 1

int cli_run_parse(int argc, char **argv, const char *cmd, struct cli_run_args *a)
{
	struct rec_options opts = { 0 };
	const char *epoch = getenv("HERMIT_EPOCH"), *epoch_from = "HERMIT_EPOCH";
	int strict = 0, sched_seed_set = 0, verify = 0, c, err;
	const char *report = NULL;

	memset(a, 0, sizeof(*a));
	opts.namespaces = 1;
	opts.envp = environ;
	opts.event_fd = -1;
	/* HERMIT_FASTPATH=0: every clock read of the vDSO stops, as before
	 * docs/fastpath.md's in-guest clock; 1: that clock */
	{
		const char *fp = getenv("HERMIT_FASTPATH");

		opts.fastpath = fp && *fp ? strcmp(fp, "0") != 0 : CLI_FASTPATH_DEFAULT;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_SEED:
			if (parse_u64(optarg, &opts.seed) < 0) {
				hm_error("invalid --seed '%s': not an unsigned integer", optarg);
				return HM_EXIT_INTERNAL;
			}
			break;
		case OPT_EPOCH:
			epoch = optarg;
			epoch_from = "--epoch";
			break;
		case OPT_STRICT:
			strict = 1;
			break;
		case OPT_NO_NAMESPACE:
			opts.namespaces = 0;
			break;
		case OPT_NETWORK:
			if (strcmp(optarg, "host") == 0) {
				opts.network_host = 1;
			} else if (strcmp(optarg, "none") == 0 || strcmp(optarg, "loopback") == 0) {
				opts.network_host = 0;
			} else {
				hm_error("invalid --network '%s': expected host or loopback",
					 optarg);
				return HM_EXIT_INTERNAL;
			}
			break;
		case OPT_LOG: {
			enum hm_log_level level;

			if (hm_log_parse_level(optarg, &level) < 0) {
				hm_error(
					"invalid --log '%s': expected error, warn, info, debug or trace",
					optarg);
				return HM_EXIT_INTERNAL;
			}
			hm_log_set_level(level);
			break;
		}
		case OPT_LOG_FILE:
			err = hm_log_set_file(optarg);
			if (err) {
				hm_error("cannot open log file '%s': %s", optarg, hm_strerror(err));
				return HM_EXIT_INTERNAL;
			}
			break;
		case OPT_TIMEOUT:
		case OPT_VIRTUAL_TIMEOUT: {
			int64_t ns;

			if (hm_parse_duration(optarg, &ns) < 0 || ns <= 0) {
				hm_error(
					"invalid --%s '%s': expected a duration such as 10s or 500ms",
					c == OPT_TIMEOUT ? "timeout" : "virtual-timeout", optarg);
				return HM_EXIT_INTERNAL;
			}
			if (c == OPT_TIMEOUT)
				opts.timeout_ns = ns;
			else
				opts.virtual_timeout_ns = ns;
			break;
		}
		case OPT_PREEMPT:
			if (strcmp(optarg, "auto") == 0) {
				opts.preempt = REC_PREEMPT_AUTO;
			} else if (strcmp(optarg, "pmu") == 0) {
				opts.preempt = REC_PREEMPT_PMU;
			} else if (strcmp(optarg, "sites") == 0) {
				opts.preempt = REC_PREEMPT_SITES;
			} else if (strcmp(optarg, "none") == 0) {
				opts.preempt = REC_PREEMPT_NONE;
			} else {
				hm_error(
					"invalid --preempt '%s': expected auto, pmu, sites or none",
					optarg);
				return HM_EXIT_INTERNAL;
			}
			break;
		case OPT_CHAOS:
			opts.chaos = 1;
			break;
		case OPT_SCHED_SEED:
			if (parse_u64(optarg, &opts.sched_seed) < 0) {
				hm_error("invalid --sched-seed '%s': not an unsigned integer",
					 optarg);
				return HM_EXIT_INTERNAL;
			}
			sched_seed_set = 1;
			break;
		case OPT_CHAOS_SEEDED_TIMESLICE:
			opts.chaos_seeded_timeslice = 1;
			break;
		case OPT_MAX_TIMESLICE:
			if (parse_u64(optarg, &opts.max_timeslice) < 0 || opts.max_timeslice == 0) {
				hm_error("invalid --max-timeslice '%s': not a positive integer",
					 optarg);
				return HM_EXIT_INTERNAL;
			}
			break;
		case OPT_VERIFY:
			verify = verify ? verify : 1;
			break;
		case OPT_VERIFY_STRICT:
			verify = 2;
			break;
		case OPT_VERIFY_REPORT:
			report = optarg;
			break;
		case 'h':
		case OPT_HELP:
			if (strcmp(cmd, "run") == 0)
				cli_run_usage(1);
			else
				cli_record_usage(1);
			return 0;
		default:
			if (optopt)
				hm_error("unknown option '-%c' for 'hermit %s'", optopt, cmd);
			else
				hm_error("unknown option '%s' for 'hermit %s'", argv[optind - 1],
					 cmd);
			return HM_EXIT_INTERNAL;
		}
	}
	if (optind >= argc) {
		hm_error("nothing to run: usage: hermit %s [OPTIONS] -- PROG [ARGS...]", cmd);
		return HM_EXIT_INTERNAL;
	}
	if (epoch && *epoch) {
		if (hm_parse_rfc3339(epoch, &opts.epoch_ns) < 0) {
			hm_error(
				"invalid %s '%s': not an RFC 3339 time such as 2026-01-01T00:00:00Z",
				epoch_from, epoch);
			return HM_EXIT_INTERNAL;
		}
	} else if (strict) {
		hm_error("cannot run with --strict: no --epoch or HERMIT_EPOCH given");
		return HM_EXIT_INTERNAL;
	} else {
		char text[64];

		opts.epoch_ns = host_epoch();
		hm_format_rfc3339(opts.epoch_ns, text, sizeof(text));
		hm_notice("--epoch=%s (the host time now; pass it to repeat this run)", text);
	}
	if (!sched_seed_set)
		opts.sched_seed = opts.seed;
	opts.argv = argv + optind;
	if (report && !verify) {
		hm_error("--verify-report needs --verify or --verify-strict");
		return HM_EXIT_INTERNAL;
	}
	a->opts = opts;
	a->verify = verify;
	a->report = report;
	return -1;
}

int cli_run(int argc, char **argv)
{
	struct cli_run_args a;
	struct rec_result res;
	int status = cli_run_parse(argc, argv, "run", &a);

	if (status >= 0)
		return status;
	if (a.verify)
		return cli_verify(&a.opts, a.verify == 2, a.report);
	if (rec_run(&a.opts, &res))
		return HM_EXIT_INTERNAL;
	hm_info("%" PRIu64 " events, digest %016" PRIx64, res.events, res.digest);
	return res.exit_status;
}
