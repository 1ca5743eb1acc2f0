/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the thread-related parts of recorder/: the emulated
 * futexes (futex.c), the timers on virtual time (sys_timer.c), the
 * deadline handling of the scheduler (rec_fire_due in sched.c) and the
 * timed polls (sys_poll.c). No tracee is needed: every task in these
 * tests is this process itself (its tid is our pid), so tracer_read_mem
 * and tracer_write_mem reach our own memory through process_vm_readv and
 * process_vm_writev; the tasks differ by their struct task, and by their
 * tgid where the key of a futex or a timer matters. rec_wake also calls
 * tracer_set_regs, which fails (we do not trace ourselves) and changes
 * nothing: the tests look at the registers rec_wake stores in the task.
 * Timer signals go to this process with the signals blocked, and are
 * taken back with sigtimedwait. The expected values follow the kernel:
 * kernel/futex/waitwake.c and requeue.c, kernel/time/itimer.c and
 * posix-timers.c, fs/select.c.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "recorder/internal.h"

#define SEC	   HM_NS_PER_SEC
#define MS	   1000000LL
#define US	   1000LL
#define EPOCH	   (1767225600LL * SEC) /* 2026-01-01T00:00:00Z */
#define NOW	   (10 * SEC + 123)	/* virtual time at the start of each test */
#define ADDR(p)	   ((uint64_t)(uintptr_t)(p))
#define OTHER_TGID 0x7ffffff0 /* a thread group key that is not ours */
/* valgrind does not see process_vm_writev write into this process: every
 * buffer a handler fills starts with a value, one the handler must replace. */
#define POISON                         \
	{                              \
		{ 0x5555, 0x5555 },    \
		{                      \
			0x5555, 0x5555 \
		}                      \
	}

/* ---- the environment: a struct rec whose tasks are all this process ---- */

struct env {
	struct rec r;
	struct task *self; /* the running task; tgid = our pid */
	pid_t pid;
	sigset_t oldmask;
};

static const int timer_signals[] = { SIGALRM, SIGUSR1, SIGUSR2 };

/* `hermit run`: no log is kept. */
static const struct rec_options run_options = { .mode = REC_MODE_RUN };

/* Take a pending SIG without waiting; 1 if there was one. */
static int take_signal(int sig, siginfo_t *info)
{
	struct timespec zero = { 0, 0 };
	siginfo_t dummy;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, info ? info : &dummy, &zero) == sig;
}

static int setup_env(void **state)
{
	struct env *e = xcalloc(1, sizeof(*e));
	uint64_t probe = 1, target = 0;
	sigset_t block;

	e->pid = getpid();
	if (tracer_write_mem(e->pid, ADDR(&target), &probe, sizeof(probe)) < 0 || target != 1) {
		free(e);
		*state = NULL; /* process_vm_writev on ourselves is not allowed here */
		return 0;
	}
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(timer_signals) / sizeof(timer_signals[0]); i++)
		sigaddset(&block, timer_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &e->oldmask);
	e->r.opts = &run_options;
	rec_clock_init(&e->r.clock, EPOCH);
	rec_clock_advance(&e->r.clock, NOW);
	e->self = rec_task_add(&e->r, e->pid);
	e->self->index = e->r.next_index++;
	e->self->system = 0;
	e->self->stopped_once = 1;
	e->self->state = TASK_RUNNING;
	e->r.running = e->self;
	*state = e;
	return 0;
}

static int teardown_env(void **state)
{
	struct env *e = *state;

	if (!e)
		return 0;
	for (size_t i = 0; i < sizeof(timer_signals) / sizeof(timer_signals[0]); i++)
		while (take_signal(timer_signals[i], NULL))
			;
	sigprocmask(SIG_SETMASK, &e->oldmask, NULL);
	for (size_t i = 0; i < e->r.ntasks; i++)
		free(e->r.tasks[i]);
	free(e->r.tasks);
	free(e->r.runq);
	free(e->r.timers);
	free(e);
	return 0;
}

static struct env *get_env(void **state)
{
	if (!*state)
		skip();
	return *state;
}

/* Another thread of thread group TGID, running. */
static struct task *new_task(struct env *e, pid_t tgid)
{
	struct task *t = rec_task_add(&e->r, e->pid);

	t->tgid = tgid;
	t->vtid = 1000 + e->r.next_index;
	t->index = e->r.next_index++;
	t->system = 0;
	t->stopped_once = 1;
	t->state = TASK_RUNNING;
	return t;
}

/* Enter syscall NR for T as the event loop does: in t->call, with the
 * registers of a seccomp stop. */
static struct rec_call *enter(struct task *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
			      uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct rec_call *c = &t->call;

	memset(c, 0, sizeof(*c));
	c->nr = nr;
	c->args[0] = c->regs.rdi = a0;
	c->args[1] = c->regs.rsi = a1;
	c->args[2] = c->regs.rdx = a2;
	c->args[3] = c->regs.r10 = a3;
	c->args[4] = c->regs.r8 = a4;
	c->args[5] = c->regs.r9 = a5;
	c->regs.orig_rax = (uint64_t)nr;
	c->regs.rax = (uint64_t)-ENOSYS;
	c->regs.rip = 0x401000;
	c->ret = 0x5a5a;
	return c;
}

static enum rec_action futex(struct env *e, struct task *t, uint64_t uaddr, int op, uint32_t val,
			     uint64_t arg3, uint64_t uaddr2, uint32_t val3)
{
	return rec_sys_futex(&e->r, t,
			     enter(t, SYS_futex, uaddr, (uint64_t)op, val, arg3, uaddr2, val3));
}

/* T waits on WORD (holding its current value), with BITSET. */
static void futex_wait_on(struct env *e, struct task *t, const uint32_t *word, uint32_t bitset)
{
	enum rec_action a;

	if (bitset == FUTEX_BITSET_MATCH_ANY)
		a = futex(e, t, ADDR(word), FUTEX_WAIT_PRIVATE, *word, 0, 0, 0);
	else
		a = futex(e, t, ADDR(word), FUTEX_WAIT_BITSET_PRIVATE, *word, 0, 0, bitset);
	assert_int_equal(a, REC_BLOCKED);
}

static struct task *waiter(struct env *e, pid_t tgid, const uint32_t *word, uint32_t bitset)
{
	struct task *t = new_task(e, tgid);

	futex_wait_on(e, t, word, bitset);
	return t;
}

static void assert_futex_waiting(const struct task *t, const uint32_t *word)
{
	assert_int_equal(t->state, TASK_WAITING);
	assert_int_equal(t->wait, WAIT_FUTEX);
	assert_int_equal(t->futex_addr, ADDR(word));
}

/* T's wait ended: its call is skipped and returns RET. */
static void assert_woken(const struct task *t, long ret)
{
	assert_int_equal(t->state, TASK_READY);
	assert_int_equal(t->wait, WAIT_NONE);
	assert_int_equal(t->deadline, -1);
	assert_int_equal(t->call.regs.orig_rax, (uint64_t)-1);
	assert_int_equal((long)t->call.regs.rax, ret);
}

/* The run queue is exactly WANT, in this order. */
static void assert_runq(const struct env *e, struct task *const *want, size_t n)
{
	assert_int_equal(e->r.runq_len, n);
	for (size_t i = 0; i < n; i++)
		if (e->r.runq[i] != want[i])
			fail_msg("run queue position %zu holds task %d, not task %d", i,
				 e->r.runq[i]->index, want[i]->index);
}

/* ---- futex: waiting ---- */

static void test_futex_wait_value_differs(void **state)
{
	struct env *e = get_env(state);
	uint32_t word = 1;

	assert_int_equal(futex(e, e->self, ADDR(&word), FUTEX_WAIT_PRIVATE, 0, 0, 0, 0),
			 REC_EMULATED);
	assert_int_equal(e->self->call.ret, -EAGAIN);
	assert_int_equal(e->self->state, TASK_RUNNING);
	assert_int_equal(e->self->wait, WAIT_NONE);
	assert_ptr_equal(e->r.running, e->self);

	/* The whole word is compared, not its low byte. */
	word = 0x100;
	futex(e, e->self, ADDR(&word), FUTEX_WAIT_BITSET_PRIVATE, 0, 0, 0, 1);
	assert_int_equal(e->self->call.ret, -EAGAIN);
	assert_int_equal(e->self->state, TASK_RUNNING);
}

static void test_futex_wait_blocks(void **state)
{
	struct env *e = get_env(state);
	uint32_t word = 0xdeadbeef;
	uint64_t seq = e->r.wait_seq;

	assert_int_equal(futex(e, e->self, ADDR(&word), FUTEX_WAIT_PRIVATE, 0xdeadbeef, 0, 0, 0),
			 REC_BLOCKED);
	assert_futex_waiting(e->self, &word);
	assert_int_equal(e->self->futex_val, 0xdeadbeef);
	assert_int_equal(e->self->futex_bitset, FUTEX_BITSET_MATCH_ANY);
	assert_int_equal(e->self->deadline, -1);
	assert_int_equal(e->self->wait_seq, seq + 1);
	assert_null(e->r.running);
	/* Waiting is not a wake-up: nobody is ready, the clock did not move. */
	assert_int_equal(e->r.runq_len, 0);
	assert_int_equal(e->r.clock.now_ns, NOW);
}

static void test_futex_wait_relative_timeout(void **state)
{
	struct env *e = get_env(state);
	struct timespec ts = { 2, 500 };
	uint32_t word = 7;
	struct task *t = new_task(e, e->pid);

	/* FUTEX_WAIT's timeout is relative, on the virtual clock. */
	assert_int_equal(futex(e, t, ADDR(&word), FUTEX_WAIT_PRIVATE, 7, ADDR(&ts), 0, 0),
			 REC_BLOCKED);
	assert_futex_waiting(t, &word);
	assert_int_equal(t->deadline, NOW + 2 * SEC + 500);

	/* A zero timeout waits until now: the scheduler times it out at once. */
	ts.tv_sec = 0;
	ts.tv_nsec = 0;
	t = new_task(e, e->pid);
	assert_int_equal(futex(e, t, ADDR(&word), FUTEX_WAIT_PRIVATE, 7, ADDR(&ts), 0, 0),
			 REC_BLOCKED);
	assert_int_equal(t->deadline, NOW);

	/* FUTEX_WAIT_BITSET without a timeout waits for ever. */
	t = new_task(e, e->pid);
	assert_int_equal(futex(e, t, ADDR(&word), FUTEX_WAIT_BITSET_PRIVATE, 7, 0, 0, 6),
			 REC_BLOCKED);
	assert_int_equal(t->deadline, -1);
	assert_int_equal(t->futex_bitset, 6);
}

static void test_futex_wait_bitset_absolute(void **state)
{
	struct env *e = get_env(state);
	struct timespec ts = { REC_BOOT_NS / SEC + 12, 5 };
	uint32_t word = 3;
	struct task *t = new_task(e, e->pid);

	/* FUTEX_WAIT_BITSET's timeout is absolute on CLOCK_MONOTONIC, which
	 * reads REC_BOOT_NS at virtual time 0. */
	assert_int_equal(futex(e, t, ADDR(&word), FUTEX_WAIT_BITSET_PRIVATE, 3, ADDR(&ts), 0,
			       FUTEX_BITSET_MATCH_ANY),
			 REC_BLOCKED);
	assert_futex_waiting(t, &word);
	assert_int_equal(t->deadline, 12 * SEC + 5);

	/* With FUTEX_CLOCK_REALTIME it is a wall-clock time: the epoch is 0. */
	ts.tv_sec = EPOCH / SEC + 13;
	ts.tv_nsec = 0;
	t = new_task(e, e->pid);
	assert_int_equal(futex(e, t, ADDR(&word), FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME,
			       3, ADDR(&ts), 0, FUTEX_BITSET_MATCH_ANY),
			 REC_BLOCKED);
	assert_int_equal(t->deadline, 13 * SEC);

	/* A time already past: the wait times out at once, not in the past. */
	ts.tv_sec = REC_BOOT_NS / SEC + 1;
	t = new_task(e, e->pid);
	assert_int_equal(futex(e, t, ADDR(&word), FUTEX_WAIT_BITSET_PRIVATE, 3, ADDR(&ts), 0,
			       FUTEX_BITSET_MATCH_ANY),
			 REC_BLOCKED);
	assert_int_equal(t->deadline, NOW);
	assert_int_equal(e->r.clock.now_ns, NOW);
}

