/* perf_event_open(2) for wp-arm: breakpoints, task events, the ring. */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounds.h"
#include "perf.h"
#include "proc.h"
#include "util.h"

/* the registers of x86-regs.h, which perf then writes in that order */
#define PERF_BIT(N, name, field, perf, dwarf)	| 1ULL << PERF_REG_X86_##perf
#define REGS_MASK	(0 WP_X86_GPREGS(PERF_BIT))

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static int
perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
    unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static int
bp_len(int len)
{
	switch (len) {
	case 1: return HW_BREAKPOINT_LEN_1;
	case 2: return HW_BREAKPOINT_LEN_2;
	case 4: return HW_BREAKPOINT_LEN_4;
	default: return HW_BREAKPOINT_LEN_8;
	}
}

/*
 * The rings' clock.  Records carry CLOCK_MONOTONIC times, but an event
 * that reads it itself (use_clockid) reads the clocksource at every
 * sample: in a guest whose clocksource is an emulated HPET, that is
 * much of a hit's cost, where perf's own clock (the kernel's
 * local_clock) is an instruction.  So the events keep perf's clock and
 * perf_drain adds the offset between the two, measured from a comm
 * record of wp-arm's own between two readings of CLOCK_MONOTONIC, and
 * measured again once a second (the two clocks drift apart slowly).
 * Where it cannot be measured the events read CLOCK_MONOTONIC.
 */
static struct {
	int		 state;		/* 0 not yet, 1 offset, -1 use_clockid */
	int		 fd;
	void		*base;
	int64_t		 off;		/* CLOCK_MONOTONIC - perf clock */
	uint64_t	 at;		/* CLOCK_MONOTONIC of the measure */
} clk;

static int
clock_measure(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *mp = clk.base;
	const struct perf_event_header *h;
	uint64_t t1, t2, head;
	char name[17] = "";

	if (prctl(PR_GET_NAME, name) == -1)
		return -1;
	t1 = wp_now_ns();
	if (prctl(PR_SET_NAME, name) == -1)
		return -1;
	t2 = wp_now_ns();
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	h = (const void *)((const char *)clk.base + pg +
	    mp->data_tail % (uint64_t)pg);
	if (head - mp->data_tail < sizeof *h + 8 ||
	    h->type != PERF_RECORD_COMM || h->size < sizeof *h + 8 ||
	    h->size > head - mp->data_tail ||
	    mp->data_tail % (uint64_t)pg + h->size > (uint64_t)pg) {
		__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
		return -1;
	}
	clk.off = (int64_t)(t1 + (t2 - t1) / 2) -
	    (int64_t)*(const uint64_t *)((const char *)h + h->size - 8);
	clk.at = t2;
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

static void
clock_open(void)
{
	struct perf_event_attr a;
	long pg = sysconf(_SC_PAGESIZE);

	clk.state = -1;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.comm = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if ((clk.fd = perf_event_open(&a, 0, -1, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		return;
	clk.base = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
	    MAP_SHARED, clk.fd, 0);
	if (clk.base != MAP_FAILED && clock_measure() == 0) {
		clk.state = 1;
		return;
	}
	if (clk.base != MAP_FAILED)
		munmap(clk.base, 2 * (size_t)pg);
	close(clk.fd);
}

/* The offset measured again where the last measure is a second old. */
static void
clock_tick(void)
{
	if (clk.state == 1 && wp_now_ns() - clk.at > 1000000000u)
		(void)clock_measure();
}

/*
 * What every event writing into a CPU's ring shares: the sample layout
 * (perf_drain parses the sample_id trailer by it), the clock, user
 * space only, and that the ring's watermark (its owner's) wakes the
 * reader.
 */
static void
ring_attr(struct perf_event_attr *a, int inherit)
{
	if (clk.state == 0)
		clock_open();
	a->size = sizeof *a;
	a->sample_type = SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->inherit = inherit ? 1 : 0;
	if (clk.state == -1) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	a->watermark = 1;
	a->wakeup_watermark = 4096;
}

/* PERF_FORMAT_LOST came with Linux 6.0; without it, the value alone. */
static int read_lost = 1;

static void
bp_attr(const struct perf_bp *bp, int inherit, struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	ring_attr(a, inherit);
	/* threads inherit the event, child processes do not */
	a->inherit_thread = inherit ? 1 : 0;
	a->read_format = PERF_FORMAT_ID | (read_lost ? PERF_FORMAT_LOST : 0);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = bp->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	a->bp_addr = bp->addr;
	a->bp_len = (unsigned)bp_len(bp->len);
	a->sample_period = 1;
	if (bp->wake) {
		a->watermark = 0;
		a->wakeup_events = 1;
	}
	if (bp->regs || bp->stack > 0) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = REGS_MASK;
	}
	if (bp->chain > 0) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = 1;
		a->sample_max_stack = (uint16_t)bp->chain;
	}
	if (bp->stack > 0) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = (uint32_t)bp->stack;
	}
	a->remove_on_exec = 1;
	a->disabled = bp->disabled ? 1 : 0;
}

