/*
 * drain: wp-arm's perf drain and hit formatter at full speed, in memory.
 *
 * A ring as the kernel fills it for `wp-arm --backend perf --regs` (the
 * sample layout perf.c parses: identifier, ip, pid and tid, time, cpu,
 * then the user registers' ABI and 18 registers) is drained by
 * perf_drain, each sample made a hit record by perf_sample_hit and
 * wp_rec_hit and written to the output as wp-arm writes it, a drain at
 * a time; side by side, a plain memcpy of the same bytes.  Only the
 * drains are timed, by the CPU time they take (the machine may be
 * shared), not the filling of the ring.  Prints hits/s and the ratio;
 * the target is at least 2 M hits/s.
 *
 * usage: drain [hits [output]]   (make bench; output: default /dev/null)
 */
#include <sys/mman.h>

#include <linux/perf_event.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"
#include "record.h"
#include "stream.h"
#include "util.h"

#define PAGES	64		/* wp-arm's default ring */
#define NSITES	10
#define NTHR	4

struct ctx {
	struct wp_jw	 jw;
	uint64_t	 t0;
	uint64_t	 hits, other;
};

/* The CPU time of the bench: the machine may be shared. */
static uint64_t
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* backend-perf.c's perf_sample and watch_hit, less their bookkeeping */
static int
hit(const struct perf_rec *r, void *arg)
{
	struct ctx *c = arg;
	struct wp_x86_regs regs;
	struct wp_hit_rec h;

	if (r->kind != RING_SAMPLE) {
		c->other++;
		return 0;
	}
	perf_sample_hit(r, &h, &regs);
	h.target = 0;
	h.time_ns = (int64_t)(r->time - c->t0);
	wp_rec_hit(&c->jw, &h);
	c->hits++;
	return wp_stream_write_jw(&c->jw);
}

/* Sample i, as the kernel writes it: its size in bytes. */
static size_t
sample(uint64_t *p, uint64_t i)
{
	struct perf_event_header *hd = (struct perf_event_header *)p;
	uint64_t t = i % NTHR, *v = p + 1;
	int k;

	hd->type = PERF_RECORD_SAMPLE;
	hd->misc = PERF_RECORD_MISC_USER;
	hd->size = (uint16_t)(8 * (1 + 6 + WP_NGPREGS));
	*v++ = 7;				/* identifier */
	*v++ = 0x555555555186ULL + 16 * (i % NSITES);	/* ip */
	*v++ = (4242 + t) << 32 | 4242;		/* pid, tid */
	*v++ = 1000000000ULL + i * 997;		/* time */
	*v++ = i % 2;				/* cpu, reserved */
	*v++ = PERF_SAMPLE_REGS_ABI_64;
	for (k = 0; k < WP_NGPREGS; k++)	/* as a live process has them */
		*v++ = k == WP_RDI ? i : k == WP_RFLAGS ? 0x246 :
		    k == WP_RIP ? 0x555555555186ULL + 16 * (i % NSITES) :
		    0x7ffff7e10000ULL + (uint64_t)k * 0x1000 + (i & 0xffff);
	return hd->size;
}

/* Writes samples at the ring's head up to a full ring; the bytes. */
static size_t
fill(struct perf_ring *r, uint64_t *next, uint64_t last)
{
	struct perf_event_mmap_page *mp = r->base;
	unsigned char *data = (unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	uint64_t head = mp->data_head, buf[64];
	size_t n, off, first, bytes = 0;

	while (*next < last) {
		n = sample(buf, *next);
		if (head + n - mp->data_tail > r->size)
			break;
		off = (size_t)(head % r->size);
		first = r->size - off < n ? r->size - off : n;
		memcpy(data + off, buf, first);
		memcpy(data, (unsigned char *)buf + first, n - first);
		head += n;
		bytes += n;
		(*next)++;
	}
	__atomic_store_n(&mp->data_head, head, __ATOMIC_RELEASE);
	return bytes;
}

int
main(int argc, char *argv[])
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	uint64_t next = 0, t, drain_ns = 0, copy_ns = 0, bytes = 0, done;
	struct perf_ring ring;
	const struct perf_layout lay = { 1, 0, 0, 0 };
	struct ctx c;
	unsigned char *dst;
	FILE *out;
	size_t k;

	if ((out = fopen(argc > 2 ? argv[2] : "/dev/null", "we")) == NULL)
		err(1, "%s", argc > 2 ? argv[2] : "/dev/null");
	wp_stream_out_init(out);
	memset(&ring, 0, sizeof ring);
	ring.fd = -1;
	ring.pages = PAGES;
	ring.size = PAGES * (size_t)pg;
	ring.base = mmap(NULL, ring.size + (size_t)pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring.base == MAP_FAILED)
		err(1, "mmap");
	ring.tmp = wp_xmalloc(65536);
	dst = wp_xmalloc(ring.size);
	memset(&c, 0, sizeof c);
	c.t0 = 1000000000ULL;

	while (next < n) {
		k = fill(&ring, &next, n);
		bytes += k;
		/* a plain copy of the same bytes, then the drain */
		t = now();
		memcpy(dst, (unsigned char *)ring.base + pg, ring.size);
		__asm__ volatile("" : : "r" (dst) : "memory");
		copy_ns += (now() - t) * k / ring.size;
		t = now();
		wp_stream_hold();
		if (perf_drain(&ring, &lay, hit, &c) == -1)
			errx(1, "the output is closed");
		if (wp_stream_release() == -1)
			errx(1, "the output is closed");
		drain_ns += now() - t;
	}
	done = c.hits;
	if (wp_stream_flush() == -1)
		errx(1, "the output is closed");
	if (done != n || c.other != 0)
		errx(1, "%llu hits of %llu samples, %llu other records",
		    (unsigned long long)done, (unsigned long long)n,
		    (unsigned long long)c.other);
	printf("samples: %llu, %llu bytes each, in a ring of %d pages\n",
	    (unsigned long long)n, (unsigned long long)(bytes / n), PAGES);
	printf("drain and format: %.3f s, %.2f M hits/s (target >= 2 M), "
	    "%.0f ns a hit\n", drain_ns / 1e9, n / (drain_ns / 1e9) / 1e6,
	    (double)drain_ns / n);
	printf("memcpy of the same bytes: %.3f s, %.0f MB/s\n", copy_ns / 1e9,
	    bytes / (copy_ns / 1e9) / 1e6);
	printf("ratio drain/memcpy: %.1fx\n", (double)drain_ns /
	    (copy_ns ? copy_ns : 1));
	printf("last record: %.*s\n", (int)c.jw.len, c.jw.buf);
	wp_jw_free(&c.jw);
	free(ring.tmp);
	free(dst);
	munmap(ring.base, ring.size + (size_t)pg);
	fclose(out);
	return 0;
}
