/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Breakpoints as the client sets them, and what the stub holds. The
 * client's lists (instruction, function, data) are replaced whole by each
 * set request; dap_bp_sync() makes the stub's Z points match them while
 * the replay is stopped, by differences, so a breakpoint set while it runs
 * goes in at the next stop.
 *
 * Data breakpoints use the stub's watchpoints, which `hermit replay` keeps
 * in 64 slots of 1, 2, 4 or 8 aligned bytes (replayer/internal.h,
 * MAX_WPS), found by comparing values (software watchpoints) and, for
 * reads, by decoding each instruction. A breakpoint's bytes are split
 * into the fewest aligned pieces, one slot each, shared by breakpoints on
 * the same piece; at a write's stop the adapter compares each
 * breakpoint's own bytes with their value at the last stop to say which
 * ones were written. A breakpoint that finds no free slot is not
 * verified, and says why.
 *
 * Conditions and hit counts (struct dap_bp_cond) are the adapter's: the
 * stub stops at every hit, and a hit whose condition is false, or whose
 * hit count is not yet there, is resumed in the direction the run was
 * going, unseen by the client. A data breakpoint's dataId names bytes
 * ("0xADDR/SIZE"); when dataBreakpointInfo had a variable for them, its
 * name and type show the old and new values as gdb shows them.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"

static const char NO_ROOM[] =
	"no room: the replay watches at most 64 aligned pieces of up to 8 bytes at once "
	"(hermit replay's limit)";

/* ---- planning ---- */

static int has(const struct dap_zpoint *z, size_t n, const struct dap_zpoint *p)
{
	for (size_t i = 0; i < n; i++) {
		if (z[i].type == p->type && z[i].addr == p->addr && z[i].kind == p->kind)
			return 1;
	}
	return 0;
}

/* The watch regions data breakpoint B needs into OUT: their count. */
static size_t regions(const struct dap_dbp *b, struct dap_zpoint *out, size_t max)
{
	uint64_t a = b->addr, end = b->addr + b->size;
	size_t n = 0;

	while (a < end && n < max) {
		int k = 8;

		while (k > 1 && (a % (uint64_t)k || a + (uint64_t)k > end))
			k /= 2;
		out[n++] = (struct dap_zpoint){ b->type, a, k };
		a += (uint64_t)k;
	}
	return n;
}

/* What the stub should hold: into Z (room for 256 + DAP_WATCH_SLOTS),
 * the count; each data breakpoint's verified says whether it fitted. */
static size_t plan(struct dap *d, struct dap_zpoint *z)
{
	size_t n = 0, watches = 0;

	for (size_t i = 0; i < d->nibps && n < 256; i++) {
		struct dap_zpoint p = { 0, d->ibps[i].addr, 1 };

		if (d->ibps[i].addr && !has(z, n, &p))
			z[n++] = p;
	}
	for (size_t i = 0; i < d->nlbps; i++) {
		for (size_t k = 0; d->lbps[i].verified && k < d->lbps[i].naddrs && n < 256; k++) {
			struct dap_zpoint p = { 0, d->lbps[i].addrs[k], 1 };

			if (!has(z, n, &p))
				z[n++] = p;
		}
	}
	/* a step plan's temporary breakpoints (step.c) */
	for (size_t i = 0; i < d->plan.ntemps && n < 256; i++) {
		struct dap_zpoint p = { 0, d->plan.temps[i], 1 };

		if (!has(z, n, &p))
			z[n++] = p;
	}
	for (size_t i = 0; i < d->ndbps; i++) {
		struct dap_dbp *b = &d->dbps[i];
		struct dap_zpoint need[DAP_MAX_WATCH];
		size_t k = regions(b, need, sizeof(need) / sizeof(need[0])), fresh = 0;

		if (b->why && b->why != NO_ROOM)
			continue; /* (a condition: never set) */
		for (size_t j = 0; j < k; j++)
			fresh += !has(z, n, &need[j]);
		if (watches + fresh > DAP_WATCH_SLOTS) {
			b->verified = 0;
			b->why = NO_ROOM;
			continue;
		}
		b->verified = 1;
		b->why = NULL;
		for (size_t j = 0; j < k; j++) {
			if (!has(z, n, &need[j])) {
				z[n++] = need[j];
				watches++;
			}
		}
	}
	return n;
}

static void changed(struct dap *d, int id, int verified, const char *why)
{
	cJSON *b = cJSON_CreateObject(), *bp = cJSON_AddObjectToObject(b, "breakpoint");

	cJSON_AddStringToObject(b, "reason", "changed");
	cJSON_AddNumberToObject(bp, "id", id);
	cJSON_AddBoolToObject(bp, "verified", verified);
	if (why)
		cJSON_AddStringToObject(bp, "message", why);
	dap_event(d, "breakpoint", b);
}

