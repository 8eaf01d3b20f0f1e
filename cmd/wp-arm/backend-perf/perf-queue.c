/* The perf backend's queue of ring bytes, and its formatter's policy. */
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-queue.h"
#include "util.h"

#define TICK_NS		50000000ULL	/* the main thread's work, at least */
#define LATENCY_NS	1000000000ULL	/* a record waits for a pause, at most */
#define SLOW_BPS	65536		/* bytes a second: no burst, no wait */

/* The bytes one copy took from a ring: whole records. */
struct pq_chunk {
	struct pq_chunk	*next;
	size_t		 len, off;	/* off: formatted up to */
	size_t		 records;
	uint64_t	 at;		/* when copied */
	unsigned char	 b[];
};

struct pqueue {
	pthread_mutex_t	 mu;
	pthread_t	 thr;
	int		 running;
	int		 stopfd, wakefd;
	pid_t		 main_tid;
	struct perf_ring *rings;
	int		 nring;
	int		*mapped;	/* at the start: the copier's rings (one
					   mapped later, pq_sync copies) */
	/*
	 * One producer at a time (mu: the copying thread, pq_sync), one
	 * consumer (the main thread, which takes no lock: at SCHED_IDLE it
	 * would hold the copier up): head is a chunk already formatted,
	 * the queue what follows it.
	 */
	struct pq_chunk	*head, *tail;
	size_t		 cap;
	int		 capped;	/* over cap, not yet below half */
	int		 idle;		/* the main thread at SCHED_IDLE */
	/* the copier's */
	uint64_t	 next_tick;
	uint64_t	 copied_at;	/* its latest copy */
	uint64_t	 waiting_since;	/* bytes queued, the formatter not told */
	/* shared: __atomic */
	size_t		 bytes, records, nonsample, prompt;
	uint64_t	 bytes_in, records_in;	/* ever queued */
	uint64_t	 records_done;	/* of chunks formatted (main's) */
	int		 nomem, urgent;
	int		 go;		/* the formatter told: format */
	struct wp_obs_perf st;
};

static int
set_policy(pid_t tid, int policy)
{
	struct sched_param sp;

	memset(&sp, 0, sizeof sp);
	return sched_setscheduler(tid, policy, &sp);
}

/* Records of threads, losses and exec: not samples, nor throttling. */
static int
not_sample(uint32_t type)
{
	return type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
	    type == PERF_RECORD_LOST || type == PERF_RECORD_COMM;
}

/*
 * Records said at once when read: losses and exec.  A thread's start
 * and exit wait with its hits, in order.
 */
static int
prompt(uint32_t type)
{
	return type == PERF_RECORD_LOST || type == PERF_RECORD_COMM;
}

/* Records in b[0..len), how many are not samples, how many prompt. */
static void
count(const unsigned char *b, size_t len, size_t *n, size_t *other,
    size_t *now)
{
	struct perf_event_header h;
	size_t off = 0;

	*n = *other = *now = 0;
	for (; perf_rec_at(b, len, off, &h); off += h.size) {
		(*n)++;
		*other += not_sample(h.type);
		*now += prompt(h.type);
	}
}

/* Appends ring r's unread bytes; -1 when the queue cannot grow. */
static int
copy_ring(struct pqueue *q, struct perf_ring *r)
{
	struct pq_chunk *c;
	size_t n = perf_ring_pending(r), other, now;

	if (n == 0)
		return 0;
	if ((c = malloc(sizeof *c + n)) == NULL)
		return -1;
	c->len = perf_ring_take(r, c->b, n);
	c->off = 0;
	c->next = NULL;
	c->at = wp_now_ns();
	count(c->b, c->len, &c->records, &other, &now);
	__atomic_store_n(&q->tail->next, c, __ATOMIC_RELEASE);
	q->tail = c;
	n = __atomic_add_fetch(&q->bytes, c->len, __ATOMIC_SEQ_CST);
	if (n > q->st.queued_peak_bytes)
		q->st.queued_peak_bytes = n;
	n = __atomic_add_fetch(&q->records, c->records, __ATOMIC_SEQ_CST);
	if (n > q->st.queued_peak_records)
		q->st.queued_peak_records = n;
	__atomic_add_fetch(&q->nonsample, other, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&q->prompt, now, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&q->bytes_in, c->len, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&q->records_in, c->records, __ATOMIC_SEQ_CST);
	return 1;
}

