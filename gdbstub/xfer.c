/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qXfer:object:read:annex:offset,length (E.5 "General Query Packets"):
 * a window of an object, "m<data>" when more follows and "l<data>" when
 * the data reaches its end, binary (rsp_encode() escapes it). The stub
 * makes two objects itself, target.xml (tdesc.c) and the thread list with
 * names (E.20 "Thread List Format", made afresh at offset 0 so that one
 * reading sees one document); auxv and exec-file come from the target.
 * E00 is the manual's reply to a malformed request or a bad annex.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "gdbstub/internal.h"

#define MAX_ANNEX 64

/* ARGS: annex:offset,length. The length is cut to what a reply holds. */
static int parse_read(const char *args, char *annex, uint64_t *off, uint64_t *len)
{
	const char *colon = strchr(args, ':');

	if (!colon || (size_t)(colon - args) >= MAX_ANNEX)
		return -EINVAL;
	memcpy(annex, args, (size_t)(colon - args));
	annex[colon - args] = 0;
	args = colon + 1;
	if (rsp_parse_hex(&args, off) < 0 || *args++ != ',' || rsp_parse_hex(&args, len) < 0 ||
	    *args)
		return -EINVAL;
	if (*len > RSP_MAX_PACKET - 1)
		*len = RSP_MAX_PACKET - 1;
	return 0;
}

/* The window [OFF, OFF + LEN) of DOC (SIZE bytes). */
static void send_window(struct rsp_session *s, const void *doc, size_t size, uint64_t off,
			uint64_t len)
{
	size_t n = 0;

	if (off < size)
		n = size - off < len ? size - (size_t)off : (size_t)len;
	rsp_out_reset(s);
	rsp_out_str(s, off + n < size ? "m" : "l");
	if (n)
		rsp_out_add(s, (const char *)doc + off, n);
	rsp_out_send(s);
}

int rsp_handle_xfer_features(struct rsp_session *s, const char *args)
{
	char annex[MAX_ANNEX];
	uint64_t off, len;

	if (parse_read(args, annex, &off, &len) < 0 || strcmp(annex, "target.xml") != 0) {
		rsp_reply_str(s, "E00");
		return 0;
	}
	send_window(s, s->tdesc.data, s->tdesc.len, off, len);
	return 0;
}

/* NAME into XML attribute text; control bytes become '?'. */
static void add_xml_text(struct hm_buf *b, const char *name)
{
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if (*c == '&')
			hm_buf_addf(b, "&amp;");
		else if (*c == '<')
			hm_buf_addf(b, "&lt;");
		else if (*c == '>')
			hm_buf_addf(b, "&gt;");
		else if (*c == '"')
			hm_buf_addf(b, "&quot;");
		else if (*c == '\'')
			hm_buf_addf(b, "&apos;");
		else if (*c < 0x20 || *c == 0x7f)
			hm_buf_add(b, "?", 1);
		else
			hm_buf_add(b, c, 1);
	}
}

static void make_threads(struct rsp_session *s)
{
	struct hm_buf *b = &s->threads;
	char name[64];
	int n;

	hm_buf_reset(b);
	hm_buf_addf(b, "<?xml version=\"1.0\"?>\n<threads>\n");
	if (rsp_list_threads(s, s->probe, &n) < 0)
		n = 0;
	for (int i = 0; i < n; i++) {
		int tid = s->probe[i];

		if (s->multiprocess)
			hm_buf_addf(b, "<thread id=\"p%x.%x\"", (unsigned)s->ops->pid,
				    (unsigned)tid);
		else
			hm_buf_addf(b, "<thread id=\"%x\"", (unsigned)tid);
		name[0] = 0;
		if (s->ops->thread_name && s->ops->thread_name(s->t, tid, name, sizeof(name)) < 0)
			name[0] = 0;
		name[sizeof(name) - 1] = 0;
		if (name[0]) {
			hm_buf_addf(b, " name=\"");
			add_xml_text(b, name);
			hm_buf_addf(b, "\"");
		}
		hm_buf_addf(b, "/>\n");
	}
	hm_buf_addf(b, "</threads>\n");
}

int rsp_handle_xfer_threads(struct rsp_session *s, const char *args)
{
	char annex[MAX_ANNEX];
	uint64_t off, len;

	if (parse_read(args, annex, &off, &len) < 0 || annex[0]) {
		rsp_reply_str(s, "E00");
		return 0;
	}
	if (off == 0 || !s->threads.len)
		make_threads(s);
	send_window(s, s->threads.data, s->threads.len, off, len);
	return 0;
}

/* An object the target serves: what it gives short of LEN ends it. */
static int target_object(struct rsp_session *s, const char *object, const char *args)
{
	char annex[MAX_ANNEX];
	uint64_t off, len;
	size_t got = 0;

	if (!s->ops->xfer) {
		rsp_reply_str(s, "");
		return 0;
	}
	if (parse_read(args, annex, &off, &len) < 0) {
		rsp_reply_str(s, "E00");
		return 0;
	}
	if (s->ops->xfer(s->t, object, annex, off, s->data, (size_t)len, &got) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	if (got > len)
		got = (size_t)len;
	rsp_out_reset(s);
	rsp_out_str(s, got < len ? "l" : "m");
	rsp_out_add(s, s->data, got);
	rsp_out_send(s);
	return 0;
}

int rsp_handle_xfer_auxv(struct rsp_session *s, const char *args)
{
	return target_object(s, "auxv", args);
}

int rsp_handle_xfer_exec_file(struct rsp_session *s, const char *args)
{
	return target_object(s, "exec-file", args);
}