static void test_futex_wait_errors(void **state)
{
	struct env *e = get_env(state);
	uint32_t words[2] = { 0, 0 };
	struct timespec ts = { 0, SEC };
	struct task *t = e->self;

	/* An address that is not 4-aligned. */
	futex(e, t, ADDR(words) + 2, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
	assert_int_equal(t->call.ret, -EINVAL);
	futex(e, t, ADDR(words) + 1, FUTEX_WAIT_BITSET_PRIVATE, 0, 0, 0, 1);
	assert_int_equal(t->call.ret, -EINVAL);
	/* FUTEX_WAIT_BITSET with an empty bitset. */
	futex(e, t, ADDR(words), FUTEX_WAIT_BITSET_PRIVATE, 0, 0, 0, 0);
	assert_int_equal(t->call.ret, -EINVAL);
	/* A timeout that is not a valid timespec. */
	futex(e, t, ADDR(words), FUTEX_WAIT_PRIVATE, 0, ADDR(&ts), 0, 0);
	assert_int_equal(t->call.ret, -EINVAL);
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	futex(e, t, ADDR(words), FUTEX_WAIT_PRIVATE, 0, ADDR(&ts), 0, 0);
	assert_int_equal(t->call.ret, -EINVAL);
	ts.tv_sec = 0;
	ts.tv_nsec = -1;
	futex(e, t, ADDR(words), FUTEX_WAIT_BITSET_PRIVATE, 0, ADDR(&ts), 0, 1);
	assert_int_equal(t->call.ret, -EINVAL);
	/* Unmapped word, unmapped timeout. */
	futex(e, t, 8, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
	assert_int_equal(t->call.ret, -EFAULT);
	futex(e, t, ADDR(words), FUTEX_WAIT_PRIVATE, 0, 8, 0, 0);
	assert_int_equal(t->call.ret, -EFAULT);
	/* FUTEX_CLOCK_REALTIME does not go with FUTEX_WAIT (kernel/futex/syscalls.c). */
	futex(e, t, ADDR(words), FUTEX_WAIT_PRIVATE | FUTEX_CLOCK_REALTIME, 0, 0, 0, 0);
	assert_int_equal(t->call.ret, -ENOSYS);

	/* None of them waited. */
	assert_int_equal(t->state, TASK_RUNNING);
	assert_int_equal(t->wait, WAIT_NONE);
	assert_int_equal(e->r.wait_seq, 0);
}

/* The PI operations are the kernel's. */
static void test_futex_left_to_kernel(void **state)
{
	struct env *e = get_env(state);
	uint32_t word = 0, word2 = 0;
	struct task *w = waiter(e, e->pid, &word, FUTEX_BITSET_MATCH_ANY);
	static const int ops[] = { FUTEX_LOCK_PI,
				   FUTEX_UNLOCK_PI,
				   FUTEX_TRYLOCK_PI,
				   FUTEX_WAIT_REQUEUE_PI,
				   FUTEX_CMP_REQUEUE_PI,
				   FUTEX_LOCK_PI_PRIVATE,
				   FUTEX_UNLOCK_PI_PRIVATE,
				   FUTEX_TRYLOCK_PI_PRIVATE,
				   FUTEX_WAIT_REQUEUE_PI_PRIVATE,
				   FUTEX_CMP_REQUEUE_PI_PRIVATE };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		assert_int_equal(futex(e, e->self, ADDR(&word), ops[i], 0, 1, ADDR(&word2), 1),
				 REC_CONT);
		assert_int_equal(e->self->state, TASK_RUNNING);
	}
	/* The waiter was not woken by them. */
	assert_futex_waiting(w, &word);
	assert_int_equal(word2, 0);
}

/* ---- futex: waking ---- */

static void test_futex_wake_fifo(void **state)
{
	struct env *e = get_env(state);
	uint32_t word = 0;
	struct task *t[4];

	for (int i = 0; i < 4; i++)
		t[i] = new_task(e, e->pid);
	/* They wait in the order 2, 0, 3, 1: that order, not creation's, is
	 * the order of waking. */
	futex_wait_on(e, t[2], &word, FUTEX_BITSET_MATCH_ANY);
	futex_wait_on(e, t[0], &word, FUTEX_BITSET_MATCH_ANY);
	futex_wait_on(e, t[3], &word, FUTEX_BITSET_MATCH_ANY);
	futex_wait_on(e, t[1], &word, FUTEX_BITSET_MATCH_ANY);

	assert_int_equal(futex(e, e->self, ADDR(&word), FUTEX_WAKE_PRIVATE, 1, 0, 0, 0),
			 REC_EMULATED);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(t[2], 0);
	assert_futex_waiting(t[0], &word);
	assert_futex_waiting(t[1], &word);
	assert_futex_waiting(t[3], &word);

	futex(e, e->self, ADDR(&word), FUTEX_WAKE_PRIVATE, 2, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 2);
	assert_woken(t[0], 0);
	assert_woken(t[3], 0);
	assert_futex_waiting(t[1], &word);
	{
		struct task *want[] = { t[2], t[0], t[3] };

		assert_runq(e, want, 3);
	}

	/* INT_MAX, as pthread_cond_broadcast and friends pass: all that wait. */
	futex(e, e->self, ADDR(&word), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(t[1], 0);

	/* Nobody left. */
	futex(e, e->self, ADDR(&word), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 0);
	assert_int_equal(e->self->state, TASK_RUNNING);
	{
		struct task *want[] = { t[2], t[0], t[3], t[1] };

		assert_runq(e, want, 4);
	}
}

/* The key is (thread group, address): another word, or the same address
 * in another process, is another futex. */
static void test_futex_wake_same_key_only(void **state)
{
	struct env *e = get_env(state);
	uint32_t words[2] = { 0, 0 };
	struct task *other_word = waiter(e, e->pid, &words[1], FUTEX_BITSET_MATCH_ANY);
	struct task *other_proc = waiter(e, OTHER_TGID, &words[0], FUTEX_BITSET_MATCH_ANY);
	struct task *mine = waiter(e, e->pid, &words[0], FUTEX_BITSET_MATCH_ANY);

	futex(e, e->self, ADDR(&words[0]), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(mine, 0);
	assert_futex_waiting(other_word, &words[1]);
	assert_futex_waiting(other_proc, &words[0]);

	/* A wake-up from the other process reaches its own waiter. */
	{
		struct task *waker = new_task(e, OTHER_TGID);

		futex(e, waker, ADDR(&words[0]), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
		assert_int_equal(waker->call.ret, 1);
		assert_woken(other_proc, 0);
	}
	assert_futex_waiting(other_word, &words[1]);

	/* A misaligned address is refused, not rounded to the waiter's word. */
	futex(e, e->self, ADDR(&words[1]) + 1, FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	assert_futex_waiting(other_word, &words[1]);
}

static void test_futex_wake_bitset(void **state)
{
	struct env *e = get_env(state);
	uint32_t word = 0;
	struct task *b1 = waiter(e, e->pid, &word, 0x1);
	struct task *b2 = waiter(e, e->pid, &word, 0x2);
	struct task *b3 = waiter(e, e->pid, &word, 0x3);
	struct task *any = waiter(e, e->pid, &word, FUTEX_BITSET_MATCH_ANY);

	/* An empty mask wakes nobody: -EINVAL. */
	futex(e, e->self, ADDR(&word), FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	assert_futex_waiting(b1, &word);

	/* Bit 1 wakes those whose mask has it, first come first. */
	futex(e, e->self, ADDR(&word), FUTEX_WAKE_BITSET_PRIVATE, 2, 0, 0, 0x2);
	assert_int_equal(e->self->call.ret, 2);
	assert_futex_waiting(b1, &word);
	assert_woken(b2, 0);
	assert_woken(b3, 0);
	assert_futex_waiting(any, &word);

	/* A mask no waiter shares. */
	futex(e, e->self, ADDR(&word), FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, 0, 0, 0x8);
	assert_int_equal(e->self->call.ret, 1); /* only the FUTEX_WAIT one (all bits) */
	assert_futex_waiting(b1, &word);
	assert_woken(any, 0);

	/* Plain FUTEX_WAKE matches any mask. */
	futex(e, e->self, ADDR(&word), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(b1, 0);
	{
		struct task *want[] = { b2, b3, any, b1 };

		assert_runq(e, want, 4);
	}
}

/* ---- futex: shared ---- */

/* T waits on WORD with a shared (not private) FUTEX_WAIT. */
static struct task *shared_waiter(struct env *e, pid_t tgid, const uint32_t *word)
{
	struct task *t = new_task(e, tgid);

	assert_int_equal(futex(e, t, ADDR(word), FUTEX_WAIT, *word, 0, 0, 0), REC_BLOCKED);
	return t;
}

/* Two mappings of one memfd: one object, two addresses. */
static uint32_t *map_twice(uint32_t **alias)
{
	int fd = memfd_create("futex", 0);
	void *a, *b;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8192), 0);
	a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	b = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(a != MAP_FAILED && b != MAP_FAILED && a != b);
	*alias = b;
	return a;
}

/* A shared futex in a shared mapping is a place in the mapped object
 * (get_futex_key()): any process, through any mapping of it, at any
 * address, names the same futex. */
static void test_futex_shared_mapping(void **state)
{
	struct env *e = get_env(state);
	uint32_t *alias, *map = map_twice(&alias);
	struct task *other = shared_waiter(e, OTHER_TGID, &map[1]);
	struct task *mine = shared_waiter(e, e->pid, &map[1]);
	struct task *next_word = shared_waiter(e, OTHER_TGID, &map[2]);
	struct task *priv = waiter(e, e->pid, &map[1], FUTEX_BITSET_MATCH_ANY);

	assert_int_equal(other->futex_key.shared, 1);
	assert_int_equal(other->futex_key.off, 4);
	/* A private wake-up through the alias is another futex. */
	futex(e, e->self, ADDR(&alias[1]), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 0);
	/* A shared one wakes both processes' waiters, first come first. */
	futex(e, e->self, ADDR(&alias[1]), FUTEX_WAKE, 1, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(other, 0);
	assert_futex_waiting(mine, &map[1]);
	futex(e, e->self, ADDR(&alias[1]), FUTEX_WAKE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(mine, 0);
	assert_futex_waiting(next_word, &map[2]);
	assert_futex_waiting(priv, &map[1]);
	/* The same page offset in the second page is another word. */
	futex(e, e->self, ADDR(&alias[1024 + 2]), FUTEX_WAKE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 0);
	futex(e, e->self, ADDR(&alias[2]), FUTEX_WAKE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(next_word, 0);
	munmap(map, 8192);
	munmap(alias, 8192);
}

/* A shared operation on private memory is keyed like a private one: by
 * the process and the address. */
static void test_futex_shared_private_memory(void **state)
{
	struct env *e = get_env(state);
	uint32_t word = 0;
	struct task *other = shared_waiter(e, OTHER_TGID, &word);
	struct task *mine = shared_waiter(e, e->pid, &word);

	assert_int_equal(mine->futex_key.shared, 0);
	futex(e, e->self, ADDR(&word), FUTEX_WAKE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(mine, 0);
	assert_futex_waiting(other, &word);
}

/* Where nothing is mapped, a shared key cannot be made: EFAULT; a private
 * wake-up does not look (futex_wake() finds no waiter). */
static void test_futex_shared_unmapped(void **state)
{
	struct env *e = get_env(state);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	munmap(p, 4096);
	futex(e, e->self, ADDR(p), FUTEX_WAKE, 1, 0, 0, 0);
	assert_int_equal(e->self->call.ret, -EFAULT);
	futex(e, e->self, ADDR(p), FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 0);
	futex(e, e->self, ADDR(p), FUTEX_WAIT, 0, 0, 0, 0);
	assert_int_equal(e->self->call.ret, -EFAULT);
}

/* 21 waiters of several processes on a shared word: the requeues count
 * woken plus moved, the moved keep their order behind those already on
 * the target, and a process that maps the target elsewhere wakes them. */
static void test_futex_shared_requeue(void **state)
{
	struct env *e = get_env(state);
	uint32_t *alias, *map = map_twice(&alias);
	struct task *w[21], *on_b;

	for (int i = 0; i < 21; i++)
		w[i] = shared_waiter(e, i % 2 ? OTHER_TGID : e->pid + 1 + i, &map[0]);
	on_b = shared_waiter(e, OTHER_TGID, &map[1]);

	/* Stale value: nothing happens. */
	futex(e, e->self, ADDR(&alias[0]), FUTEX_CMP_REQUEUE, 1, 5, ADDR(&alias[1]), 1);
	assert_int_equal(e->self->call.ret, -EAGAIN);
	assert_futex_waiting(w[0], &map[0]);
	/* Wake 1, move 5. */
	futex(e, e->self, ADDR(&alias[0]), FUTEX_CMP_REQUEUE, 1, 5, ADDR(&alias[1]), 0);
	assert_int_equal(e->self->call.ret, 6);
	assert_woken(w[0], 0);
	for (int i = 1; i <= 5; i++) {
		assert_true(w[i]->futex_requeued);
		assert_int_equal(w[i]->futex_key.off, 4);
	}
	/* Wake none, move 4: FUTEX_REQUEUE counts the moved too. */
	futex(e, e->self, ADDR(&map[0]), FUTEX_REQUEUE, 0, 4, ADDR(&map[1]), 0);
	assert_int_equal(e->self->call.ret, 4);
	/* Onto the same word: counted, left in place. */
	futex(e, e->self, ADDR(&map[0]), FUTEX_REQUEUE, 0, 3, ADDR(&alias[0]), 0);
	assert_int_equal(e->self->call.ret, 3);
	assert_futex_waiting(w[10], &map[0]);

	futex(e, e->self, ADDR(&alias[1]), FUTEX_WAKE, 1, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(on_b, 0);
	for (int i = 1; i <= 9; i++) {
		futex(e, e->self, ADDR(&map[1]), FUTEX_WAKE, 1, 0, 0, 0);
		assert_int_equal(e->self->call.ret, 1);
		assert_woken(w[i], 0);
	}
	futex(e, e->self, ADDR(&alias[0]), FUTEX_WAKE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 11);
	for (int i = 10; i < 21; i++)
		assert_woken(w[i], 0);
	munmap(map, 8192);
	munmap(alias, 8192);
}

/* ---- futex: requeue ---- */

static void test_futex_requeue(void **state)
{
	struct env *e = get_env(state);
	uint32_t a = 0, b = 0;
	struct task *on_b, *w[4];

	for (int i = 0; i < 4; i++)
		w[i] = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);
	/* on_b began waiting after them, but before they were moved. */
	on_b = waiter(e, e->pid, &b, FUTEX_BITSET_MATCH_ANY);

	/* Wake one, move two, leave the last. */
	assert_int_equal(futex(e, e->self, ADDR(&a), FUTEX_REQUEUE_PRIVATE, 1, 2, ADDR(&b), 0),
			 REC_EMULATED);
	assert_woken(w[0], 0);
	assert_futex_waiting(w[1], &b);
	assert_futex_waiting(w[2], &b);
	assert_futex_waiting(w[3], &a);
	assert_futex_waiting(on_b, &b);
	/* A requeued waiter is not woken: its call still waits. */
	assert_int_equal(w[1]->call.regs.orig_rax, SYS_futex);

	/* The moved ones queue behind those already on B, in their order. */
	futex(e, e->self, ADDR(&b), FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(on_b, 0);
	futex(e, e->self, ADDR(&b), FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
	assert_woken(w[1], 0);
	assert_futex_waiting(w[2], &b);
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(w[3], 0);
	assert_futex_waiting(w[2], &b);

	/* Negative counts and misaligned addresses are refused. */
	futex(e, e->self, ADDR(&b), FUTEX_REQUEUE_PRIVATE, (uint32_t)-1, 1, ADDR(&a), 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	futex(e, e->self, ADDR(&b), FUTEX_REQUEUE_PRIVATE, 0, (uint32_t)-1, ADDR(&a), 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	futex(e, e->self, ADDR(&b), FUTEX_REQUEUE_PRIVATE, 1, 1, ADDR(&a) + 2, 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	assert_futex_waiting(w[2], &b);
}

static void test_futex_cmp_requeue(void **state)
{
	struct env *e = get_env(state);
	uint32_t a = 5, b = 0;
	struct task *w[3];

	for (int i = 0; i < 3; i++)
		w[i] = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);

	/* *uaddr is not val3: -EAGAIN, and nobody is woken or moved. */
	futex(e, e->self, ADDR(&a), FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, ADDR(&b), 4);
	assert_int_equal(e->self->call.ret, -EAGAIN);
	for (int i = 0; i < 3; i++)
		assert_futex_waiting(w[i], &a);
	assert_int_equal(e->r.runq_len, 0);

	/* As pthread_cond_broadcast did: wake one, move the rest; the result
	 * counts both. */
	futex(e, e->self, ADDR(&a), FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, ADDR(&b), 5);
	assert_int_equal(e->self->call.ret, 3);
	assert_woken(w[0], 0);
	assert_futex_waiting(w[1], &b);
	assert_futex_waiting(w[2], &b);

	/* Wake none, move one: 1. */
	futex(e, e->self, ADDR(&b), FUTEX_CMP_REQUEUE_PRIVATE, 0, 1, ADDR(&a), 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_futex_waiting(w[1], &a);
	assert_futex_waiting(w[2], &b);

	/* Counts are checked; so is the word's address. */
	futex(e, e->self, ADDR(&b), FUTEX_CMP_REQUEUE_PRIVATE, (uint32_t)-1, 1, ADDR(&a), 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	futex(e, e->self, ADDR(&b) + 1, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, ADDR(&a), 0);
	assert_int_equal(e->self->call.ret, -EINVAL);
	futex(e, e->self, 8, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, ADDR(&a), 0);
	assert_int_equal(e->self->call.ret, -EFAULT);
	assert_futex_waiting(w[1], &a);
	assert_futex_waiting(w[2], &b);
}

/*
 * kernel/futex/requeue.c: futex_requeue() serves FUTEX_REQUEUE and
 * FUTEX_CMP_REQUEUE alike (cmpval NULL for the first) and returns
 * task_count, which counts the waiters woken and the waiters requeued.
 */
static void test_futex_requeue_counts_requeued(void **state)
{
	struct env *e = get_env(state);
	uint32_t a = 0, b = 0;
	struct task *w[3];

	for (int i = 0; i < 3; i++)
		w[i] = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);
	futex(e, e->self, ADDR(&a), FUTEX_REQUEUE_PRIVATE, 1, INT_MAX, ADDR(&b), 0);
	assert_woken(w[0], 0);
	assert_futex_waiting(w[1], &b);
	assert_futex_waiting(w[2], &b);
	assert_int_equal(e->self->call.ret, 3);
}

/* ---- futex: FUTEX_WAKE_OP ---- */

#define WAKE_OP(op, oparg, cmp, cmparg) ((uint32_t)FUTEX_OP((unsigned)(op), oparg, cmp, cmparg))

/* The operation on *uaddr2: what is written there, whatever the comparison. */
static void test_futex_wake_op_operations(void **state)
{
	static const struct {
		unsigned op;
		int oparg;
		uint32_t old, new_val;
	} rows[] = {
		{ FUTEX_OP_SET, 7, 5, 7 },
		{ FUTEX_OP_SET, -1, 5, 0xffffffff }, /* 12-bit signed: 0xfff is -1 */
		{ FUTEX_OP_ADD, 3, 5, 8 },
		{ FUTEX_OP_ADD, -2, 5, 3 },
		{ FUTEX_OP_ADD, 1, 0xffffffff, 0 },
		{ FUTEX_OP_OR, 0x30, 0x05, 0x35 },
		{ FUTEX_OP_ANDN, 0x4, 0x7, 0x3 },
		{ FUTEX_OP_XOR, 0x6, 0x5, 0x3 },
		{ FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 31, 0, 0x80000000 },
		{ FUTEX_OP_ADD | FUTEX_OP_OPARG_SHIFT, 4, 1, 17 },
		{ FUTEX_OP_OR | FUTEX_OP_OPARG_SHIFT, 3, 0x1, 0x9 },
		{ FUTEX_OP_ANDN | FUTEX_OP_OPARG_SHIFT, 0, 0x3, 0x2 },
		{ FUTEX_OP_XOR | FUTEX_OP_OPARG_SHIFT, 1, 0x3, 0x1 },
		/* A shift out of 0..31 is taken modulo 32 (futex_atomic_op_inuser). */
		{ FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 33, 0, 0x2 },
	};
	struct env *e = get_env(state);
	uint32_t a = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t b = rows[i].old;

		assert_int_equal(futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(&b),
				       WAKE_OP(rows[i].op, rows[i].oparg, FUTEX_OP_CMP_EQ, 0)),
				 REC_EMULATED);
		assert_int_equal(e->self->call.ret, 0);
		if (b != rows[i].new_val)
			fail_msg("row %zu: op %#x oparg %d on %#x gave %#x, not %#x", i, rows[i].op,
				 rows[i].oparg, rows[i].old, b, rows[i].new_val);
	}
	/* Operation 5..7 does not exist: -ENOSYS, and nothing is written. */
	{
		uint32_t b = 9;

		futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(&b),
		      WAKE_OP(5, 1, FUTEX_OP_CMP_EQ, 0));
		assert_int_equal(e->self->call.ret, -ENOSYS);
		assert_int_equal(b, 9);
	}
}

/* The comparison, of the OLD value of *uaddr2 (signed, with a 12-bit
 * signed argument), decides whether uaddr2's waiters are woken. */
static void test_futex_wake_op_comparisons(void **state)
{
	static const struct {
		int cmp, cmparg;
		uint32_t old;
		int wakes;
	} rows[] = {
		{ FUTEX_OP_CMP_EQ, 5, 5, 1 },
		{ FUTEX_OP_CMP_EQ, 4, 5, 0 },
		{ FUTEX_OP_CMP_NE, 4, 5, 1 },
		{ FUTEX_OP_CMP_NE, 5, 5, 0 },
		{ FUTEX_OP_CMP_LT, 6, 5, 1 },
		{ FUTEX_OP_CMP_LT, 5, 5, 0 },
		{ FUTEX_OP_CMP_LE, 5, 5, 1 },
		{ FUTEX_OP_CMP_LE, 4, 5, 0 },
		{ FUTEX_OP_CMP_GT, 4, 5, 1 },
		{ FUTEX_OP_CMP_GT, 5, 5, 0 },
		{ FUTEX_OP_CMP_GE, 5, 5, 1 },
		{ FUTEX_OP_CMP_GE, 6, 5, 0 },
		/* Signed: 0xffffffff is -1, below 0. */
		{ FUTEX_OP_CMP_LT, 0, 0xffffffff, 1 },
		{ FUTEX_OP_CMP_GT, 0, 0xffffffff, 0 },
		{ FUTEX_OP_CMP_EQ, -1, 0xffffffff, 1 },
		{ FUTEX_OP_CMP_GE, -2048, 0xfffff800, 1 },
		{ FUTEX_OP_CMP_LT, -2048, 0xfffff800, 0 },
	};
	struct env *e = get_env(state);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t a = 0, b = rows[i].old;
		struct task *wa = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);
		struct task *wb = waiter(e, e->pid, &b, FUTEX_BITSET_MATCH_ANY);

		/* Add 1: the comparison sees the value before the operation. */
		futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(&b),
		      WAKE_OP(FUTEX_OP_ADD, 1, rows[i].cmp, rows[i].cmparg));
		assert_int_equal(b, rows[i].old + 1);
		/* uaddr's waiter is woken either way. */
		assert_woken(wa, 0);
		if (e->self->call.ret != 1 + rows[i].wakes)
			fail_msg("row %zu: cmp %d arg %d old %#x: %ld woken, not %d", i,
				 rows[i].cmp, rows[i].cmparg, rows[i].old, e->self->call.ret,
				 1 + rows[i].wakes);
		if (rows[i].wakes)
			assert_woken(wb, 0);
		else
			assert_futex_waiting(wb, &b);
		/* Done with them: out of the way of the next row. */
		rec_task_remove(&e->r, wa);
		rec_task_remove(&e->r, wb);
	}
	/* Comparison 6..15 does not exist: -ENOSYS. */
	{
		uint32_t a = 0, b = 0;

		futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(&b),
		      WAKE_OP(FUTEX_OP_SET, 0, 6, 0));
		assert_int_equal(e->self->call.ret, -ENOSYS);
	}
}

/* val and val2 bound each side; the result is the sum. */
static void test_futex_wake_op_counts(void **state)
{
	struct env *e = get_env(state);
	uint32_t a = 0, b = 0;
	struct task *wa[3], *wb[3];

	for (int i = 0; i < 3; i++) {
		wa[i] = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);
		wb[i] = waiter(e, e->pid, &b, FUTEX_BITSET_MATCH_ANY);
	}
	/* glibc's old pthread_cond_signal: wake 1 on a, and 2 on b if b was 0. */
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 2, ADDR(&b),
	      WAKE_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0));
	assert_int_equal(e->self->call.ret, 3);
	assert_int_equal(b, 1);
	assert_woken(wa[0], 0);
	assert_futex_waiting(wa[1], &a);
	assert_woken(wb[0], 0);
	assert_woken(wb[1], 0);
	assert_futex_waiting(wb[2], &b);
	{
		struct task *want[] = { wa[0], wb[0], wb[1] };

		assert_runq(e, want, 3);
	}

	/* b is 1 now: the same call wakes on a only. */
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, INT_MAX, INT_MAX, ADDR(&b),
	      WAKE_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0));
	assert_int_equal(e->self->call.ret, 2);
	assert_woken(wa[1], 0);
	assert_woken(wa[2], 0);
	assert_futex_waiting(wb[2], &b);

	/* uaddr2 must be a readable, writable, aligned word. */
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(&b) + 2,
	      WAKE_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 1));
	assert_int_equal(e->self->call.ret, -EINVAL);
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, 8,
	      WAKE_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 1));
	assert_int_equal(e->self->call.ret, -EFAULT);
	{
		uint32_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		assert_true(ro != MAP_FAILED);
		futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(ro),
		      WAKE_OP(FUTEX_OP_SET, 3, FUTEX_OP_CMP_EQ, 0));
		assert_int_equal(e->self->call.ret, -EFAULT);
		assert_int_equal(*ro, 0);
		munmap(ro, 4096);
	}
	assert_int_equal(b, 1);
	assert_futex_waiting(wb[2], &b);
}

