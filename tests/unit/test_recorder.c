/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for recorder/: the determinism models a guest sees through its
 * syscalls. The PRNG is pinned to xoshiro256** seeded by splitmix64 (values
 * computed apart from this code, from the published algorithms), the
 * virtual clock is read through every clock id family the kernel knows
 * (include/uapi/linux/time.h and the CPU-time ids of posix-cpu-timers.c),
 * file metadata is fed real linux_dirent64 and linux_dirent buffers laid
 * out as fs/readdir.c writes them, and the syscall table is checked row by
 * row. The time handlers run against this process itself: tracer_write_mem
 * uses process_vm_writev, which may target its caller, so no tracee is
 * needed; they are skipped where that syscall is forbidden.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>

#include "common/common.h"
#include "recorder/internal.h"

#define SEC HM_NS_PER_SEC

/* ---- rec_prng ---- */

static void test_prng_known_values(void **state)
{
	/* splitmix64 from 0 gives 0xe220a8397b1dcdaf first (Vigna's splitmix64.c);
	 * the outputs are xoshiro256** from the four splitmix64 words. */
	static const uint64_t seed0[] = { 0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL,
					  0x1a5f849d4933e6e0ULL, 0x6aa594f1262d2d2cULL };
	static const uint64_t seed42[] = { 0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL,
					   0xae17533239e499a1ULL, 0xecb8ad4703b360a1ULL };
	struct rec_prng p;

	(void)state;
	rec_prng_init(&p, 0);
	assert_int_equal(p.s[0], 0xe220a8397b1dcdafULL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rec_prng_next(&p), seed0[i]);
	rec_prng_init(&p, 42);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rec_prng_next(&p), seed42[i]);
}

static void test_prng_same_seed(void **state)
{
	struct rec_prng a, b;

	(void)state;
	rec_prng_init(&a, 12345);
	rec_prng_init(&b, 12345);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(rec_prng_next(&a), rec_prng_next(&b));
	/* Re-seeding starts the stream over. */
	rec_prng_init(&b, 12345);
	rec_prng_init(&a, 12345);
	assert_int_equal(rec_prng_next(&a), rec_prng_next(&b));
}

static void test_prng_different_seeds(void **state)
{
	static const uint64_t seeds[] = { 0, 1, 2, 42, UINT64_MAX, 0x8000000000000000ULL };
	enum { N = sizeof(seeds) / sizeof(seeds[0]), K = 64 };
	uint64_t out[N][K];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		struct rec_prng p;

		rec_prng_init(&p, seeds[i]);
		for (int k = 0; k < K; k++)
			out[i][k] = rec_prng_next(&p);
	}
	/* Streams of different seeds share no word in the same position. */
	for (size_t i = 0; i < N; i++)
		for (size_t j = i + 1; j < N; j++)
			for (int k = 0; k < K; k++)
				assert_true(out[i][k] != out[j][k]);
}

/* Seed 0 must not leave the all-zero state, which xoshiro never leaves. */
static void test_prng_seed_zero_not_stuck(void **state)
{
	struct rec_prng p;
	uint64_t prev = 0;
	int ones = 0;

	(void)state;
	rec_prng_init(&p, 0);
	assert_true(p.s[0] | p.s[1] | p.s[2] | p.s[3]);
	for (int i = 0; i < 1000; i++) {
		uint64_t v = rec_prng_next(&p);

		assert_true(v != prev);
		prev = v;
		ones += __builtin_popcountll(v);
	}
	/* 64000 bits; a fair stream has 32000 +- a few hundred ones. */
	assert_in_range(ones, 31000, 33000);
}

/*
 * rec_prng_fill takes one 64-bit word per 8 bytes, in host byte order, and
 * the low bytes of a further word for a tail: within one call the bytes are
 * the stream's, so a fill of N is the prefix of any longer fill; but each
 * call starts on a fresh word, so the unused bytes of a tail are dropped.
 */
static void test_prng_fill_is_words(void **state)
{
	struct rec_prng a, b;
	unsigned char buf[32], want[32];

	(void)state;
	rec_prng_init(&a, 7);
	rec_prng_init(&b, 7);
	rec_prng_fill(&a, buf, sizeof(buf));
	for (int i = 0; i < 4; i++) {
		uint64_t v = rec_prng_next(&b);

		memcpy(want + 8 * i, &v, 8);
	}
	assert_memory_equal(buf, want, sizeof(buf));
}

static void test_prng_fill_prefix(void **state)
{
	static const size_t lens[] = { 1, 3, 7, 8, 9, 13, 15, 17, 31, 63 };
	unsigned char full[64];
	struct rec_prng p;

	(void)state;
	rec_prng_init(&p, 99);
	rec_prng_fill(&p, full, sizeof(full));
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		unsigned char buf[64 + 8];

		/* Exactly LEN bytes are written: the guard after them stays. */
		memset(buf, 0xa5, sizeof(buf));
		rec_prng_init(&p, 99);
		rec_prng_fill(&p, buf, lens[i]);
		assert_memory_equal(buf, full, lens[i]);
		for (size_t k = lens[i]; k < sizeof(buf); k++)
			assert_int_equal(buf[k], 0xa5);
	}
}

static void test_prng_fill_consumes_whole_words(void **state)
{
	struct rec_prng a, b;
	unsigned char first[3], second[5], words[16];
	uint64_t w[3];

	(void)state;
	rec_prng_init(&b, 5);
	for (int i = 0; i < 3; i++)
		w[i] = rec_prng_next(&b);
	memcpy(words, w, 16);

	/* 3 bytes then 5 bytes: two words, not the first 8 bytes of one. */
	rec_prng_init(&a, 5);
	rec_prng_fill(&a, first, sizeof(first));
	rec_prng_fill(&a, second, sizeof(second));
	assert_memory_equal(first, words, 3);
	assert_memory_equal(second, words + 8, 5);
	assert_int_equal(rec_prng_next(&a), w[2]);

	/* 13 bytes take two words; a fill of 0 takes none. */
	rec_prng_init(&a, 5);
	rec_prng_fill(&a, words, 13);
	rec_prng_fill(&a, words, 0);
	assert_int_equal(rec_prng_next(&a), w[2]);
}

/* ---- rec_clock ---- */

/* CPU-time clock ids (include/linux/posix-timers_types.h): the pid's
 * complement shifted left by 3, bit 2 for a thread, the low two bits the
 * clock (0 PROF, 1 VIRT, 2 SCHED, 3 is CLOCKFD, not a CPU clock). */
static long cpuclock(int pid, int thread, int which)
{
	return (long)~pid * 8 + (thread ? 4 : 0) + which;
}

static void test_clock_realtime(void **state)
{
	const int64_t epoch = 1767225600LL * SEC;
	static const long ids[] = { CLOCK_REALTIME, CLOCK_REALTIME_COARSE };
	struct rec_clock c;
	int64_t ns;

	(void)state;
	rec_clock_init(&c, epoch);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ns = -1;
		assert_int_equal(rec_clock_read(&c, ids[i], &ns), 0);
		assert_int_equal(ns, epoch);
	}
	rec_clock_advance(&c, 1234567);
	rec_clock_advance(&c, 3 * SEC);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_int_equal(rec_clock_read(&c, ids[i], &ns), 0);
		assert_int_equal(ns, epoch + 3 * SEC + 1234567);
	}
	/* The epoch may be before 1970. */
	rec_clock_init(&c, -10 * SEC);
	rec_clock_advance(&c, 4 * SEC);
	assert_int_equal(rec_clock_read(&c, CLOCK_REALTIME, &ns), 0);
	assert_int_equal(ns, -6 * SEC);
}

