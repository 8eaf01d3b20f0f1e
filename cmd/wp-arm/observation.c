/*
 * The observation, wp-arm's last record: how the watch ended, what it
 * covered, what it may have missed, and the values read back.  What
 * only the backend knows (its counters, how it follows chains) it adds
 * itself (observe).
 */
#include <unistd.h>

#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "record.h"
#include "util.h"
#include "vocab.h"
#include "filter.h"
#include "watch.h"

static size_t
count_exited(const struct watch *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->nthr; i++)
		n += w->thr[i].exited || w->thr[i].state == THR_EXITED;
	return n;
}

/*
 * Whether a pointer of a chain was written during the watch (counted or
 * sampled): only then may the leaf have moved before its re-arm.
 */
static int
pointer_written(const struct watch *w)
{
	const struct chain *c;
	size_t i, k;

	for (i = 0; i < w->nchains; i++) {
		c = &w->chains[i];
		if (c->ptr_hits > 0)
			return 1;
		for (k = 0; k < c->noffs; k++)
			if (!w->t[c->base + k].counted_known ||
			    w->t[c->base + k].counted > 0)
				return 1;
	}
	return 0;
}

static void
coverage(const struct watch *w, struct wp_observation *o,
    const char **reasons, struct wp_obs_failed *failed)
{
	size_t i, pending = watch_count_threads(w, THR_PENDING);
	int k;

	o->seeded = watch_count_threads(w, THR_SEEDED);
	o->inherited = watch_count_threads(w, THR_INHERITED);
	o->attached_late = watch_count_threads(w, THR_DYNAMIC);
	o->exited = count_exited(w);
	for (i = 0; i < w->nthr; i++)
		if (w->thr[i].state == THR_FAILED) {
			failed[o->nfailed].tid = w->thr[i].tid;
			failed[o->nfailed++].err = w->thr[i].err;
		}
	o->failed = failed;
	o->unattached = pending + o->nfailed;
	o->forked = w->other_processes;
	if (o->attached_late > 0)
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_LATE];
	if (pending > 0)
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_NEVER];
	if (o->nfailed > 0)
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_FAILED];
	if (o->ambiguous > 0)
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_UNKNOWN_ORIGIN];
	if (o->unparsed > 0)
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_MALFORMED];
	/* between a pointer write and the re-arm, the leaf is not watched */
	if (pointer_written(w) && (o->follow_mode == NULL ||
	    strcmp(o->follow_mode, "async") == 0))
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_REBIND_WINDOW];
	if (w->modify_errors > 0)
		reasons[o->npartial++] = wp_partial_names[WP_PARTIAL_REARM_FAILED];
	/* the backend's own, from its observe() */
	for (k = 0; k < WP_NPARTIALS; k++)
		if (w->obs_partial & (1u << k))
			reasons[o->npartial++] = wp_partial_names[k];
	o->partial_reasons = reasons;
}

/*
 * Writes counted that no writer accounts for: not in a tally (the bpf
 * backend), or neither written nor cut off by max events.
 */
static uint64_t
lost_of(const struct wtarget *t)
{
	uint64_t seen = t->tallied_known ? t->tallied :
	    t->hits + t->unwritten - t->undelivered;

	if (!t->counted_known || t->counted < seen)
		return 0;
	return t->counted - seen;
}

/* Per-writer counts come from in-kernel tallies that missed nothing
   (the uprobe backend's sites: always tallies). */
static int
tallied(const struct watch *w)
{
	size_t i;

	if (w->nsites > 0)
		return 1;
	for (i = 0; i < w->nt; i++)
		if (!w->t[i].tallied_known)
			return 0;
	return w->nt > 0;
}

/* Whether a site's execution went uncounted: no tally, or no fs base. */
static int
sites_missed(const struct wp_observation *o)
{
	size_t i;

	for (i = 0; o->uprobe != NULL && i < o->uprobe->nsites; i++)
		if (o->uprobe->sites[i].tally_full > 0 ||
		    o->uprobe->sites[i].segment_unread > 0)
			return 1;
	return 0;
}

/*
 * The targets, their counts and their values at the end, when the
 * process is still the same; returns whether it is.
 */
static int
targets(const struct watch *w, struct wp_obs_target *ot, size_t *n)
{
	unsigned char b[8];
	size_t i;
	int fd, alive;

	alive = w->pid > 0 ? wp_proc_alive(w->pid, w->start_time) : -1;
	fd = alive > 0 ? wp_proc_mem_open(w->pid) : -1;
	for (i = *n = 0; i < w->nt; i++) {
		if (w->t[i].chain >= 0)
			continue;
		ot[*n].id = w->t[i].id;
		ot[*n].hits = w->t[i].hits - w->t[i].undelivered;
		ot[*n].counted_known = w->t[i].counted_known;
		ot[*n].counted = w->t[i].counted;
		ot[*n].lost = lost_of(&w->t[i]);
		ot[*n].has_pages_dropped = w->obs_pages_dropped;
		ot[*n].pages_dropped = w->t[i].pages_dropped;
		/* the backend's, before it let the target go */
		ot[*n].has_latest = w->t[i].has_latest;
		ot[*n].latest = w->t[i].latest;
		if (!ot[*n].has_latest && fd != -1 && w->t[i].len <= 8 &&
		    wp_proc_read(fd, w->t[i].addr, b, (size_t)w->t[i].len) == 0) {
			ot[*n].has_latest = 1;
			ot[*n].latest = wp_le64(b, (size_t)w->t[i].len);
		}
		(*n)++;
	}
	if (fd != -1)
		close(fd);
	return alive;
}