/* kernel/futex/waitwake.c futex_wake_op(): get_futex_key() of uaddr1
 * comes first; a misaligned uaddr1 is -EINVAL before *uaddr2 is touched. */
static void test_futex_wake_op_checks_uaddr_first(void **state)
{
	struct env *e = get_env(state);
	uint32_t a[2] = { 0, 0 }, b = 4;
	struct task *wb = waiter(e, e->pid, &b, FUTEX_BITSET_MATCH_ANY);

	futex(e, e->self, ADDR(a) + 1, FUTEX_WAKE_OP_PRIVATE, 1, 1, ADDR(&b),
	      WAKE_OP(FUTEX_OP_SET, 9, FUTEX_OP_CMP_EQ, 4));
	assert_int_equal(e->self->call.ret, -EINVAL);
	assert_int_equal(b, 4);
	assert_futex_waiting(wb, &b);
}

/*
 * kernel/futex/waitwake.c futex_wake() and futex_wake_op() count a waiter
 * before comparing with the limit (`if (++ret >= nr_wake) break;`), so a
 * limit of 0, or a negative one, still wakes one waiter.
 */
static void test_futex_wake_zero_wakes_one(void **state)
{
	struct env *e = get_env(state);
	uint32_t a = 0, b = 0;
	struct task *wa[2], *wb[2];

	for (int i = 0; i < 2; i++) {
		wa[i] = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);
		wb[i] = waiter(e, e->pid, &b, FUTEX_BITSET_MATCH_ANY);
	}
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_PRIVATE, 0, 0, 0, 0);
	assert_int_equal(e->self->call.ret, 1);
	assert_woken(wa[0], 0);
	assert_futex_waiting(wa[1], &a);

	futex(e, e->self, ADDR(&a), FUTEX_WAKE_OP_PRIVATE, 0, 0, ADDR(&b),
	      WAKE_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 0));
	assert_int_equal(e->self->call.ret, 2);
	assert_woken(wa[1], 0);
	assert_woken(wb[0], 0);
	assert_futex_waiting(wb[1], &b);
}