static cJSON *lbp_json(const struct dap_lbp *b)
{
	cJSON *o = cJSON_CreateObject();
	char ref[32];

	cJSON_AddNumberToObject(o, "id", b->id);
	cJSON_AddBoolToObject(o, "verified", b->verified);
	cJSON_AddNumberToObject(o, "line", b->verified && b->moved ? b->moved : b->line);
	if (b->verified && b->naddrs) {
		snprintf(ref, sizeof(ref), "0x%" PRIx64, b->addrs[0]);
		cJSON_AddStringToObject(o, "instructionReference", ref);
	}
	if (!b->verified && b->why)
		cJSON_AddStringToObject(o, "message", b->why);
	return o;
}

static void line_changed(struct dap *d, const struct dap_lbp *b)
{
	cJSON *body = cJSON_CreateObject();

	cJSON_AddStringToObject(body, "reason", "changed");
	cJSON_AddItemToObject(body, "breakpoint", lbp_json(b));
	dap_event(d, "breakpoint", body);
}

/* Z or z: 0, or -errno (-EOPNOTSUPP for the empty reply). */
static int zpacket(struct dap *d, const struct dap_zpoint *p, int insert)
{
	int err = dap_rsp_request(&d->rsp, "%c%d,%" PRIx64 ",%x", insert ? 'Z' : 'z', p->type,
				  p->addr, (unsigned)p->kind);

	if (err)
		return err;
	if (!strcmp((char *)d->rsp.pkt.data, "OK"))
		return 0;
	return d->rsp.pkt.len ? -EFAULT : -EOPNOTSUPP;
}

void dap_bp_sync(struct dap *d)
{
	struct dap_zpoint want[256 + DAP_WATCH_SLOTS];
	size_t nwant, keep = 0;

	if (!d->launched || d->ended || d->run != DAP_RUN_NONE || d->rsp.fd < 0)
		return;
	nwant = plan(d, want);
	/* out first: the slots they free may be wanted */
	for (size_t i = 0; i < d->nheld; i++) {
		if (has(want, nwant, &d->held[i]) || zpacket(d, &d->held[i], 0) == -EPIPE)
			d->held[keep++] = d->held[i];
	}
	d->nheld = keep;
	for (size_t i = 0; i < nwant; i++) {
		int err;

		if (has(d->held, d->nheld, &want[i]))
			continue;
		err = zpacket(d, &want[i], 1);
		if (!err && d->nheld < sizeof(d->held) / sizeof(d->held[0]))
			d->held[d->nheld++] = want[i];
		/* what the client set says whether it is in */
		for (size_t j = 0; want[i].type == 0 && j < d->nibps; j++) {
			struct dap_ibp *b = &d->ibps[j];

			if (b->addr != want[i].addr || b->verified == !err)
				continue;
			b->verified = !err;
			changed(d, b->id, b->verified,
				err ? "the replay cannot put a breakpoint at this address" : NULL);
		}
		for (size_t j = 0; err && want[i].type == 0 && j < d->nlbps; j++) {
			struct dap_lbp *b = &d->lbps[j];

			for (size_t k = 0; b->verified && k < b->naddrs; k++) {
				if (b->addrs[k] != want[i].addr)
					continue;
				b->verified = 0;
				b->why = "the replay cannot put a breakpoint at this line's code";
				line_changed(d, b);
			}
		}
		for (size_t j = 0; err && want[i].type && j < d->ndbps; j++) {
			struct dap_dbp *b = &d->dbps[j];
			struct dap_zpoint need[DAP_MAX_WATCH];
			size_t k = regions(b, need, sizeof(need) / sizeof(need[0]));

			if (b->verified && has(need, k, &want[i])) {
				b->verified = 0;
				b->why = "the replay refused to watch these bytes";
				changed(d, b->id, 0, b->why);
			}
		}
	}
}

void dap_bp_snapshot(struct dap *d)
{
	for (size_t i = 0; i < d->ndbps; i++) {
		struct dap_dbp *b = &d->dbps[i];

		b->have_snap = b->verified && d->launched && !d->ended &&
			       dap_read_mem(d, b->addr, b->snap, b->size) == 0;
	}
}

/* ---- conditions ---- */

/* ">= N", "> N", "== N", "<= N", "< N", "% N", "N": the operator ('G'
 * for >=, 'L' for <=, '=', '>', '<', '%') and N. 0, or -EINVAL. */