static void
follows(const struct watch *w, struct wp_obs_follow *of)
{
	const struct chain *c;
	const struct wtarget *t;
	size_t i, k;

	for (i = 0; i < w->nchains; i++) {
		c = &w->chains[i];
		of[i].counted_known = 1;
		for (k = 0; k <= c->noffs; k++) {
			t = &w->t[c->base + k];
			of[i].counted_known &= t->counted_known;
			if (k < c->noffs)
				of[i].pointer_counted += t->counted;
			else
				of[i].leaf_counted = t->counted;
		}
		of[i].id = c->id;
		of[i].generation = c->generation;
		of[i].binding = c->binding;
		of[i].leaf = c->leaf;
		of[i].pointer_hits = c->ptr_hits;
		of[i].leaf_hits = c->leaf_hits;
		of[i].rebinds = c->rebinds;
	}
}

/* Hits the output did not take that no tally holds. */
static int
untallied(const struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].undelivered > 0 && !w->t[i].tallied_known)
			return 1;
	return 0;
}

/*
 * What was lost: exactly, from the counts, where the backend counts;
 * else what the backend said it dropped (the perf rings).
 */
static void
losses(const struct watch *w, struct wp_observation *o, const char **reasons)
{
	uint64_t counted_lost = 0;
	size_t i;
	int known = w->nt > 0;

	for (i = 0; i < w->nt; i++) {
		known &= w->t[i].counted_known;
		counted_lost += lost_of(&w->t[i]);
	}
	o->lost_known = !(w->output_closed && w->stop_reason != NULL) &&
	    w->lost_unknown == NULL;
	o->lost_reason = w->lost_unknown ? w->lost_unknown :
	    "output closed: hits after that were not written";
	/* else what the backend said it dropped (observe) */
	o->lost = known ? counted_lost : o->lost + w->undelivered_hits;
	o->lost_reasons = reasons;
	o->undelivered = w->undelivered;
	if (o->lost > w->undelivered_hits ||
	    (!known && o->lost_records > 0))
		reasons[o->nlost_reasons++] = wp_lost_names[WP_LOST_RING_OVERFLOW];
	if (w->undelivered > w->undelivered_hits || untallied(w))
		reasons[o->nlost_reasons++] = wp_lost_names[WP_LOST_OUTPUT_BLOCKED];
}

/*
 * Writes the observation.  error is NULL after a watch, else why
 * nothing could be watched.  Returns -1 when it could not be written.
 */
int
observation_write(struct watch *w, const char *error)
{
	struct wp_observation o;
	struct wp_obs_target *ot = wp_xcalloc(w->nt, sizeof *ot);
	struct wp_obs_follow *of = wp_xcalloc(w->nchains, sizeof *of);
	struct wp_obs_failed *failed = wp_xcalloc(w->nthr, sizeof *failed);
	const char *reasons[WP_NPARTIALS], *lreasons[WP_NLOSTS];
	int rc;

	memset(&o, 0, sizeof o);
	o.backend = w->backend ? BK_NAME(w->backend) : NULL;
	o.pid = w->pid;
	o.duration_ms = w->duration_ms;
	o.elapsed_ms = w->elapsed_ms;
	o.max_events = w->max_events;
	o.stop_reason = error ? wp_stop_names[WP_STOP_ERROR] :
	    w->stop_reason;
	o.stop_detail = w->stop_detail;
	o.error = error;
	o.truncated = w->truncated;
	o.accepted = w->accepted;
	o.follow_mode = w->follow_mode;
	if (w->backend != NULL && w->backend->observe != NULL)
		w->backend->observe(w, &o);
	if (w->nchains == 0)
		o.follow_mode = o.follow_reason = NULL;
	coverage(w, &o, reasons, failed);
	losses(w, &o, lreasons);
	o.tallied = tallied(w);
	/* with tallies, max events cuts samples, not counts */
	o.lower_bound = o.nlost_reasons > 0 || o.npartial > 0 ||
	    !o.lost_known ||
	    w->output_closed || (w->truncated && !o.tallied) ||
	    w->obs_lower_bound || sites_missed(&o);
	o.alive = targets(w, ot, &o.ntargets);
	o.targets = ot;
	follows(w, of);
	o.follows = of;
	o.nfollows = w->nchains;
	filter_observe(w, &o);
	rc = emit_observation(w, &o);
	free(ot);
	free(of);
	free(failed);
	return rc;
}