/* kernel/futex/syscalls.c do_futex(): FUTEX_CLOCK_REALTIME with an
 * operation other than FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI or
 * FUTEX_LOCK_PI2 is -ENOSYS, whatever the operation would have done. */
static void test_futex_clock_realtime_only_with_wait_bitset(void **state)
{
	struct env *e = get_env(state);
	uint32_t a = 0, b = 0;
	struct task *wa = waiter(e, e->pid, &a, FUTEX_BITSET_MATCH_ANY);

	futex(e, e->self, ADDR(&a), FUTEX_WAKE_PRIVATE | FUTEX_CLOCK_REALTIME, 1, 0, 0, 0);
	assert_int_equal(e->self->call.ret, -ENOSYS);
	futex(e, e->self, ADDR(&a), FUTEX_WAKE_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 1, 0, 0,
	      FUTEX_BITSET_MATCH_ANY);
	assert_int_equal(e->self->call.ret, -ENOSYS);
	futex(e, e->self, ADDR(&a), FUTEX_REQUEUE_PRIVATE | FUTEX_CLOCK_REALTIME, 0, 1, ADDR(&b),
	      0);
	assert_int_equal(e->self->call.ret, -ENOSYS);
	futex(e, e->self, ADDR(&b), FUTEX_WAKE_OP_PRIVATE | FUTEX_CLOCK_REALTIME, 1, 1, ADDR(&b),
	      WAKE_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0));
	assert_int_equal(e->self->call.ret, -ENOSYS);
	assert_int_equal(b, 0);
	assert_futex_waiting(wa, &a);
}

/* ---- futex: a thread ended ---- */

static void test_futex_recheck(void **state)
{
	struct env *e = get_env(state);
	uint32_t w1 = 0, w2 = 0;
	struct task *changed = waiter(e, e->pid, &w1, FUTEX_BITSET_MATCH_ANY);
	struct task *same = waiter(e, e->pid, &w2, FUTEX_BITSET_MATCH_ANY);
	struct task *other = waiter(e, OTHER_TGID, &w1, FUTEX_BITSET_MATCH_ANY);
	struct task *sleeper = new_task(e, e->pid);

	rec_block(&e->r, sleeper, WAIT_SLEEP, NOW + SEC);
	/* The kernel cleared a tid word (CLONE_CHILD_CLEARTID) under w1. */
	w1 = 0x80000000;
	rec_futex_recheck(&e->r, e->pid);
	assert_woken(changed, 0);
	assert_futex_waiting(same, &w2);
	assert_futex_waiting(other, &w1); /* another process: not rechecked */
	assert_int_equal(sleeper->state, TASK_WAITING);
	assert_int_equal(sleeper->wait, WAIT_SLEEP);
	assert_int_equal(sleeper->deadline, NOW + SEC);

	rec_futex_recheck(&e->r, OTHER_TGID);
	assert_woken(other, 0);
	assert_futex_waiting(same, &w2);

	/* Unchanged words: nothing happens. */
	rec_futex_recheck(&e->r, e->pid);
	assert_futex_waiting(same, &w2);
	{
		struct task *want[] = { changed, other };

		assert_runq(e, want, 2);
	}
}

/* A process ended: its robust futexes in shared memory were released, so
 * waiters of any process on a shared word are looked at; a waiter moved by
 * a requeue waits on a word whose value it never gave, and is not. */
static void test_futex_recheck_shared(void **state)
{
	struct env *e = get_env(state);
	uint32_t *alias, *map = map_twice(&alias);
	struct task *shared = shared_waiter(e, OTHER_TGID, &map[0]);
	struct task *moved = shared_waiter(e, e->pid, &map[1]);

	futex(e, e->self, ADDR(&map[1]), FUTEX_REQUEUE, 0, 1, ADDR(&map[2]), 0);
	assert_int_equal(e->self->call.ret, 1);
	alias[0] = 1;
	alias[2] = 1;
	rec_futex_recheck(&e->r, e->pid + 1);
	assert_woken(shared, 0);
	assert_int_equal(moved->state, TASK_WAITING);
	munmap(map, 8192);
	munmap(alias, 8192);
}

/* ---- virtual CPU affinity (sys_identity.c) ---- */

/* Each thread keeps the mask it sets over the virtual CPUs; getcpu and
 * rdtscp name the lowest CPU of it (sched_setaffinity(2), getcpu(2)). */
static void test_affinity_virtual(void **state)
{
	struct env *e = get_env(state);
	struct task *other = new_task(e, e->pid);
	uint64_t mask = 0xa, got = 0x5555;
	unsigned cpu = 99, node = 99;

	assert_int_equal(rec_task_cpu(other), 0);
	assert_int_equal(rec_sys_sched_setaffinity(&e->r, e->self,
						   enter(e->self, SYS_sched_setaffinity,
							 (uint64_t)other->vtid, sizeof(mask),
							 ADDR(&mask), 0, 0, 0)),
			 REC_EMULATED);
	assert_int_equal(e->self->call.ret, 0);
	assert_int_equal(rec_task_cpu(other), 1);
	assert_int_equal(rec_task_cpu(e->self), 0);
	rec_sys_getcpu(&e->r, other, enter(other, SYS_getcpu, ADDR(&cpu), ADDR(&node), 0, 0, 0, 0));
	assert_int_equal(other->call.ret, 0);
	assert_int_equal(cpu, 1);
	assert_int_equal(node, 0);
	rec_sys_sched_getaffinity(&e->r, e->self,
				  enter(e->self, SYS_sched_getaffinity, (uint64_t)other->vtid,
					sizeof(got), ADDR(&got), 0, 0, 0));
	assert_int_equal(e->self->call.ret, sizeof(got));
	assert_int_equal(got, 0xa);

	/* No virtual CPU in it: EINVAL, the mask stays. */
	mask = 0xf0;
	rec_sys_sched_setaffinity(&e->r, other, enter(other, SYS_sched_setaffinity, 0,
						       sizeof(mask), ADDR(&mask), 0, 0, 0));
	assert_int_equal(other->call.ret, -EINVAL);
	assert_int_equal(rec_task_cpu(other), 1);
	/* A thread id no guest task has: ESRCH. */
	rec_sys_sched_getaffinity(&e->r, e->self,
				  enter(e->self, SYS_sched_getaffinity, 99999, sizeof(got),
					ADDR(&got), 0, 0, 0));
	assert_int_equal(e->self->call.ret, -ESRCH);
}