static int hit_parse(const char *s, int *op, uint64_t *n)
{
	char *end;

	while (*s == ' ')
		s++;
	*op = 'G';
	if (!strncmp(s, ">=", 2) || !strncmp(s, "<=", 2) || !strncmp(s, "==", 2)) {
		*op = s[0] == '>' ? 'G' : s[0] == '<' ? 'L' : '=';
		s += 2;
	} else if (*s == '>' || *s == '<' || *s == '%' || *s == '=') {
		*op = *s++;
	}
	while (*s == ' ')
		s++;
	if (!(*s >= '0' && *s <= '9'))
		return -EINVAL;
	errno = 0;
	*n = strtoull(s, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end || (*op == '%' && *n == 0))
		return -EINVAL;
	return 0;
}

static int hit_holds(const char *hit, uint64_t hits)
{
	uint64_t n;
	int op;

	if (!hit || !*hit || hit_parse(hit, &op, &n) < 0)
		return 1;
	switch (op) {
	case 'G':
		return hits >= n;
	case 'L':
		return hits <= n;
	case '>':
		return hits > n;
	case '<':
		return hits < n;
	case '%':
		return hits % n == 0;
	default:
		return hits == n;
	}
}

int dap_bp_cond_set(struct dap_bp_cond *c, const cJSON *item, const char **why)
{
	const cJSON *cond = cJSON_GetObjectItemCaseSensitive(item, "condition");
	const cJSON *hit = cJSON_GetObjectItemCaseSensitive(item, "hitCondition");
	uint64_t n;
	int op;

	memset(c, 0, sizeof(*c));
	if (cJSON_IsString(cond) && cond->valuestring[strspn(cond->valuestring, " ")])
		c->condition = xstrdup(cond->valuestring);
	if (cJSON_IsString(hit) && hit->valuestring[strspn(hit->valuestring, " ")]) {
		if (hit_parse(hit->valuestring, &op, &n) < 0) {
			*why = "a hit condition is a count: '5', '>= 5', '== 5', '> 5', '< 5', "
			       "'<= 5' or '% 5'";
			dap_bp_cond_free(c);
			return -1;
		}
		c->hit = xstrdup(hit->valuestring);
	}
	return 0;
}

void dap_bp_cond_free(struct dap_bp_cond *c)
{
	free(c->condition);
	free(c->hit);
	memset(c, 0, sizeof(*c));
}