static void test_clock_monotonic(void **state)
{
	static const long ids[] = { CLOCK_MONOTONIC, CLOCK_MONOTONIC_COARSE, CLOCK_MONOTONIC_RAW,
				    CLOCK_BOOTTIME };
	struct rec_clock c;
	int64_t ns;

	(void)state;
	/* The epoch has no bearing on monotonic clocks. */
	rec_clock_init(&c, 1767225600LL * SEC);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ns = -1;
		assert_int_equal(rec_clock_read(&c, ids[i], &ns), 0);
		assert_int_equal(ns, REC_BOOT_NS);
	}
	rec_clock_advance(&c, 5 * REC_SYSCALL_NS);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_int_equal(rec_clock_read(&c, ids[i], &ns), 0);
		assert_int_equal(ns, REC_BOOT_NS + 5 * REC_SYSCALL_NS);
	}
	assert_int_equal(rec_clock_tsc(&c), (uint64_t)(REC_BOOT_NS + 5 * REC_SYSCALL_NS));
}

static void test_clock_advance_never_back(void **state)
{
	struct rec_clock c;
	int64_t ns;

	(void)state;
	rec_clock_init(&c, 0);
	rec_clock_advance(&c, 100);
	rec_clock_advance(&c, 0);
	rec_clock_advance(&c, -50);
	rec_clock_advance(&c, INT64_MIN);
	assert_int_equal(c.now_ns, 100);
	assert_int_equal(rec_clock_read(&c, CLOCK_MONOTONIC, &ns), 0);
	assert_int_equal(ns, REC_BOOT_NS + 100);
}

static void test_clock_cputime(void **state)
{
	static const long ids[] = {
		CLOCK_PROCESS_CPUTIME_ID,
		CLOCK_THREAD_CPUTIME_ID,
		-6, /* clock_getcpuclockid(0): process 0 (self), SCHED */
		-2, /* pthread_getcpuclockid of the caller: thread 0, SCHED */
		-8, /* process 0, PROF */
		-7, /* process 0, VIRT */
		-4, /* thread 0, PROF */
	};
	struct rec_clock c;
	int64_t ns;

	(void)state;
	assert_int_equal(cpuclock(0, 0, 2), -6);
	assert_int_equal(cpuclock(0, 1, 2), -2);
	rec_clock_init(&c, 1767225600LL * SEC);
	rec_clock_advance(&c, 777);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ns = -1;
		assert_int_equal(rec_clock_read(&c, ids[i], &ns), 0);
		assert_int_equal(ns, 777);
	}
	/* Clocks of another pid or tid, as clock_getcpuclockid(1234) makes them. */
	for (int which = 0; which < 3; which++) {
		assert_int_equal(rec_clock_read(&c, cpuclock(1234, 0, which), &ns), 0);
		assert_int_equal(ns, 777);
		assert_int_equal(rec_clock_read(&c, cpuclock(1234, 1, which), &ns), 0);
		assert_int_equal(ns, 777);
	}
}

/* adjtimex on the virtual clock: a synchronized clock at the virtual
 * time; reads only, setting fails as for an unprivileged process. */
static void test_clock_timex(void **state)
{
	static const unsigned setting[] = { ADJ_OFFSET, ADJ_FREQUENCY, ADJ_SETOFFSET,
					    ADJ_STATUS, ADJ_TICK,	ADJ_OFFSET_SINGLESHOT };
	struct rec_clock c;
	struct timex tx;

	(void)state;
	rec_clock_init(&c, 1767225600LL * SEC);
	rec_clock_advance(&c, 3 * SEC + 456789);
	memset(&tx, 0xaa, sizeof(tx));
	tx.modes = 0;
	assert_int_equal(rec_clock_timex(&c, &tx), TIME_OK);
	assert_int_equal(tx.time.tv_sec, 1767225603);
	assert_int_equal(tx.time.tv_usec, 456);
	assert_int_equal(tx.offset, 0);
	assert_int_equal(tx.freq, 0);
	assert_int_equal(tx.status & (STA_UNSYNC | STA_NANO), 0);
	assert_int_equal(tx.tick, 10000);
	assert_int_equal(tx.tai, 0);
	/* adjtime(NULL, &old) reads what is left of an adjustment: nothing */
	memset(&tx, 0xaa, sizeof(tx));
	tx.modes = ADJ_OFFSET_SS_READ;
	assert_int_equal(rec_clock_timex(&c, &tx), TIME_OK);
	assert_int_equal(tx.offset, 0);
	assert_int_equal(tx.modes, ADJ_OFFSET_SS_READ);
	for (size_t i = 0; i < sizeof(setting) / sizeof(setting[0]); i++) {
		memset(&tx, 0, sizeof(tx));
		tx.modes = setting[i];
		tx.offset = 7;
		assert_int_equal(rec_clock_timex(&c, &tx), -EPERM);
		assert_int_equal(tx.offset, 7);
	}
	/* ADJ_ADJTIME without the single-shot bit is malformed */
	tx.modes = 0x8000;
	assert_int_equal(rec_clock_timex(&c, &tx), -EINVAL);
}

/* statfs: free counts that do not move, fsids numbered as first seen. */
static void test_fsvirt_statfs(void **state)
{
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	struct statfs a, b, p;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.f_type = 0xef53;
	a.f_bsize = 4096;
	a.f_blocks = 1001;
	a.f_bfree = 777;
	a.f_bavail = 700;
	a.f_files = 64;
	a.f_ffree = 3;
	a.f_fsid.__val[0] = 0x58da06d9;
	a.f_fsid.__val[1] = 0x2dda3a8c;
	a.f_namelen = 255;
	a.f_flags = 0x1020;
	b = a;
	b.f_bfree = 12; /* the host wrote meanwhile */
	b.f_ffree = 2;
	memset(&p, 0, sizeof(p));
	p.f_type = 0x9fa0; /* /proc: no blocks, an fsid of its mount */
	p.f_fsid.__val[0] = 45;
	rec_fsvirt_statfs(fs, &a);
	rec_fsvirt_statfs(fs, &p);
	rec_fsvirt_statfs(fs, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.f_bfree, 500);
	assert_int_equal(a.f_bavail, 500);
	assert_int_equal(a.f_ffree, 32);
	assert_int_equal(a.f_blocks, 1001);
	assert_int_equal(a.f_type, 0xef53);
	assert_int_equal(a.f_namelen, 255);
	assert_int_equal(a.f_flags, 0x1020);
	assert_int_equal(a.f_fsid.__val[0], 1);
	assert_int_equal(a.f_fsid.__val[1], 0);
	assert_int_equal(p.f_fsid.__val[0], 2);
	assert_int_equal(p.f_bfree, 0);
	rec_fsvirt_free(fs);
}

static void test_clock_invalid(void **state)
{
	static const long ids[] = {
		10, /* CLOCK_SGI_CYCLE, gone from the kernel */
		12,  13,	 14,
		15, /* unassigned below MAX_CLOCKS */
		16, /* MAX_CLOCKS */
		100, 0x7fffffff, 0x7fffffffffffffffL,
		-1, /* thread 0 with clock 3: no such CPU clock */
	};
	struct rec_clock c;
	int64_t ns = 0x5a5a;

	(void)state;
	rec_clock_init(&c, 0);
	rec_clock_advance(&c, 1);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (rec_clock_read(&c, ids[i], &ns) != -EINVAL)
			fail_msg("rec_clock_read(%ld) did not return -EINVAL", ids[i]);
	}
	assert_int_equal(ns, 0x5a5a);
	assert_int_equal(rec_clock_read(&c, cpuclock(1234, 1, 3), &ns), -EINVAL);
}

/*
 * A negative id whose low three bits are 3 is not a CPU clock but a dynamic
 * clock on a file descriptor (FD_TO_CLOCKID in posix-timers_types.h, for
 * /dev/ptp*): kernel/time/posix-timers.c clockid_to_kclock sends it to
 * posix-clock.c, not posix-cpu-timers.c. vclock.c's own comment says those
 * ids are invalid; they must not read the CPU-time counter.
 */
static void test_clock_fd_ids_are_not_cputime(void **state)
{
	struct rec_clock c;
	int64_t ns = 0x5a5a;

	(void)state;
	rec_clock_init(&c, 0);
	assert_int_equal(rec_clock_read(&c, cpuclock(3, 0, 3), &ns), -EINVAL); /* fd 3 */
	assert_int_equal(rec_clock_read(&c, -5, &ns), -EINVAL);		       /* fd 0 */
	assert_int_equal(ns, 0x5a5a);
}