int
perf_open_bp(const struct perf_bp *bp, pid_t tid, int cpu, int inherit)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(bp, inherit, &a);
	fd = perf_event_open(&a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd == -1 && errno == EINVAL && read_lost) {
		read_lost = 0;
		bp_attr(bp, inherit, &a);
		fd = perf_event_open(&a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

int
perf_read_count(int fd, uint64_t *value, uint64_t *lost)
{
	uint64_t v[3] = { 0, 0, 0 };
	ssize_t want = read_lost ? 24 : 16;

	if (read(fd, v, sizeof v) != want)
		return -1;
	*value = v[0];
	*lost = read_lost ? v[2] : 0;
	return 0;
}

int
perf_modify_bp(int fd, const struct perf_bp *bp)
{
	struct perf_event_attr a;

	bp_attr(bp, 1, &a);
	return ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a);
}

int
perf_open_task(pid_t tid, int cpu, size_t ring_bytes)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	ring_attr(&a, 1);
	if (ring_bytes / 4 > a.wakeup_watermark)
		a.wakeup_watermark = (uint32_t)(ring_bytes / 4);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.task = 1;
	a.comm = 1;
	a.comm_exec = 1;
	return perf_event_open(&a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static volatile long canary_var;
static int shared_quiet;	/* perf_canary's second breakpoint counted less */

/* A write breakpoint on canary_var, of thread tid (0: ours). */
static int
canary_open(pid_t tid, int disabled)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof a;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&canary_var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.disabled = disabled;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_event_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int
perf_canary(uint64_t *count, uint64_t *second)
{
	int fd, fd2, i, rc = -1;

	if ((fd = canary_open(0, 0)) == -1)
		return -1;
	fd2 = canary_open(0, 0);	/* none free: nothing to tell */
	for (i = 0; i < 4; i++)
		canary_var = i;
	*count = 0;
	*second = 4;
	if (read(fd, count, sizeof *count) == sizeof *count &&
	    (fd2 == -1 || read(fd2, second, sizeof *second) ==
	    sizeof *second))
		rc = 0;
	shared_quiet = rc == 0 && *second < *count;
	if (fd2 != -1)
		close(fd2);
	close(fd);
	return rc;
}

int
perf_shared_quiet(void)
{
	return shared_quiet;
}

int
perf_bp_free(pid_t tid)
{
	int fd[WP_HWBP_SLOTS], n, i, err = 0;

	/* its address is ours: the events are never enabled */
	for (n = 0; n < WP_HWBP_SLOTS; n++)
		if ((fd[n] = canary_open(tid, 1)) == -1) {
			err = errno;
			break;
		}
	for (i = 0; i < n; i++)
		close(fd[i]);
	if (n < WP_HWBP_SLOTS && err != ENOSPC) {
		errno = err;
		return -1;
	}
	return n;
}

int
perf_ring_map(struct perf_ring *r, int fd, int cpu, size_t pages)
{
	long pg = sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof *r);
	r->base = mmap(NULL, (pages + 1) * (size_t)pg, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -1;
	}
	r->fd = fd;
	r->cpu = cpu;
	r->pages = pages;
	r->size = pages * (size_t)pg;
	r->tmp = wp_xmalloc(65536);
	return 0;
}

void
perf_ring_unmap(struct perf_ring *r)
{
	if (r->base != NULL)
		munmap(r->base, r->size + (size_t)sysconf(_SC_PAGESIZE));
	free(r->tmp);
	r->base = NULL;
	r->tmp = NULL;
}

int
perf_set_output(int fd, int ringfd)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ringfd);
}

int
perf_id(int fd, uint64_t *id)
{
	return ioctl(fd, PERF_EVENT_IOC_ID, id);
}

int
perf_paranoid(void)
{
	long v;

	return wp_proc_sysctl("kernel/perf_event_paranoid", &v) == 0 ?
	    (int)v : -99;
}

/* The sample_id trailer of non-sample records, for SAMPLE_TYPE. */
static void
sample_id(const unsigned char *end, struct perf_rec *r)
{
	const uint64_t *p = (const uint64_t *)end - 4;

	r->pid = (uint32_t)p[0];
	r->tid = (uint32_t)(p[0] >> 32);
	r->time = p[1];
	r->cpu = (uint32_t)p[2];
	r->id = p[3];
}

