/*
 * What the records of the rings of bp-events.c become: a sample is
 * handed to the perf backend (ops->sample), a thread's fork and exit
 * are thread records, a loss a lost record.  A thread's start is
 * written before its first hit, whichever ring each came in.
 */
#include <sys/types.h>

#include <linux/perf_event.h>

#include <string.h>

#include "bp-events.h"
#include "perf.h"
#include "watch.h"

static struct bpev_obs *
obs(struct watch *w)
{
	return w->obs;
}

void
bpev_sample_of(struct bpev *ev, struct watch *w, pid_t tid)
{
	struct bpev_at d = { w, ev };
	struct thread *t;
	int c, rc = 0;

	if (tid == ev->started_tid)
		return;
	if ((t = watch_thread_find(w, tid)) != NULL &&
	    (t->state != THR_PENDING || t->fork_sought)) {
		ev->started_tid = tid;
		return;
	}
	if (ev->copied)
		(void)ev->ops->pick_fork(w, tid);
	else
		for (c = 0; c < ev->ncpu && rc == 0; c++)
			if (ev->rings[c].base != NULL)
				rc = perf_ring_pick_fork(&ev->rings[c], w->pid,
				    tid, bpev_record, &d);
	/* none came: a thread the scan arms, as one it found */
	if ((t = watch_thread_find(w, tid)) == NULL) {
		t = watch_thread(w, tid, THR_PENDING);
		t->scan = ev->scan;
	}
	t->fork_sought = 1;
}

static int
on_sample(struct watch *w, struct bpev *ev, const struct perf_rec *r)
{
	int ti;

	if ((pid_t)r->pid != w->pid) {
		obs(w)->excluded++;
		return 0;
	}
	bpev_sample_of(ev, w, (pid_t)r->tid);
	if ((ti = bpev_target_of(ev, r->id)) < 0) {
		obs(w)->ambiguous++;
		return 0;
	}
	return ev->ops->sample != NULL ?
	    ev->ops->sample(w, (size_t)ti, r) : 0;
}

static int
on_fork(struct watch *w, const struct perf_rec *r)
{
	struct wp_thread_rec tr;
	struct thread *t;

	memset(&tr, 0, sizeof tr);
	tr.has_time = 1;
	tr.time_ns = watch_time(w, r->time);
	if ((pid_t)r->pid != w->pid) {
		if ((pid_t)r->ppid != w->pid || r->pid != r->tid)
			return 0;
		w->other_processes++;
		tr.event = "fork_process";
		tr.pid = (pid_t)r->pid;
		tr.by_tid = (pid_t)r->ptid;
		return emit_thread(w, &tr);
	}
	t = watch_thread_find(w, (pid_t)r->tid);
	if (t != NULL && t->state != THR_PENDING)
		return 0;
	t = watch_thread(w, (pid_t)r->tid, THR_INHERITED);
	t->state = THR_INHERITED;
	tr.event = "start";
	tr.tid = (pid_t)r->tid;
	tr.by_tid = (pid_t)r->ptid;
	tr.coverage = "inherited";
	return emit_thread(w, &tr);
}

/* A thread's exit, held (bpev_exits). */
static int
on_exit_(struct watch *w, struct bpev *ev, const struct perf_rec *r)
{
	struct bpev_exit *x;
	struct thread *t;

	if ((pid_t)r->pid != w->pid)
		return 0;
	/* a thread that ran on another CPU than its creator: its start */
	bpev_sample_of(ev, w, (pid_t)r->tid);
	if ((t = watch_thread_find(w, (pid_t)r->tid)) == NULL || t->exited)
		return 0;
	t->exited = 1;
	if (ev->nexits == ev->capexits) {
		ev->capexits = ev->capexits ? 2 * ev->capexits : 16;
		ev->exits = wp_xrealloc(ev->exits,
		    ev->capexits * sizeof *ev->exits);
	}
	x = &ev->exits[ev->nexits++];
	x->tid = (pid_t)r->tid;
	x->time_ns = watch_time(w, r->time);
	x->after = ev->copied ? ev->ops->mark(w) : ev->passes + 2;
	return 0;
}

void
bpev_exits(struct bpev *ev, struct watch *w, int all)
{
	struct wp_thread_rec tr;
	uint64_t now;
	size_t i, n = 0;

	if (ev->nexits == 0)
		return;
	now = ev->copied ? ev->ops->progress(w) : ev->passes;
	for (i = 0; i < ev->nexits; i++) {
		if (!all && now < ev->exits[i].after) {
			ev->exits[n++] = ev->exits[i];
			continue;
		}
		memset(&tr, 0, sizeof tr);
		tr.event = "exit";
		tr.tid = ev->exits[i].tid;
		tr.has_time = 1;
		tr.time_ns = ev->exits[i].time_ns;
		(void)emit_thread(w, &tr);
	}
	ev->nexits = n;
}

int
bpev_record(const struct perf_rec *r, void *arg)
{
	struct bpev_at *d = arg;
	struct watch *w = d->w;
	struct bpev *ev = d->ev;

	if (ev->nexits > 0 && ev->copied)
		bpev_exits(ev, w, 0);
	switch (r->kind) {
	case RING_SAMPLE:
		return on_sample(w, ev, r);
	case RING_FORK:
		return on_fork(w, r);
	case RING_EXIT:
		return on_exit_(w, ev, r);
	case RING_LOST:
		obs(w)->lost += r->lost;
		obs(w)->lost_records++;
		return emit_lost(w, r->lost, (int)r->cpu,
		    watch_time(w, r->time));
	case RING_EXEC:
		if ((pid_t)r->pid == w->pid)
			ev->exec_seen = 1;
		return 0;
	case RING_BAD:
		obs(w)->unparsed++;
		return 0;
	case RING_OTHER:
		return 0;
	}
	return 0;
}

void
bpev_drain(struct bpev *ev, struct watch *w)
{
	struct bpev_at d = { w, ev };
	int c;

	/* the records of the rings go out together, once they are read */
	emit_hold();
	for (c = 0; c < ev->ncpu; c++)
		if (ev->rings[c].base != NULL)
			perf_drain(&ev->rings[c], &ev->lay, bpev_record, &d);
	ev->passes++;
	bpev_exits(ev, w, 0);
	emit_release(w);
}