/* ---- the time handlers, against this process ---- */

struct handler_env {
	struct rec r;
	struct task t;
	struct rec_call c;
};

static int setup_handlers(void **state)
{
	struct handler_env *env = xcalloc(1, sizeof(*env));
	uint64_t probe = 1, target = 0;

	env->t.tid = getpid();
	if (tracer_write_mem(env->t.tid, (uint64_t)(uintptr_t)&target, &probe, sizeof(probe)) < 0 ||
	    target != 1) {
		free(env);
		*state = NULL;
		return 0;
	}
	*state = env;
	return 0;
}

static int teardown_handlers(void **state)
{
	free(*state);
	return 0;
}

static struct handler_env *handler_env(void **state, int64_t epoch, int64_t now)
{
	struct handler_env *env = *state;

	if (!env)
		skip(); /* process_vm_writev on ourselves is not allowed here */
	memset(&env->r, 0, sizeof(env->r));
	memset(&env->c, 0, sizeof(env->c));
	rec_clock_init(&env->r.clock, epoch);
	rec_clock_advance(&env->r.clock, now);
	return env;
}

/* ---- sent.c, against this process ---- */

/* Which digest sent() asks for: XXH3-64, or FNV-1a as for a recording
 * older than metadata's "sent_digest". */
static int sent_fnv1a;

/* What rec_sent_digest must give for N bytes at P: XXH3_64bits, or
 * hm_fnv1a (checked against the published vectors in test_common), of
 * them all at once, however they were cut. */
static uint64_t fnv(const void *p, size_t n)
{
	return sent_fnv1a ? hm_fnv1a(HM_FNV1A_INIT, p, n) : XXH3_64bits(p, n);
}

static uint64_t sent(struct handler_env *env, long nr, uint64_t buf, uint64_t n, long ret)
{
	static struct rec_options opts;

	opts.sent_fnv1a = sent_fnv1a;
	env->r.opts = &opts;
	env->c.nr = nr;
	env->c.args[0] = 1;
	env->c.args[1] = buf;
	env->c.args[2] = n;
	env->c.ret = ret;
	return rec_sent_digest(&env->r, &env->t, rec_syscall_find(nr), &env->c);
}

/* The bytes the result says went, from the buffer or the iovecs, whatever
 * the cut; none for a failed call or one that sent nothing. */
static void sent_buf_iov(struct handler_env *env)
{
	static const char text[] = "total 60000000\n";
	char a[] = "tot", b[] = "al 6", c[] = "0000000\n";
	struct iovec iov[4] = { { a, 3 }, { NULL, 0 }, { b, 4 }, { c, 8 } };
	uint64_t at = (uint64_t)(uintptr_t)text, v = (uint64_t)(uintptr_t)iov;

	assert_int_equal(sent(env, SYS_write, at, 15, 15), fnv(text, 15));
	assert_int_equal(sent(env, SYS_pwrite64, at, 15, 15), fnv(text, 15));
	assert_int_equal(sent(env, SYS_sendto, at, 15, 15), fnv(text, 15));
	assert_int_equal(sent(env, SYS_write, at, 15, 7), fnv(text, 7)); /* a short write */
	assert_int_equal(sent(env, SYS_write, at, 15, 0), 0);
	assert_int_equal(sent(env, SYS_write, at, 15, -EPIPE), 0);
	assert_int_equal(sent(env, SYS_writev, v, 4, 15), fnv(text, 15));
	assert_int_equal(sent(env, SYS_pwritev, v, 4, 15), fnv(text, 15));
	assert_int_equal(sent(env, SYS_pwritev2, v, 4, 5), fnv(text, 5));
	assert_int_equal(sent(env, SYS_writev, v, 3, 7), fnv(text, 7));
	assert_int_equal(sent(env, SYS_writev, v, 4, -EFAULT), 0);
	/* one byte other, another digest */
	c[6] = '1';
	assert_int_not_equal(sent(env, SYS_writev, v, 4, 15), fnv(text, 15));
}

/* A write of 200 KiB, read in several pieces: the digest of the whole. */
static void sent_big(struct handler_env *env)
{
	size_t n = 200 << 10;
	unsigned char *p = malloc(n);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + (i >> 11));
	assert_int_equal(sent(env, SYS_write, (uint64_t)(uintptr_t)p, n, (long)n), fnv(p, n));
	free(p);
}

static void test_sent_digest_buf_iov(void **state)
{
	struct handler_env *env = handler_env(state, 0, 0);

	for (sent_fnv1a = 0; sent_fnv1a < 2; sent_fnv1a++) {
		sent_buf_iov(env);
		sent_big(env);
	}
	sent_fnv1a = 0;
}

/* sendmsg: the data of the iovecs, never the address or control data;
 * sendmmsg: each message's length, then its data, for the ret sent. */