/*
 * Copies the rings mapped at the start, or (main: the rings' owner)
 * every ring mapped: 1 when bytes came, 0 when none, -1 out of memory.
 */
static int
copy_all(struct pqueue *q, int main)
{
	int c, rc, got = 0;

	pthread_mutex_lock(&q->mu);
	for (c = 0; c < q->nring && !q->nomem; c++)
		if (main ? q->rings[c].base != NULL : q->mapped[c]) {
			if ((rc = copy_ring(q, &q->rings[c])) == -1)
				__atomic_store_n(&q->nomem, 1,
				    __ATOMIC_SEQ_CST);
			else
				got |= rc;
		}
	pthread_mutex_unlock(&q->mu);
	return q->nomem ? -1 : got;
}

/* Calls the main thread back, at its normal policy. */
static void
call_back(struct pqueue *q)
{
	__atomic_store_n(&q->urgent, 1, __ATOMIC_SEQ_CST);
	(void)set_policy(q->main_tid, SCHED_OTHER);
}

/*
 * Whether the formatter goes on now, got bytes queued since the copier
 * last asked: where the rings went quiet, where the target writes
 * slowly, where a record waited LATENCY_NS, or at once (a record said
 * at once, the queue over its cap).  Within a burst the records wait,
 * and the formatter's work comes after it.
 */
static int
ready(struct pqueue *q, size_t got, uint64_t now)
{
	uint64_t span = now - q->copied_at;
	size_t bytes = __atomic_load_n(&q->bytes, __ATOMIC_SEQ_CST);

	q->copied_at = now;
	if (bytes == 0) {
		q->waiting_since = 0;
		return 0;
	}
	if (q->waiting_since == 0)
		q->waiting_since = now;
	if (got > 0 && (uint64_t)got * 1000000000ULL >= SLOW_BPS * span &&
	    now - q->waiting_since < LATENCY_NS &&
	    __atomic_load_n(&q->prompt, __ATOMIC_SEQ_CST) == 0 &&
	    bytes <= q->cap)
		return 0;
	q->waiting_since = 0;
	return 1;
}

static void *
copier(void *arg)
{
	struct pqueue *q = arg;
	struct pollfd *pfd = wp_xcalloc((size_t)q->nring + 1, sizeof *pfd);
	uint64_t now, in, seen = 0;
	nfds_t np = 0;
	int c, rc;

	pfd[np].fd = q->stopfd;
	pfd[np++].events = POLLIN;
	for (c = 0; c < q->nring; c++)
		if (q->mapped[c]) {
			pfd[np].fd = q->rings[c].fd;
			pfd[np++].events = POLLIN;
		}
	q->copied_at = wp_now_ns();
	while (poll(pfd, np, (int)(TICK_NS / 1000000)) != -1 ||
	    errno == EINTR) {
		if (pfd[0].revents & POLLIN)
			break;
		rc = copy_all(q, 0);
		now = wp_now_ns();
		/* what came since the last look, this thread's or pq_sync's */
		in = __atomic_load_n(&q->bytes_in, __ATOMIC_SEQ_CST);
		if (rc != -1 && ready(q, in - seen, now)) {
			__atomic_store_n(&q->go, 1, __ATOMIC_SEQ_CST);
			(void)eventfd_write(q->wakefd, 1);
		}
		seen = in;
		if (rc == -1 || __atomic_load_n(&q->prompt,
		    __ATOMIC_SEQ_CST) > 0 || __atomic_load_n(&q->bytes,
		    __ATOMIC_SEQ_CST) > q->cap) {
			call_back(q);
			q->next_tick = now + TICK_NS;
		} else if (now >= q->next_tick) {
			if (__atomic_load_n(&q->go, __ATOMIC_SEQ_CST))
				call_back(q);
			q->next_tick = now + TICK_NS;
		}
		if (rc == -1) {
			(void)eventfd_write(q->wakefd, 1);
			break;
		}
	}
	free(pfd);
	return NULL;
}

