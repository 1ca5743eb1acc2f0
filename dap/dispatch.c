/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests to handlers: each whole message from the framer is parsed with
 * cJSON and, when it is a request, handed to the row of a table whose
 * command it names, as gdbstub/packets.c does with packets. A row says
 * what the request needs (a running replay; a stopped one), so handlers
 * see only requests they can answer. Every request gets exactly one
 * response; a message that is no request, or not JSON, is dropped with a
 * line on stderr and an output event (there is no request to answer).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"

/* ---- messages out ---- */

void dap_send_json(struct dap *d, cJSON *msg)
{
	char *text, head[64];
	int n;

	cJSON_AddNumberToObject(msg, "seq", (double)++d->seq);
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (!text) { /* (only for want of memory, which is fatal: STYLE.md) */
		hm_error("out of memory");
		exit(HM_EXIT_INTERNAL);
	}
	n = snprintf(head, sizeof(head), "Content-Length: %zu\r\n\r\n", strlen(text));
	hm_trace("dap: -> %s", text);
	if (d->send(d->io, head, (size_t)n) < 0 || d->send(d->io, text, strlen(text)) < 0)
		d->quit = 1; /* the client is gone */
	free(text);
}

void dap_event(struct dap *d, const char *event, cJSON *body)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "type", "event");
	cJSON_AddStringToObject(m, "event", event);
	if (body)
		cJSON_AddItemToObject(m, "body", body);
	dap_send_json(d, m);
}

static cJSON *response(struct dap_req *r, int ok)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "type", "response");
	cJSON_AddNumberToObject(m, "request_seq", (double)r->seq);
	cJSON_AddBoolToObject(m, "success", ok);
	cJSON_AddStringToObject(m, "command", r->command ? r->command : "");
	r->answered = 1;
	return m;
}

void dap_respond(struct dap *d, struct dap_req *r, cJSON *body)
{
	cJSON *m;

	if (r->answered) {
		cJSON_Delete(body);
		return;
	}
	m = response(r, 1);
	if (body)
		cJSON_AddItemToObject(m, "body", body);
	dap_send_json(d, m);
}

void dap_fail(struct dap *d, struct dap_req *r, const char *fmt, ...)
{
	cJSON *m, *body, *err;
	char msg[512];
	va_list ap;

	if (r->answered)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m = response(r, 0);
	cJSON_AddStringToObject(m, "message", msg);
	/* (VS Code shows body.error.format where there is one) */
	body = cJSON_AddObjectToObject(m, "body");
	err = cJSON_AddObjectToObject(body, "error");
	cJSON_AddNumberToObject(err, "id", 1);
	cJSON_AddStringToObject(err, "format", msg);
	cJSON_AddBoolToObject(err, "showUser", 0);
	dap_send_json(d, m);
}

void dap_output(struct dap *d, const char *category, const char *text, size_t len)
{
	cJSON *body = cJSON_CreateObject();
	char *copy = xmalloc(len + 1);

	/* (cJSON strings end at a NUL: one in the guest's output is shown
	 * as U+FFFD's stand-in, '?') */
	for (size_t i = 0; i < len; i++)
		copy[i] = text[i] ? text[i] : '?';
	copy[len] = 0;
	cJSON_AddStringToObject(body, "category", category);
	cJSON_AddStringToObject(body, "output", copy);
	free(copy);
	dap_event(d, "output", body);
}

/* ---- arguments ---- */

static const cJSON *arg(struct dap_req *r, const char *name)
{
	return r->args ? cJSON_GetObjectItemCaseSensitive(r->args, name) : NULL;
}

int dap_arg_num(struct dap *d, struct dap_req *r, const char *name, int required, int64_t *out)
{
	const cJSON *a = arg(r, name);

	if (!a || cJSON_IsNull(a)) {
		if (!required)
			return 1;
		dap_fail(d, r, "%s: the argument '%s' is missing", r->command, name);
		return -1;
	}
	if (!cJSON_IsNumber(a) || a->valuedouble != a->valuedouble ||
	    a->valuedouble > 9007199254740992.0 || a->valuedouble < -9007199254740992.0 ||
	    a->valuedouble != (double)(int64_t)a->valuedouble) {
		dap_fail(d, r, "%s: the argument '%s' must be an integer", r->command, name);
		return -1;
	}
	*out = (int64_t)a->valuedouble;
	return 0;
}

int dap_arg_str(struct dap *d, struct dap_req *r, const char *name, int required, const char **out)
{
	const cJSON *a = arg(r, name);

	if (!a || cJSON_IsNull(a)) {
		if (!required)
			return 1;
		dap_fail(d, r, "%s: the argument '%s' is missing", r->command, name);
		return -1;
	}
	if (!cJSON_IsString(a)) {
		dap_fail(d, r, "%s: the argument '%s' must be a string", r->command, name);
		return -1;
	}
	*out = a->valuestring;
	return 0;
}

