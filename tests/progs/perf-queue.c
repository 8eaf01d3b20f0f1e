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
 * perf-queue fork-late queue|ring: a new thread's first sample read
 * before its fork, as when a reader took the parent's ring before the
 * fork landed there: the sample in ring 1 is copied (queue) or read
 * (ring, as wp-arm's inline drain) first, the fork in ring 0 after.
 * The reader, as wp-arm's bp-events.c, picks the fork of a thread it
 * has not seen start.  Prints the records in the order handed.
 *
 * perf-queue pace bytes_per_s ms: samples written into one ring at that
 * rate for that long while this thread formats what it is given: within
 * a burst nothing, a slow writer's as they come (pace()).
 *
 * usage: perf-queue samples cap
 *        perf-queue fork-late queue|ring
 *        perf-queue pace bytes_per_s ms
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

/* Each ring as the kernel writes it: its data pages writable. */
static void *kernel_view[NRING];

/* Record bytes into ring r at its head, waiting for room. */
static void
put(struct perf_ring *r, const void *b, size_t n)
{
	struct perf_event_mmap_page *mp = kernel_view[r->cpu];
	unsigned char *data = (unsigned char *)mp + sysconf(_SC_PAGESIZE);
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

#define LATE_PID	4200
#define LATE_TID	4242

struct late {
	struct pqueue	*q;		/* NULL: the rings are read */
	struct perf_ring *rings;
	int		 started;
};

static int
late_record(const struct perf_rec *r, void *arg)
{
	struct late *l = arg;
	int c;

	if (r->kind == RING_FORK) {
		printf("fork %u\n", r->tid);
		l->started = 1;
		return 0;
	}
	if (r->kind != RING_SAMPLE)
		return 0;
	if (!l->started && l->q != NULL)
		printf("picked %d\n", pq_pick_fork(l->q, LATE_PID, LATE_TID,
		    late_record, l));
	for (c = 0; !l->started && l->q == NULL && c < NRING; c++)
		printf("picked %d\n", perf_ring_pick_fork(&l->rings[c],
		    LATE_PID, LATE_TID, late_record, l));
	printf("sample %u\n", r->tid);
	return 0;
}

/*
 * Ring c, mapped twice as a perf ring is: wp-arm's view, where only the
 * first page (head and tail) takes a write, and the kernel's.
 */
static void
ring_init(struct perf_ring *r, int c, int pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = ((size_t)pages + 1) * (size_t)pg;
	int fd;

	memset(r, 0, sizeof *r);
	if ((fd = memfd_create("ring", MFD_CLOEXEC)) == -1 ||
	    ftruncate(fd, (off_t)len) == -1)
		err(1, "memfd");
	kernel_view[c] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	r->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED || kernel_view[c] == MAP_FAILED ||
	    mprotect((char *)r->base + pg, len - (size_t)pg, PROT_READ) == -1)
		err(1, "mmap");
	close(fd);
	/* never readable: the copier copies once a tick */
	r->fd = eventfd(0, EFD_CLOEXEC);
	r->cpu = c;
	r->pages = pages;
	r->size = (size_t)pages * (size_t)pg;
	r->tmp = malloc(r->size);
}

static void
rings_free(struct perf_ring *rings)
{
	int c;

	for (c = 0; c < NRING; c++)
		free(rings[c].tmp);
}

/* The late thread's sample into ring 1, read first; its fork into 0. */
static int
fork_late(const char *how)
{
	const struct perf_layout lay = { 1, 0, 0, 0 };
	struct perf_event_mmap_page *mp;
	struct perf_ring rings[NRING];
	struct late l = { NULL, rings, 0 };
	struct perf_event_header h;
	uint64_t b[8];
	const char *why;
	int c;

	for (c = 0; c < NRING; c++)
		ring_init(&rings[c], c, PAGES);
	if (strcmp(how, "queue") == 0 &&
	    (l.q = pq_start(rings, NRING, 1 << 20, &why)) == NULL) {
		printf("no queue: %s\n", why);
		return 3;
	}
	memset(b, 0, sizeof b);
	memset(&h, 0, sizeof h);
	h.type = PERF_RECORD_SAMPLE;
	h.size = 8 * 6;
	memcpy(b, &h, sizeof h);
	b[3] = (uint64_t)LATE_TID << 32 | LATE_PID;
	b[5] = 1;
	put(&rings[1], b, 8 * 6);
	/* the queue: the sample copied before the fork is there */
	mp = rings[1].base;
	while (l.q != NULL && __atomic_load_n(&mp->data_tail,
	    __ATOMIC_ACQUIRE) != mp->data_head)
		usleep(1000);
	memset(b, 0, sizeof b);
	h.type = PERF_RECORD_FORK;
	h.size = 8 * 8;
	memcpy(b, &h, sizeof h);
	b[1] = (uint64_t)LATE_PID << 32 | LATE_PID;	/* pid, ppid */
	b[2] = (uint64_t)LATE_PID << 32 | LATE_TID;	/* tid, ptid */
	put(&rings[0], b, 8 * 8);
	if (l.q == NULL) {
		/* as wp-arm's inline drain: ring 1 first, then ring 0 */
		perf_drain(&rings[1], &lay, late_record, &l);
		perf_drain(&rings[0], &lay, late_record, &l);
		rings_free(rings);
		return 0;
	}
	mp = rings[0].base;
	while (__atomic_load_n(&mp->data_tail, __ATOMIC_ACQUIRE) !=
	    mp->data_head)
		usleep(1000);
	pq_stop(l.q);
	pq_format(l.q, &lay, late_record, &l, 1);
	pq_free(l.q, NULL);
	rings_free(rings);
	return 0;
}

struct pace {
	struct perf_ring *r;
	uint64_t	 bps;		/* bytes a second */
	uint64_t	 ns;		/* for how long */
	uint64_t	 written, gap;	/* the longest between two writes */
	int		 done;
};

#define PACE_STEP_NS	1000000ULL
#define PACE_WORDS	6		/* a sample's words: header to cpu */

/* Samples into ring 0, PACE_STEP_NS apart, at p->bps, for p->ns. */
static void *
pacer(void *arg)
{
	struct pace *p = arg;
	uint64_t b[PACE_WORDS], t0 = wp_now_ns(), last = t0, now, owed;
	struct perf_event_header *h = (struct perf_event_header *)b;

	while ((now = wp_now_ns()) - t0 < p->ns) {
		if (now - last > p->gap)
			p->gap = now - last;
		last = now;
		owed = (now - t0) * p->bps / 1000000000ULL;
		for (; p->written + sizeof b <= owed; p->written += sizeof b) {
			memset(b, 0, sizeof b);
			h->type = PERF_RECORD_SAMPLE;
			h->size = sizeof b;
			b[1] = 7;
			b[2] = p->written / sizeof b;
			put(p->r, b, sizeof b);
		}
		usleep(PACE_STEP_NS / 1000);
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * perf-queue pace BYTES_PER_S MS: samples written at that rate for that
 * long, formatted (as wp-arm's watch does, once every 10 ms) while they
 * come and after; prints how many were formatted while they came, when
 * the first was (ms after the start), the writer's longest gap between
 * two writes (ms: the host's pauses), and the totals.
 */
static int
pace(const char *bps, const char *ms)
{
	const struct perf_layout lay = { 1, 0, 0, 0 };
	struct perf_ring rings[NRING];
	struct pace p;
	struct seen s;
	struct pqueue *q;
	pthread_t t;
	const char *why;
	uint64_t t0, first = 0, during = 0, quiet;
	int c;

	memset(&p, 0, sizeof p);
	memset(&s, 0, sizeof s);
	for (c = 0; c < NRING; c++)
		ring_init(&rings[c], c, 1024);
	if ((q = pq_start(rings, NRING, 1 << 30, &why)) == NULL) {
		printf("no queue: %s\n", why);
		return 3;
	}
	p.r = &rings[0];
	p.bps = strtoull(bps, NULL, 10);
	p.ns = strtoull(ms, NULL, 10) * 1000000ULL;
	t0 = wp_now_ns();
	pthread_create(&t, NULL, pacer, &p);
	while (!__atomic_load_n(&p.done, __ATOMIC_ACQUIRE)) {
		if (pq_format(q, &lay, seen, &s, 0) == -1)
			errx(1, "pq_format: -1");
		if (first == 0 && s.samples > 0)
			first = wp_now_ns() - t0;
		during = s.samples;
		usleep(10000);
	}
	pthread_join(t, NULL);
	/* the pause after: formatted without the end's push, in time */
	for (quiet = wp_now_ns(); s.samples < p.written / (8 * PACE_WORDS) &&
	    wp_now_ns() - quiet < 5000000000ULL; usleep(10000))
		if (pq_format(q, &lay, seen, &s, 0) == -1)
			errx(1, "pq_format: -1");
	if (first == 0 && s.samples > 0)
		first = wp_now_ns() - t0;
	printf("written %llu\nduring %llu\nafter_pause %llu\n",
	    (unsigned long long)(p.written / (8 * PACE_WORDS)),
	    (unsigned long long)during,
	    (unsigned long long)s.samples);
	printf("first_ms %llu\ngap_ms %llu\nout_of_order %llu\n",
	    (unsigned long long)(first / 1000000),
	    (unsigned long long)(p.gap / 1000000),
	    (unsigned long long)s.out_of_order);
	pq_stop(q);
	pq_format(q, &lay, seen, &s, 1);
	pq_free(q, NULL);
	rings_free(rings);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct perf_ring rings[NRING];
	struct fill f[NRING];
	pthread_t t[NRING];
	const struct perf_layout lay = { 1, 0, 0, 0 };
	struct wp_obs_perf o;
	struct seen s;
	struct pqueue *q;
	const char *why = NULL;
	uint64_t n, t0;
	int c, rc, other_after = 1, done = 0;

	if (argc == 3 && strcmp(argv[1], "fork-late") == 0)
		return fork_late(argv[2]);
	if (argc == 4 && strcmp(argv[1], "pace") == 0)
		return pace(argv[2], argv[3]);
	if (argc != 3)
		errx(64, "usage: perf-queue samples cap\n"
		    "       perf-queue fork-late queue|ring\n"
		    "       perf-queue pace bytes_per_s ms");
	n = strtoull(argv[1], NULL, 10);
	memset(&s, 0, sizeof s);
	for (c = 0; c < NRING; c++)
		ring_init(&rings[c], c, PAGES);
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
	/* the rings quiet: the formatter is told, as in a watch going on */
	for (t0 = wp_now_ns(); s.samples + s.forks < NRING * (n + 1) &&
	    wp_now_ns() - t0 < 5000000000ULL; usleep(10000))
		if (pq_format(q, &lay, seen, &s, 0) == -1)
			errx(1, "pq_format: -1");
	/* the end: the rest copied and formatted */
	pq_stop(q);
	pq_format(q, &lay, seen, &s, 1);
	pq_free(q, &o);
	rings_free(rings);
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