int dap_bp_should_stop(struct dap *d, struct dap_bp_cond *c)
{
	if (c->condition) {
		struct dap_frame_env fe;
		struct dap_value v;
		char err[300], line[600];
		int truth = 1, rc, n;

		rc = dap_frame_env(d, 0, &fe);
		if (rc)
			snprintf(err, sizeof(err), "%s",
				 rc == -ENODATA ? "no debug information (DWARF) here"
						: "cannot read the registers");
		if (rc || dap_eval_text(c->condition, &fe.env, &v, err, sizeof(err)) < 0 ||
		    dap_value_truth(&v, &fe.env, &truth, err, sizeof(err)) < 0) {
			/* gdb stops too, and says why */
			n = snprintf(line, sizeof(line),
				     "hermit-dap: error in the breakpoint condition '%.200s': %s\n",
				     c->condition, err);
			dap_output(d, "console", line,
				   (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
			return 1;
		}
		if (!truth)
			return 0;
	}
	c->hits++;
	return hit_holds(c->hit, c->hits);
}

void dap_bp_free(struct dap *d)
{
	for (size_t i = 0; i < d->nibps; i++)
		dap_bp_cond_free(&d->ibps[i].cond);
	for (size_t i = 0; i < d->ndbps; i++)
		dap_bp_cond_free(&d->dbps[i].cond);
	for (size_t i = 0; i < d->ndinfo; i++)
		free(d->dinfo[i].name);
	free(d->ibps);
	free(d->dbps);
	free(d->dinfo);
	d->ibps = NULL;
	d->dbps = NULL;
	d->dinfo = NULL;
	d->nibps = d->ndbps = d->ndinfo = 0;
}

/* ---- watch stops ---- */

static const struct dap_datainfo *datainfo(struct dap *d, uint64_t addr, unsigned size)
{
	for (size_t i = d->ndinfo; i-- > 0;) {
		if (d->dinfo[i].addr == addr && d->dinfo[i].size == size)
			return &d->dinfo[i];
	}
	return NULL;
}

/* VALUE of SIZE bytes as text: a little-endian number, or hex bytes. */
static void value(const uint8_t *v, unsigned size, char *out, size_t room)
{
	uint64_t x = 0;

	if (size == 1 || size == 2 || size == 4 || size == 8) {
		memcpy(&x, v, size);
		snprintf(out, room, "%" PRIu64, x);
		return;
	}
	out[0] = 0;
	for (unsigned i = 0; i < size && i < 16 && strlen(out) + 4 < room; i++)
		snprintf(out + strlen(out), room - strlen(out), "%s%02x", i ? " " : "", v[i]);
}

size_t dap_bp_watch_hits(struct dap *d, const struct dap_stop *st, int reverse, int *ids,
			 size_t max, char *desc, size_t size)
{
	size_t n = 0;

	desc[0] = 0;
	if (st->why == DAP_WHY_WATCH) {
		for (size_t i = 0; i < d->ndbps && n < max; i++) {
			struct dap_dbp *b = &d->dbps[i];
			uint8_t now[DAP_MAX_WATCH];
			char a[64], c[64];

			const struct dap_datainfo *di;
			char *ta = NULL, *tc = NULL;
			struct dap_frame_env fe;

			if (b->type != 2 || !b->have_snap ||
			    dap_read_mem(d, b->addr, now, b->size) ||
			    !memcmp(now, b->snap, b->size) || !dap_bp_should_stop(d, &b->cond))
				continue;
			ids[n++] = b->id;
			if (desc[0])
				continue;
			/* backwards the write is about to run: now is before it */
			value(reverse ? now : b->snap, b->size, a, sizeof(a));
			value(reverse ? b->snap : now, b->size, c, sizeof(c));
			di = datainfo(d, b->addr, b->size);
			if (di && dap_frame_env(d, 0, &fe) == 0) {
				/* gdb's "Old value = ... New value = ...": as the
				 * variable's type prints them */
				struct dap_value old = { .syms = di->syms,
							 .vt = di->vt,
							 .size = b->size };
				struct dap_value new = old;

				memcpy(old.bytes, reverse ? now : b->snap, b->size);
				memcpy(new.bytes, reverse ? b->snap : now, b->size);
				ta = dap_value_format(&old, &fe.env);
				tc = dap_value_format(&new, &fe.env);
			}
			snprintf(desc, size, "%s%s%s 0x%" PRIx64 " (%u bytes): %s -> %s",
				 di ? di->name : "", di ? ": " : "",
				 reverse ? "the last write to" : "a write to", b->addr, b->size,
				 ta ? ta : a, tc ? tc : c);
			free(ta);
			free(tc);
		}
		return n;
	}
	for (size_t h = 0; h < d->nheld; h++) {
		const struct dap_zpoint *z = &d->held[h];
		int type = st->why == DAP_WHY_RWATCH ? 3 : 4;

		if (z->type != type || z->addr != st->watch_addr)
			continue;
		for (size_t i = 0; i < d->ndbps && n < max; i++) {
			struct dap_dbp *b = &d->dbps[i];
			uint8_t now[DAP_MAX_WATCH];
			char v[64] = "?";

			if (b->type != type || !b->verified ||
			    b->addr >= z->addr + (uint64_t)z->kind ||
			    z->addr >= b->addr + b->size || !dap_bp_should_stop(d, &b->cond))
				continue;
			ids[n++] = b->id;
			if (desc[0])
				continue;
			if (dap_read_mem(d, b->addr, now, b->size) == 0)
				value(now, b->size, v, sizeof(v));
			snprintf(desc, size, "%s 0x%" PRIx64 " (%u bytes): %s",
				 type == 3 ? "a read of" : "an access to", b->addr, b->size, v);
		}
		break;
	}
	return n;
}

/* ---- requests ---- */

static cJSON *ibp_json(const struct dap_ibp *b, const char *why)
{
	cJSON *o = cJSON_CreateObject();
	char ref[32];

	cJSON_AddNumberToObject(o, "id", b->id);
	cJSON_AddBoolToObject(o, "verified", b->verified);
	if (b->addr) {
		snprintf(ref, sizeof(ref), "0x%" PRIx64, b->addr);
		cJSON_AddStringToObject(o, "instructionReference", ref);
	}
	if (!b->verified && why)
		cJSON_AddStringToObject(o, "message", why);
	return o;
}

/* The new list of kind FUNC from the request's "breakpoints": replaces the
 * old one of that kind. */
static void set_code_breakpoints(struct dap *d, struct dap_req *r, int func)
{
	const cJSON *list, *it;
	size_t keep = 0, first;
	cJSON *out, *arr;
	const char **why;
	size_t n;

	if (dap_arg_array(d, r, "breakpoints", &list) < 0)
		return;
	n = list ? (size_t)cJSON_GetArraySize(list) : 0;
	if (n > 256) {
		dap_fail(d, r, "%s: at most 256 breakpoints", r->command);
		return;
	}
	/* check them all before changing anything */
	cJSON_ArrayForEach(it, list)
	{
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(
			it, func ? "name" : "instructionReference");
		const cJSON *off = cJSON_GetObjectItemCaseSensitive(it, "offset");

		if (!cJSON_IsObject(it) || !cJSON_IsString(ref) || (off && !cJSON_IsNumber(off))) {
			dap_fail(d, r, "%s: each breakpoint needs a string '%s'%s", r->command,
				 func ? "name" : "instructionReference",
				 func ? "" : " and a number 'offset' if any");
			return;
		}
	}
	for (size_t i = 0; i < d->nibps; i++) {
		if (d->ibps[i].func != func)
			d->ibps[keep++] = d->ibps[i];
		else
			dap_bp_cond_free(&d->ibps[i].cond);
	}
	first = keep;
	d->ibps = xrealloc(d->ibps, (keep + n + 1) * sizeof(*d->ibps));
	why = xcalloc(n + 1, sizeof(*why));
	cJSON_ArrayForEach(it, list)
	{
		const char *ref =
			cJSON_GetObjectItemCaseSensitive(it, func ? "name" : "instructionReference")
				->valuestring;
		const cJSON *off = cJSON_GetObjectItemCaseSensitive(it, "offset");
		struct dap_ibp *b = &d->ibps[keep];
		uint64_t addr = 0, size;

		*b = (struct dap_ibp){ .id = d->next_id++, .func = func, .verified = 1 };
		if (dap_bp_cond_set(&b->cond, it, &why[keep - first]) < 0) {
			/* (why says it) */
		} else if (func) {
			/* after the prologue, as gdb puts it, where DWARF says
			 * where that is: the parameters are in place there */
			(void)size;
			if (!d->src || dap_source_function_entry(d->src, ref, &addr) < 0)
				why[keep - first] = "no function of that name in the modules "
						    "loaded now";
		} else if (dap_parse_addr(ref, &addr) < 0) {
			why[keep - first] = "not an address";
		} else if (off) {
			addr += (uint64_t)(int64_t)off->valuedouble;
		}
		b->addr = why[keep - first] ? 0 : addr;
		b->verified = !why[keep - first];
		keep++;
	}
	d->nibps = keep;
	dap_bp_sync(d);
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "breakpoints");
	for (size_t i = first; i < keep; i++)
		cJSON_AddItemToArray(
			arr, ibp_json(&d->ibps[i], why[i - first] ? why[i - first]
								  : "the replay cannot put a "
								    "breakpoint at this address"));
	free(why);
	dap_respond(d, r, out);
}

void dap_req_set_instruction_breakpoints(struct dap *d, struct dap_req *r)
{
	set_code_breakpoints(d, r, 0);
}

void dap_req_set_function_breakpoints(struct dap *d, struct dap_req *r)
{
	set_code_breakpoints(d, r, 1);
}

/* Where line breakpoint B goes in the modules loaded now. */
static void resolve_line(struct dap *d, struct dap_lbp *b)
{
	uint64_t addrs[DAP_LBP_ADDRS];
	unsigned moved = 0;
	int n = -ENOENT;

	if (b->bad_cond) {
		b->verified = 0;
		b->naddrs = 0;
		return;
	}
	if (d->src && b->line > 0)
		n = dap_source_line_addrs(d->src, b->path, (unsigned)b->line, addrs, DAP_LBP_ADDRS,
					  &moved);
	if (n <= 0) {
		b->verified = 0;
		b->naddrs = 0;
		b->moved = 0;
		b->why = !d->src ? "no symbols: the program's file could not be read"
				 : "no code at or after this line in the debug information of the "
				   "modules loaded now";
		return;
	}
	b->naddrs = (size_t)n < DAP_LBP_ADDRS ? (size_t)n : DAP_LBP_ADDRS;
	memcpy(b->addrs, addrs, b->naddrs * sizeof(addrs[0]));
	b->moved = (int)moved;
	b->verified = 1;
	b->why = NULL;
}

void dap_bp_resolve_lines(struct dap *d, int events)
{
	for (size_t i = 0; i < d->nlbps; i++) {
		struct dap_lbp *b = &d->lbps[i], was = *b;

		resolve_line(d, b);
		if (events && (was.verified != b->verified || was.moved != b->moved ||
			       was.naddrs != b->naddrs ||
			       memcmp(was.addrs, b->addrs, b->naddrs * sizeof(b->addrs[0]))))
			line_changed(d, b);
	}
}

static void free_lbp(struct dap_lbp *b)
{
	free(b->path);
	dap_bp_cond_free(&b->cond);
}

void dap_bp_free_lines(struct dap *d)
{
	for (size_t i = 0; i < d->nlbps; i++)
		free_lbp(&d->lbps[i]);
	free(d->lbps);
	d->lbps = NULL;
	d->nlbps = 0;
}

/* The optional string NAME of breakpoint IT, copied; -1 when it is no
 * string. */
static int opt_str(const cJSON *it, const char *name, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, name);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return -1;
	if (v->valuestring[0])
		*out = xstrdup(v->valuestring);
	return 0;
}