static void sent_msg(struct handler_env *env)
{
	char a[] = "ping", b[] = "pong!", name[16] = "address";
	struct iovec iov[2] = { { a, 4 }, { b, 5 } };
	struct mmsghdr mm[2];
	struct msghdr mh;
	unsigned char all[17];
	uint64_t want;
	uint32_t len;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = name;
	mh.msg_namelen = sizeof(name);
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	assert_int_equal(sent(env, SYS_sendmsg, (uint64_t)(uintptr_t)&mh, 0, 9),
			 fnv("pingpong!", 9));
	assert_int_equal(sent(env, SYS_sendmsg, (uint64_t)(uintptr_t)&mh, 0, 6), fnv("pingpo", 6));

	memset(mm, 0, sizeof(mm));
	mm[0].msg_hdr.msg_iov = &iov[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	mm[0].msg_len = 4;
	mm[1].msg_hdr.msg_iov = &iov[1];
	mm[1].msg_hdr.msg_iovlen = 1;
	mm[1].msg_len = 5;
	len = 4;
	memcpy(all, &len, 4);
	memcpy(all + 4, "ping", 4);
	want = fnv(all, 8);
	assert_int_equal(sent(env, SYS_sendmmsg, (uint64_t)(uintptr_t)mm, 2, 1), want);
	len = 5;
	memcpy(all + 8, &len, 4);
	memcpy(all + 12, "pong!", 5);
	want = fnv(all, 17);
	assert_int_equal(sent(env, SYS_sendmmsg, (uint64_t)(uintptr_t)mm, 2, 2), want);
	/* the same bytes cut into other messages are another sending */
	mm[0].msg_len = 3;
	assert_int_not_equal(sent(env, SYS_sendmmsg, (uint64_t)(uintptr_t)mm, 2, 2), want);
}

static void test_sent_digest_msg(void **state)
{
	struct handler_env *env = handler_env(state, 0, 0);

	for (sent_fnv1a = 0; sent_fnv1a < 2; sent_fnv1a++)
		sent_msg(env);
	sent_fnv1a = 0;
}

/* Outside for a write: files, devices, hermit's own pipes, sockets with
 * --network=host; not the guest's own pipes, sockets and eventfds, nor a
 * descriptor that is not open. */
static void test_fd_to_outside(void **state)
{
	struct handler_env *env = handler_env(state, 0, 0);
	struct rec_options opts;
	int own[2], inside[2], sv[2], efd, null, file;
	char path[] = "/tmp/hermit-test-sent.XXXXXX";

	memset(&opts, 0, sizeof(opts));
	env->r.opts = &opts;
	assert_int_equal(pipe(own), 0);
	rec_note_outside(&env->r); /* every pipe open now is hermit's own */
	assert_int_equal(pipe(inside), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	efd = eventfd(0, 0);
	null = open("/dev/null", O_WRONLY);
	file = mkstemp(path);
	assert_true(efd >= 0 && null >= 0 && file >= 0);
	unlink(path);
	int fds[] = { own[0], own[1], inside[0], inside[1], sv[0], sv[1], efd, null, file };

	assert_true(rec_fd_to_outside(&env->r, env->t.tid, own[1]));
	assert_true(rec_fd_to_outside(&env->r, env->t.tid, null));
	assert_true(rec_fd_to_outside(&env->r, env->t.tid, file));
	assert_false(rec_fd_to_outside(&env->r, env->t.tid, inside[1]));
	assert_false(rec_fd_to_outside(&env->r, env->t.tid, sv[0]));
	assert_false(rec_fd_to_outside(&env->r, env->t.tid, efd));
	assert_false(rec_fd_to_outside(&env->r, env->t.tid, 999));
	opts.network_host = 1;
	assert_true(rec_fd_to_outside(&env->r, env->t.tid, sv[0]));

	rec_forget_outside(&env->r);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close(fds[i]);
}

static void test_sys_clock_gettime(void **state)
{
	struct handler_env *env = handler_env(state, 1767225600LL * SEC, 2 * SEC + 345);
	struct timespec ts = { -1, -1 };

	env->c.args[0] = CLOCK_REALTIME;
	env->c.args[1] = (uint64_t)(uintptr_t)&ts;
	env->c.ret = 99;
	assert_int_equal(rec_sys_clock_gettime(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(ts.tv_sec, 1767225602);
	assert_int_equal(ts.tv_nsec, 345);

	/* clockid_t is an int: the upper half of the register is ignored. */
	env->c.args[0] = 0xffffffff00000000ULL | CLOCK_MONOTONIC;
	assert_int_equal(rec_sys_clock_gettime(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(ts.tv_sec, REC_BOOT_NS / SEC + 2);
	assert_int_equal(ts.tv_nsec, 345);

	/* A CPU-time clock id arrives sign-extended from 32 bits. */
	env->c.args[0] = (uint32_t)-6;
	assert_int_equal(rec_sys_clock_gettime(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(ts.tv_sec, 2);

	ts.tv_sec = ts.tv_nsec = 77;
	env->c.args[0] = 12;
	assert_int_equal(rec_sys_clock_gettime(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, -EINVAL);
	assert_int_equal(ts.tv_sec, 77);

	/* An address that is not mapped. */
	env->c.args[0] = CLOCK_REALTIME;
	env->c.args[1] = 8;
	assert_int_equal(rec_sys_clock_gettime(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, -EFAULT);
}

/*
 * With an epoch before 1970 the wall clock is negative, and the guest must
 * still get a normalized timespec (0 <= tv_nsec < 1e9, tv_sec rounded down)
 * as the kernel's ns_to_timespec64 makes, and time() rounds down too.
 */
static void test_sys_time_before_1970(void **state)
{
	struct handler_env *env = handler_env(state, -2 * SEC, SEC / 2);
	struct timespec ts = { 0, 0 };
	struct timeval tv = { 0, 0 };
	int64_t secs = 0;

	/* Wall time is -1.5 s: 1969-12-31T23:59:58.5Z. */
	env->c.args[0] = CLOCK_REALTIME;
	env->c.args[1] = (uint64_t)(uintptr_t)&ts;
	rec_sys_clock_gettime(&env->r, &env->t, &env->c);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(ts.tv_sec, -2);
	assert_int_equal(ts.tv_nsec, 500000000);

	env->c.args[0] = (uint64_t)(uintptr_t)&tv;
	env->c.args[1] = 0;
	rec_sys_gettimeofday(&env->r, &env->t, &env->c);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(tv.tv_sec, -2);
	assert_int_equal(tv.tv_usec, 500000);

	env->c.args[0] = (uint64_t)(uintptr_t)&secs;
	rec_sys_time(&env->r, &env->t, &env->c);
	assert_int_equal(secs, -2);
	assert_int_equal(env->c.ret, -2);
}

static void test_sys_gettimeofday(void **state)
{
	struct handler_env *env = handler_env(state, 1767225600LL * SEC, 1500999);
	struct timeval tv = { 0, 0 };
	struct timezone tz = { 5, 5 };

	env->c.args[0] = (uint64_t)(uintptr_t)&tv;
	env->c.args[1] = (uint64_t)(uintptr_t)&tz;
	assert_int_equal(rec_sys_gettimeofday(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(tv.tv_sec, 1767225600);
	assert_int_equal(tv.tv_usec, 1500);
	assert_int_equal(tz.tz_minuteswest, 0);
	assert_int_equal(tz.tz_dsttime, 0);
}

/* A sleep is a wait until a virtual deadline: the task waits, the clock
 * does not move (the scheduler jumps it when nothing else can run). */
static void assert_sleeps_until(struct handler_env *env, enum rec_action action, int64_t deadline)
{
	assert_int_equal(action, REC_BLOCKED);
	assert_int_equal(env->t.state, TASK_WAITING);
	assert_int_equal(env->t.wait, WAIT_SLEEP);
	assert_int_equal(env->t.deadline, deadline);
	env->t.state = TASK_RUNNING;
	env->t.wait = WAIT_NONE;
}

static void test_sys_nanosleep(void **state)
{
	struct handler_env *env = handler_env(state, 0, 1000);
	struct timespec req = { 2, 500 };

	env->c.args[0] = (uint64_t)(uintptr_t)&req;
	assert_sleeps_until(env, rec_sys_nanosleep(&env->r, &env->t, &env->c),
			    1000 + 2 * SEC + 500);
	assert_int_equal(env->r.clock.now_ns, 1000);

	/* A zero sleep returns at once. */
	req.tv_sec = 0;
	req.tv_nsec = 0;
	assert_int_equal(rec_sys_nanosleep(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, 0);

	/* kernel/time/hrtimer.c: tv_nsec out of range is -EINVAL, and no sleep. */
	req.tv_nsec = SEC;
	assert_int_equal(rec_sys_nanosleep(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, -EINVAL);
	req.tv_sec = -1;
	req.tv_nsec = 0;
	rec_sys_nanosleep(&env->r, &env->t, &env->c);
	assert_int_equal(env->c.ret, -EINVAL);
	env->c.args[0] = 8;
	rec_sys_nanosleep(&env->r, &env->t, &env->c);
	assert_int_equal(env->c.ret, -EFAULT);
	assert_int_equal(env->r.clock.now_ns, 1000);
}

static void test_sys_clock_nanosleep(void **state)
{
	struct handler_env *env = handler_env(state, 1767225600LL * SEC, 10 * SEC);
	struct timespec req = { REC_BOOT_NS / SEC + 15, 0 };

	/* Absolute: sleep until MONOTONIC reads boot+15 s, i.e. 5 s on. */
	env->c.args[0] = CLOCK_MONOTONIC;
	env->c.args[1] = TIMER_ABSTIME;
	env->c.args[2] = (uint64_t)(uintptr_t)&req;
	assert_sleeps_until(env, rec_sys_clock_nanosleep(&env->r, &env->t, &env->c), 15 * SEC);

	/* An absolute time already past returns at once. */
	req.tv_sec = REC_BOOT_NS / SEC + 1;
	assert_int_equal(rec_sys_clock_nanosleep(&env->r, &env->t, &env->c), REC_EMULATED);
	assert_int_equal(env->c.ret, 0);
	assert_int_equal(env->r.clock.now_ns, 10 * SEC);

	/* Relative on the wall clock. */
	req.tv_sec = 1;
	env->c.args[0] = CLOCK_REALTIME;
	env->c.args[1] = 0;
	assert_sleeps_until(env, rec_sys_clock_nanosleep(&env->r, &env->t, &env->c), 11 * SEC);

	/* The thread's CPU clock cannot be slept on; nor can a bad id. */
	env->c.args[0] = CLOCK_THREAD_CPUTIME_ID;
	rec_sys_clock_nanosleep(&env->r, &env->t, &env->c);
	assert_int_equal(env->c.ret, -EINVAL);
	env->c.args[0] = 14;
	rec_sys_clock_nanosleep(&env->r, &env->t, &env->c);
	assert_int_equal(env->c.ret, -EINVAL);
	assert_int_equal(env->r.clock.now_ns, 10 * SEC);
}

/* ---- rec_fsvirt: inode numbers and times ---- */

static void test_fsvirt_ino_order(void **state)
{
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	uint64_t a, b, c;

	(void)state;
	a = rec_fsvirt_ino(fs, 1, 5000);
	b = rec_fsvirt_ino(fs, 1, 12);
	c = rec_fsvirt_ino(fs, 1, 999999999);
	assert_true(a != 0);
	assert_int_equal(b, a + 1);
	assert_int_equal(c, a + 2);
	/* Seen again: the same number, and no number is used up. */
	assert_int_equal(rec_fsvirt_ino(fs, 1, 12), b);
	assert_int_equal(rec_fsvirt_ino(fs, 1, 5000), a);
	assert_int_equal(rec_fsvirt_ino(fs, 1, 7), a + 3);
	rec_fsvirt_free(fs);

	/* A second instance numbers the same way: it depends on order only. */
	fs = rec_fsvirt_new(123);
	assert_int_equal(rec_fsvirt_ino(fs, 9, 1), a);
	assert_int_equal(rec_fsvirt_ino(fs, 9, 2), a + 1);
	rec_fsvirt_free(fs);
	rec_fsvirt_free(NULL);
}

static void test_fsvirt_ino_dev(void **state)
{
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	uint64_t a, b, c;

	(void)state;
	a = rec_fsvirt_ino(fs, 0x803, 42);
	/* A hard link is the same (dev, ino): the same number. */
	assert_int_equal(rec_fsvirt_ino(fs, 0x803, 42), a);
	/* The same inode number on another device is another file. */
	b = rec_fsvirt_ino(fs, 0x804, 42);
	assert_int_equal(b, a + 1);
	/* Key parts do not mix: (dev 42, ino 0x803) is a third file. */
	c = rec_fsvirt_ino(fs, 42, 0x803);
	assert_int_equal(c, a + 2);
	assert_int_equal(rec_fsvirt_ino(fs, 0x804, 42), b);
	rec_fsvirt_free(fs);
}

/* Far more files than the first table holds: numbers survive growing it. */
static void test_fsvirt_ino_many(void **state)
{
	enum { N = 20000 };
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	uint64_t first;

	(void)state;
	first = rec_fsvirt_ino(fs, 1, 0x9e3779b9ULL * 0);
	for (uint64_t i = 1; i < N; i++)
		assert_int_equal(rec_fsvirt_ino(fs, 1 + (i & 3), 0x9e3779b9ULL * i), first + i);
	for (uint64_t i = N; i-- > 0;)
		assert_int_equal(rec_fsvirt_ino(fs, 1 + (i & 3), 0x9e3779b9ULL * i), first + i);
	rec_fsvirt_free(fs);
}

static void test_fsvirt_time(void **state)
{
	const int64_t start = 1700000000LL * SEC;
	const int64_t v1 = 1767225600LL * SEC, v2 = v1 + 5 * SEC;
	struct rec_fsvirt *fs = rec_fsvirt_new(start);

	(void)state;
	/* Before the run started: the outside world's time, unchanged. */
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, start - 1, v1), start - 1);
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, 123456789, v1), 123456789);
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, -5 * SEC, v1), -5 * SEC);

	/* Made by the run: the virtual time of first sight, kept. */
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, start + 777, v1), v1);
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, start + 777, v2), v1);
	/* The same real time on another file, or the same ino on another
	 * device, is seen first now. */
	assert_int_equal(rec_fsvirt_time(fs, 1, 11, REC_FS_MTIME, start + 777, v2), v2);
	assert_int_equal(rec_fsvirt_time(fs, 2, 10, REC_FS_MTIME, start + 777, v2), v2);
	/* The file changed again: a new real time, a new virtual one. */
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, start + 999, v2), v2);
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_MTIME, start + 777, v2 + 1), v1);
	/* Another of its times with the same real value (a folder's birth and
	 * its last change in one tick of the coarse clock) is its own. */
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_BTIME, start + 777, v2 + 2), v2 + 2);
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_CTIME, start + 777, v2 + 3), v2 + 3);
	assert_int_equal(rec_fsvirt_time(fs, 1, 10, REC_FS_BTIME, start + 777, v2 + 4), v2 + 2);
	rec_fsvirt_free(fs);
}

