/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A recording's manifest.json (DESIGN.md "Recordings"): its "files" are
 * the executables, libraries and mapped files the run used, each by its
 * path as the run opened it and its sha256, the name of its copy in the
 * recording's files/ (filestore.c). The replayer binds the copies in
 * place of those paths; hermit-dap reads their symbols from the copies.
 * One reader for both, so that what counts as a valid entry is the same.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int hm_sha256_hex_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return i == 64;
}

int hm_manifest_read(const char *dir, cJSON **doc)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	return hm_json_read(path, doc);
}

int hm_manifest_files(const cJSON *doc, const char *dir, struct hm_manifest_file **out, size_t *n)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files"), *it;
	struct hm_manifest_file *v;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!cJSON_IsArray(files))
		return -EBADMSG;
	v = xcalloc((size_t)cJSON_GetArraySize(files) + 1, sizeof(*v));
	cJSON_ArrayForEach(it, files)
	{
		const char *orig = hm_json_str(it, "path", NULL);
		const char *sha = hm_json_str(it, "sha256", NULL);
		size_t len;

		if (!orig || orig[0] != '/' || !sha || !hm_sha256_hex_valid(sha)) {
			hm_manifest_free(v, k);
			return -EBADMSG;
		}
		len = strlen(dir) + sizeof("/files/") + 64;
		v[k].path = xstrdup(orig);
		v[k].copy = xmalloc(len);
		snprintf(v[k].copy, len, "%s/files/%s", dir, sha);
		k++;
	}
	*out = v;
	*n = k;
	return 0;
}

void hm_manifest_free(struct hm_manifest_file *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].path);
		free(v[i].copy);
	}
	free(v);
}
