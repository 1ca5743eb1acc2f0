/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What gdbstub's files share and nothing outside it sees: the session,
 * the reply being built, hex and thread-id parsing, and the packet
 * handlers that packets.c's table names. A handler gets the packet after
 * its name as a C string (packets with a NUL inside never reach one),
 * replies through rsp_out_*() or rsp_reply_str(), and returns 1 when the
 * packet ends the session, else 0.
 */
#ifndef HERMIT_GDBSTUB_INTERNAL_H
#define HERMIT_GDBSTUB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "gdbstub/gdbstub.h"

/* The most threads the stub lists (qfThreadInfo, qXfer:threads). */
#define RSP_MAX_THREADS 4096
/* The longest path vFile:open takes, as PATH_MAX. */
#define RSP_MAX_PATH 4096

struct rsp_session {
	struct rsp_framer f;
	const struct rsp_target_ops *ops;
	void *t;
	int (*send)(void *io, const char *bytes, size_t len);
	void *io;
	int err;	      /* the first failed send's -errno: the connection is gone */
	int ended;	      /* D, k or vKill came */
	int no_ack;	      /* after QStartNoAckMode */
	int multiprocess;     /* gdb said multiprocess+: thread ids are p<pid>.<tid> */
	int swbreak;	      /* gdb said swbreak+: stop replies may say swbreak */
	int hwbreak;	      /* gdb said hwbreak+ */
	int exec_events;      /* gdb said exec-events+: exec stops say exec:<path> */
	int extended;	      /* '!': k and vKill keep the session for vRun */
	int gen_tid;	      /* Hg: 0 any, -1 all, else a thread */
	int cont_tid;	      /* Hc, the same */
	struct rsp_stop last; /* the last stop, for '?' */
	int have_last;
	int tids[RSP_MAX_THREADS]; /* the thread list qfThreadInfo took */
	int ntids;
	int next_tid;		    /* where qsThreadInfo goes on */
	int probe[RSP_MAX_THREADS]; /* the thread list T, H and qC look in */
	struct hm_buf tdesc;	    /* target.xml */
	struct hm_buf threads;	    /* the qXfer:threads document, made at offset 0 */
	size_t out_len;		    /* the reply being built */
	int out_full;		    /* it outgrew out: send E01 instead */
	char out[RSP_MAX_PACKET];
	uint8_t data[RSP_MAX_PACKET]; /* memory, file and xfer bytes */
	size_t wire_len;	      /* the last packet sent, framed, for '-' */
	char wire[2 * RSP_MAX_PACKET + 4];
};

/* ---- packets.c: replies ---- */

void rsp_out_reset(struct rsp_session *s);
void rsp_out_add(struct rsp_session *s, const void *p, size_t n);
void rsp_out_str(struct rsp_session *s, const char *str);
void rsp_out_fmt(struct rsp_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* N bytes as 2N lower-case hex digits. */
void rsp_out_hex(struct rsp_session *s, const uint8_t *p, size_t n);
/* Frame and send what was built. */
void rsp_out_send(struct rsp_session *s);
/* A whole reply: reset, STR, send. */
void rsp_reply_str(struct rsp_session *s, const char *str);
/* A whole reply: N bytes of P as hex. */
void rsp_reply_hex(struct rsp_session *s, const uint8_t *p, size_t n);
/* Room left in the reply being built. */
size_t rsp_out_room(const struct rsp_session *s);

/* ---- hex.c ---- */

/* "0123456789abcdef" */
extern const char rsp_hexdigits[];
/* A hex number at *P, one digit at least, no sign, at most 64 bits;
 * *P moves past it. 0 or -EINVAL. */
int rsp_parse_hex(const char **p, uint64_t *v);
/* The same, at most MAX. */
int rsp_parse_hex_max(const char **p, uint64_t max, uint64_t *v);

/* ---- threads.c ---- */

/* A thread-id at *P (E.1): "p<pid>.<tid>", "p<pid>" (all its threads) or
 * "<tid>", where a number may be -1 (all) or 0 (any); hex. *PID is 0 where
 * none was given. 0 or -EINVAL. */
int rsp_parse_thread(const char **p, int *pid, int *tid);
/* Thread TID as gdb wants it, multiprocess or not. */
void rsp_out_thread(struct rsp_session *s, int tid);
/* The target's live threads into TIDS (RSP_MAX_THREADS of room), *N of
 * them. 0 or -errno. */
int rsp_list_threads(struct rsp_session *s, int *tids, int *n);
/* TID is a live thread. */
int rsp_thread_alive(struct rsp_session *s, int tid);
/* The thread registers and memory are read from (Hg, else the last stop's,
 * else the first); 0 when there is none. */
int rsp_current_tid(struct rsp_session *s);
int rsp_handle_set_thread(struct rsp_session *s, const char *args);
int rsp_handle_thread_alive(struct rsp_session *s, const char *args);
int rsp_handle_current_thread(struct rsp_session *s, const char *args);
int rsp_handle_thread_first(struct rsp_session *s, const char *args);
int rsp_handle_thread_next(struct rsp_session *s, const char *args);

/* ---- run.c: resuming and stop replies ---- */

int rsp_handle_query_stop(struct rsp_session *s, const char *args);
int rsp_handle_vcont_query(struct rsp_session *s, const char *args);
int rsp_handle_vcont(struct rsp_session *s, const char *args);
int rsp_handle_cont(struct rsp_session *s, const char *args);
int rsp_handle_cont_sig(struct rsp_session *s, const char *args);
int rsp_handle_step(struct rsp_session *s, const char *args);
int rsp_handle_step_sig(struct rsp_session *s, const char *args);
int rsp_handle_reverse_cont(struct rsp_session *s, const char *args);
int rsp_handle_reverse_step(struct rsp_session *s, const char *args);
int rsp_handle_run(struct rsp_session *s, const char *args);

/* ---- memory.c: registers, memory, breakpoints ---- */

int rsp_handle_read_regs(struct rsp_session *s, const char *args);
int rsp_handle_read_reg(struct rsp_session *s, const char *args);
int rsp_handle_read_mem(struct rsp_session *s, const char *args);
int rsp_handle_write_reg(struct rsp_session *s, const char *args);
int rsp_handle_write_regs(struct rsp_session *s, const char *args);
int rsp_handle_write_mem(struct rsp_session *s, const char *args);
int rsp_handle_insert_bp(struct rsp_session *s, const char *args);
int rsp_handle_remove_bp(struct rsp_session *s, const char *args);

/* ---- tdesc.c: the target description ---- */

/* Write target.xml into B. */
void rsp_tdesc_xml(struct hm_buf *b);

/* ---- xfer.c: qXfer objects ---- */

int rsp_handle_xfer_features(struct rsp_session *s, const char *args);
int rsp_handle_xfer_threads(struct rsp_session *s, const char *args);
int rsp_handle_xfer_auxv(struct rsp_session *s, const char *args);
int rsp_handle_xfer_exec_file(struct rsp_session *s, const char *args);

/* ---- hostio.c: vFile and monitor commands ---- */

int rsp_handle_file_setfs(struct rsp_session *s, const char *args);
int rsp_handle_file_open(struct rsp_session *s, const char *args);
int rsp_handle_file_pread(struct rsp_session *s, const char *args);
int rsp_handle_file_close(struct rsp_session *s, const char *args);
int rsp_handle_monitor(struct rsp_session *s, const char *args);

#endif /* HERMIT_GDBSTUB_INTERNAL_H */
