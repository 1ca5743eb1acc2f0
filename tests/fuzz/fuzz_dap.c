/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for hermit-dap's framing and dispatcher (dap/): whatever
 * bytes a client sends, the adapter answers without a crash, a hang or a
 * leak, and everything it sends is a Content-Length message whose body is
 * one JSON object with a type and a seq one more than the last. The first
 * input byte picks how the rest is fed: odd, as raw bytes in pieces of
 * varying size (the framer's ground); even, as bodies separated by
 * newlines that this harness frames itself, so the fuzzer reaches the
 * request handlers without having to find lengths. No replay runs
 * (dap_options.no_launch): requests that need one are refused, as before
 * a launch. Built with clang -fsanitize=fuzzer,address,undefined when
 * configure finds clang; tests/integration/fuzz-dap.sh runs it from
 * tests/fuzz/corpus-dap/.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dap/dap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
	struct dap_framer check; /* parses what the adapter sends */
	double seq;
};

static int sink_send(void *io, const char *bytes, size_t len)
{
	struct sink *k = io;
	const char *body;
	size_t blen;
	int got;

	dap_framer_push(&k->check, bytes, len);
	while ((got = dap_framer_next(&k->check, &body, &blen)) != 0) {
		cJSON *m, *seq;

		if (got < 0)
			abort(); /* the adapter framed a message wrongly */
		m = cJSON_ParseWithLengthOpts(body, blen + 1, NULL, 1);
		seq = cJSON_GetObjectItemCaseSensitive(m, "seq");
		if (!cJSON_IsObject(m) || !cJSON_IsNumber(seq) || seq->valuedouble != k->seq + 1 ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "type")))
			abort();
		k->seq = seq->valuedouble;
		cJSON_Delete(m);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dap_options o = { .hermit = "/nonexistent/hermit", .no_launch = 1 };
	struct sink k = { 0 };
	struct dap *d;

	if (!size)
		return 0;
	dap_framer_init(&k.check);
	d = dap_new(&o, sink_send, &k);
	if (data[0] & 1) {
		size_t i = 1, piece = (data[0] >> 1) % 7 + 1;

		while (i < size && !dap_input(d, data + i, size - i < piece ? size - i : piece))
			i += piece;
	} else {
		const uint8_t *p = data + 1, *end = data + size;

		while (p < end) {
			const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			char head[64];
			int h = snprintf(head, sizeof(head), "Content-Length: %zu\r\n\r\n", n);

			if (dap_input(d, head, (size_t)h) || dap_input(d, p, n))
				break;
			p += n + 1;
		}
	}
	dap_free(d);
	dap_framer_free(&k.check);
	return 0;
}