/* ---- ITIMER_REAL: alarm, setitimer, getitimer ---- */

static struct rec_timer *itimer(struct env *e, pid_t tgid)
{
	return rec_timer_get(&e->r, tgid);
}

static long alarm_call(struct env *e, struct task *t, unsigned secs)
{
	assert_int_equal(rec_sys_alarm(&e->r, t, enter(t, SYS_alarm, secs, 0, 0, 0, 0, 0)),
			 REC_EMULATED);
	return t->call.ret;
}

static void test_alarm(void **state)
{
	struct env *e = get_env(state);
	struct task *other = new_task(e, OTHER_TGID);
	int64_t *now = &e->r.clock.now_ns;

	assert_int_equal(alarm_call(e, e->self, 5), 0);
	assert_int_equal(itimer(e, e->pid)->deadline, NOW + 5 * SEC);
	assert_int_equal(itimer(e, e->pid)->interval, 0);

	/* 3.5 s left: rounded to the nearest second, half up. */
	*now += 1500 * MS;
	assert_int_equal(alarm_call(e, e->self, 5), 4);
	assert_int_equal(itimer(e, e->pid)->deadline, *now + 5 * SEC);
	/* 3.499999 s left. */
	*now += 1500 * MS + 1 * US;
	assert_int_equal(alarm_call(e, e->self, 5), 3);
	/* 2 s and 400 ns: 2. */
	*now += 3 * SEC - 400;
	assert_int_equal(alarm_call(e, e->self, 5), 2);
	/* 0.2 s left: never 0 while armed. */
	*now += 4800 * MS;
	assert_int_equal(alarm_call(e, e->self, 5), 1);
	/* 999 ns left, then none at all (due, not fired yet): still 1. */
	*now += 5 * SEC - 999;
	assert_int_equal(alarm_call(e, e->self, 5), 1);
	*now += 5 * SEC;
	/* alarm(0) disarms and tells what was left. */
	assert_int_equal(alarm_call(e, e->self, 0), 1);
	assert_int_equal(itimer(e, e->pid)->deadline, -1);
	assert_int_equal(alarm_call(e, e->self, 0), 0);

	/* One ITIMER_REAL per process. */
	assert_int_equal(alarm_call(e, e->self, 7), 0);
	assert_int_equal(alarm_call(e, other, 9), 0);
	assert_int_equal(itimer(e, e->pid)->deadline, *now + 7 * SEC);
	assert_int_equal(itimer(e, OTHER_TGID)->deadline, *now + 9 * SEC);
	assert_int_equal(alarm_call(e, other, 0), 9);
	assert_int_equal(itimer(e, e->pid)->deadline, *now + 7 * SEC);
	assert_int_equal(e->r.ntimers, 2);

	/* alarm's argument is an unsigned int. */
	assert_int_equal(alarm_call(e, other, 0xffffffffu), 0);
	assert_int_equal(itimer(e, OTHER_TGID)->deadline, *now + 4294967295LL * SEC);
	assert_int_equal(alarm_call(e, other, 0), 4294967295LL);
}

static enum rec_action setitimer_call(struct env *e, struct task *t, long which,
				      const struct itimerval *nv, struct itimerval *old)
{
	return rec_sys_setitimer(
		&e->r, t, enter(t, SYS_setitimer, (uint64_t)which, ADDR(nv), ADDR(old), 0, 0, 0));
}

static enum rec_action getitimer_call(struct env *e, struct task *t, long which,
				      struct itimerval *v)
{
	return rec_sys_getitimer(&e->r, t,
				 enter(t, SYS_getitimer, (uint64_t)which, ADDR(v), 0, 0, 0, 0));
}

static void assert_itimerval(const struct itimerval *v, long vs, long vus, long is, long ius)
{
	assert_int_equal(v->it_value.tv_sec, vs);
	assert_int_equal(v->it_value.tv_usec, vus);
	assert_int_equal(v->it_interval.tv_sec, is);
	assert_int_equal(v->it_interval.tv_usec, ius);
}

static void test_setitimer_real(void **state)
{
	struct env *e = get_env(state);
	struct itimerval nv = { { 0, 250000 }, { 1, 500000 } }, old = POISON, cur = POISON;
	struct task *t = e->self;

	memset(&old, 0x55, sizeof(old));
	assert_int_equal(setitimer_call(e, t, ITIMER_REAL, &nv, &old), REC_EMULATED);
	assert_int_equal(t->call.ret, 0);
	assert_itimerval(&old, 0, 0, 0, 0);
	assert_int_equal(itimer(e, e->pid)->deadline, NOW + 1500 * MS);
	assert_int_equal(itimer(e, e->pid)->interval, 250 * MS);
	assert_int_equal(itimer(e, e->pid)->kind, 0);

	/* Half a second on: 1 s left. */
	e->r.clock.now_ns += 500 * MS;
	assert_int_equal(getitimer_call(e, t, ITIMER_REAL, &cur), REC_EMULATED);
	assert_int_equal(t->call.ret, 0);
	assert_itimerval(&cur, 1, 0, 0, 250000);
	/* 1.5 us later: microseconds are truncated. */
	e->r.clock.now_ns += 1500;
	getitimer_call(e, t, ITIMER_REAL, &cur);
	assert_itimerval(&cur, 0, 999998, 0, 250000);

	/* A zero value disarms, and the interval goes with it. */
	nv.it_value.tv_sec = 0;
	nv.it_value.tv_usec = 0;
	nv.it_interval.tv_sec = 3;
	setitimer_call(e, t, ITIMER_REAL, &nv, &old);
	assert_int_equal(t->call.ret, 0);
	assert_itimerval(&old, 0, 999998, 0, 250000);
	assert_int_equal(itimer(e, e->pid)->deadline, -1);
	assert_int_equal(itimer(e, e->pid)->interval, 0);
	getitimer_call(e, t, ITIMER_REAL, &cur);
	assert_itimerval(&cur, 0, 0, 0, 0);

	/* The old value may be NULL. */
	nv.it_value.tv_sec = 2;
	nv.it_interval.tv_sec = 0;
	assert_int_equal(setitimer_call(e, t, ITIMER_REAL, &nv, NULL), REC_EMULATED);
	assert_int_equal(t->call.ret, 0);
	assert_int_equal(itimer(e, e->pid)->deadline, e->r.clock.now_ns + 2 * SEC);

	/* which is an int: the upper half of the register does not count. */
	nv.it_value.tv_sec = 3;
	assert_int_equal(
		setitimer_call(e, t, (long)(0xffffffff00000000ULL | ITIMER_REAL), &nv, NULL),
		REC_EMULATED);
	assert_int_equal(itimer(e, e->pid)->deadline, e->r.clock.now_ns + 3 * SEC);

	getitimer_call(e, t, ITIMER_REAL, (struct itimerval *)8);
	assert_int_equal(t->call.ret, -EFAULT);
}

static void test_setitimer_invalid(void **state)
{
	static const struct itimerval bad[] = {
		{ { 0, 0 }, { 1, 1000000 } }, { { 0, 0 }, { 1, -1 } }, { { 0, 0 }, { -1, 0 } },
		{ { 0, 1000000 }, { 1, 0 } }, { { 0, -1 }, { 1, 0 } }, { { -1, 0 }, { 1, 0 } },
	};
	struct env *e = get_env(state);
	struct itimerval nv = { { 0, 0 }, { 4, 0 } }, old = POISON;
	struct task *t = e->self;

	setitimer_call(e, t, ITIMER_REAL, &nv, NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&old, 0x55, sizeof(old));
		assert_int_equal(setitimer_call(e, t, ITIMER_REAL, &bad[i], &old), REC_EMULATED);
		assert_int_equal(t->call.ret, -EINVAL);
		/* Neither the timer nor the old value changed. */
		assert_int_equal(itimer(e, e->pid)->deadline, NOW + 4 * SEC);
		assert_int_equal(old.it_value.tv_sec, 0x5555555555555555LL);
	}
	setitimer_call(e, t, ITIMER_REAL, (const struct itimerval *)8, NULL);
	assert_int_equal(t->call.ret, -EFAULT);
	assert_int_equal(itimer(e, e->pid)->deadline, NOW + 4 * SEC);
}

/* ITIMER_VIRTUAL and ITIMER_PROF count CPU time: the kernel's. */
static void test_itimer_cpu_left_to_kernel(void **state)
{
	struct env *e = get_env(state);
	struct itimerval nv = { { 0, 0 }, { 1, 0 } }, cur = POISON;

	assert_int_equal(setitimer_call(e, e->self, ITIMER_VIRTUAL, &nv, NULL), REC_CONT);
	assert_int_equal(setitimer_call(e, e->self, ITIMER_PROF, &nv, NULL), REC_CONT);
	assert_int_equal(getitimer_call(e, e->self, ITIMER_VIRTUAL, &cur), REC_CONT);
	assert_int_equal(getitimer_call(e, e->self, ITIMER_PROF, &cur), REC_CONT);
	assert_int_equal(e->r.ntimers, 0);
}

/*
 * kernel/time/itimer.c itimer_get_remtime(): an armed ITIMER_REAL whose
 * expiry has passed but that has not fired yet reads as 1 us left, so
 * getitimer never shows a negative time and alarm() never returns 0 for a
 * pending alarm. The recorder fires timers at scheduling points; virtual
 * time may pass a deadline in between (rdtsc advances it, a retried call
 * does not fire timers).
 */
static void test_itimer_overdue_reads_as_armed(void **state)
{
	struct env *e = get_env(state);
	struct itimerval nv = { { 0, 0 }, { 1, 0 } }, cur = POISON;

	setitimer_call(e, e->self, ITIMER_REAL, &nv, NULL);
	e->r.clock.now_ns += SEC + 100;
	getitimer_call(e, e->self, ITIMER_REAL, &cur);
	assert_int_equal(e->self->call.ret, 0);
	assert_itimerval(&cur, 0, 1, 0, 0);
	assert_int_equal(alarm_call(e, e->self, 0), 1);
}

/*
 * A timeout too large for 64-bit nanoseconds is "never" to the kernel
 * (timespec64_to_ktime saturates at KTIME_MAX), not a wrapped, negative
 * or small value: the timer stays armed.
 */
static void test_itimer_huge_value_stays_armed(void **state)
{
	struct env *e = get_env(state);
	struct itimerval nv = { { 0, 0 }, { 10000000000L, 0 } }, cur = POISON;

	setitimer_call(e, e->self, ITIMER_REAL, &nv, NULL);
	assert_int_equal(e->self->call.ret, 0);
	assert_true(itimer(e, e->pid)->deadline > NOW + 100LL * 365 * 86400 * SEC);
	getitimer_call(e, e->self, ITIMER_REAL, &cur);
	assert_true(cur.it_value.tv_sec > 100L * 365 * 86400);
}

/* ---- POSIX timers ---- */

