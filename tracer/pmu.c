/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "pmu" tick source: retired conditional branches counted by
 * perf_event_open raw events (DESIGN.md "Preemption"), the count rr uses
 * because it is exact in user space. This file chooses the event from the
 * CPU's vendor and model, probes whether the kernel lets us count it, and
 * holds the arithmetic that turns a wanted count into an overflow period
 * armed SKID ticks early (the interrupt lands late by up to the skid) and
 * the rest that is then single-stepped.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer.h"

/* Intel models from Ice Lake on, which count BR_INST_RETIRED.COND with
 * umask 0x11 (Intel SDM vol. 3B, chapter 20; rr's PerfCounters.cc). */
static const int intel_icelake_on[] = {
	0x6a, 0x6c, 0x7d, 0x7e, 0x8a, 0x8c, 0x8d, 0x8f, 0x97, 0x9a, 0xa7,
	0xaa, 0xac, 0xad, 0xae, 0xb7, 0xba, 0xbe, 0xbf, 0xc5, 0xc6, 0xcf,
};

int tracer_pmu_event(const char *vendor, int family, int model, uint64_t *config)
{
	if (strcmp(vendor, "GenuineIntel") == 0 && family == 6) {
		*config = 0x5101c4;
		for (size_t i = 0; i < sizeof(intel_icelake_on) / sizeof(intel_icelake_on[0]);
		     i++) {
			if (model == intel_icelake_on[i])
				*config = 0x5111c4;
		}
		return 0;
	}
	if ((strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0) &&
	    family >= 0x17) {
		*config = 0x5100d1; /* Zen: retired conditional branches */
		return 0;
	}
	return -ENOTSUP;
}

uint64_t tracer_pmu_period(uint64_t ticks, uint64_t skid)
{
	return ticks > skid ? ticks - skid : 1;
}

int64_t tracer_pmu_remaining(uint64_t target, uint64_t counted)
{
	/* Negative: the interrupt came later than the skid allows. */
	return (int64_t)(target - counted);
}

static int cpu_identity(char *vendor, size_t size, int *family, int *model)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");
	int found = 0;

	if (!f)
		return -errno;
	*family = *model = -1;
	vendor[0] = 0;
	while (fgets(line, sizeof(line), f) && found < 3) {
		char v[64];

		if (sscanf(line, "vendor_id : %63s", v) == 1) {
			snprintf(vendor, size, "%s", v);
			found++;
		} else if (sscanf(line, "cpu family : %d", family) == 1) {
			found++;
		} else if (sscanf(line, "model : %d", model) == 1) {
			found++;
		}
	}
	fclose(f);
	return found == 3 ? 0 : -ENOENT;
}

int tracer_pmu_probe(char *why, size_t size)
{
	struct perf_event_attr attr;
	char vendor[64];
	uint64_t config;
	int family, model, fd;

	if (cpu_identity(vendor, sizeof(vendor), &family, &model) < 0) {
		snprintf(why, size, "cannot read the CPU's identity in /proc/cpuinfo");
		return -ENOENT;
	}
	if (tracer_pmu_event(vendor, family, model, &config) < 0) {
		snprintf(why, size, "no retired-branch event known for %s family %d model %d",
			 vendor, family, model);
		return -ENOTSUP;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = config;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		snprintf(why, size, "perf_event_open: %s",
			 strerrorname_np(err) ? strerrorname_np(err) : "error");
		return -err;
	}
	close(fd);
	snprintf(why, size, "%s family %d model %d, raw event %#llx", vendor, family, model,
		 (unsigned long long)config);
	return 0;
}