void dap_req_set_breakpoints(struct dap *d, struct dap_req *r)
{
	const cJSON *list = NULL, *src, *path, *it;
	size_t keep = 0, first, n;
	cJSON *out, *arr;

	if (dap_arg_array(d, r, "breakpoints", &list) < 0)
		return;
	src = r->args ? cJSON_GetObjectItemCaseSensitive(r->args, "source") : NULL;
	path = src ? cJSON_GetObjectItemCaseSensitive(src, "path") : NULL;
	if (!cJSON_IsObject(src) || !cJSON_IsString(path) || !path->valuestring[0]) {
		dap_fail(d, r, "setBreakpoints: the argument 'source' needs a 'path' string");
		return;
	}
	n = list ? (size_t)cJSON_GetArraySize(list) : 0;
	if (n > 256) {
		dap_fail(d, r, "setBreakpoints: at most 256 breakpoints in one source");
		return;
	}
	cJSON_ArrayForEach(it, list)
	{
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(it, "line");
		char *c, *h;

		if (!cJSON_IsObject(it) || !cJSON_IsNumber(line) || line->valuedouble < 1 ||
		    line->valuedouble > 1e9 || opt_str(it, "condition", &c) < 0 ||
		    (free(c), opt_str(it, "hitCondition", &h) < 0)) {
			dap_fail(d, r,
				 "setBreakpoints: each breakpoint needs a 'line' number (1 or "
				 "more), and 'condition' and 'hitCondition' strings if any");
			return;
		}
		free(h);
	}
	/* this source's list is replaced whole */
	for (size_t i = 0; i < d->nlbps; i++) {
		if (strcmp(d->lbps[i].path, path->valuestring) == 0)
			free_lbp(&d->lbps[i]);
		else
			d->lbps[keep++] = d->lbps[i];
	}
	first = keep;
	d->lbps = xrealloc(d->lbps, (keep + n + 1) * sizeof(*d->lbps));
	cJSON_ArrayForEach(it, list)
	{
		struct dap_lbp *b = &d->lbps[keep++];

		*b = (struct dap_lbp){ .id = d->next_id++, .path = xstrdup(path->valuestring) };
		b->line = (int)cJSON_GetObjectItemCaseSensitive(it, "line")->valuedouble;
		/* (a hit condition that is no count: never placed) */
		b->bad_cond = dap_bp_cond_set(&b->cond, it, &b->why) < 0;
		resolve_line(d, b);
	}
	d->nlbps = keep;
	dap_bp_sync(d);
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "breakpoints");
	for (size_t i = first; i < keep; i++)
		cJSON_AddItemToArray(arr, lbp_json(&d->lbps[i]));
	dap_respond(d, r, out);
}

