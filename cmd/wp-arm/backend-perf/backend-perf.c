/*
 * The perf backend: breakpoint events on every thread (bp-events.c)
 * sample every hit into the perf rings, and each sample read is a hit
 * record.  The events' own counts are exact; a burst the rings have no
 * room for is lost (and said).  Follow chains re-arm after the drain
 * that read the pointer's sample: asynchronously.  Where formatting a
 * sample reads nothing of the live target (no follow chain, no --if, no
 * frame-pointer call chain), the rings are copied into a queue and the
 * records formatted at SCHED_IDLE (perf-queue.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp-events.h"
#include "kchain.h"
#include "perf-queue.h"
#include "perf.h"
#include "util.h"
#include "watch.h"

struct perf_state {
	struct bpev	 ev;
	struct pqueue	*q;		/* NULL: formatted as drained */
	int		 queued;	/* the last format left records */
};

struct perf_obs {
	struct bpev_obs	 ev;		/* first: bp-events.c's */
	struct wp_obs_perf perf;
};

static int
perf_sample(struct watch *w, size_t ti, const struct perf_rec *r)
{
	struct perf_state *s = w->state;
	struct wp_hit_rec h;
	struct wp_x86_regs regs;
	uint64_t chain[WATCH_MAXCHAIN];

	perf_sample_hit(r, &h, &regs);
	if (s->ev.lay.chain) {
		h.chain_status = kchain_callers(w->pid, r->chain, r->nchain,
		    (size_t)bpev_chain_cap(w), r->ip, chain, w->callchain_depth,
		    &h.nchain);
		h.chain = chain;
	}
	if (s->ev.lay.stack && r->stack != NULL) {
		h.stack = r->stack;
		h.nstack = r->nstack;
	}
	h.time_ns = watch_time(w, r->time);
	return watch_hit(w, ti, &h);
}

/* The rings, then the chains whose pointers they said were written. */
static void
drain_all(struct watch *w)
{
	struct perf_state *s = w->state;
	size_t ci;

	bpev_drain(&s->ev, w);
	for (ci = 0; ci < w->nchains; ci++)
		if (follow_dirty(w, ci) &&
		    follow_rebind(w, s->ev.memfd, ci))
			follow_record(w, ci, -1, 0, -1);
}

static int
pick_fork(struct watch *w, pid_t tid)
{
	struct perf_state *s = w->state;
	struct bpev_at at = { w, &s->ev };

	return pq_pick_fork(s->q, w->pid, tid, bpev_record, &at);
}

static uint64_t
mark(struct watch *w)
{
	struct perf_state *s = w->state;

	return pq_mark(s->q);
}

static uint64_t
progress(struct watch *w)
{
	struct perf_state *s = w->state;

	return pq_progress(s->q);
}

static const struct bpev_ops perf_ops = {
	perf_sample, NULL, drain_all, pick_fork, mark, progress
};

static void
perf_observe(struct watch *w, struct wp_observation *o)
{
	struct perf_obs *ob = w->obs;

	bpev_observe(w, o);
	o->perf = &ob->perf;
}

/* The queued records, in order, to the records: 0, 1, -1 (pq_format). */
static int
queue_format(struct watch *w, int all)
{
	struct perf_state *s = w->state;
	struct bpev_at at = { w, &s->ev };
	int rc;

	emit_hold();
	rc = pq_format(s->q, &s->ev.lay, bpev_record, &at, all);
	emit_release(w);
	return rc;
}

/* Everything copied and formatted; then the rings are read as drained. */
static void
queue_end(struct watch *w, const char *why)
{
	struct perf_state *s = w->state;
	struct perf_obs *o = w->obs;

	pq_stop(s->q);
	queue_format(w, 1);
	bpev_exits(&s->ev, w, 1);
	pq_free(s->q, &o->perf);
	if (why != NULL) {
		o->perf.formatter = "inline";
		o->perf.formatter_reason = why;
	}
	s->q = NULL;
	s->queued = 0;
	s->ev.copied = s->ev.forks_queued = 0;
}

/*
 * The queue's cap: WP_ARM_QUEUE_BYTES (for tests), else PQ_CAP_DEFAULT.
 * -1 with e set when it is not a number of bytes.
 */