/*
 * Whether this thread may come back from SCHED_IDLE: asked by a thread
 * that ends at once, whatever it is left at.
 */
static void *
probe(void *arg)
{
	int *ok = arg;

	*ok = set_policy(0, SCHED_IDLE) == 0 && set_policy(0, SCHED_OTHER) == 0;
	return NULL;
}

struct pqueue *
pq_start(struct perf_ring *rings, int n, size_t cap, const char **why)
{
	struct pqueue *q;
	pthread_t t;
	int ok = 0, c;

	if (pthread_create(&t, NULL, probe, &ok) != 0 ||
	    pthread_join(t, NULL) != 0 || !ok) {
		*why = "sched_idle_not_revocable";
		return NULL;
	}
	q = wp_xcalloc(1, sizeof *q);
	pthread_mutex_init(&q->mu, NULL);
	q->head = q->tail = wp_xcalloc(1, sizeof *q->head);
	q->mapped = wp_xcalloc((size_t)n + 1, sizeof *q->mapped);
	for (c = 0; c < n; c++)
		q->mapped[c] = rings[c].base != NULL;
	q->rings = rings;
	q->nring = n;
	q->cap = cap;
	q->main_tid = (pid_t)syscall(SYS_gettid);
	q->st.formatter = "idle";
	q->st.queue_cap_bytes = cap;
	q->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->stopfd == -1 || q->wakefd == -1 ||
	    pthread_create(&q->thr, NULL, copier, q) != 0) {
		*why = "no_thread";
		pq_free(q, NULL);
		return NULL;
	}
	q->running = 1;
	return q;
}

int
pq_wakefd(const struct pqueue *q)
{
	return q->wakefd;
}

int
pq_nomem(const struct pqueue *q)
{
	return __atomic_load_n(&q->nomem, __ATOMIC_SEQ_CST);
}

/* The main thread back at the normal policy, where it was idle. */
static void
normal_policy(struct pqueue *q)
{
	if (q->idle && set_policy(0, SCHED_OTHER) == 0)
		q->idle = 0;
}

int
pq_sync(struct pqueue *q)
{
	(void)copy_all(q, 1);
	return __atomic_load_n(&q->nonsample, __ATOMIC_SEQ_CST) > 0;
}

