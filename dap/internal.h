/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dap/'s files share: the adapter's state (struct dap), the request
 * being answered, the RSP client (rsp.c), the replay child (child.c), the
 * disassembler (disasm.c) and the request handlers of each file.
 */
#ifndef HERMIT_DAP_INTERNAL_H
#define HERMIT_DAP_INTERNAL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/common.h"
#include "dap/dap.h"
#include "dap/source.h"
#include "dap/value.h"

/* ---- rsp.c: the RSP client ---- */

/* RSP's 'g' block (gdbstub/gdbstub.h): rax..r15, rip, eflags, the
 * segments; what the Registers scope shows. */
#define DAP_REGS_SIZE 816

/* Stub's watchpoint slots: `hermit replay` keeps 64 (replayer/internal.h,
 * MAX_WPS), each of 1, 2, 4 or 8 aligned bytes. */
#define DAP_WATCH_SLOTS 64

enum dap_stop_kind {
	DAP_STOP_SIGNAL, /* T or S */
	DAP_STOP_EXITED, /* W */
	DAP_STOP_KILLED, /* X */
};

enum dap_stop_why {
	DAP_WHY_NONE,
	DAP_WHY_SWBREAK,
	DAP_WHY_HWBREAK,
	DAP_WHY_WATCH,
	DAP_WHY_RWATCH,
	DAP_WHY_AWATCH,
	DAP_WHY_BEGIN, /* replaylog:begin: reverse execution reached the start */
	DAP_WHY_END,   /* replaylog:end: the end of the recording */
};

struct dap_stop {
	int kind;	     /* enum dap_stop_kind */
	int sig;	     /* gdb's numbering; 5 is SIGTRAP, 2 SIGINT */
	int status;	     /* W's exit status */
	int tid;	     /* the thread, or 0 */
	int why;	     /* enum dap_stop_why */
	uint64_t watch_addr; /* watch, rwatch, awatch */
};

struct dap_rsp {
	int fd;			 /* the connection to the stub, or -1 */
	int no_ack;		 /* QStartNoAckMode done */
	unsigned char in[16384]; /* received, not yet framed */
	size_t in_len;
	struct hm_buf pkt;     /* the last packet, decoded, NUL after it */
	struct hm_buf console; /* O packets' text since it was reset */
	/* While a request waits for its reply: more descriptors to watch
	 * (the replay child's output), filled and served by the caller. */
	int (*fill)(void *arg, struct pollfd *fds, int max);
	void (*ready)(void *arg, const struct pollfd *fds, int n);
	void *arg;
};

void dap_rsp_init(struct dap_rsp *r);
/* Connect to 127.0.0.1:PORT (only loopback, ever) and set up the session:
 * no-ack mode, qSupported. 0 or -errno. */
