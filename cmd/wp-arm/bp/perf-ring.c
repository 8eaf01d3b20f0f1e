/*
 * The perf rings of wp-arm (perf.h): mapping them, reading their
 * records (drained in place, or copied and walked), parsing each, and
 * a thread's fork handed ahead of its samples.
 */
#include <sys/mman.h>

#include <linux/perf_event.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"
#include "util.h"

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
			if (n - k < WP_SAMPLE_NREGS)
				return -1;
			memcpy(r->regs, p + k, sizeof r->regs);
			r->nregs = WP_SAMPLE_NREGS;
			k += WP_SAMPLE_NREGS;
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
	/* the records' table is x86-64's so far (sample-regs.h) */
	if (WP_SAMPLE_IN_RECORDS && r->nregs > 0) {
		memcpy(regs->v, r->regs, (size_t)r->nregs * sizeof r->regs[0]);
		regs->have = (1u << r->nregs) - 1;
		h->regs = regs;
	}
}

/*
 * Record b (of len bytes) parsed, its time made CLOCK_MONOTONIC by off
 * (perf_clock_off's).
 */
static int
deliver(const unsigned char *b, size_t len, const struct perf_layout *lay,
    int64_t off, int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_rec rec;

	parse(b, len, lay, &rec);
	rec.time = (uint64_t)((int64_t)rec.time + off);
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
	int64_t clk = perf_clock_off();
	size_t off;
	int n = 0, stop = 0;

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
		if (!ring_taken(r, tail) &&
		    deliver(b, h.size, lay, clk, fn, arg) == -1)
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
		return deliver((unsigned char *)b, h.size, &no_samples,
		    perf_clock_off(), fn, arg) == -1 ? -1 : 1;
	}
	return 0;
}

int
perf_rec_at(const unsigned char *b, size_t len, size_t off,
    struct perf_event_header *h)
{
	if (off > len || len - off < sizeof *h)
		return 0;
	memcpy(h, b + off, sizeof *h);
	return h->size >= sizeof *h && h->size <= len - off;
}

int
perf_pick_fork(unsigned char *b, size_t len, size_t off, pid_t pid,
    pid_t tid, int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct perf_event_header h;
	const uint32_t taken = PERF_RECORD_TAKEN;
	int rc;

	for (; perf_rec_at(b, len, off, &h); off += h.size) {
		if (h.type != PERF_RECORD_FORK ||
		    !is_fork(b + off, h.size, pid, tid))
			continue;
		rc = deliver(b + off, h.size, &no_samples, perf_clock_off(), fn,
		    arg);
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
	int64_t clk = perf_clock_off();
	int n = 0;

	while (*off < len) {
		if (!perf_rec_at(b, len, *off, &h)) {
			*off = len;
			break;
		}
		*off += h.size;
		n++;
		if (deliver(b + *off - h.size, h.size, lay, clk, fn, arg) == -1)
			return -1;
	}
	return n;
}