int dap_arg_bool(struct dap *d, struct dap_req *r, const char *name, int *out)
{
	const cJSON *a = arg(r, name);

	if (!a || cJSON_IsNull(a))
		return 1;
	if (!cJSON_IsBool(a)) {
		dap_fail(d, r, "%s: the argument '%s' must be true or false", r->command, name);
		return -1;
	}
	*out = cJSON_IsTrue(a);
	return 0;
}

int dap_arg_array(struct dap *d, struct dap_req *r, const char *name, const cJSON **out)
{
	const cJSON *a = arg(r, name);

	if (!a || cJSON_IsNull(a)) {
		*out = NULL;
		return 1;
	}
	if (!cJSON_IsArray(a)) {
		dap_fail(d, r, "%s: the argument '%s' must be an array", r->command, name);
		return -1;
	}
	*out = a;
	return 0;
}

int dap_parse_addr(const char *s, uint64_t *addr)
{
	char *end;

	if (!s || !(s[0] >= '0' && s[0] <= '9'))
		return -EINVAL;
	errno = 0;
	*addr = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* ---- the table ---- */

#define NEED_TARGET  1 /* a replay runs (launch succeeded, not terminated) */
#define NEED_STOPPED 2 /* and it is stopped */

struct dap_cmd {
	const char *cmd;
	void (*handler)(struct dap *d, struct dap_req *r);
	int flags;
};

static void req_unsupported(struct dap *d, struct dap_req *r);

static const struct dap_cmd cmds[] = {
	{ "initialize", dap_req_initialize, 0 },
	{ "launch", dap_req_launch, 0 },
	{ "configurationDone", dap_req_configuration_done, 0 },
	{ "disconnect", dap_req_disconnect, 0 },
	{ "terminate", dap_req_terminate, 0 },
	{ "restart", dap_req_restart, NEED_TARGET },
	{ "threads", dap_req_threads, 0 },
	{ "continue", dap_req_continue, NEED_TARGET | NEED_STOPPED },
	{ "reverseContinue", dap_req_reverse_continue, NEED_TARGET | NEED_STOPPED },
	{ "next", dap_req_next, NEED_TARGET | NEED_STOPPED },
	{ "stepIn", dap_req_step_in, NEED_TARGET | NEED_STOPPED },
	{ "stepOut", dap_req_step_out, NEED_TARGET | NEED_STOPPED },
	{ "stepBack", dap_req_step_back, NEED_TARGET | NEED_STOPPED },
	{ "reverseStepOut", dap_req_reverse_step_out, NEED_TARGET | NEED_STOPPED },
	{ "gotoTargets", dap_req_goto_targets, NEED_TARGET },
	{ "goto", dap_req_goto, NEED_TARGET | NEED_STOPPED },
	{ "pause", dap_req_pause, NEED_TARGET },
	{ "evaluate", dap_req_evaluate, NEED_TARGET | NEED_STOPPED },
	{ "setBreakpoints", dap_req_set_breakpoints, 0 },
	{ "setFunctionBreakpoints", dap_req_set_function_breakpoints, 0 },
	{ "setInstructionBreakpoints", dap_req_set_instruction_breakpoints, 0 },
	{ "setExceptionBreakpoints", dap_req_set_exception_breakpoints, 0 },
	{ "dataBreakpointInfo", dap_req_data_breakpoint_info, 0 },
	{ "setDataBreakpoints", dap_req_set_data_breakpoints, 0 },
	{ "stackTrace", dap_req_stack_trace, NEED_TARGET | NEED_STOPPED },
	{ "scopes", dap_req_scopes, NEED_TARGET | NEED_STOPPED },
	{ "variables", dap_req_variables, NEED_TARGET | NEED_STOPPED },
	{ "readMemory", dap_req_read_memory, NEED_TARGET | NEED_STOPPED },
	{ "disassemble", dap_req_disassemble, NEED_TARGET | NEED_STOPPED },
	{ "loadedSources", dap_req_loaded_sources, NEED_TARGET },
	{ "modules", dap_req_modules, NEED_TARGET },
	/* Known, and not yet possible: they need dwarf/ (lines, scopes,
	 * types) or the unwinder; docs/dap.md says which and why. */
	{ "source", req_unsupported, 0 },
	{ "setVariable", req_unsupported, 0 },
	{ "setExpression", req_unsupported, 0 },
	{ "stepInTargets", req_unsupported, 0 },
	{ "completions", req_unsupported, 0 },
};

static void req_unsupported(struct dap *d, struct dap_req *r)
{
	if (!strcmp(r->command, "setVariable") || !strcmp(r->command, "setExpression"))
		dap_fail(d, r, "%s: a replay cannot change the program's state", r->command);
	else
		dap_fail(d, r,
			 "%s: not supported yet: it needs source information (DWARF) or stack "
			 "unwinding, which hermit-dap does not have yet (docs/dap.md)",
			 r->command);
}

/* A message that is not a request we can answer: said on stderr and to
 * the client's console. */
static void dropped(struct dap *d, const char *why)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "hermit-dap: dropped a message: %s\n", why);

	fputs(line, stderr);
	dap_output(d, "console", line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1));
}