/* ---- rec_fsvirt_dirents ---- */

struct ent {
	uint64_t ino;
	int64_t off;
	unsigned char type;
	const char *name;
};

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
#define NAME64	  19 /* offsetof(struct linux_dirent64, d_name) */
#define NAME32	  18 /* offsetof(struct linux_dirent, d_name) on x86-64 */

static size_t reclen_of(const char *name, int is64)
{
	/* fs/readdir.c: filldir64 and filldir (NUL, and d_type after it). */
	return is64 ? ALIGN8(NAME64 + strlen(name) + 1) : ALIGN8(NAME32 + strlen(name) + 2);
}

/* Lay out N entries as getdents64 (IS64) or getdents would; *LEN gets the size. */
static unsigned char *build(const struct ent *e, size_t n, int is64, size_t *len)
{
	size_t total = 0, at = 0;
	unsigned char *buf;

	for (size_t i = 0; i < n; i++)
		total += reclen_of(e[i].name, is64);
	buf = xcalloc(1, total ? total : 1);
	for (size_t i = 0; i < n; i++) {
		unsigned short reclen = (unsigned short)reclen_of(e[i].name, is64);

		memcpy(buf + at, &e[i].ino, 8);
		memcpy(buf + at + 8, &e[i].off, 8);
		memcpy(buf + at + 16, &reclen, 2);
		if (is64) {
			buf[at + 18] = e[i].type;
			memcpy(buf + at + NAME64, e[i].name, strlen(e[i].name) + 1);
		} else {
			memcpy(buf + at + NAME32, e[i].name, strlen(e[i].name) + 1);
			buf[at + reclen - 1] = e[i].type;
		}
		at += reclen;
	}
	*len = total;
	return buf;
}

/* Read the entries back from BUF; as many as fit in OUT, their count returned. */
static size_t parse(const unsigned char *buf, size_t len, int is64, struct ent *out, size_t max)
{
	size_t n = 0;

	for (size_t at = 0; at < len && n < max; n++) {
		unsigned short reclen;

		memcpy(&out[n].ino, buf + at, 8);
		memcpy(&out[n].off, buf + at + 8, 8);
		memcpy(&reclen, buf + at + 16, 2);
		assert_true(reclen > 0 && at + reclen <= len);
		out[n].type = is64 ? buf[at + 18] : buf[at + reclen - 1];
		out[n].name = (const char *)buf + at + (is64 ? NAME64 : NAME32);
		assert_int_equal(reclen, reclen_of(out[n].name, is64));
		at += reclen;
	}
	return n;
}

static void check_sorted_listing(int is64)
{
	/* As a hash-ordered directory might return them; d_off rises. */
	static const struct ent in[] = {
		{ 500, 0x1111, 8, "zeta" },
		{ 100, 0x2222, 4, "alpha" },
		{ 2, 0x3333, 4, "." },
		{ 300, 0x4444, 10, "a_rather_long_name_for_a_file.txt" },
		{ 700, 0x5555, 8, "B" },
		{ 1, 0x6666, 4, ".." },
		{ 0x1234567890ULL, 0x7fffffffffffffffLL, 1, "mid" },
	};
	/* strcmp order: '.' < 'B' < '_' < 'a' < 'm' < 'z'. */
	static const char *const names[] = {
		".", "..", "B", "a_rather_long_name_for_a_file.txt", "alpha", "mid", "zeta"
	};
	enum { N = sizeof(in) / sizeof(in[0]) };
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	struct ent out[N + 1];
	size_t len;
	unsigned char *buf = build(in, N, is64, &len);
	uint64_t first;

	assert_int_equal(rec_fsvirt_dirents(fs, 0x803, buf, len, is64), 0);
	assert_int_equal(parse(buf, len, is64, out, N + 1), N);
	first = out[0].ino;
	assert_true(first != 0);
	for (size_t i = 0; i < N; i++) {
		size_t from = 0;

		assert_string_equal(out[i].name, names[i]);
		/* d_off stays with the position: the last still ends the read. */
		assert_int_equal(out[i].off, in[i].off);
		/* d_type travels with its name. */
		while (strcmp(in[from].name, out[i].name) != 0)
			from++;
		assert_int_equal(out[i].type, in[from].type);
		/* Inode numbers are virtual, given in name order, and the same as
		 * stat on that device would give. */
		assert_int_equal(out[i].ino, first + i);
		assert_int_equal(rec_fsvirt_ino(fs, 0x803, in[from].ino), first + i);
	}
	free(buf);

	/* A second listing of the same directory reads the same. */
	buf = build(in, N, is64, &len);
	assert_int_equal(rec_fsvirt_dirents(fs, 0x803, buf, len, is64), 0);
	assert_int_equal(parse(buf, len, is64, out, N + 1), N);
	for (size_t i = 0; i < N; i++) {
		assert_string_equal(out[i].name, names[i]);
		assert_int_equal(out[i].ino, first + i);
	}
	free(buf);
	rec_fsvirt_free(fs);
}

