/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the event-log reader (replayer/evlog.c) and the xz
 * layer under it (common/xz.c): whatever the bytes of events.xz, reading
 * them ends in frames, a clean end, a cut or -EBADMSG; never a crash, a
 * hang or a leak. Built with clang -fsanitize=fuzzer,address,undefined when
 * configure finds clang; tests/integration/fuzz.sh runs it for a bounded
 * time from the seed corpus in tests/fuzz/corpus-evlog/.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replayer/replayer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_log_check check;
	char path[64];
	int fd = memfd_create("events.xz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (replay_log_check(path, &check) == 0 && check.frames < check.events)
			abort(); /* every event is a frame */
	}
	close(fd);
	return 0;
}