/*
 * A sample's fields after the fixed ones, in the kernel's order: call
 * chain, registers, stack.  0, or -1 when the record is too short.
 */
static int
parse_sample(const uint64_t *p, size_t n, const struct perf_layout *lay,
    struct perf_rec *r)
{
	size_t k = 0, sz;

	if (lay->chain) {
		if (k >= n || p[k] > n - k - 1)
			return -1;
		r->nchain = (size_t)p[k];
		r->chain = p + k + 1;
		k += 1 + r->nchain;
	}
	if (lay->regs || lay->stack) {
		if (k >= n)
			return -1;
		if (p[k++] != PERF_SAMPLE_REGS_ABI_NONE) {
			if (n - k < WP_NGPREGS)
				return -1;
			memcpy(r->regs, p + k, sizeof r->regs);
			r->nregs = WP_NGPREGS;
			k += WP_NGPREGS;
		}
	}
	if (lay->stack) {
		if (k >= n)
			return -1;
		sz = (size_t)p[k++];
		if (sz > 0) {
			/* the bytes asked for, then how many were copied */
			if (sz % 8 != 0 || sz / 8 >= n - k ||
			    p[k + sz / 8] > sz)
				return -1;
			r->stack = (const unsigned char *)(p + k);
			r->nstack = (size_t)p[k + sz / 8];
		}
	}
	return 0;
}

static void
parse(const unsigned char *b, size_t len, const struct perf_layout *lay,
    struct perf_rec *r)
{
	const struct perf_event_header *h = (const void *)b;
	const uint64_t *p = (const uint64_t *)(b + sizeof *h);
	const uint32_t *u;
	size_t need;

	/* all but the registers, which nregs says are there */
	memset(r, 0, offsetof(struct perf_rec, regs));
	r->kind = RING_BAD;
	r->type = h->type;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		need = sizeof *h + 5 * 8;
		if (len < need)
			return;
		r->id = p[0];
		r->ip = p[1];
		r->pid = (uint32_t)p[2];
		r->tid = (uint32_t)(p[2] >> 32);
		r->time = p[3];
		r->cpu = (uint32_t)p[4];
		if (parse_sample(p + 5, (len - need) / 8, lay, r) == -1)
			return;
		r->kind = RING_SAMPLE;
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (len < sizeof *h + 24 + 32)
			return;
		u = (const uint32_t *)p;
		r->pid = u[0];
		r->ppid = u[1];
		r->tid = u[2];
		r->ptid = u[3];
		r->time = p[2];
		r->kind = h->type == PERF_RECORD_FORK ? RING_FORK :
		    RING_EXIT;
		return;
	case PERF_RECORD_LOST:
		if (len < sizeof *h + 16 + 32)
			return;
		r->id = p[0];
		r->lost = p[1];
		sample_id(b + len, r);
		r->kind = RING_LOST;
		return;
	case PERF_RECORD_COMM:
		if (len < sizeof *h + 8 + 32)
			return;
		u = (const uint32_t *)p;
		sample_id(b + len, r);
		r->pid = u[0];
		r->tid = u[1];
		r->kind = (h->misc & PERF_RECORD_MISC_COMM_EXEC) ?
		    RING_EXEC : RING_OTHER;
		return;
	default:
		r->kind = RING_OTHER;
		return;
	}
}

void
perf_sample_hit(const struct perf_rec *r, struct wp_hit_rec *h,
    struct wp_x86_regs *regs)
{
	memset(h, 0, sizeof *h);
	h->pid = (pid_t)r->pid;
	h->tid = (pid_t)r->tid;
	h->cpu = (int)r->cpu;
	h->ip = r->ip;
	if (r->nregs > 0) {
		memcpy(regs->v, r->regs, (size_t)r->nregs * sizeof r->regs[0]);
		regs->have = (1u << r->nregs) - 1;
		h->regs = regs;
	}
}

/* Record b (of len bytes) parsed, on perf's clock made CLOCK_MONOTONIC. */
static int
deliver(const unsigned char *b, size_t len, const struct perf_layout *lay,
    int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_rec rec;

	parse(b, len, lay, &rec);
	rec.time = (uint64_t)((int64_t)rec.time + clk.off);
	return fn(&rec, arg);
}

/* n bytes of ring r's data at stream position pos, across its end. */
static void
ring_get(const struct perf_ring *r, uint64_t pos, void *dst, size_t n)
{
	const unsigned char *data = (const unsigned char *)r->base +
	    sysconf(_SC_PAGESIZE);
	size_t off = (size_t)(pos % r->size), first = r->size - off;

	if (first >= n)
		memcpy(dst, data + off, n);
	else {
		memcpy(dst, data + off, first);
		memcpy((unsigned char *)dst + first, data, n - first);
	}
}