static void test_dirents64_sorted(void **state)
{
	(void)state;
	check_sorted_listing(1);
}

static void test_dirents_old_layout_sorted(void **state)
{
	(void)state;
	check_sorted_listing(0);
}

static void test_dirents_links_and_zero(void **state)
{
	static const struct ent in[] = {
		{ 77, 1, 8, "link2" },
		{ 0, 2, 0, "gone" }, /* d_ino 0: a deleted entry, left as 0 */
		{ 77, 3, 8, "link1" },
	};
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	struct ent out[3];
	size_t len;
	unsigned char *buf = build(in, 3, 1, &len);

	(void)state;
	assert_int_equal(rec_fsvirt_dirents(fs, 5, buf, len, 1), 0);
	assert_int_equal(parse(buf, len, 1, out, 3), 3);
	assert_string_equal(out[0].name, "gone");
	assert_int_equal(out[0].ino, 0);
	assert_string_equal(out[1].name, "link1");
	assert_string_equal(out[2].name, "link2");
	assert_true(out[1].ino != 0);
	assert_int_equal(out[1].ino, out[2].ino);
	assert_int_equal(rec_fsvirt_ino(fs, 5, 77), out[1].ino);
	free(buf);
	rec_fsvirt_free(fs);
}

static void test_dirents_empty_and_single(void **state)
{
	static const struct ent one = { 9, 42, 4, "only" };
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	unsigned char *buf;
	struct ent out;
	size_t len;

	(void)state;
	buf = xmalloc(1);
	assert_int_equal(rec_fsvirt_dirents(fs, 1, buf, 0, 1), 0);
	assert_int_equal(rec_fsvirt_dirents(fs, 1, buf, 0, 0), 0);
	free(buf);
	buf = build(&one, 1, 1, &len);
	assert_int_equal(rec_fsvirt_dirents(fs, 1, buf, len, 1), 0);
	assert_int_equal(parse(buf, len, 1, &out, 1), 1);
	assert_string_equal(out.name, "only");
	assert_int_equal(out.off, 42);
	assert_int_equal(out.ino, rec_fsvirt_ino(fs, 1, 9));
	free(buf);
	rec_fsvirt_free(fs);
}

/* Hundreds of entries in reverse order, as a big directory gives them. */
static void test_dirents_many(void **state)
{
	enum { N = 600 };
	struct ent *in = xcalloc(N, sizeof(*in)), *out = xcalloc(N, sizeof(*out));
	char(*names)[16] = xcalloc(N, sizeof(*names));
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	unsigned char *buf;
	size_t len;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%05zu", N - 1 - i);
		in[i].ino = 100000 + i;
		in[i].off = (int64_t)i + 1;
		in[i].type = 8;
		in[i].name = names[i];
	}
	for (int is64 = 0; is64 < 2; is64++) {
		buf = build(in, N, is64, &len);
		assert_int_equal(rec_fsvirt_dirents(fs, 3, buf, len, is64), 0);
		assert_int_equal(parse(buf, len, is64, out, N), N);
		for (size_t i = 0; i < N; i++) {
			char want[16];

			snprintf(want, sizeof(want), "f%05zu", i);
			assert_string_equal(out[i].name, want);
			assert_int_equal(out[i].off, (int64_t)i + 1);
			assert_int_equal(out[i].ino, rec_fsvirt_ino(fs, 3, 100000 + (N - 1 - i)));
		}
		if (is64)
			assert_int_equal(out[0].ino + N - 1, out[N - 1].ino);
		free(buf);
	}
	rec_fsvirt_free(fs);
	free(names);
	free(out);
	free(in);
}

/* BUF (LEN bytes, heap, exact size so a read past it is caught under
 * valgrind) must be refused with -EINVAL and left as it was. */
static void check_malformed(const unsigned char *bytes, size_t len, int is64, const char *what)
{
	struct rec_fsvirt *fs = rec_fsvirt_new(0);
	unsigned char *buf = xmalloc(len);
	int err, same;

	memcpy(buf, bytes, len);
	err = rec_fsvirt_dirents(fs, 1, buf, len, is64);
	same = memcmp(buf, bytes, len) == 0;
	free(buf);
	rec_fsvirt_free(fs);
	if (err != -EINVAL)
		fail_msg("%s (is64 %d): rec_fsvirt_dirents = %d, expected -EINVAL", what, is64,
			 err);
	if (!same)
		fail_msg("%s (is64 %d): the buffer was changed", what, is64);
}

static void set_reclen(unsigned char *buf, size_t at, unsigned short reclen)
{
	memcpy(buf + at + 16, &reclen, 2);
}

static void test_dirents_malformed(void **state)
{
	static const struct ent two[] = { { 5, 1, 8, "bb" }, { 6, 2, 8, "aa" } };

	(void)state;
	for (int is64 = 0; is64 < 2; is64++) {
		size_t len, r0 = reclen_of("bb", is64), name_at = is64 ? NAME64 : NAME32;
		unsigned char *good = build(two, 2, is64, &len);
		unsigned char *bad = xmalloc(len + 8);

		memcpy(bad, good, len);
		set_reclen(bad, 0, 0);
		check_malformed(bad, len, is64, "first reclen 0");

		memcpy(bad, good, len);
		set_reclen(bad, r0, 0);
		check_malformed(bad, len, is64, "second reclen 0");

		memcpy(bad, good, len);
		set_reclen(bad, r0, (unsigned short)(len - r0 + 8));
		check_malformed(bad, len, is64, "reclen past the end");

		memcpy(bad, good, len);
		set_reclen(bad, 0, 0xffff);
		check_malformed(bad, len, is64, "reclen 65535");

		memcpy(bad, good, len);
		set_reclen(bad, 0, (unsigned short)name_at);
		check_malformed(bad, len, is64, "reclen without room for a name");

		/* The last record's name runs to its end without a NUL. */
		memcpy(bad, good, len);
		memset(bad + r0 + name_at, 'x', len - r0 - name_at);
		check_malformed(bad, len, is64, "name without NUL");

		/* A whole record, then a piece too short to hold a header. */
		memcpy(bad, good, len);
		memset(bad + len, 0, 8);
		check_malformed(bad, r0 + 10, is64, "truncated second record");
		check_malformed(bad, len - 1, is64, "one byte short");
		check_malformed(bad, 5, is64, "five bytes");

		free(bad);
		free(good);
	}
}

/* ---- the syscall table ---- */

/* Every call that sends bytes has its row, hidden where a log is kept and
 * never stopped by `hermit run` (write runs at native speed there); only
 * these rows send. */