static long timer_create_call(struct env *e, struct task *t, long clockid,
			      const struct sigevent *ev, int *id)
{
	assert_int_equal(rec_sys_timer_create(&e->r, t,
					      enter(t, SYS_timer_create, (uint64_t)clockid,
						    ADDR(ev), ADDR(id), 0, 0, 0)),
			 REC_EMULATED);
	return t->call.ret;
}

static long timer_settime_call(struct env *e, struct task *t, int id, int flags,
			       const struct itimerspec *nv, struct itimerspec *old)
{
	assert_int_equal(rec_sys_timer_settime(&e->r, t,
					       enter(t, SYS_timer_settime, (uint64_t)id,
						     (uint64_t)flags, ADDR(nv), ADDR(old), 0, 0)),
			 REC_EMULATED);
	return t->call.ret;
}

static long timer_gettime_call(struct env *e, struct task *t, int id, struct itimerspec *v)
{
	assert_int_equal(
		rec_sys_timer_gettime(
			&e->r, t, enter(t, SYS_timer_gettime, (uint64_t)id, ADDR(v), 0, 0, 0, 0)),
		REC_EMULATED);
	return t->call.ret;
}

static long timer_delete_call(struct env *e, struct task *t, int id)
{
	assert_int_equal(rec_sys_timer_delete(
				 &e->r, t, enter(t, SYS_timer_delete, (uint64_t)id, 0, 0, 0, 0, 0)),
			 REC_EMULATED);
	return t->call.ret;
}

static long timer_getoverrun_call(struct env *e, struct task *t, int id)
{
	assert_int_equal(
		rec_sys_timer_getoverrun(
			&e->r, t, enter(t, SYS_timer_getoverrun, (uint64_t)id, 0, 0, 0, 0, 0)),
		REC_EMULATED);
	return t->call.ret;
}

static struct rec_timer *posix_timer(struct env *e, pid_t tgid, int id)
{
	for (size_t i = 0; i < e->r.ntimers; i++)
		if (e->r.timers[i].kind == 1 && e->r.timers[i].tgid == tgid &&
		    e->r.timers[i].id == id)
			return &e->r.timers[i];
	return NULL;
}

static void assert_itimerspec(const struct itimerspec *v, long vs, long vns, long is, long ins)
{
	assert_int_equal(v->it_value.tv_sec, vs);
	assert_int_equal(v->it_value.tv_nsec, vns);
	assert_int_equal(v->it_interval.tv_sec, is);
	assert_int_equal(v->it_interval.tv_nsec, ins);
}

static void test_timer_create_ids(void **state)
{
	struct env *e = get_env(state);
	struct task *other = new_task(e, OTHER_TGID);
	int id = -7;

	/* Ids count from 0 in each process. */
	for (int i = 0; i < 3; i++) {
		id = -7;
		assert_int_equal(timer_create_call(e, e->self,
						   i == 2 ? CLOCK_REALTIME : CLOCK_MONOTONIC, NULL,
						   &id),
				 0);
		assert_int_equal(id, i);
	}
	id = -7;
	assert_int_equal(timer_create_call(e, other, CLOCK_MONOTONIC, NULL, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(e->r.ntimers, 4);

	/* Without a sigevent: SIGALRM, with the timer id as its value. */
	{
		struct rec_timer *tm = posix_timer(e, e->pid, 2);

		assert_non_null(tm);
		assert_int_equal(tm->clockid, CLOCK_REALTIME);
		assert_int_equal(tm->notify, SIGEV_SIGNAL);
		assert_int_equal(tm->signo, SIGALRM);
		assert_int_equal(tm->value, 2);
		assert_int_equal(tm->deadline, -1);
		assert_int_equal(tm->interval, 0);
	}

	/* A clock that does not exist: -EINVAL, no id written, no timer. */
	id = -7;
	assert_int_equal(timer_create_call(e, e->self, 99, NULL, &id), -EINVAL);
	assert_int_equal(id, -7);
	assert_int_equal(timer_create_call(e, e->self, 0xffffffffL, NULL, &id), -EINVAL); /* -1 */
	assert_int_equal(id, -7);
	/* Nowhere to write the id. */
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, (int *)8), -EFAULT);
	assert_int_equal(e->r.ntimers, 4);
	assert_null(posix_timer(e, e->pid, 3));
}

static void test_timer_create_sigevent(void **state)
{
	struct env *e = get_env(state);
	struct sigevent ev;
	int id = -7;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	ev.sigev_value.sival_ptr = (void *)(uintptr_t)0x123456789aULL;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(posix_timer(e, e->pid, 0)->signo, SIGUSR1);
	assert_int_equal(posix_timer(e, e->pid, 0)->value, 0x123456789aULL);

	/* SIGEV_THREAD_ID names a thread of the caller's process by the tid
	 * the guest knows; the timer keeps its host tid. */
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev._sigev_un._tid = e->self->vtid;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(posix_timer(e, e->pid, 1)->notify, SIGEV_THREAD_ID);
	assert_int_equal(posix_timer(e, e->pid, 1)->target, e->self->tid);

	/* SIGEV_NONE needs no signal. */
	ev.sigev_notify = SIGEV_NONE;
	ev.sigev_signo = 0;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), 0);
	assert_int_equal(id, 2);

	/* Refused: no such thread (or not ours), no signal, a bad signal, a bad
	 * notification, an unreadable sigevent. */
	id = -7;
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR1;
	ev._sigev_un._tid = 4242;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), -EINVAL);
	{
		struct task *stranger = new_task(e, OTHER_TGID);

		ev._sigev_un._tid = stranger->vtid;
		assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), -EINVAL);
	}
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = 0;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), -EINVAL);
	ev.sigev_signo = 65;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), -EINVAL);
	ev.sigev_signo = SIGUSR1;
	ev.sigev_notify = 99;
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &id), -EINVAL);
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, (struct sigevent *)8, &id),
			 -EFAULT);
	assert_int_equal(id, -7);
	assert_int_equal(e->r.ntimers, 3);
}

static void test_timer_settime_relative(void **state)
{
	struct env *e = get_env(state);
	struct itimerspec nv = { { 0, 100 }, { 2, 0 } }, old = POISON, cur = POISON;
	int id = -1;

	timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &id);
	memset(&old, 0x55, sizeof(old));
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, &old), 0);
	assert_itimerspec(&old, 0, 0, 0, 0);
	assert_int_equal(posix_timer(e, e->pid, id)->deadline, NOW + 2 * SEC);
	assert_int_equal(posix_timer(e, e->pid, id)->interval, 100);

	assert_int_equal(timer_gettime_call(e, e->self, id, &cur), 0);
	assert_itimerspec(&cur, 2, 0, 0, 100);
	e->r.clock.now_ns += 500 * MS + 7;
	timer_gettime_call(e, e->self, id, &cur);
	assert_itimerspec(&cur, 1, 499999993, 0, 100);

	/* Re-armed: the old setting comes back. */
	nv.it_value.tv_sec = 5;
	nv.it_interval.tv_nsec = 0;
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, &old), 0);
	assert_itimerspec(&old, 1, 499999993, 0, 100);
	assert_int_equal(posix_timer(e, e->pid, id)->deadline, e->r.clock.now_ns + 5 * SEC);
	assert_int_equal(posix_timer(e, e->pid, id)->interval, 0);

	/* Disarmed by a zero value. */
	nv.it_value.tv_sec = 0;
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, NULL), 0);
	assert_int_equal(posix_timer(e, e->pid, id)->deadline, -1);
	timer_gettime_call(e, e->self, id, &cur);
	assert_int_equal(cur.it_value.tv_sec, 0);
	assert_int_equal(cur.it_value.tv_nsec, 0);

	/* Refused: a bad timespec, no such timer, unreadable or unwritable. */
	nv.it_value.tv_sec = 1;
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, NULL), 0);
	nv.it_value.tv_nsec = SEC;
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, NULL), -EINVAL);
	nv.it_value.tv_nsec = 0;
	nv.it_interval.tv_nsec = -1;
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, NULL), -EINVAL);
	nv.it_interval.tv_nsec = 0;
	nv.it_value.tv_sec = -1;
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, NULL), -EINVAL);
	assert_int_equal(posix_timer(e, e->pid, id)->deadline, e->r.clock.now_ns + SEC);
	nv.it_value.tv_sec = 1;
	assert_int_equal(timer_settime_call(e, e->self, id + 1, 0, &nv, NULL), -EINVAL);
	assert_int_equal(timer_settime_call(e, e->self, id, 0, (struct itimerspec *)8, NULL),
			 -EFAULT);
	assert_int_equal(timer_gettime_call(e, e->self, id + 1, &cur), -EINVAL);
	assert_int_equal(timer_gettime_call(e, e->self, id, (struct itimerspec *)8), -EFAULT);
}

static void test_timer_settime_absolute(void **state)
{
	struct env *e = get_env(state);
	struct itimerspec nv, cur = POISON;
	int mono = -1, real = -1;

	timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &mono);
	timer_create_call(e, e->self, CLOCK_REALTIME, NULL, &real);
	memset(&nv, 0, sizeof(nv));

	/* CLOCK_MONOTONIC reads REC_BOOT_NS + now. */
	nv.it_value.tv_sec = (REC_BOOT_NS + NOW) / SEC + 4;
	nv.it_value.tv_nsec = (REC_BOOT_NS + NOW) % SEC;
	assert_int_equal(timer_settime_call(e, e->self, mono, TIMER_ABSTIME, &nv, NULL), 0);
	assert_int_equal(posix_timer(e, e->pid, mono)->deadline, NOW + 4 * SEC);

	/* CLOCK_REALTIME reads epoch + now. */
	nv.it_value.tv_sec = (EPOCH + NOW) / SEC + 3;
	nv.it_value.tv_nsec = (EPOCH + NOW) % SEC + 1;
	nv.it_interval.tv_sec = 1;
	assert_int_equal(timer_settime_call(e, e->self, real, TIMER_ABSTIME, &nv, NULL), 0);
	assert_int_equal(posix_timer(e, e->pid, real)->deadline, NOW + 3 * SEC + 1);
	assert_int_equal(posix_timer(e, e->pid, real)->interval, SEC);
	/* The same time on the other clock is relative... */
	assert_int_equal(timer_settime_call(e, e->self, real, 0, &nv, NULL), 0);
	assert_int_equal(posix_timer(e, e->pid, real)->deadline,
			 NOW + nv.it_value.tv_sec * SEC + nv.it_value.tv_nsec);

	/* ...and a time already past is due now (gettime: 1 ns left). */
	nv.it_value.tv_sec = (EPOCH + NOW) / SEC - 1;
	nv.it_value.tv_nsec = 0;
	assert_int_equal(timer_settime_call(e, e->self, real, TIMER_ABSTIME, &nv, NULL), 0);
	assert_int_equal(posix_timer(e, e->pid, real)->deadline, NOW);
	timer_gettime_call(e, e->self, real, &cur);
	assert_itimerspec(&cur, 0, 1, 1, 0);
}

/* The same for a POSIX timer (see test_itimer_huge_value_stays_armed). */
static void test_posix_timer_huge_value_stays_armed(void **state)
{
	struct env *e = get_env(state);
	struct itimerspec nv = { { 0, 0 }, { 10000000000L, 0 } }, cur = POISON;
	int id = -1;

	timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &id);
	assert_int_equal(timer_settime_call(e, e->self, id, 0, &nv, NULL), 0);
	assert_true(posix_timer(e, e->pid, id)->deadline > NOW + 100LL * 365 * 86400 * SEC);
	timer_gettime_call(e, e->self, id, &cur);
	assert_true(cur.it_value.tv_sec > 100L * 365 * 86400);
}

