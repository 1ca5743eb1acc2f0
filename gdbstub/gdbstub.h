/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdbstub: the GDB Remote Serial Protocol (GDB manual, appendix E "GDB
 * Remote Serial Protocol"), framing apart from meaning as in QEMU's stub.
 * framing.c is a byte state machine that turns the wire into whole,
 * checked and decoded packets and frames replies; packets.c hands each
 * packet to a table of { .cmd, .handler } rows, whose handlers live in
 * threads.c, run.c (resuming, stop replies), memory.c (registers, memory,
 * breakpoints), xfer.c (qXfer, with target.xml from tdesc.c) and hostio.c
 * (vFile, qRcmd). The stub knows nothing of tracing: it drives a target through
 * struct rsp_target_ops, so the replayer is one target and a test's fake
 * is another. It answers one gdb in all-stop mode; replies go out through
 * a send callback, so the transport (TCP, pipe) is the caller's.
 */
#ifndef HERMIT_GDBSTUB_H
#define HERMIT_GDBSTUB_H

#include <stddef.h>
#include <stdint.h>

/* ---- framing.c: packets on the wire ---- */

/*
 * The longest packet payload, after '}' escapes and '*' run lengths are
 * decoded, that the stub takes; qSupported tells gdb (PacketSize=4000),
 * and gdb sizes its 'm' and qXfer requests from it.
 */
#define RSP_MAX_PACKET 16384

enum rsp_event {
	RSP_NONE,	  /* byte taken, nothing complete yet */
	RSP_PACKET,	  /* f->buf[0..f->len) is a whole packet (NUL after it) */
	RSP_BAD_CHECKSUM, /* a packet with a wrong or non-hex checksum: send '-' */
	RSP_MALFORMED,	  /* a run length with nothing to repeat or a count outside
			   * 32..126 or '#', or '}' just before '#': dropped, send
			   * '-' as for a bad checksum */
	RSP_OVERFLOW,	  /* longer than RSP_MAX_PACKET decoded: dropped, reply an error */
	RSP_INTERRUPT,	  /* 0x03 outside a packet (gdb's Ctrl-C) */
	RSP_ACK,	  /* '+' outside a packet */
	RSP_NACK,	  /* '-' outside a packet: resend the last reply */
};

enum rsp_framer_state {
	RSP_RS_IDLE,	    /* between packets */
	RSP_RS_GETLINE,	    /* after '$' */
	RSP_RS_GETLINE_ESC, /* after '}' */
	RSP_RS_GETLINE_RLE, /* after '*' */
	RSP_RS_CHKSUM1,	    /* after '#' */
	RSP_RS_CHKSUM2,	    /* after the first checksum digit */
};

struct rsp_framer {
	enum rsp_framer_state state;
	uint8_t sum;   /* running sum of the bytes between '$' and '#', as sent */
	uint8_t want;  /* the checksum's first digit, as sent */
	int malformed; /* a bad run length or a '}' before '#' in this packet */
	int overflow;  /* this packet outgrew buf */
	size_t len;    /* decoded bytes in buf */
	uint8_t buf[RSP_MAX_PACKET + 1];
};

void rsp_framer_init(struct rsp_framer *f);
/*
 * Take one byte from the wire. Bytes outside a packet other than '$',
 * '+', '-' and 0x03 are ignored; a '$' inside a packet starts over (the
 * packet before it was cut). RSP_PACKET's payload stays in f->buf until
 * the next call. Safe for any byte sequence.
 */
enum rsp_event rsp_framer_byte(struct rsp_framer *f, uint8_t byte);
/*
 * Frame PAYLOAD (LEN bytes, binary allowed) into OUT: '$', the payload
 * with '#', '$', '}' and '*' escaped as '}' and the byte ^ 0x20, '#', two
 * lower-case hex digits of the checksum. The length written (no NUL), or
 * 0 when it does not fit in SIZE bytes.
 */
size_t rsp_encode(const char *payload, size_t len, char *out, size_t size);

/* ---- the target the stub drives ---- */

/*
 * Register numbers, shared by 'p' and the 'g' layout and equal to the
 * order of target.xml. The 'g' block is every register in this order,
 * each little-endian, with no padding:
 *
 *   0-15   rax rbx rcx rdx rsi rdi rbp rsp r8..r15    8 bytes each
 *   16     rip                                         8
 *   17     eflags                                      4
 *   18-23  cs ss ds es fs gs                           4 each
 *   24-31  st0..st7 (80-bit x87 extended)             10 each
 *   32-39  fctrl fstat ftag fiseg fioff foseg fooff fop  4 each
 *   40     orig_rax                                    8
 *   41-42  fs_base gs_base                             8 each
 *   43-58  xmm0..xmm15                                 16 each
 *   59     mxcsr                                       4
 *   60-75  ymm0h..ymm15h (the upper halves of ymm0-15) 16 each
 *
 * 816 bytes (RSP_REGS_SIZE). gdb's amd64 architecture rejects an
 * org.gnu.gdb.i386.core feature without the x87 registers
 * (i386_validate_tdesc_p() in gdb/i386-tdep.c wants all of num_core_regs,
 * the 24 general ones and the 16 of the i387). ftag is the full 16-bit tag
 * word (0xffff: all empty), not fxsave's abridged byte.
 */
enum rsp_regno {
	RSP_REG_RAX,
	RSP_REG_RBX,
	RSP_REG_RCX,
	RSP_REG_RDX,
	RSP_REG_RSI,
	RSP_REG_RDI,
	RSP_REG_RBP,
	RSP_REG_RSP,
	RSP_REG_R8,
	RSP_REG_R15 = RSP_REG_R8 + 7,
	RSP_REG_RIP,
	RSP_REG_EFLAGS,
	RSP_REG_CS,
	RSP_REG_SS,
	RSP_REG_DS,
	RSP_REG_ES,
	RSP_REG_FS,
	RSP_REG_GS,
	RSP_REG_ST0,
	RSP_REG_FCTRL = RSP_REG_ST0 + 8,
	RSP_REG_FSTAT,
	RSP_REG_FTAG,
	RSP_REG_FISEG,
	RSP_REG_FIOFF,
	RSP_REG_FOSEG,
	RSP_REG_FOOFF,
	RSP_REG_FOP,
	RSP_REG_ORIG_RAX,
	RSP_REG_FS_BASE,
	RSP_REG_GS_BASE,
	RSP_REG_XMM0,
	RSP_REG_MXCSR = RSP_REG_XMM0 + 16,
	RSP_REG_YMM0H, /* the upper halves of ymm0-15 (AVX) */
	RSP_NUM_REGS = RSP_REG_YMM0H + 16,
};

#define RSP_REGS_SIZE 816

/* Where register REGNO lies in the 'g' block: 0, or -EINVAL for no such
 * register. */
int rsp_reg_offset(int regno, size_t *offset, size_t *size);

enum rsp_resume {
	RSP_RESUME_CONT,	 /* c, C, vCont;c / vCont;C */
	RSP_RESUME_STEP,	 /* s, S, vCont;s / vCont;S */
	RSP_RESUME_REVERSE_CONT, /* bc */
	RSP_RESUME_REVERSE_STEP, /* bs */
};

enum rsp_stop_kind {
	RSP_STOP_SIGNAL,       /* T<sig>: breakpoint, step, signal, interrupt */
	RSP_STOP_EXITED,       /* W<status> */
	RSP_STOP_KILLED,       /* X<sig> */
	RSP_STOP_REPLAY_BEGIN, /* T05 replaylog:begin: reverse execution hit the start */
	RSP_STOP_REPLAY_END,   /* T05 replaylog:end: the recording is played out */
};

enum rsp_stop_reason {
	RSP_REASON_NONE,
	RSP_REASON_SWBREAK, /* a Z0 breakpoint; the target has put rip back on it */
	RSP_REASON_HWBREAK, /* a Z1 breakpoint */
	RSP_REASON_WATCH,   /* Z2, watch_addr */
	RSP_REASON_RWATCH,  /* Z3, watch_addr */
	RSP_REASON_AWATCH,  /* Z4, watch_addr */
	RSP_REASON_EXEC,    /* the process exec'd: reported as exec:<path> to a gdb
			     * that said exec-events+ (the path is the target's
			     * exec-file now), else as a plain stop */
};

struct rsp_stop {
	int kind;	     /* enum rsp_stop_kind */
	int sig;	     /* gdb's signal numbering (include/gdb/signals.def): 5 is TRAP */
	int status;	     /* exit status, for RSP_STOP_EXITED */
	int tid;	     /* the thread that stopped; 0 for none */
	int reason;	     /* enum rsp_stop_reason */
	uint64_t watch_addr; /* the data address of a watchpoint hit */
};

/*
 * The target, through its opaque T. Every function returns 0 or -errno
 * unless it says otherwise; an operation left NULL is unsupported and its
 * packets get the empty reply (or E01 where the protocol has no empty
 * one). Thread ids are the target's (Linux tids), > 0.
 */
struct rsp_target_ops {
	/* The 'g' block above of thread TID into BUF (RSP_REGS_SIZE bytes);
	 * *LEN: the bytes filled, at most RSP_REGS_SIZE. */
	int (*read_regs)(void *t, int tid, uint8_t *buf, size_t *len);
	/* Register REGNO alone, as laid out in the 'g' block; NULL: the stub
	 * reads the block and cuts it out. */
	int (*read_reg)(void *t, int tid, int regno, uint8_t *buf, size_t *len);
	/* LEN bytes at ADDR, all or -EFAULT. */
	int (*read_mem)(void *t, uint64_t addr, uint8_t *buf, size_t len);
	/* The live threads, in order, at most MAX of them, into TIDS; *N: how many. */
	int (*threads)(void *t, int *tids, int max, int *n);
	/* Thread TID's name (comm) as a C string in BUF. */
	int (*thread_name)(void *t, int tid, char *buf, size_t size);
	/* Insert (INSERT 1) or remove a breakpoint or watchpoint: TYPE 0..4 as
	 * in Z0..Z4, KIND the length gdb gives. -EOPNOTSUPP: this type is not
	 * supported (empty reply). */
	int (*set_breakpoint)(void *t, int type, uint64_t addr, int kind, int insert);
	/*
	 * Run: HOW for thread TID (the thread gdb named, or its current one)
	 * in all-stop mode: the other threads run as the recording has them.
	 * Blocks until the target stops and fills *STOP. A signal gdb asks to
	 * deliver (C, S) is not passed on: a replay delivers what was recorded.
	 * -EINPROGRESS: the target goes on in its caller's loop and reports
	 * the stop later with rsp_session_stopped() (no reply is sent now).
	 */
	int (*resume)(void *t, enum rsp_resume how, int tid, struct rsp_stop *stop);
	/* qXfer OBJECT ("auxv", "exec-file") with ANNEX ("" or the pid in hex):
	 * up to LEN bytes from OFF; *GOT < LEN means the object ends there. */
	int (*xfer)(void *t, const char *object, const char *annex, uint64_t off, uint8_t *buf,
		    size_t len, size_t *got);
	/* vFile: open PATH with host FLAGS (O_RDONLY...) and permission bits
	 * MODE: an fd >= 0 or -errno. */
	int (*file_open)(void *t, const char *path, int flags, int mode);
	/* Read up to LEN bytes at OFF: the count or -errno. */
	int (*file_pread)(void *t, int fd, uint8_t *buf, size_t len, uint64_t off);
	int (*file_close)(void *t, int fd);
	/* "monitor CMD": its text output into OUT (a C string). */
	int (*monitor)(void *t, const char *cmd, char *out, size_t size);
	/* Ctrl-C from gdb; may be NULL. The stub calls it only between
	 * packets: a resume that must be interruptible watches the
	 * connection itself and returns a SIGINT stop. */
	void (*interrupt)(void *t);
	/* k, vKill: end the target. */
	void (*kill)(void *t);
	/* vRun: back to the first instruction; fills *STOP. */
	int (*restart)(void *t, struct rsp_stop *stop);
	int pid; /* the process in multiprocess thread ids p<pid>.<tid> */
};

/* ---- packets.c: a session with one gdb ---- */

struct rsp_session;

/*
 * A session over OPS and TARGET (both must outlive it) that writes whole
 * replies with SEND (which returns 0 or -errno) on IO. Until gdb's first
 * stop request the target counts as stopped with SIGTRAP in its first
 * thread.
 */
struct rsp_session *rsp_session_new(const struct rsp_target_ops *ops, void *target,
				    int (*send)(void *io, const char *bytes, size_t len), void *io);
void rsp_session_free(struct rsp_session *s);
/* A session's state (what gdb said, what it was told), for a fork of hermit
 * that takes the session over: its size, a copy into BUF, and the copy
 * put into a session of the same program (its own buffers and calls kept). */
size_t rsp_session_state_size(void);
void rsp_session_save(const struct rsp_session *s, void *buf);
void rsp_session_load(struct rsp_session *s, const void *buf);
/*
 * Feed LEN bytes received from gdb; acks and replies go out through send.
 * 0; 1 when the session has ended (D, k, vKill: close the connection;
 * bytes after the packet that ended it are ignored); -errno when send
 * failed (the connection is gone).
 */
int rsp_session_input(struct rsp_session *s, const uint8_t *bytes, size_t len);
/* The target stopped by itself (after an interrupt): send STOP's reply
 * and keep it for '?'. */
void rsp_session_stopped(struct rsp_session *s, const struct rsp_stop *stop);
/* The target is at STOP now, which gdb did not ask for (a monitor
 * command moved it): keep it for '?', send nothing. */
void rsp_session_note_stop(struct rsp_session *s, const struct rsp_stop *stop);
/* Whether gdb said it takes exec events (qSupported exec-events+): then a
 * stop with RSP_REASON_EXEC tells it which program to load. */
int rsp_session_exec_events(const struct rsp_session *s);

#endif /* HERMIT_GDBSTUB_H */