static void test_syscall_sent_rows(void **state)
{
	static const struct {
		long nr;
		enum rec_sent sent;
	} rows[] = {
		{ SYS_write, SENT_BUF },   { SYS_pwrite64, SENT_BUF },	{ SYS_writev, SENT_IOV },
		{ SYS_pwritev, SENT_IOV }, { SYS_pwritev2, SENT_IOV },	{ SYS_sendto, SENT_BUF },
		{ SYS_sendmsg, SENT_MSG }, { SYS_sendmmsg, SENT_MMSG },
	};
	size_t sending = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(rows[i].nr);

		if (!row)
			fail_msg("no row for syscall %ld", rows[i].nr);
		assert_int_equal(row->sent, rows[i].sent);
		assert_int_equal(row->hidden, HIDDEN_LOG);
		assert_int_equal(row->fd_min, 0);
		assert_int_equal(row->out, OUT_NONE);
		assert_null(row->enter);
		assert_null(row->exit);
	}
	for (size_t i = 0; i < rec_syscall_count(); i++)
		sending += rec_syscall_row(i)->sent != SENT_NONE;
	assert_int_equal(sending, sizeof(rows) / sizeof(rows[0]));
}

/* Calls hermit cannot record fail with the errno docs/record-replay.md
 * names ("Refused calls"), without running (issue 14). */
static void test_syscall_refused_rows(void **state)
{
	static const struct {
		long nr;
		int err;
	} rows[] = {
		{ SYS_io_uring_setup, ENOSYS },	   { SYS_io_uring_enter, ENOSYS },
		{ SYS_io_uring_register, ENOSYS }, { SYS_userfaultfd, ENOSYS },
		{ SYS_perf_event_open, ENOSYS },   { SYS_bpf, EPERM },
		{ SYS_fanotify_init, EPERM },	   { SYS_name_to_handle_at, EOPNOTSUPP },
		{ SYS_open_by_handle_at, EPERM },  { SYS_mq_open, ENOSYS },
		{ SYS_mq_unlink, ENOSYS },	   { SYS_mq_timedsend, ENOSYS },
		{ SYS_mq_timedreceive, ENOSYS },   { SYS_mq_notify, ENOSYS },
		{ SYS_mq_getsetattr, ENOSYS },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(rows[i].nr);
		struct rec_call c = { .nr = rows[i].nr };

		if (!row || !row->enter)
			fail_msg("no refusing row for syscall %ld", rows[i].nr);
		assert_int_equal(row->enter(NULL, NULL, &c), REC_EMULATED);
		assert_int_equal(c.ret, -rows[i].err);
		assert_int_equal(row->hidden, SHOWN);
	}
}

/* Every call that reads or changes the file system has its row, hidden
 * where a log is kept and never stopped by `hermit run`; looks are
 * answered from the log, changes run with the log's result. */
static void test_syscall_fs_rows(void **state)
{
	static const long looks[] = { SYS_access,     SYS_faccessat, SYS_faccessat2, SYS_readlink,
				      SYS_readlinkat, SYS_statfs,    SYS_fstatfs,    SYS_getxattr,
				      SYS_lgetxattr,  SYS_fgetxattr, SYS_listxattr,  SYS_llistxattr,
				      SYS_flistxattr };
	static const long changes[] = {
		SYS_mkdir,    SYS_mkdirat,     SYS_unlink,    SYS_unlinkat,  SYS_rmdir,
		SYS_rename,   SYS_renameat,    SYS_renameat2, SYS_link,	     SYS_linkat,
		SYS_symlink,  SYS_symlinkat,   SYS_chmod,     SYS_fchmodat,  SYS_chown,
		SYS_fchownat, SYS_utimensat,   SYS_truncate,  SYS_ftruncate, SYS_fallocate,
		SYS_setxattr, SYS_removexattr, SYS_mknod,     SYS_chdir
	};
	static const long xfers[] = { SYS_copy_file_range, SYS_sendfile, SYS_splice, SYS_tee };

	(void)state;
	for (size_t i = 0; i < sizeof(looks) / sizeof(looks[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(looks[i]);

		if (!row)
			fail_msg("no row for syscall %ld", looks[i]);
		/* statfs's counts are mended in `run` too (sys_files.c) */
		assert_int_equal(row->hidden, looks[i] == SYS_statfs || looks[i] == SYS_fstatfs
						      ? HIDDEN_ALWAYS
						      : HIDDEN_LOG);
		assert_true(rec_fs_answered(looks[i]));
		assert_false(rec_fs_runs(looks[i]));
		assert_int_not_equal(row->out, OUT_NONE);
	}
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(changes[i]);

		if (!row)
			fail_msg("no row for syscall %ld", changes[i]);
		assert_int_equal(row->hidden, HIDDEN_LOG);
		assert_false(rec_fs_answered(changes[i]));
		assert_true(rec_fs_runs(changes[i]));
		assert_int_equal(row->out, OUT_VAL);
	}
	for (size_t i = 0; i < sizeof(xfers) / sizeof(xfers[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(xfers[i]);

		if (!row)
			fail_msg("no row for syscall %ld", xfers[i]);
		assert_int_equal(row->hidden, HIDDEN_LOG);
		assert_int_equal(row->out, OUT_XFER);
		assert_true(rec_xfer_call(xfers[i]));
	}
	assert_false(rec_xfer_call(SYS_read));
	assert_false(rec_fs_runs(SYS_read));
	assert_false(rec_fs_answered(SYS_openat));
}

/* Paths are made absolute and lexical, relative ones from the working
 * folder (of this process, read through /proc like a guest's). */
static void test_fs_path(void **state)
{
	static const struct {
		const char *in, *out;
	} abs[] = {
		{ "/a//b/./c/../d", "/a/b/d" },
		{ "/", "/" },
		{ "/..", "/" },
		{ "/a/b/", "/a/b" },
		{ "//x/.", "/x" },
		{ "/a/../../b", "/b" },
	};
	char out[8192], cwd[4096], want[8192];

	(void)state;
	for (size_t i = 0; i < sizeof(abs) / sizeof(abs[0]); i++) {
		assert_int_equal(rec_fs_path(getpid(), AT_FDCWD, (uint64_t)(uintptr_t)abs[i].in,
					     out, sizeof(out)),
				 0);
		assert_string_equal(out, abs[i].out);
	}
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(
		rec_fs_path(getpid(), AT_FDCWD, (uint64_t)(uintptr_t) "x/../y", out, sizeof(out)),
		0);
	snprintf(want, sizeof(want), "%s/y", strcmp(cwd, "/") ? cwd : "");
	assert_string_equal(out, want);
	/* relative to a folder descriptor, and the descriptor itself */
	{
		int fd = open("/usr", O_RDONLY | O_DIRECTORY);

		assert_true(fd >= 0);
		assert_int_equal(rec_fs_path(getpid(), fd, (uint64_t)(uintptr_t) "lib/./x", out,
					     sizeof(out)),
				 0);
		assert_string_equal(out, "/usr/lib/x");
		assert_int_equal(rec_fs_path(getpid(), fd, 0, out, sizeof(out)), 0);
		assert_string_equal(out, "/usr");
		close(fd);
	}
}

static void test_syscall_find_every_row(void **state)
{
	size_t n = rec_syscall_count();

	(void)state;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		const struct rec_syscall *row = rec_syscall_row(i);

		assert_non_null(row);
		assert_ptr_equal(rec_syscall_find(rec_syscall_nr(row)), row);
	}
	assert_null(rec_syscall_row(n));
	assert_null(rec_syscall_row((size_t)-1));
	assert_null(rec_syscall_find(-1));
	assert_null(rec_syscall_find(100000));
	/* An x32 call (__X32_SYSCALL_BIT) is another syscall. */
	assert_null(rec_syscall_find(0x40000000L | SYS_clock_gettime));
	assert_null(rec_syscall_find((1L << 32) | SYS_clock_gettime));
}

static void test_syscall_rows_well_formed(void **state)
{
	size_t n = rec_syscall_count();

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct rec_syscall *row = rec_syscall_row(i);
		const char *name = rec_syscall_name(row);

		assert_non_null(name);
		assert_true(name[0] != 0);
		assert_in_range(rec_syscall_nr(row), 0, 1023);
		/* Something must handle it: a handler, or the log (capture.c). */
		assert_true(row->enter || row->exit || row->hidden != SHOWN);
		/* Only log rows hide every call; an output goes with a buffer argument. */
		if (row->out != OUT_NONE)
			assert_in_range(row->out_arg, 0, 4);
		if (row->out == OUT_SIZE)
			assert_true(row->out_size > 0);
		for (size_t j = i + 1; j < n; j++) {
			const struct rec_syscall *other = rec_syscall_row(j);

			if (rec_syscall_nr(other) == rec_syscall_nr(row))
				fail_msg("rows %zu and %zu share number %d", i, j,
					 rec_syscall_nr(row));
			assert_string_not_equal(rec_syscall_name(other), name);
		}
	}
}

/* fd_min is for the reads that may be of /dev/urandom moved high, and only those. */
static void test_syscall_fd_min(void **state)
{
	static const char *const reads[] = { "read", "pread64", "readv", "preadv", "preadv2" };
	size_t n = rec_syscall_count();

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct rec_syscall *row = rec_syscall_row(i);
		int is_read = 0;

		for (size_t k = 0; k < sizeof(reads) / sizeof(reads[0]); k++)
			is_read |= strcmp(rec_syscall_name(row), reads[k]) == 0;
		if (is_read)
			assert_int_equal(rec_syscall_fd_min(row), REC_RANDOM_FD_MIN);
		else if (rec_syscall_fd_min(row) != 0)
			fail_msg("'%s' has fd_min %d but is not a read", rec_syscall_name(row),
				 rec_syscall_fd_min(row));
	}
	assert_non_null(rec_syscall_find(SYS_read));
	assert_int_equal(rec_syscall_fd_min(rec_syscall_find(SYS_read)), REC_RANDOM_FD_MIN);
	assert_true(REC_RANDOM_FD_MIN > 2);
}