static void test_timer_delete(void **state)
{
	struct env *e = get_env(state);
	struct task *other = new_task(e, OTHER_TGID);
	struct itimerspec nv = { { 0, 0 }, { 1, 0 } }, cur = POISON;
	int id = -1;

	for (int i = 0; i < 3; i++) {
		timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &id);
		nv.it_value.tv_sec = i + 1;
		timer_settime_call(e, e->self, id, 0, &nv, NULL);
	}
	timer_create_call(e, other, CLOCK_MONOTONIC, NULL, &id);
	timer_create_call(e, other, CLOCK_MONOTONIC, NULL, &id);
	assert_int_equal(id, 1);

	assert_int_equal(timer_getoverrun_call(e, e->self, 1), 0);
	assert_int_equal(timer_delete_call(e, e->self, 1), 0);
	/* Gone, for every operation. */
	assert_int_equal(timer_settime_call(e, e->self, 1, 0, &nv, NULL), -EINVAL);
	assert_int_equal(timer_gettime_call(e, e->self, 1, &cur), -EINVAL);
	assert_int_equal(timer_getoverrun_call(e, e->self, 1), -EINVAL);
	assert_int_equal(timer_delete_call(e, e->self, 1), -EINVAL);
	/* The others stay, with their settings; so does the other process's 1. */
	assert_int_equal(e->r.ntimers, 4);
	assert_int_equal(posix_timer(e, e->pid, 0)->deadline, NOW + 1 * SEC);
	assert_int_equal(posix_timer(e, e->pid, 2)->deadline, NOW + 3 * SEC);
	assert_non_null(posix_timer(e, OTHER_TGID, 1));
	assert_int_equal(timer_gettime_call(e, other, 1, &cur), 0);
	/* ITIMER_REAL is not a POSIX timer. */
	assert_int_equal(alarm_call(e, e->self, 5), 0);
	assert_int_equal(timer_delete_call(e, e->self, 3), -EINVAL);
	assert_int_equal(timer_delete_call(e, e->self, -1), -EINVAL);
	assert_int_equal(itimer(e, e->pid)->deadline, NOW + 5 * SEC);
}

/* exec deletes the process's POSIX timers; ITIMER_REAL, timerfds and the
 * timers of other processes stay. */
static void test_timers_exec(void **state)
{
	struct env *e = get_env(state);
	struct task *other = new_task(e, OTHER_TGID);
	int id = -1;

	assert_int_equal(alarm_call(e, e->self, 5), 0);
	timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &id);
	timer_create_call(e, other, CLOCK_MONOTONIC, NULL, &id);
	timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &id);
	e->r.timers = xrealloc(e->r.timers, (e->r.ntimers + 1) * sizeof(*e->r.timers));
	memset(&e->r.timers[e->r.ntimers], 0, sizeof(e->r.timers[0]));
	e->r.timers[e->r.ntimers].tgid = e->pid;
	e->r.timers[e->r.ntimers].kind = 2; /* a timerfd, fd 9 */
	e->r.timers[e->r.ntimers].id = 9;
	e->r.timers[e->r.ntimers].deadline = -1;
	e->r.ntimers++;
	assert_int_equal(e->r.ntimers, 5);

	rec_timers_exec(&e->r, e->pid);
	assert_int_equal(e->r.ntimers, 3);
	assert_null(posix_timer(e, e->pid, 0));
	assert_null(posix_timer(e, e->pid, 1));
	assert_non_null(posix_timer(e, OTHER_TGID, 0));
	for (size_t i = 0; i < e->r.ntimers; i++) {
		const struct rec_timer *tm = &e->r.timers[i];

		if (tm->tgid == e->pid && tm->kind == 0)
			assert_int_equal(tm->deadline, NOW + 5 * SEC);
		else if (tm->tgid == e->pid)
			assert_int_equal(tm->kind, 2);
	}
	/* New timers count from 0 again. */
	assert_int_equal(timer_create_call(e, e->self, CLOCK_MONOTONIC, NULL, &id), 0);
	assert_int_equal(id, 0);
}

/* ---- rec_fire_due ---- */

static void test_fire_due_wakes_in_order(void **state)
{
	struct env *e = get_env(state);
	/* Created c, b, a; made to wait a, b, c. */
	struct task *c = new_task(e, e->pid), *b = new_task(e, e->pid), *a = new_task(e, e->pid);
	struct task *later = new_task(e, e->pid), *never = new_task(e, e->pid);
	uint64_t progress;

	enter(a, SYS_futex, 0, 0, 0, 0, 0, 0);
	enter(b, SYS_nanosleep, 0, 0, 0, 0, 0, 0);
	enter(c, SYS_poll, 0, 0, 0, 0, 0, 0);
	rec_block(&e->r, a, WAIT_FUTEX, NOW + 5);
	rec_block(&e->r, b, WAIT_SLEEP, NOW + 3);
	rec_block(&e->r, c, WAIT_POLL, NOW + 5);
	rec_block(&e->r, later, WAIT_SLEEP, NOW + 7);
	rec_block(&e->r, never, WAIT_FUTEX, -1);

	/* Nothing is due yet. */
	e->r.clock.now_ns = NOW + 2;
	progress = e->r.progress;
	rec_fire_due(&e->r);
	assert_int_equal(e->r.runq_len, 0);
	assert_int_equal(e->r.progress, progress);

	/* Deadline first, then order of waiting; a deadline equal to now is due. */
	e->r.clock.now_ns = NOW + 6;
	rec_fire_due(&e->r);
	{
		struct task *want[] = { b, a, c };

		assert_runq(e, want, 3);
	}
	assert_int_equal(e->r.progress, progress + 3);
	/* A futex wait times out with ETIMEDOUT, a sleep with 0. */
	assert_woken(a, -ETIMEDOUT);
	assert_woken(b, 0);
	/* A timed poll stopped at its syscall's exit steps past it and returns 0. */
	assert_int_equal(c->state, TASK_READY);
	assert_int_equal(c->call.regs.rip, 0x401002);
	assert_int_equal(c->call.regs.rax, 0);
	assert_int_equal(c->poll_retry, 0);
	assert_int_equal(later->state, TASK_WAITING);
	assert_int_equal(later->deadline, NOW + 7);
	assert_int_equal(never->state, TASK_WAITING);

	e->r.clock.now_ns = NOW + 7;
	rec_fire_due(&e->r);
	assert_woken(later, 0);
	assert_int_equal(never->state, TASK_WAITING);
	assert_int_equal(e->r.clock.now_ns, NOW + 7); /* firing does not move time */
}

static void test_fire_due_itimer(void **state)
{
	struct env *e = get_env(state);
	struct itimerval nv = { { 1, 0 }, { 1, 0 } };
	struct task *helper = new_task(e, OTHER_TGID);
	uint64_t progress;
	int64_t deadline;

	/* Periodic, every second from NOW + 1 s. */
	setitimer_call(e, e->self, ITIMER_REAL, &nv, NULL);
	e->r.clock.now_ns = NOW + SEC - 1;
	rec_fire_due(&e->r);
	assert_false(take_signal(SIGALRM, NULL));
	assert_int_equal(itimer(e, e->pid)->deadline, NOW + SEC);

	e->r.clock.now_ns = NOW + SEC;
	progress = e->r.progress;
	rec_fire_due(&e->r);
	assert_true(take_signal(SIGALRM, NULL));
	assert_int_equal(itimer(e, e->pid)->deadline, NOW + 2 * SEC);
	assert_int_equal(e->r.progress, progress + 1);

	/* Overruns collapse into one expiry; the next one is ahead of now. */
	e->r.clock.now_ns = NOW + 4500 * MS;
	progress = e->r.progress;
	rec_fire_due(&e->r);
	assert_true(take_signal(SIGALRM, NULL));
	assert_int_equal(e->r.progress, progress + 1);
	deadline = itimer(e, e->pid)->deadline;
	assert_true(deadline > e->r.clock.now_ns);
	assert_true(deadline <= e->r.clock.now_ns + SEC);
	assert_int_equal(itimer(e, e->pid)->interval, SEC);

	/* One shot: disarmed once fired. */
	nv.it_interval.tv_sec = 0;
	setitimer_call(e, e->self, ITIMER_REAL, &nv, NULL);
	e->r.clock.now_ns += SEC;
	rec_fire_due(&e->r);
	assert_true(take_signal(SIGALRM, NULL));
	assert_int_equal(itimer(e, e->pid)->deadline, -1);

	/* A process with no guest thread left: disarmed, no signal. */
	helper->system = 1;
	alarm_call(e, helper, 1);
	e->r.clock.now_ns += SEC;
	progress = e->r.progress;
	rec_fire_due(&e->r);
	assert_int_equal(itimer(e, OTHER_TGID)->deadline, -1);
	assert_int_equal(e->r.progress, progress);
	assert_false(take_signal(SIGALRM, NULL));
}

static void test_fire_due_posix_timers(void **state)
{
	struct env *e = get_env(state);
	struct itimerspec nv = { { 0, 0 }, { 1, 0 } };
	struct sigevent ev;
	siginfo_t info;
	int sig_id = -1, thread_id = -1, none_id = -1;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	ev.sigev_value.sival_int = 0x1234;
	timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &sig_id);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR2;
	ev._sigev_un._tid = e->self->vtid;
	ev.sigev_value.sival_int = 0x5678;
	timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &thread_id);
	ev.sigev_notify = SIGEV_NONE;
	timer_create_call(e, e->self, CLOCK_MONOTONIC, &ev, &none_id);

	timer_settime_call(e, e->self, sig_id, 0, &nv, NULL);
	nv.it_interval.tv_nsec = 250 * MS;
	timer_settime_call(e, e->self, thread_id, 0, &nv, NULL);
	nv.it_interval.tv_nsec = 0;
	timer_settime_call(e, e->self, none_id, 0, &nv, NULL);

	e->r.clock.now_ns = NOW + SEC;
	rec_fire_due(&e->r);

	/* What the kernel's timer queues: SI_TIMER, the id, the sigev_value. */
	memset(&info, 0, sizeof(info));
	assert_true(take_signal(SIGUSR1, &info));
	assert_int_equal(info.si_code, SI_TIMER);
	assert_int_equal(info.si_timerid, sig_id);
	assert_int_equal(info.si_value.sival_int, 0x1234);
	assert_int_equal(info.si_overrun, 0);
	memset(&info, 0, sizeof(info));
	assert_true(take_signal(SIGUSR2, &info));
	assert_int_equal(info.si_code, SI_TIMER);
	assert_int_equal(info.si_timerid, thread_id);
	assert_int_equal(info.si_value.sival_int, 0x5678);
	assert_false(take_signal(SIGALRM, NULL)); /* SIGEV_NONE sends nothing */

	assert_int_equal(posix_timer(e, e->pid, sig_id)->deadline, -1);
	assert_int_equal(posix_timer(e, e->pid, thread_id)->deadline, NOW + SEC + 250 * MS);
	assert_int_equal(posix_timer(e, e->pid, none_id)->deadline, -1);
}

/* ---- timed polls ---- */

static enum rec_action poll_call(struct env *e, struct task *t, long nr, int argi, uint64_t arg)
{
	uint64_t a[6] = { 3, 0, 0, 0, 0, 0 };

