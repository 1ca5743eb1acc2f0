/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dap: the Debug Adapter Protocol face of Hermit (DESIGN.md "Debugging
 * faces"). `hermit-dap` speaks DAP on stdio to an editor and is an RSP
 * *client* to a `hermit replay --gdbserver-only` child it starts: it links
 * no tracer, recorder or replayer code, so it works against any RSP server
 * that has Hermit's reverse execution (bc, bs, replaylog) and monitor
 * commands.
 *
 * Framing apart from meaning, as in gdbstub/: framing.c cuts the input
 * into Content-Length messages (bounded header and body), dispatch.c hands
 * each parsed request to a table keyed by its command string. What is
 * known of the program's code (symbols now, DWARF lines later) is behind
 * source.h, one small interface.
 */
#ifndef HERMIT_DAP_H
#define HERMIT_DAP_H

#include <stddef.h>
#include <stdint.h>

/* ---- framing.c: Content-Length messages ---- */

/* The longest header block (the lines up to the blank one) and body taken;
 * DAP's messages are small, and a peer that says more is wrong. */
#define DAP_MAX_HEADER 1024
#define DAP_MAX_BODY   (4u << 20)

struct dap_framer {
	unsigned char *buf; /* bytes received and not yet taken */
	size_t len, cap;
	size_t taken;	   /* bytes of buf the last message or error used */
	size_t body_start; /* where the last message's body began in buf */
	char *body;	   /* the last message's body, NUL-terminated */
	size_t body_cap;
	char err[160]; /* why the last -EBADMSG */
};

void dap_framer_init(struct dap_framer *f);
void dap_framer_free(struct dap_framer *f);
/* Append LEN received bytes. */
void dap_framer_push(struct dap_framer *f, const void *bytes, size_t len);
/*
 * The next whole message: 1 with *BODY (NUL-terminated, valid until the
 * next call) and *LEN; 0 when more bytes are needed; -EBADMSG when bytes
 * were dropped (a header without Content-Length, a bad or too large one,
 * text outside a message): f->err says why, and the framer has moved on
 * to the next "Content-Length:" it holds. Safe for any byte sequence.
 */
int dap_framer_next(struct dap_framer *f, const char **body, size_t *len);
/* Put back the tail of the message just returned from OFFSET on: a body
 * that does not parse but holds another message's header (its length was
 * too long) gives that message a chance. */
void dap_framer_unread(struct dap_framer *f, size_t offset);

/* ---- the adapter ---- */

struct dap_options {
	const char *hermit; /* the hermit program to start (default: beside us, or PATH) */
	int no_launch;	    /* refuse `launch` (the fuzz target: no child processes) */
	int no_prefetch;    /* open a file's DWARF only when a question needs it */
};

struct dap;

/*
 * An adapter whose messages go out through SEND (0 or -errno) on IO; it
 * copies O. Requests come in with dap_input().
 */
struct dap *dap_new(const struct dap_options *o,
		    int (*send)(void *io, const char *bytes, size_t len), void *io);
void dap_free(struct dap *d);
/* Feed LEN bytes from the client: each whole request is answered. 0, or 1
 * when the session has ended (disconnect). */
int dap_input(struct dap *d, const void *bytes, size_t len);
/*
 * Serve the client on IN_FD and OUT_FD until it disconnects or its input
 * ends: the adapter's loop, which also watches the replay child and its
 * output. 0, or 1 when the session ended for another reason (the client
 * left without a disconnect).
 */
int dap_serve(const struct dap_options *o, int in_fd, int out_fd);

#endif /* HERMIT_DAP_H */
