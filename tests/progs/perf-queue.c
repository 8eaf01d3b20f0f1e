/*
 * perf-queue: wp-arm's queue of perf ring bytes (cmd/wp-arm/perf-queue.c)
 * on rings in memory, as tests/21-perf-queue.bats runs it.  A thread
 * writes N samples into each of two small rings (wrapping them many
 * times), a fork record after its middle one, while the copying thread
 * copies them and this thread formats them, as wp-arm's main thread
 * does; then the rest, as a watch ends.  Prints what a test asserts:
 * the records handed, per ring in order or not, the policies the
 * formatter ran at, and the queue's figures.
 *
 * usage: perf-queue samples cap
 */
#include <sys/eventfd.h>
#include <sys/mman.h>

#include <linux/perf_event.h>

#include <err.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-queue.h"
#include "perf.h"
#include "util.h"

#define NRING	2
#define PAGES	4

struct fill {
	struct perf_ring *r;
	uint64_t	 n;
	int		 done;
};

struct seen {
	uint64_t	 next[NRING];	/* the sample each ring owes next */
	uint64_t	 samples, forks, out_of_order, at_idle, at_other;
};

/* Record bytes into ring r at its head, waiting for room. */
static void
put(struct perf_ring *r, const void *b, size_t n)
{
	struct perf_event_mmap_page *mp = r->base;
	unsigned char *data = (unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	uint64_t head = mp->data_head;
	size_t off = (size_t)(head % r->size), first;

	while (head + n - __atomic_load_n(&mp->data_tail, __ATOMIC_ACQUIRE) >
	    r->size)
		usleep(1000);
	first = r->size - off < n ? r->size - off : n;
	memcpy(data + off, b, first);
	memcpy(data, (const unsigned char *)b + first, n - first);
	__atomic_store_n(&mp->data_head, head + n, __ATOMIC_RELEASE);
}

static void *
filler(void *arg)
{
	struct fill *f = arg;
	struct perf_event_header *h;
	uint64_t b[12], i;

	for (i = 0; i < f->n; i++) {
		memset(b, 0, sizeof b);
		h = (struct perf_event_header *)b;
		h->type = PERF_RECORD_SAMPLE;
		h->size = 8 * 6;
		b[1] = 7;			/* identifier */
		b[2] = i;			/* ip: the sample's number */
		b[5] = (uint64_t)f->r->cpu;	/* cpu */
		put(f->r, b, h->size);
		if (i != f->n / 2)
			continue;
		memset(b, 0, sizeof b);
		h->type = PERF_RECORD_FORK;
		h->size = 8 * (1 + 3 + 4);
		put(f->r, b, h->size);
	}
	__atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int
seen(const struct perf_rec *r, void *arg)
{
	struct seen *s = arg;
	int p = sched_getscheduler(0);

	s->at_idle += p == SCHED_IDLE;
	s->at_other += p == SCHED_OTHER;
	if (r->kind == RING_FORK) {
		s->forks++;
		return 0;
	}
	if (r->kind != RING_SAMPLE || r->cpu >= NRING ||
	    r->ip != s->next[r->cpu])
		s->out_of_order++;
	else
		s->next[r->cpu]++;
	s->samples++;
	return 0;
}

int
main(int argc, char *argv[])
{
	long pg = sysconf(_SC_PAGESIZE);
	struct perf_ring rings[NRING];
	struct fill f[NRING];
	pthread_t t[NRING];
	const struct perf_layout lay = { 1, 0, 0, 0 };
	struct wp_obs_perf o;
	struct seen s;
	struct pqueue *q;
	const char *why = NULL;
	uint64_t n;
	int c, rc, other_after = 1, done = 0;

	if (argc != 3)
		errx(64, "usage: perf-queue samples cap");
	n = strtoull(argv[1], NULL, 10);
	memset(&s, 0, sizeof s);
	for (c = 0; c < NRING; c++) {
		memset(&rings[c], 0, sizeof rings[c]);
		rings[c].base = mmap(NULL, (PAGES + 1) * (size_t)pg,
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (rings[c].base == MAP_FAILED)
			err(1, "mmap");
		/* never readable: the copier copies once a tick */
		rings[c].fd = eventfd(0, EFD_CLOEXEC);
		rings[c].cpu = c;
		rings[c].pages = PAGES;
		rings[c].size = PAGES * (size_t)pg;
	}
	if ((q = pq_start(rings, NRING, strtoull(argv[2], NULL, 10), &why)) ==
	    NULL) {
		printf("no queue: %s\n", why);
		return 3;
	}
	for (c = 0; c < NRING; c++) {
		f[c].r = &rings[c];
		f[c].n = n;
		f[c].done = 0;
		pthread_create(&t[c], NULL, filler, &f[c]);
	}
	/* the watch: formats what comes while the rings are written */
	while (done < NRING) {
		if ((rc = pq_format(q, &lay, seen, &s, 0)) == -1)
			errx(1, "pq_format: -1");
		other_after &= sched_getscheduler(0) == SCHED_OTHER;
		if (rc == 0)
			usleep(10000);
		for (c = done = 0; c < NRING; c++)
			done += __atomic_load_n(&f[c].done, __ATOMIC_ACQUIRE);
	}
	for (c = 0; c < NRING; c++)
		pthread_join(t[c], NULL);
	/* the end: the rest copied and formatted */
	pq_stop(q);
	pq_format(q, &lay, seen, &s, 1);
	pq_free(q, &o);
	printf("samples %llu\nforks %llu\nout_of_order %llu\n",
	    (unsigned long long)s.samples, (unsigned long long)s.forks,
	    (unsigned long long)s.out_of_order);
	printf("formatted_at_idle %s\nnormal_after_each %s\n",
	    s.at_idle > 0 ? "yes" : "no", other_after ? "yes" : "no");
	printf("formatter %s\ncap %llu\ncap_reached %s\n", o.formatter,
	    (unsigned long long)o.queue_cap_bytes,
	    o.cap_reached > 0 ? "yes" : "no");
	printf("peak_records_within %s\n", o.queued_peak_records > 0 &&
	    o.queued_peak_records <= NRING * (n + 1) ? "yes" : "no");
	return 0;
}