static void test_syscall_required_rows(void **state)
{
	static const struct {
		long nr;
		const char *name;
	} rows[] = {
		{ SYS_clock_gettime, "clock_gettime" },
		{ SYS_gettimeofday, "gettimeofday" },
		{ SYS_getrandom, "getrandom" },
		{ SYS_uname, "uname" },
		{ SYS_statx, "statx" },
		{ SYS_newfstatat, "newfstatat" },
		{ SYS_getdents64, "getdents64" },
		{ SYS_getdents, "getdents" },
		{ SYS_read, "read" },
		{ SYS_openat, "openat" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(rows[i].nr);

		if (!row)
			fail_msg("no row for %s (%ld)", rows[i].name, rows[i].nr);
		assert_string_equal(rec_syscall_name(row), rows[i].name);
	}
	/* Emulated calls have an entry handler; the rewritten ones an exit. */
	assert_non_null(rec_syscall_find(SYS_clock_gettime)->enter);
	assert_non_null(rec_syscall_find(SYS_getrandom)->enter);
	assert_null(rec_syscall_find(SYS_statx)->enter);
	assert_non_null(rec_syscall_find(SYS_statx)->exit);
	assert_non_null(rec_syscall_find(SYS_getdents64)->exit);
}

/* Process creation and exec reach the tracer as ptrace events and getpid
 * repeats in the pid namespace: none may stop, but for exec when a run is
 * recorded (the file it runs is noted, fsstate.c). */
static void test_syscall_not_stopped(void **state)
{
	static const struct {
		long nr;
		const char *name;
	} rows[] = {
		{ SYS_fork, "fork" },	  { SYS_vfork, "vfork" },   { SYS_clone, "clone" },
#ifdef SYS_clone3
		{ SYS_clone3, "clone3" },
#endif
		{ SYS_getpid, "getpid" }, { SYS_gettid, "gettid" },
	};

	static const long execs[] = { SYS_execve, SYS_execveat };

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rec_syscall_find(rows[i].nr))
			fail_msg("%s (%ld) is in the syscall table", rows[i].name, rows[i].nr);
	}
	for (size_t i = 0; i < sizeof(execs) / sizeof(execs[0]); i++) {
		const struct rec_syscall *row = rec_syscall_find(execs[i]);

		if (!row)
			fail_msg("no row for syscall %ld", execs[i]);
		assert_int_equal(row->hidden, HIDDEN_RECORD);
		assert_int_equal(row->out, OUT_NONE);
		assert_null(row->enter);
		assert_null(row->exit);
	}
}

/* A divergence's description: an input frame's eleventh field is its
 * call's parks (said so), an output's the digest of what it sent. */
static void test_event_describe(void **state)
{
	struct rec_event_record in = { { REC_EV_INPUT, 0, SYS_read, 3, 0x7ffe0000, 0x1000, 0, 0, 0,
					 64, 5, 2 } };
	struct rec_event_record out = { { REC_EV_OUTPUT, 1, SYS_write, 1, 0x4000, 5, 0, 0, 0, 5, 7,
					  0x1234 } };
	char buf[256];

	(void)state;
	rec_event_describe(&in, buf, sizeof(buf));
	assert_string_equal(buf,
			    "task 0 read(0x3, 0x7ffe0000, 0x1000) = 64 at tick 5, parked 2 times (input)");
	rec_event_describe(&out, buf, sizeof(buf));
	assert_string_equal(buf,
			    "task 1 write(0x1, 0x4000, 0x5) = 5 at tick 7, output 0000000000001234");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prng_known_values),
		cmocka_unit_test(test_prng_same_seed),
		cmocka_unit_test(test_prng_different_seeds),
		cmocka_unit_test(test_prng_seed_zero_not_stuck),
		cmocka_unit_test(test_prng_fill_is_words),
		cmocka_unit_test(test_prng_fill_prefix),
		cmocka_unit_test(test_prng_fill_consumes_whole_words),
		cmocka_unit_test(test_clock_realtime),
		cmocka_unit_test(test_clock_monotonic),
		cmocka_unit_test(test_clock_advance_never_back),
		cmocka_unit_test(test_clock_cputime),
		cmocka_unit_test(test_clock_timex),
		cmocka_unit_test(test_fsvirt_statfs),
		cmocka_unit_test(test_clock_invalid),
		cmocka_unit_test(test_clock_fd_ids_are_not_cputime),
		cmocka_unit_test_setup_teardown(test_sys_clock_gettime, setup_handlers,
						teardown_handlers),
		cmocka_unit_test_setup_teardown(test_sys_time_before_1970, setup_handlers,
						teardown_handlers),
		cmocka_unit_test_setup_teardown(test_sys_gettimeofday, setup_handlers,
						teardown_handlers),
		cmocka_unit_test_setup_teardown(test_sys_nanosleep, setup_handlers,
						teardown_handlers),
		cmocka_unit_test_setup_teardown(test_sys_clock_nanosleep, setup_handlers,
						teardown_handlers),
		cmocka_unit_test(test_fsvirt_ino_order),
		cmocka_unit_test(test_fsvirt_ino_dev),
		cmocka_unit_test(test_fsvirt_ino_many),
		cmocka_unit_test(test_fsvirt_time),
		cmocka_unit_test(test_dirents64_sorted),
		cmocka_unit_test(test_dirents_old_layout_sorted),
		cmocka_unit_test(test_dirents_links_and_zero),
		cmocka_unit_test(test_dirents_empty_and_single),
		cmocka_unit_test(test_dirents_many),
		cmocka_unit_test(test_dirents_malformed),
		cmocka_unit_test(test_syscall_find_every_row),
		cmocka_unit_test(test_syscall_refused_rows),
		cmocka_unit_test(test_syscall_rows_well_formed),
		cmocka_unit_test(test_syscall_fd_min),
		cmocka_unit_test(test_syscall_required_rows),
		cmocka_unit_test(test_syscall_not_stopped),
		cmocka_unit_test(test_syscall_sent_rows),
		cmocka_unit_test(test_syscall_fs_rows),
		cmocka_unit_test(test_fs_path),
		cmocka_unit_test(test_event_describe),
		cmocka_unit_test_setup_teardown(test_sent_digest_buf_iov, setup_handlers,
						teardown_handlers),
		cmocka_unit_test_setup_teardown(test_sent_digest_msg, setup_handlers,
						teardown_handlers),
		cmocka_unit_test_setup_teardown(test_fd_to_outside, setup_handlers,
						teardown_handlers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