static int
queue_cap(size_t *cap, struct wp_error *e)
{
	const char *v = getenv("WP_ARM_QUEUE_BYTES");
	char *end;
	unsigned long long n;

	*cap = PQ_CAP_DEFAULT;
	if (v == NULL)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || n == 0 ||
	    n > SIZE_MAX / 2)
		return wp_error_set(e, WP_EXIT_USAGE, "WP_ARM_QUEUE_BYTES=%s: "
		    "not a number of bytes", v);
	*cap = (size_t)n;
	return 0;
}

/* The queue, where formatting a sample reads nothing of the target. */
static void
queue_start(struct watch *w, size_t cap)
{
	struct perf_state *s = w->state;
	struct perf_obs *o = w->obs;
	const char *why = NULL;

	o->perf.formatter = "inline";
	o->perf.queue_cap_bytes = cap;
	if (w->nchains > 0)
		why = "follow";
	else if (w->filter != NULL)
		why = "if";
	else if (s->ev.lay.chain)
		why = "callchain";
	else if ((s->q = pq_start(s->ev.rings, s->ev.ncpu, cap, &why)) !=
	    NULL)
		s->ev.copied = 1;
	o->perf.formatter_reason = why;
}

static int
perf_arm(struct watch *w, struct wp_error *e)
{
	struct perf_state *s;
	struct bpev_obs *o = w->obs;
	struct perf_layout lay;
	size_t cap;

	if (queue_cap(&cap, e) == -1)
		return -1;
	s = wp_xcalloc(1, sizeof *s);
	memset(&lay, 0, sizeof lay);
	lay.samples = 1;
	lay.regs = w->regs;
	lay.chain = w->callchain == CC_DEFAULT || w->callchain == CC_FP;
	lay.stack = w->callchain == CC_DWARF;
	w->state = s;
	if (bpev_open(&s->ev, w, &perf_ops, &lay, e) == -1)
		goto fail;
	if (w->nchains > 0) {
		o->follow_mode = "async";
		if (w->follow_mode != NULL &&
		    strcmp(w->follow_mode, "async") != 0)
			bpev_unheld(w, "holding a pointer's writer needs the "
			    "bpf backend");
	}
	if (bpev_arm(&s->ev, w, e) == 0) {
		queue_start(w, cap);
		return 0;
	}
	bpev_close(&s->ev);
fail:
	free(s);
	w->state = NULL;
	return -1;
}

static void
perf_run(struct watch *w, uint64_t until)
{
	struct perf_state *s = w->state;
	uint64_t n;
	int fd;

	if (s->q == NULL) {
		bpev_wait(&s->ev, w, until, NULL, 0);
		drain_all(w);
	} else {
		/* while records wait, only a look at the target and signals */
		fd = pq_wakefd(s->q);
		bpev_wait(&s->ev, w, s->queued ? 0 : until, &fd, 1);
		while (read(fd, &n, sizeof n) == (ssize_t)sizeof n)
			continue;
		s->queued = queue_format(w, 0) == 1;
		bpev_exits(&s->ev, w, 0);
		if (pq_nomem(s->q))
			queue_end(w, "queue_enomem");
		else
			s->ev.forks_queued = pq_sync(s->q);
	}
	bpev_settle(&s->ev, w);
}

/* The events' own counts: every write, sampled or not. */
static void
perf_count(struct watch *w)
{
	struct perf_state *s = w->state;

	bpev_count(&s->ev, w);
}

static void
perf_rearm(struct watch *w, size_t ti)
{
	struct perf_state *s = w->state;

	bpev_move(&s->ev, w, ti);
}

static void
perf_disarm(struct watch *w)
{
	struct perf_state *s = w->state;

	bpev_disable(&s->ev);
	if (s->q != NULL) {
		/* the last records wait for the reader, as hits too */
		emit_wait_reader(w);
		queue_end(w, NULL);
	}
	drain_all(w);
	bpev_exits(&s->ev, w, 1);
	perf_count(w);
	bpev_quiet(w);
	bpev_close(&s->ev);
	free(s);
	w->state = NULL;
}

const struct backend backend_perf = {
	.id = WP_BK_PERF,
	.caps = BK_SAMPLED | BK_RING | BK_DEBUGREGS |
	    BK_FOLLOWMODES,
	.chosen = "the perf ring backend (counts stay exact; per-writer "
	    "counts come from samples, which a burst can drop)",
	.fits = bp_fits, .cond_where = CW_WPARM,
	.obs_size = sizeof(struct perf_obs),
	.arm = perf_arm, .run = perf_run, .count = perf_count,
	.rearm = perf_rearm, .disarm = perf_disarm, .observe = perf_observe
};