	a[argi] = arg;
	return rec_sys_poll(&e->r, t, enter(t, nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

/* Where each poll-family call leaves what a log keeps of it. */
static void test_poll_regions(void **state)
{
	struct rec_call c = { .nr = SYS_poll, .args = { 0x1000, 3, 0 } };
	uint64_t at[3];
	size_t len[3];

	(void)state;
	/* poll, ppoll: the whole pollfd array, even with nothing ready */
	assert_int_equal(rec_poll_regions(&c, 0, at, len), 1);
	assert_int_equal(at[0], 0x1000);
	assert_int_equal(len[0], 3 * 8);
	c.nr = SYS_ppoll;
	c.args[1] = 100000; /* too many to keep */
	assert_int_equal(rec_poll_regions(&c, 1, at, len), 0);
	assert_int_equal(rec_poll_regions(&c, -EINTR, at, len), 0);

	/* select, pselect6: the sets given, each as long as nfds needs */
	c = (struct rec_call){ .nr = SYS_select, .args = { 65, 0x2000, 0, 0x3000, 0 } };
	assert_int_equal(rec_poll_regions(&c, 1, at, len), 2);
	assert_int_equal(at[0], 0x2000);
	assert_int_equal(len[0], 16);
	assert_int_equal(at[1], 0x3000);
	assert_int_equal(len[1], 16);
	c.nr = SYS_pselect6;
	c.args[0] = 1;
	c.args[2] = 0x4000;
	assert_int_equal(rec_poll_regions(&c, 0, at, len), 3);
	assert_int_equal(len[2], 8);
	c.args[0] = 0;
	assert_int_equal(rec_poll_regions(&c, 0, at, len), 0);

	/* epoll: as many events as it returned, no more than maxevents */
	c = (struct rec_call){ .nr = SYS_epoll_wait, .args = { 3, 0x5000, 4, 0 } };
	assert_int_equal(rec_poll_regions(&c, 2, at, len), 1);
	assert_int_equal(at[0], 0x5000);
	assert_int_equal(len[0], 2 * 12);
	assert_int_equal(rec_poll_regions(&c, 0, at, len), 0);
	assert_int_equal(rec_poll_regions(&c, 5, at, len), 0);

	/* no descriptors */
	c.nr = SYS_rt_sigtimedwait;
	assert_int_equal(rec_poll_regions(&c, 0, at, len), 0);
}

static void test_poll_milliseconds(void **state)
{
	struct env *e = get_env(state);
	struct task *t = e->self;

	/* A finite timeout: the call runs with 0, the deadline is virtual. */
	assert_int_equal(poll_call(e, t, SYS_poll, 2, 1500), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + 1500 * MS);
	assert_int_equal(t->poll_arg, 1500);
	assert_int_equal(t->call.regs.rdx, 0);
	assert_int_equal(t->poll_retry, 0);
	assert_int_equal(e->r.clock.now_ns, NOW);

	/* epoll_wait and epoll_pwait keep it in the fourth argument. */
	assert_int_equal(poll_call(e, t, SYS_epoll_wait, 3, 10), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + 10 * MS);
	assert_int_equal(t->call.regs.r10, 0);
	assert_int_equal(poll_call(e, t, SYS_epoll_pwait, 3, 1), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + MS);

	/* 0 (do not block) and negative (block for ever) need no help. */
	t->poll_deadline = 42;
	assert_int_equal(poll_call(e, t, SYS_poll, 2, 0), REC_CONT);
	assert_int_equal(poll_call(e, t, SYS_poll, 2, (uint64_t)-1), REC_CONT);
	assert_int_equal(poll_call(e, t, SYS_poll, 2, (uint64_t)-1000), REC_CONT);
	assert_int_equal(poll_call(e, t, SYS_poll, 2, 0xffffffffULL), REC_CONT); /* int -1 */
	assert_int_equal(poll_call(e, t, SYS_epoll_wait, 3, (uint64_t)-1), REC_CONT);
	assert_int_equal(t->poll_deadline, 42);
	assert_int_equal(t->call.regs.r10, (uint64_t)-1); /* left as it was */

	/* Not a poll at all. */
	assert_int_equal(poll_call(e, t, SYS_read, 2, 5), REC_CONT);
	assert_int_equal(t->poll_deadline, 42);
}

static void test_poll_timespec(void **state)
{
	static const struct {
		long nr;
		int argi;
	} calls[] = { { SYS_ppoll, 2 }, { SYS_pselect6, 4 }, { SYS_epoll_pwait2, 3 } };
	struct env *e = get_env(state);
	struct task *t = e->self;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		long nr = calls[i].nr;
		int argi = calls[i].argi;
		struct timespec ts = { 1, 5 };

		t->poll_deadline = 42;
		assert_int_equal(poll_call(e, t, nr, argi, ADDR(&ts)), REC_EXIT_STOP);
		assert_int_equal(t->poll_deadline, NOW + SEC + 5);
		assert_int_equal(t->poll_arg, ADDR(&ts));
		/* The guest's timespec now says 0: the call does not block. */
		assert_int_equal(ts.tv_sec, 0);
		assert_int_equal(ts.tv_nsec, 0);

		/* No timeout, a zero one, an invalid or unreadable one: the
		 * kernel's (which blocks, returns, or reports the error). */
		t->poll_deadline = 42;
		assert_int_equal(poll_call(e, t, nr, argi, 0), REC_CONT);
		assert_int_equal(poll_call(e, t, nr, argi, ADDR(&ts)), REC_CONT);
		ts.tv_nsec = SEC;
		assert_int_equal(poll_call(e, t, nr, argi, ADDR(&ts)), REC_CONT);
		assert_int_equal(ts.tv_nsec, SEC);
		ts.tv_sec = -1;
		ts.tv_nsec = 0;
		assert_int_equal(poll_call(e, t, nr, argi, ADDR(&ts)), REC_CONT);
		ts.tv_sec = 1;
		ts.tv_nsec = -1;
		assert_int_equal(poll_call(e, t, nr, argi, ADDR(&ts)), REC_CONT);
		assert_int_equal(ts.tv_sec, 1);
		assert_int_equal(poll_call(e, t, nr, argi, 8), REC_CONT);
		assert_int_equal(t->poll_deadline, 42);
	}
}

static void test_select_timeval(void **state)
{
	struct env *e = get_env(state);
	struct task *t = e->self;
	struct timeval tv = { 2, 250000 };

	assert_int_equal(poll_call(e, t, SYS_select, 4, ADDR(&tv)), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + 2250 * MS);
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 0);

	t->poll_deadline = 42;
	assert_int_equal(poll_call(e, t, SYS_select, 4, 0), REC_CONT);
	assert_int_equal(poll_call(e, t, SYS_select, 4, ADDR(&tv)), REC_CONT); /* {0, 0} */
	tv.tv_sec = 0;
	tv.tv_usec = -1;
	assert_int_equal(poll_call(e, t, SYS_select, 4, ADDR(&tv)), REC_CONT);
	tv.tv_sec = -1;
	tv.tv_usec = 0;
	assert_int_equal(poll_call(e, t, SYS_select, 4, ADDR(&tv)), REC_CONT);
	assert_int_equal(poll_call(e, t, SYS_select, 4, 8), REC_CONT);
	assert_int_equal(t->poll_deadline, 42);
}

/*
 * fs/select.c kern_select(): select() normalizes its timeval, passing
 * tv_sec + tv_usec / 1000000 and (tv_usec % 1000000) * 1000 on; a tv_usec
 * of a million or more is a valid timeout, not -EINVAL. Left to the
 * kernel, it would run on the real clock.
 */
static void test_select_timeval_usec_normalized(void **state)
{
	struct env *e = get_env(state);
	struct task *t = e->self;
	struct timeval tv = { 0, 1500000 };

	assert_int_equal(poll_call(e, t, SYS_select, 4, ADDR(&tv)), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + 1500 * MS);
}

/* A timed poll woken before its deadline retries its call; the retry
 * keeps the deadline it had, whatever the (zeroed) argument says now. */
static void test_poll_retry_keeps_deadline(void **state)
{
	struct env *e = get_env(state);
	struct task *t = e->self;
	struct timespec ts = { 2, 0 };

	assert_int_equal(poll_call(e, t, SYS_ppoll, 2, ADDR(&ts)), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + 2 * SEC);
	/* Nothing was ready: wound back, it waits (rec_sys_poll_exit). */
	rec_block(&e->r, t, WAIT_POLL, t->poll_deadline);
	/* Something happened half a second later: it is retried. */
	e->r.clock.now_ns += 500 * MS;
	rec_wake(&e->r, t, 0);
	assert_int_equal(t->state, TASK_READY);
	assert_int_equal(t->poll_retry, 1);
	assert_int_equal(t->call.regs.rip, 0x401000); /* not stepped past */
	assert_int_equal(poll_call(e, t, SYS_ppoll, 2, ADDR(&ts)), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, NOW + 2 * SEC);
	assert_int_equal(t->poll_retry, 0);
	assert_int_equal(t->poll_arg, ADDR(&ts));

	/* The same with poll's milliseconds, whose register now holds 0. */
	assert_int_equal(poll_call(e, t, SYS_poll, 2, 700), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, e->r.clock.now_ns + 700 * MS);
	rec_block(&e->r, t, WAIT_POLL, t->poll_deadline);
	e->r.clock.now_ns += 100 * MS;
	rec_wake(&e->r, t, 0);
	assert_int_equal(poll_call(e, t, SYS_poll, 2, 0), REC_EXIT_STOP);
	assert_int_equal(t->poll_deadline, e->r.clock.now_ns + 600 * MS);
	assert_int_equal(t->poll_arg, 700);
	assert_int_equal(t->call.regs.rdx, 0);
}

static void test_sched_yield(void **state)
{
	struct env *e = get_env(state);

	e->r.slice = 3;
	assert_int_equal(rec_sys_sched_yield(&e->r, e->self,
					     enter(e->self, SYS_sched_yield, 0, 0, 0, 0, 0, 0)),
			 REC_CONT);
	assert_int_equal(e->self->yielded, 1);
	assert_int_equal(e->r.slice, REC_SLICE);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_env, teardown_env)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_futex_wait_value_differs),
		T(test_futex_wait_blocks),
		T(test_futex_wait_relative_timeout),
		T(test_futex_wait_bitset_absolute),
		T(test_futex_wait_errors),
		T(test_futex_left_to_kernel),
		T(test_futex_wake_fifo),
		T(test_futex_wake_same_key_only),
		T(test_futex_wake_bitset),
		T(test_futex_shared_mapping),
		T(test_futex_shared_private_memory),
		T(test_futex_shared_unmapped),
		T(test_futex_shared_requeue),
		T(test_futex_requeue),
		T(test_futex_cmp_requeue),
		T(test_futex_requeue_counts_requeued),
		T(test_futex_wake_op_operations),
		T(test_futex_wake_op_comparisons),
		T(test_futex_wake_op_counts),
		T(test_futex_wake_op_checks_uaddr_first),
		T(test_futex_wake_zero_wakes_one),
		T(test_futex_clock_realtime_only_with_wait_bitset),
		T(test_futex_recheck),
		T(test_futex_recheck_shared),
		T(test_affinity_virtual),
		T(test_alarm),
		T(test_setitimer_real),
		T(test_setitimer_invalid),
		T(test_itimer_cpu_left_to_kernel),
		T(test_itimer_overdue_reads_as_armed),
		T(test_itimer_huge_value_stays_armed),
		T(test_timer_create_ids),
		T(test_timer_create_sigevent),
		T(test_timer_settime_relative),
		T(test_timer_settime_absolute),
		T(test_posix_timer_huge_value_stays_armed),
		T(test_timer_delete),
		T(test_timers_exec),
		T(test_fire_due_wakes_in_order),
		T(test_fire_due_itimer),
		T(test_fire_due_posix_timers),
		T(test_poll_milliseconds),
		T(test_poll_timespec),
		T(test_select_timeval),
		T(test_select_timeval_usec_normalized),
		T(test_poll_retry_keeps_deadline),
		T(test_sched_yield),
		T(test_poll_regions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
