/* perf_event_open(2) for wp-arm: breakpoints, task events, their clock. */
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
#include "hwbp.h"
#include "perf.h"
#include "proc.h"
#include "util.h"

/* the registers of sample-regs.h, which perf then writes in that order */
#define PERF_BIT(N, name, field, perf, dwarf)	| 1ULL << WP_SAMPLE_PERF(perf)
#define REGS_MASK	(0 WP_SAMPLE_REGS(PERF_BIT))

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
	/* HW_BREAKPOINT_LEN_n is n, for each length the machine takes */
	return wp_hwbp_len_ok((size_t)len) ? len : HW_BREAKPOINT_LEN_8;
}

/*
 * The rings' clock.  Records carry CLOCK_MONOTONIC times, but an event
 * that reads it itself (use_clockid) reads the clocksource at every
 * sample: in a guest whose clocksource is an emulated HPET, that is
 * much of a hit's cost, where perf's own clock (the kernel's
 * local_clock) is an instruction.  So the events keep perf's clock and
 * the rings' reader adds the offset between the two, measured from a comm
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

int64_t
perf_clock_off(void)
{
	if (clk.state == 1 && wp_now_ns() - clk.at > 1000000000u)
		(void)clock_measure();
	return clk.state == 1 ? clk.off : 0;
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
	a->bp_type = bp->exec ? HW_BREAKPOINT_X : bp->rw ? HW_BREAKPOINT_RW :
	    HW_BREAKPOINT_W;
	a->bp_addr = bp->addr;
	/* an execute breakpoint's length is the kernel's: a long */
	a->bp_len = bp->exec ? sizeof(long) : (unsigned)bp_len(bp->len);
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