static void dispatch(struct dap *d, const cJSON *msg)
{
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(msg, "seq");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
	const cJSON *command = cJSON_GetObjectItemCaseSensitive(msg, "command");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(msg, "arguments");
	struct dap_req r = { 0 };

	if (!cJSON_IsNumber(seq) || !cJSON_IsString(type)) {
		dropped(d, "no 'seq' number or 'type' string");
		return;
	}
	if (strcmp(type->valuestring, "request") != 0) {
		/* (responses to reverse requests: none are sent) */
		if (strcmp(type->valuestring, "response") != 0)
			dropped(d, "its type is not 'request'");
		return;
	}
	r.seq = (int64_t)seq->valuedouble;
	r.command = cJSON_IsString(command) ? command->valuestring : "";
	if (!cJSON_IsString(command)) {
		dap_fail(d, &r, "a request without a 'command' string");
		return;
	}
	if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		dap_fail(d, &r, "%s: 'arguments' must be an object", r.command);
		return;
	}
	r.args = cJSON_IsObject(args) ? args : NULL;
	hm_debug("dap: request %s", r.command);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct dap_cmd *c = &cmds[i];

		if (strcmp(c->cmd, r.command) != 0)
			continue;
		if ((c->flags & NEED_TARGET) && (!d->launched || d->ended))
			dap_fail(d, &r, "%s: %s", r.command,
				 d->ended ? "the replay has ended" : "no replay: launch one first");
		else if ((c->flags & NEED_STOPPED) && d->run != DAP_RUN_NONE)
			dap_fail(d, &r, "%s: the replay is running; pause it first", r.command);
		else
			c->handler(d, &r);
		if (!r.answered)
			dap_fail(d, &r, "%s: internal error: no answer", r.command);
		return;
	}
	dap_fail(d, &r, "unrecognized request '%s'", r.command);
}

int dap_input(struct dap *d, const void *bytes, size_t len)
{
	const char *body;
	size_t blen;
	int got;

	dap_framer_push(&d->f, bytes, len);
	while (!d->quit && (got = dap_framer_next(&d->f, &body, &blen)) != 0) {
		cJSON *msg;

		if (got < 0) {
			dropped(d, d->f.err);
			continue;
		}
		hm_trace("dap: <- %s", body);
		/* the whole body, nothing after the value: a length too long
		 * takes in bytes of the next message */
		msg = cJSON_ParseWithLengthOpts(body, blen + 1, NULL, 1);
		if (!msg || !cJSON_IsObject(msg)) {
			/* A length too long swallows the start of the next
			 * message: give that one its chance. */
			const char *next = strstr(body, "Content-Length:");

			cJSON_Delete(msg);
			if (next)
				dap_framer_unread(&d->f, (size_t)(next - body));
			dropped(d, msg ? "its body is not a JSON object"
				       : "its body is not JSON (or its Content-Length is wrong)");
			continue;
		}
		dispatch(d, msg);
		cJSON_Delete(msg);
	}
	return d->quit;
}

struct dap *dap_new(const struct dap_options *o,
		    int (*send)(void *io, const char *bytes, size_t len), void *io)
{
	struct dap *d = xcalloc(1, sizeof(*d));

	d->o = *o;
	d->send = send;
	d->io = io;
	d->next_id = 1;
	dap_framer_init(&d->f);
	dap_child_init(&d->child);
	dap_rsp_init(&d->rsp);
	d->hermit = o->hermit ? xstrdup(o->hermit) : NULL;
	return d;
}

void dap_free(struct dap *d)
{
	if (!d)
		return;
	dap_rsp_close(&d->rsp);
	dap_child_stop(&d->child);
	dap_source_free(d->src);
	dap_forget_stop(d);
	for (size_t i = 0; i < d->nthreads; i++)
		free(d->names[i]);
	free(d->names);
	free(d->tids);
	dap_bp_free(d);
	dap_bp_free_lines(d);
	free(d->hermit);
	dap_framer_free(&d->f);
	free(d);
}