/*
 * Whether the record at stream position pos was taken (and forgets it):
 * the kernel faults a write to a ring's data pages, so what was taken
 * is kept here, not marked there.
 */
static int
ring_taken(struct perf_ring *r, uint64_t pos)
{
	size_t i;

	for (i = 0; i < r->ntaken; i++)
		if (r->taken[i] == pos) {
			r->taken[i] = r->taken[--r->ntaken];
			return 1;
		}
	return 0;
}

int
perf_drain(struct perf_ring *r, const struct perf_layout *lay,
    int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_event_mmap_page *mp = r->base;
	unsigned char *data = (unsigned char *)r->base +
	    sysconf(_SC_PAGESIZE);
	uint64_t head, tail;
	struct perf_event_header h;
	size_t off;
	int n = 0, stop = 0;

	clock_tick();
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head && !stop) {
		const unsigned char *b;

		ring_get(r, tail, &h, sizeof h);
		if (h.size < sizeof h || h.size > head - tail)
			break;
		off = (size_t)(tail % r->size);
		if (r->size - off >= h.size)
			b = data + off;
		else {
			ring_get(r, tail, r->tmp, h.size);
			b = r->tmp;
		}
		if (!(r->ntaken > 0 && ring_taken(r, tail)) &&
		    deliver(b, h.size, lay, fn, arg) == -1)
			stop = 1;
		tail += h.size;
		n++;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return stop ? -1 : n;
}

/* How a fork record is parsed: samples are not. */
static const struct perf_layout no_samples;

/*
 * Whether the record b of size bytes (a copy) is the fork of thread
 * tid of process pid.
 */
static int
is_fork(const unsigned char *b, size_t size, pid_t pid, pid_t tid)
{
	struct perf_rec rec;

	parse(b, size, &no_samples, &rec);
	return rec.kind == RING_FORK && (pid_t)rec.pid == pid &&
	    (pid_t)rec.tid == tid;
}

int
perf_ring_pick_fork(struct perf_ring *r, pid_t pid, pid_t tid,
    int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t head, pos, b[16];
	struct perf_event_header h;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	for (pos = mp->data_tail; pos < head; pos += h.size) {
		ring_get(r, pos, &h, sizeof h);
		if (h.size < sizeof h || h.size > head - pos)
			break;
		if (h.type != PERF_RECORD_FORK || h.size > sizeof b)
			continue;
		ring_get(r, pos, b, h.size);
		if (!is_fork((unsigned char *)b, h.size, pid, tid))
			continue;
		if (r->ntaken == PERF_RING_TAKEN_MAX)
			return 0;
		r->taken[r->ntaken++] = pos;
		return deliver((unsigned char *)b, h.size, &no_samples, fn,
		    arg) == -1 ? -1 : 1;
	}
	return 0;
}

int
perf_pick_fork(unsigned char *b, size_t len, size_t off, pid_t pid,
    pid_t tid, int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_event_header h;
	const uint32_t taken = PERF_RECORD_TAKEN;
	int rc;

	for (; len - off >= sizeof h; off += h.size) {
		memcpy(&h, b + off, sizeof h);
		if (h.size < sizeof h || h.size > len - off)
			break;
		if (h.type != PERF_RECORD_FORK ||
		    !is_fork(b + off, h.size, pid, tid))
			continue;
		rc = deliver(b + off, h.size, &no_samples, fn, arg);
		memcpy(b + off, &taken, sizeof taken);
		return rc == -1 ? -1 : 1;
	}
	return 0;
}

size_t
perf_ring_pending(const struct perf_ring *r)
{
	const struct perf_event_mmap_page *mp = r->base;

	return (size_t)(__atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE) -
	    mp->data_tail);
}

size_t
perf_ring_take(struct perf_ring *r, unsigned char *dst, size_t n)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t tail = mp->data_tail;

	if (n > perf_ring_pending(r))
		n = perf_ring_pending(r);
	ring_get(r, tail, dst, n);
	__atomic_store_n(&mp->data_tail, tail + n, __ATOMIC_RELEASE);
	return n;
}

int
perf_walk(const unsigned char *b, size_t len, size_t *off,
    const struct perf_layout *lay,
    int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_event_header h;
	int n = 0;

	clock_tick();
	while (len - *off >= sizeof h) {
		memcpy(&h, b + *off, sizeof h);
		if (h.size < sizeof h || h.size > len - *off) {
			*off = len;
			break;
		}
		*off += h.size;
		n++;
		if (deliver(b + *off - h.size, h.size, lay, fn, arg) == -1)
			return -1;
	}
	return n;
}