int dap_rsp_connect(struct dap_rsp *r, int port);
void dap_rsp_close(struct dap_rsp *r);
/* Frame and send PAYLOAD ('#', '$', '}' and '*' escaped). 0 or -errno. */
int dap_rsp_send(struct dap_rsp *r, const char *payload, size_t len);
int dap_rsp_sendf(struct dap_rsp *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* gdb's Ctrl-C: 0x03 outside a packet. */
int dap_rsp_interrupt(struct dap_rsp *r);
/* Read what the connection has now (it must be readable). 0, or -EPIPE
 * when it ended. */
int dap_rsp_fill(struct dap_rsp *r);
/* The next whole packet already received into r->pkt (O packets go to
 * r->console and are not returned): 1, 0 for none yet, -EBADMSG for a
 * packet with a bad checksum (dropped). */
int dap_rsp_next(struct dap_rsp *r);
/* Wait for the next packet (serving the caller's descriptors meanwhile):
 * 0 with it in r->pkt, or -errno (-EPIPE: the stub is gone). */
int dap_rsp_wait(struct dap_rsp *r);
/* Send PAYLOAD and wait for its reply in r->pkt: 0 or -errno. */
int dap_rsp_request(struct dap_rsp *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse a stop reply (T, S, W, X): 0, or -EINVAL. */
int dap_rsp_parse_stop(const char *pkt, struct dap_stop *st);

/* ---- child.c: the `hermit replay --gdbserver-only` child ---- */

struct dap_child {
	pid_t pid;	     /* 0: none (reaped) */
	int out, err;	     /* its stdout and stderr, or -1 */
	int port;	     /* where it serves RSP */
	char *exe;	     /* the program as recorded (the command it printed) */
	int status;	     /* waitpid's, once reaped */
	struct hm_buf eline; /* a partial line of its stderr */
};

void dap_child_init(struct dap_child *c);
/* Start HERMIT replay [RECORDING] --gdbserver-only and read the port it
 * serves. 0, or -errno with the reason in WHY. */
int dap_child_start(struct dap_child *c, const char *hermit, const char *recording, char *why,
		    size_t size);
/* End it (its process group), reap it. */
void dap_child_stop(struct dap_child *c);
/* Whether it is gone (reaped now if so). */
int dap_child_gone(struct dap_child *c);
/* The default hermit program: `hermit` beside this one, else on PATH. */
char *dap_default_hermit(void);

/* ---- disasm.c ---- */

/* Decode the instruction at BUF (LEN bytes) at ADDR into TEXT, in AT&T
 * syntax: its length, or -EINVAL. */
int dap_disasm_one(const uint8_t *buf, size_t len, uint64_t addr, char *text, size_t size);
/* Whether the instruction at BUF is a call: its length, else 0. */
int dap_disasm_is_call(const uint8_t *buf, size_t len);

/* ---- the adapter ---- */

struct dap_req {
	int64_t seq;
	const char *command;
	const cJSON *args; /* may be NULL */
	int answered;
};

/* ---- breakpoint conditions (wt-dap2a) ---- */

/* Each kind of breakpoint embeds a struct dap_bp_cond: dap_bp_cond_set()
 * when its set request comes, dap_bp_cond_free() when the list is
 * replaced (and in dap_bp_free()), and at a breakpoint stop
 * dap_bp_should_stop() for every breakpoint at the pc, each counting its
 * hit; none saying stop means resume as the run went (run.c's loop over
 * d->ibps in dap_stopped() does it for function and instruction ones). */

/* A breakpoint's condition and hit condition, as the client set them
 * (malloc'ed, or NULL), and how often it was reached with its condition
 * true, in either direction, since it was set. */
struct dap_bp_cond {
	char *condition; /* a C expression (dap/expr.h), true when != 0 */
	char *hit;	 /* ">= N", "> N", "== N", "<= N", "< N", "% N", or "N" (>= N) */
	uint64_t hits;
};

/* Take the "condition" and "hitCondition" of breakpoint ITEM (from a set
 * request) into C: 0, or -1 with why not in WHY (a hit condition that is
 * no number). */
int dap_bp_cond_set(struct dap_bp_cond *c, const cJSON *item, const char **why);
void dap_bp_cond_free(struct dap_bp_cond *c);
/* At a breakpoint stop of the current thread (d->tid): whether it is the
 * client's, by C: its condition evaluated in the top frame (an error in it
 * stops, with the message on the console), then, counting the hit, its
 * hit condition. 1 stop, 0 go on (the caller resumes in the direction it
 * was going). */
int dap_bp_should_stop(struct dap *d, struct dap_bp_cond *c);

/* An instruction or function breakpoint. */
struct dap_ibp {
	int id;
	uint64_t addr;
	int verified;
	int func; /* set by setFunctionBreakpoints */
	struct dap_bp_cond cond;
};

/* A data breakpoint: SIZE bytes at ADDR. */
struct dap_dbp {
	int id;
	uint64_t addr;
	unsigned size; /* 1 to DAP_MAX_WATCH */
	int type;      /* 2 write, 3 read, 4 readWrite, as Z2..Z4 */
	int verified;
	uint8_t snap[64]; /* its bytes at the last stop */
	int have_snap;
	const char *why; /* why it is not verified */
	struct dap_bp_cond cond;
};
#define DAP_MAX_WATCH 64

/* One Z packet's worth, as the stub holds it. */
struct dap_zpoint {
	int type; /* 0..4 */
	uint64_t addr;
	int kind;
};

enum dap_run {
	DAP_RUN_NONE,	 /* stopped */
	DAP_RUN_CONT,	 /* vCont;c */
	DAP_RUN_REVERSE, /* bc */
	DAP_RUN_STEP,	 /* vCont;s */
	DAP_RUN_BSTEP,	 /* bs */
	DAP_RUN_QUERY,	 /* '?' after vRun or `monitor goto` */
};

/* A breakpoint by source line (setBreakpoints): where it went. */
#define DAP_LBP_ADDRS 16
struct dap_lbp {
	int id;
	char *path;		       /* the source's path as the client gave it */
	int line;		       /* the line asked for */
	int moved;		       /* the line with code it went to (0: none) */
	uint64_t addrs[DAP_LBP_ADDRS]; /* one per function or inlined copy */
	size_t naddrs;
	int verified;
	const char *why; /* why it is not verified */
	int bad_cond;	 /* its hitCondition is no count: never placed */
	struct dap_bp_cond cond;
};

/*
 * A step plan (step.c): what a step, a continue or a goto is for, driven
 * by the stop loop. Each stop of the replay is one leg (a single step or
 * a continue, forwards or backwards, with temporary breakpoints); the
 * plan decides from where the leg ended whether it is done or which leg
 * comes next. Positions are data: one machine serves every request.
 */
enum dap_plan_kind {
	DAP_PLAN_NONE,
	DAP_PLAN_CONT,	   /* continue */
	DAP_PLAN_RCONT,	   /* reverseContinue */
	DAP_PLAN_STEPI,	   /* one instruction forwards */
	DAP_PLAN_BSTEPI,   /* one instruction backwards */
	DAP_PLAN_NEXTI,	   /* one instruction, a call stepped over */
	DAP_PLAN_NEXT,	   /* to the next line, calls stepped over */
	DAP_PLAN_IN,	   /* the same, into functions with lines */
	DAP_PLAN_OUT,	   /* to the return address in the caller */
	DAP_PLAN_BACK,	   /* to the start of the previous line executed */
	DAP_PLAN_BACK_OUT, /* back to the call of this function */
	DAP_PLAN_GOTO,	   /* to a line's next or previous execution */
};

#define DAP_PLAN_TEMPS 16

struct dap_plan {
	enum dap_plan_kind kind;
	int tid;
	int phase;	    /* step.c's PH_* */
	enum dap_run leg;   /* the leg in flight */
	const char *reason; /* the stopped reason when it ends as planned */
	const char *desc;   /* and its description, or NULL */
	uint64_t lo, hi;    /* the line being stepped: [lo, hi) */
	const char *file;   /* and its file and line */
	unsigned line;
	uint64_t func;			/* the first instruction of its function */
	uint64_t cfa;			/* the frame's CFA; 0: unknown */
	uint64_t pc, sp;		/* where the leg started */
	int was_ret;			/* the leg stepped a return */
	uint64_t call_sp;		/* over a call: sp in the callee at its entry */
	uint64_t ret_addr;		/* stepIn: the call's return address */
	uint64_t temps[DAP_PLAN_TEMPS]; /* temporary breakpoints */
	size_t ntemps;
	int sp_rule;	    /* a temporary's hit counts when sp is: */
	uint64_t want_sp;   /* ==, or >=, this */
	int paused;	    /* a pause came: the next stop ends it */
	int reverse;	    /* a goto backwards */
	unsigned long legs; /* (for the log) */
};

/* gotoTargets' answers, for goto: a line's addresses and a direction. */
struct dap_goto_target {
	int id;
	int reverse;
	uint64_t addrs[DAP_LBP_ADDRS];
	size_t naddrs;
};

/* A frame id's frame: thread TID's unwound frame LEVEL (0 innermost),
 * inlined frame DEPTH in it (0 innermost, as dw_frames_at counts). */
struct dap_frame {
	int tid;
	int level;
	int depth;
};

/* The frames of a thread unwound at this stop. */
struct dap_unwound {
	int tid;
	struct dap_stack_frame *v;
	size_t n;
};

/* What a variables reference names (vars.c): a scope of a frame, or a
 * value whose children are wanted. */
enum dap_vref_kind {
	DAP_VREF_REGISTERS,
	DAP_VREF_LOCALS,
	DAP_VREF_ARGUMENTS,
	DAP_VREF_VALUE,
};

struct dap_vref {
	enum dap_vref_kind kind;
	int frame;	    /* the frame id whose environment reads it */
	struct dap_value v; /* DAP_VREF_VALUE */
	int deref;	    /* a pointer to a struct or union: its pointee's members */
	char *expr;	    /* DAP_VREF_VALUE: v as an expression (evaluateName) */
};

/* What dataBreakpointInfo learnt of a dataId's bytes: the variable's name
 * and type, to show its old and new values as values of that type. */
struct dap_datainfo {
	uint64_t addr;
	unsigned size;
	char *name;
	struct dw_syms *syms;
	struct dap_vtype vt;
};

/* A per-stop copy of target memory: lines read once. */
#define DAP_MEMLINE  256
#define DAP_MEMLINES 64

struct dap {
	struct dap_options o;
	int (*send)(void *io, const char *bytes, size_t len);
	void *io;
	int64_t seq; /* of the last message sent */
	struct dap_framer f;

	int initialized; /* initialize answered */
	int launched;	 /* the child is up and connected */
	int ended;	 /* terminated was sent */
	int quit;	 /* disconnect answered: the loop ends */
	int stop_on_entry;
	char *hermit; /* the hermit program */

	struct dap_child child;
	struct dap_rsp rsp;
	struct dap_source *src;
	int prefetched; /* dap_source_prefetch found no file left (loop.c) */

	/* running: a stop reply is owed */
	enum dap_run run;
	int run_tid;
	const char *run_reason; /* the stopped reason when no breakpoint explains it */
	const char *run_desc;	/* and its description, or NULL */
	struct dap_plan plan;	/* what the run is for (step.c) */
	int at_end;		/* stopped at the end of the recording */
	struct dap_goto_target gotos[8];
	size_t ngotos;

	/* the current stop */
	int tid;
	int *tids; /* the threads, as last listed */
	char **names;
	size_t nthreads;
	struct dap_frame *frames; /* frame ids are index + 1, until the next resume */
	size_t nframes;
	struct dap_unwound *stacks; /* per thread, unwound at this stop */
	size_t nstacks;
	int modules_fresh;	/* the modules were refreshed at this stop */
	struct dap_vref *vrefs; /* variables references are index + 1, until the next resume */
	size_t nvrefs;
	struct {
		uint64_t addr; /* line-aligned */
		int ok;
		uint8_t bytes[DAP_MEMLINE];
	} memcache[DAP_MEMLINES]; /* valid until the next resume */
	uint8_t regs[DAP_REGS_SIZE];
	int regs_tid; /* whose regs hold, or 0 */

	/* breakpoints as the client set them, and what the stub holds */
	struct dap_ibp *ibps;
	size_t nibps;
	struct dap_dbp *dbps;
	size_t ndbps;
	struct dap_datainfo *dinfo; /* for the session */
	size_t ndinfo;
	struct dap_lbp *lbps; /* by source line, every source's */
	size_t nlbps;
	struct dap_zpoint held[256 + DAP_WATCH_SLOTS];
	size_t nheld;
	int next_id;
};

/* dispatch.c: messages out. */
void dap_send_json(struct dap *d, cJSON *msg); /* takes MSG */
void dap_event(struct dap *d, const char *event, cJSON *body);
void dap_respond(struct dap *d, struct dap_req *r, cJSON *body); /* success, takes BODY */
void dap_fail(struct dap *d, struct dap_req *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void dap_output(struct dap *d, const char *category, const char *text, size_t len);
/* Arguments: 0 found, 1 absent and not REQUIRED, -1 wrong or missing (the
 * request was answered). */
int dap_arg_num(struct dap *d, struct dap_req *r, const char *name, int required, int64_t *out);
int dap_arg_str(struct dap *d, struct dap_req *r, const char *name, int required, const char **out);
int dap_arg_bool(struct dap *d, struct dap_req *r, const char *name, int *out);
int dap_arg_array(struct dap *d, struct dap_req *r, const char *name, const cJSON **out);
/* "0x..." or decimal into *ADDR: 0 or -EINVAL. */
int dap_parse_addr(const char *s, uint64_t *addr);

/* Each request, by file. */
void dap_req_initialize(struct dap *d, struct dap_req *r);
void dap_req_launch(struct dap *d, struct dap_req *r);
void dap_req_configuration_done(struct dap *d, struct dap_req *r);
void dap_req_disconnect(struct dap *d, struct dap_req *r);
void dap_req_terminate(struct dap *d, struct dap_req *r);
void dap_req_restart(struct dap *d, struct dap_req *r);
/* run.c */
void dap_req_continue(struct dap *d, struct dap_req *r);
void dap_req_reverse_continue(struct dap *d, struct dap_req *r);
void dap_req_next(struct dap *d, struct dap_req *r);
void dap_req_step_in(struct dap *d, struct dap_req *r);
void dap_req_step_out(struct dap *d, struct dap_req *r);
void dap_req_step_back(struct dap *d, struct dap_req *r);
void dap_req_reverse_step_out(struct dap *d, struct dap_req *r);
void dap_req_goto_targets(struct dap *d, struct dap_req *r);
void dap_req_goto(struct dap *d, struct dap_req *r);
void dap_req_pause(struct dap *d, struct dap_req *r);
void dap_req_evaluate(struct dap *d, struct dap_req *r);
/* breakpoints.c */
void dap_req_set_breakpoints(struct dap *d, struct dap_req *r);
void dap_req_set_function_breakpoints(struct dap *d, struct dap_req *r);
void dap_req_set_instruction_breakpoints(struct dap *d, struct dap_req *r);
void dap_req_data_breakpoint_info(struct dap *d, struct dap_req *r);
void dap_req_set_data_breakpoints(struct dap *d, struct dap_req *r);
void dap_req_set_exception_breakpoints(struct dap *d, struct dap_req *r);
/* inspect.c */
void dap_req_threads(struct dap *d, struct dap_req *r);
void dap_req_stack_trace(struct dap *d, struct dap_req *r);
void dap_req_scopes(struct dap *d, struct dap_req *r);
void dap_req_variables(struct dap *d, struct dap_req *r);
void dap_req_read_memory(struct dap *d, struct dap_req *r);
void dap_req_disassemble(struct dap *d, struct dap_req *r);

/* run.c: a stop reply came (the loop read it): say so to the client, or
 * go on (a watched neighbour, a call not yet returned). */
void dap_stopped(struct dap *d, const struct dap_stop *st);
/* The stub or the child is gone: terminated, with why. */
void dap_lost(struct dap *d, const char *why);
/* launch.c: the child's output, as events: what FD has now; all it has
 * (at a stop, so output comes before the stop that follows it). */
void dap_child_output(struct dap *d, int fd);
void dap_drain_output(struct dap *d);
/* run.c: resume HOW (thread TID where it matters); a stop that no
 * breakpoint explains is reported with REASON and DESC. 0 or -errno. */
int dap_resume(struct dap *d, enum dap_run how, int tid, const char *reason, const char *desc);
/* breakpoints.c: make the stub hold what the client set (stopped only);
 * snapshots of the data breakpoints' bytes. */
void dap_bp_sync(struct dap *d);
void dap_bp_snapshot(struct dap *d);
/* Which data breakpoints a watch stop ST is for: their ids into IDS (at
 * most MAX), the count; DESC gets old and new values. */
size_t dap_bp_watch_hits(struct dap *d, const struct dap_stop *st, int reverse, int *ids,
			 size_t max, char *desc, size_t size);
/* The breakpoints the client set at PC (instruction, function, line) whose
 * conditions say stop (in thread TID): their ids into IDS (at most MAX),
 * the count; *KIND the stopped reason they give. */
size_t dap_bp_hits_at(struct dap *d, uint64_t pc, int tid, int *ids, size_t max, const char **kind);
/* Whether PC is where a breakpoint the client set is. */
int dap_bp_user_at(const struct dap *d, uint64_t pc);
/* Place every line breakpoint again in the modules loaded now; EVENTS:
 * breakpoint events for those that changed. */
void dap_bp_resolve_lines(struct dap *d, int events);
void dap_bp_free_lines(struct dap *d);

/* step.c: start the plan set up in d->plan (kind, tid; temps and
 * reverse for a goto) from where its thread is stopped: its first leg
 * runs (0), or -errno with why in WHY (the plan is dropped). */
int dap_plan_start(struct dap *d, char *why, size_t size);
/* A stop reply came for the plan: 1 when it went on (another leg), 0
 * when it ended, with the stop's reason in *REASON and *DESC and the
 * breakpoints it hit in IDS (*N). */
int dap_plan_stopped(struct dap *d, const struct dap_stop *st, const char **reason,
		     const char **desc, char *text, size_t size, int *ids, size_t *n);

/* inspect.c: the stop's state is stale (a resume). */
void dap_forget_stop(struct dap *d);
/* Registers of TID into d->regs: 0 or -errno. */
int dap_read_regs(struct dap *d, int tid);
uint64_t dap_reg(const struct dap *d, int regno);
/* Memory: 0 or -errno (-EFAULT: not all readable). */
int dap_read_mem(struct dap *d, uint64_t addr, uint8_t *buf, size_t len);

/* ---- stack.c and vars.c: a stop at source level (wt-dap2a) ---- */

/* A frame's environment for dap/value.h: the unwound frame's registers,
 * memory through the per-stop cache, its module's DWARF. */
struct dap_frame_env {
	struct dap_eval_env env;
	struct dw_reader r;
	struct dap_stack_frame uf;
	struct dap *d;
	int dwarf; /* the frame's own module has DWARF (else env.syms is the
		    * program's, for its globals, and env.r->pc 0) */
};

/* The environment of frame FRAME_ID, or, for 0, of the top frame of the
 * current thread (without unwinding: what a condition needs). 0, or
 * -errno (-ENOENT: no such frame, -ENODATA: no DWARF to evaluate in). */
int dap_frame_env(struct dap *d, int frame_id, struct dap_frame_env *fe);
/* The frame FRAME_ID names, or NULL. */
const struct dap_frame *dap_frame_of(struct dap *d, int64_t frame_id);
/* The unwound frame of F (a frame of this stop), or NULL. */
const struct dap_stack_frame *dap_frame_unwound(struct dap *d, const struct dap_frame *f);
/* Memory through the per-stop cache: as dap_read_mem. */
int dap_read_mem_cached(struct dap *d, uint64_t addr, void *buf, size_t len);
/* evaluate of an expression (not a repl command), in CONTEXT. */
void dap_eval_request(struct dap *d, struct dap_req *r, const char *expr, const char *context);
/* The variables of a Registers scope (inspect.c). */
void dap_registers(struct dap *d, struct dap_req *r, const struct dap_frame *f);
/* dataBreakpointInfo for NAME in variables reference REF (a scope or a
 * value): 0 with the variable's address, size, expression and type, or
 * -1 with why not in WHY. */
int dap_vref_data(struct dap *d, int64_t ref, const char *name, uint64_t *addr, uint64_t *size,
		  char *expr, size_t exprlen, struct dap_value *val, char *why, size_t whylen);
/* The same for an expression evaluated in frame FRAME_ID (0: the top). */
int dap_expr_data(struct dap *d, int frame_id, const char *text, uint64_t *addr, uint64_t *size,
		  struct dap_value *val, char *why, size_t whylen);
void dap_req_loaded_sources(struct dap *d, struct dap_req *r);
void dap_req_modules(struct dap *d, struct dap_req *r);
/* breakpoints.c: everything the breakpoint lists hold. */
void dap_bp_free(struct dap *d);

/* ---- target.c: the stopped replay for dap/frames.h and dwarf/ ---- */

/* Readers of thread TID's registers (DWARF numbering) and of memory, over
 * RSP (valid until the next call). */
void dap_target_of(struct dap *d, int tid, struct dap_target *t);
/* The guest's auxiliary vector (qXfer:auxv:read), appended to AUXV. */
int dap_read_auxv(struct dap *d, struct hm_buf *auxv);
/* The modules loaded now (at a stop), into d->src. 0 or -errno. */
int dap_refresh_modules(struct dap *d, int tid);
/* The thread list from the stub, with thread events for the changes. */
void dap_update_threads(struct dap *d, int events);

#endif /* HERMIT_DAP_INTERNAL_H */