int
pq_pick_fork(struct pqueue *q, pid_t pid, pid_t tid,
    int (*fn)(const struct perf_rec *, void *), void *arg)
{
	struct pq_chunk *c;
	int rc;

	/* a thread's record: not at SCHED_IDLE, least of all holding mu */
	normal_policy(q);
	(void)pq_sync(q);
	for (c = __atomic_load_n(&q->head->next, __ATOMIC_ACQUIRE); c != NULL;
	    c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
		if ((rc = perf_pick_fork(c->b, c->len, c->off, pid, tid, fn,
		    arg)) != 0) {
			__atomic_sub_fetch(&q->nonsample, 1, __ATOMIC_SEQ_CST);
			return rc;
		}
	return 0;
}

uint64_t
pq_mark(struct pqueue *q)
{
	normal_policy(q);
	(void)pq_sync(q);
	return __atomic_load_n(&q->records_in, __ATOMIC_SEQ_CST);
}

uint64_t
pq_progress(const struct pqueue *q)
{
	return q->records_done;
}

/* The main thread at the policy the queue asks for now; 1: called back. */
static int
policy(struct pqueue *q, int all)
{
	size_t bytes = __atomic_load_n(&q->bytes, __ATOMIC_SEQ_CST);
	int idle;

	if (!q->capped && bytes > q->cap) {
		q->capped = 1;
		q->st.cap_reached++;
	} else if (q->capped && bytes < q->cap / 2)
		q->capped = 0;
	idle = !all && !q->capped && !pq_nomem(q) &&
	    __atomic_load_n(&q->prompt, __ATOMIC_SEQ_CST) == 0;
	if (idle == q->idle)
		return 0;
	if (set_policy(0, idle ? SCHED_IDLE : SCHED_OTHER) == 0)
		q->idle = idle;
	/* a call back between the two: at the normal policy again */
	if (idle && __atomic_exchange_n(&q->urgent, 0, __ATOMIC_SEQ_CST)) {
		normal_policy(q);
		return 1;
	}
	return 0;
}

/* Chunk c, after the head, formatted: the head now. */
static void
chunk_done(struct pqueue *q, struct pq_chunk *c)
{
	uint64_t wait = wp_now_ns() - c->at;

	if (wait / 1000000 > q->st.formatter_wait_max_ms)
		q->st.formatter_wait_max_ms = wait / 1000000;
	__atomic_sub_fetch(&q->bytes, c->len, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&q->records, c->records, __ATOMIC_SEQ_CST);
	q->records_done += c->records;
	free(q->head);
	q->head = c;
}

struct pq_fmt {
	struct pqueue	*q;
	int		(*fn)(const struct perf_rec *, void *);
	void		*arg;
	int		 all;
	int		 called;
};

static int
one(const struct perf_rec *r, void *arg)
{
	struct pq_fmt *f = arg;

	if (not_sample(r->type))
		__atomic_sub_fetch(&f->q->nonsample, 1, __ATOMIC_SEQ_CST);
	if (prompt(r->type))
		__atomic_sub_fetch(&f->q->prompt, 1, __ATOMIC_SEQ_CST);
	if (f->fn(r, f->arg) == -1)
		return -1;
	if (!f->all && __atomic_exchange_n(&f->q->urgent, 0,
	    __ATOMIC_SEQ_CST)) {
		f->called = 1;
		return -1;
	}
	return 0;
}

int
pq_format(struct pqueue *q, const struct perf_layout *lay,
    int (*fn)(const struct perf_rec *, void *), void *arg, int all)
{
	struct pq_fmt f = { q, fn, arg, all, 0 };
	struct pq_chunk *c;
	int rc = 0;

	if (!all && !__atomic_load_n(&q->go, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&q->urgent, 0, __ATOMIC_SEQ_CST);
	for (;;) {
		c = __atomic_load_n(&q->head->next, __ATOMIC_ACQUIRE);
		if (c == NULL) {
			/* the copier tells the formatter again */
			__atomic_store_n(&q->go, 0, __ATOMIC_SEQ_CST);
			break;
		}
		if ((rc = policy(q, all)) != 0)
			break;
		rc = perf_walk(c->b, c->len, &c->off, lay, one, &f);
		if (c->off >= c->len)
			chunk_done(q, c);
		if (rc == -1) {
			rc = f.called ? 1 : -1;
			break;
		}
		rc = 0;
	}
	/* waits are at the normal policy */
	normal_policy(q);
	return rc;
}

static void
stop_thread(struct pqueue *q)
{
	if (q->running) {
		(void)eventfd_write(q->stopfd, 1);
		pthread_join(q->thr, NULL);
		q->running = 0;
	}
}

void
pq_stop(struct pqueue *q)
{
	stop_thread(q);
	(void)copy_all(q, 1);
	normal_policy(q);
}

void
pq_free(struct pqueue *q, struct wp_obs_perf *o)
{
	struct pq_chunk *c, *next;

	stop_thread(q);
	normal_policy(q);
	if (o != NULL)
		*o = q->st;
	for (c = q->head; c != NULL; c = next) {	/* the head too */
		next = c->next;
		free(c);
	}
	wp_close_fd(&q->stopfd);
	wp_close_fd(&q->wakefd);
	pthread_mutex_destroy(&q->mu);
	free(q->mapped);
	free(q);
}