/* Whether line breakpoint B, reached in thread TID, stops the replay. */
static int line_stops(struct dap *d, struct dap_lbp *b, int tid)
{
	(void)tid; /* (the condition is evaluated in the stopped thread) */
	return dap_bp_should_stop(d, &b->cond);
}

int dap_bp_user_at(const struct dap *d, uint64_t pc)
{
	for (size_t i = 0; i < d->nibps; i++) {
		if (d->ibps[i].verified && d->ibps[i].addr == pc)
			return 1;
	}
	for (size_t i = 0; i < d->nlbps; i++) {
		for (size_t k = 0; d->lbps[i].verified && k < d->lbps[i].naddrs; k++) {
			if (d->lbps[i].addrs[k] == pc)
				return 1;
		}
	}
	return 0;
}

size_t dap_bp_hits_at(struct dap *d, uint64_t pc, int tid, int *ids, size_t max, const char **kind)
{
	size_t n = 0;
	int func = 0, line = 0;

	for (size_t i = 0; i < d->nlbps && n < max; i++) {
		struct dap_lbp *b = &d->lbps[i];

		for (size_t k = 0; b->verified && k < b->naddrs; k++) {
			if (b->addrs[k] == pc) {
				if (line_stops(d, b, tid)) {
					ids[n++] = b->id;
					line = 1;
				}
				break;
			}
		}
	}
	for (size_t i = 0; i < d->nibps && n < max; i++) {
		/* (each counts its hit, whichever stops) */
		if (d->ibps[i].addr == pc && d->ibps[i].verified &&
		    dap_bp_should_stop(d, &d->ibps[i].cond)) {
			ids[n++] = d->ibps[i].id;
			func = func || d->ibps[i].func;
		}
	}
	*kind = line ? "breakpoint" : func ? "function breakpoint" : "instruction breakpoint";
	return n;
}

