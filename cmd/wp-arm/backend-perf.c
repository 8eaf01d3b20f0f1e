/*
 * The perf backend: breakpoint events on every thread (bp-events.c)
 * sample every hit into the perf rings, and each sample read is a hit
 * record.  The events' own counts are exact; a burst the rings have no
 * room for is lost (and said).  Follow chains re-arm after the drain
 * that read the pointer's sample: asynchronously.
 */
#include <stdlib.h>
#include <string.h>

#include "bp-events.h"
#include "kchain.h"
#include "perf.h"
#include "util.h"
#include "watch.h"

struct perf_state {
	struct bpev	 ev;
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

static const struct bpev_ops perf_ops = { perf_sample, NULL, drain_all };

static int
perf_arm(struct watch *w, struct wp_error *e)
{
	struct perf_state *s = wp_xcalloc(1, sizeof *s);
	struct bpev_obs *o = w->obs;
	struct perf_layout lay;

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
	if (bpev_arm(&s->ev, w, e) == 0)
		return 0;
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

	bpev_wait(&s->ev, w, until, NULL, 0);
	drain_all(w);
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
	drain_all(w);
	perf_count(w);
	bpev_quiet(w);
	bpev_close(&s->ev);
	free(s);
	w->state = NULL;
}

const struct backend backend_perf = {
	.name = "perf_breakpoint", .cond_where = "wp-arm",
	.obs_size = sizeof(struct bpev_obs),
	.arm = perf_arm, .run = perf_run, .count = perf_count,
	.rearm = perf_rearm, .disarm = perf_disarm, .observe = bpev_observe
};