void dap_req_set_exception_breakpoints(struct dap *d, struct dap_req *r)
{
	cJSON *out = cJSON_CreateObject();

	cJSON_AddArrayToObject(out, "breakpoints");
	dap_respond(d, r, out);
}

/* Remember that the bytes at ADDR (SIZE) are the variable EXPR of V's
 * type. */
static void note_datainfo(struct dap *d, uint64_t addr, uint64_t size, const char *expr,
			  const struct dap_value *v)
{
	struct dap_datainfo *di = NULL;

	for (size_t i = 0; i < d->ndinfo && !di; i++) {
		if (d->dinfo[i].addr == addr && d->dinfo[i].size == size)
			di = &d->dinfo[i];
	}
	if (!di) {
		if (d->ndinfo >= 1024) { /* (a bound: the oldest goes) */
			free(d->dinfo[0].name);
			memmove(d->dinfo, d->dinfo + 1, --d->ndinfo * sizeof(*d->dinfo));
		}
		d->dinfo = xrealloc(d->dinfo, (d->ndinfo + 1) * sizeof(*d->dinfo));
		di = &d->dinfo[d->ndinfo++];
		di->name = NULL;
	}
	free(di->name);
	di->addr = addr;
	di->size = (unsigned)size;
	di->name = xstrdup(expr);
	di->syms = v->syms;
	di->vt = v->vt;
}

void dap_req_data_breakpoint_info(struct dap *d, struct dap_req *r)
{
	const char *name, *text;
	int64_t ref = 0, bytes = 0, frame = 0;
	uint64_t addr, size = 1;
	int as_addr = 0, have_ref, have_bytes, typed = 0;
	int stopped = d->launched && !d->ended && d->run == DAP_RUN_NONE;
	char id[64], desc[300], why[300] = "", expr[1024];
	struct dap_value v;
	cJSON *out, *types;

	if (dap_arg_str(d, r, "name", 1, &name) < 0 ||
	    (have_ref = dap_arg_num(d, r, "variablesReference", 0, &ref)) < 0 ||
	    dap_arg_num(d, r, "frameId", 0, &frame) < 0 ||
	    (have_bytes = dap_arg_num(d, r, "bytes", 0, &bytes)) < 0 ||
	    dap_arg_bool(d, r, "asAddress", &as_addr) < 0)
		return;
	text = name;
	if (dap_arg_str(d, r, "expression", 0, &text) < 0)
		return;
	snprintf(expr, sizeof(expr), "%s", text);
	out = cJSON_CreateObject();
	if (have_ref == 0 && ref > 0) {
		/* a variable the client was shown: by its scope or parent */
		if (!stopped)
			snprintf(why, sizeof(why), "%s",
				 d->launched && !d->ended ? "the replay is running: pause it first"
							  : "no replay: launch one first");
		else if (dap_vref_data(d, ref, name, &addr, &size, expr, sizeof(expr), &v, why,
				       sizeof(why)) == 0)
			typed = 1;
		if (!typed) {
			cJSON_AddNullToObject(out, "dataId");
			cJSON_AddStringToObject(out, "description", why);
			dap_respond(d, r, out);
			return;
		}
	} else if (as_addr || dap_parse_addr(text, &addr) == 0) {
		if (dap_parse_addr(text, &addr) < 0) {
			snprintf(why, sizeof(why), "'%.80s' is not an address", text);
			cJSON_AddNullToObject(out, "dataId");
			cJSON_AddStringToObject(out, "description", why);
			dap_respond(d, r, out);
			return;
		}
		size = have_bytes == 0 ? (uint64_t)bytes : 1;
	} else if (stopped && d->src &&
		   dap_expr_data(d, (int)frame, text, &addr, &size, &v, why, sizeof(why)) == 0) {
		typed = 1;
	} else if (d->src && dap_source_symbol(d->src, text, &addr, &size) == 0) {
		/* an ELF symbol: its st_size bytes */
		if (!size)
			size = 1;
	} else {
		cJSON_AddNullToObject(out, "dataId");
		if (!why[0])
			snprintf(why, sizeof(why), "'%.80s' is no address, variable or symbol",
				 text);
		cJSON_AddStringToObject(out, "description", why);
		dap_respond(d, r, out);
		return;
	}
	if (have_bytes == 0 && (uint64_t)bytes != size) {
		size = (uint64_t)bytes; /* the client's size: no longer the variable */
		typed = 0;
	}
	if (size < 1 || size > DAP_MAX_WATCH) {
		cJSON_AddNullToObject(out, "dataId");
		cJSON_AddStringToObject(out, "description", "1 to 64 bytes can be watched");
		dap_respond(d, r, out);
		return;
	}
	if (typed)
		note_datainfo(d, addr, size, expr, &v);
	snprintf(id, sizeof(id), "0x%" PRIx64 "/%" PRIu64, addr, size);
	snprintf(desc, sizeof(desc), "%.200s (%" PRIu64 " bytes at 0x%" PRIx64 ")",
		 typed ? expr : text, size, addr);
	cJSON_AddStringToObject(out, "dataId", id);
	cJSON_AddStringToObject(out, "description", desc);
	types = cJSON_AddArrayToObject(out, "accessTypes");
	cJSON_AddItemToArray(types, cJSON_CreateString("write"));
	cJSON_AddItemToArray(types, cJSON_CreateString("read"));
	cJSON_AddItemToArray(types, cJSON_CreateString("readWrite"));
	cJSON_AddBoolToObject(out, "canPersist", 0);
	dap_respond(d, r, out);
}

/* "0xADDR/SIZE": 0, or -EINVAL. */
static int parse_data_id(const char *id, uint64_t *addr, unsigned *size)
{
	char *end;
	unsigned long long a, s;

	errno = 0;
	if (strncmp(id, "0x", 2) != 0)
		return -EINVAL;
	a = strtoull(id, &end, 16);
	if (errno || *end != '/' || !(end[1] >= '0' && end[1] <= '9'))
		return -EINVAL;
	s = strtoull(end + 1, &end, 10);
	if (errno || *end || s < 1 || s > DAP_MAX_WATCH || a + s < a)
		return -EINVAL;
	*addr = a;
	*size = (unsigned)s;
	return 0;
}

static void drop(struct dap_dbp *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dap_bp_cond_free(&v[i].cond);
	free(v);
}

void dap_req_set_data_breakpoints(struct dap *d, struct dap_req *r)
{
	const cJSON *list, *it;
	struct dap_dbp *v;
	cJSON *out, *arr;
	size_t n = 0;

	if (dap_arg_array(d, r, "breakpoints", &list) < 0)
		return;
	if (list && cJSON_GetArraySize(list) > 256) {
		dap_fail(d, r, "setDataBreakpoints: at most 256 breakpoints");
		return;
	}
	v = xcalloc((size_t)(list ? cJSON_GetArraySize(list) : 0) + 1, sizeof(*v));
	cJSON_ArrayForEach(it, list)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "dataId");
		const cJSON *acc = cJSON_GetObjectItemCaseSensitive(it, "accessType");
		struct dap_dbp *b = &v[n];
		const char *a = cJSON_IsString(acc) ? acc->valuestring : "write";

		if (!cJSON_IsObject(it) || !cJSON_IsString(id) || (acc && !cJSON_IsString(acc)) ||
		    parse_data_id(id->valuestring, &b->addr, &b->size) < 0) {
			dap_fail(d, r,
				 "setDataBreakpoints: each breakpoint needs a 'dataId' from "
				 "dataBreakpointInfo and an 'accessType' string if any");
			drop(v, n);
			return;
		}
		if (!strcmp(a, "write")) {
			b->type = 2;
		} else if (!strcmp(a, "read")) {
			b->type = 3;
		} else if (!strcmp(a, "readWrite")) {
			b->type = 4;
		} else {
			dap_fail(d, r,
				 "setDataBreakpoints: no access type '%s' (write, read or "
				 "readWrite)",
				 a);
			drop(v, n);
			return;
		}
		b->id = d->next_id++;
		/* (a bad hit condition: never set, and the reply says why) */
		dap_bp_cond_set(&b->cond, it, &b->why);
		n++;
	}
	for (size_t i = 0; i < d->ndbps; i++)
		dap_bp_cond_free(&d->dbps[i].cond);
	free(d->dbps);
	d->dbps = v;
	d->ndbps = n;
	if (d->launched && !d->ended && d->run == DAP_RUN_NONE) {
		dap_bp_sync(d);
		dap_bp_snapshot(d);
	} else {
		struct dap_zpoint z[256 + DAP_WATCH_SLOTS];

		plan(d, z); /* (verified says whether they fit) */
	}
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "breakpoints");
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", v[i].id);
		cJSON_AddBoolToObject(o, "verified", v[i].verified);
		if (!v[i].verified && v[i].why)
			cJSON_AddStringToObject(o, "message", v[i].why);
		cJSON_AddItemToArray(arr, o);
	}
	dap_respond(d, r, out);
}
