/*
 * The document's watches: per target (or follow chain) its values, its
 * writer sites with their call chains, its threads and its samples.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

static const struct wp_field absent = { -1, NULL, NULL };

/* A writer's "source": {"file", "line"}, or null. */
static void
source(struct wp_jw *w, const struct wp_writer_in *wr)
{
	if (wr->source_file == NULL) {
		wp_jw_null(w, "source");
		return;
	}
	wp_jw_obj(w, "source");
	wp_jw_str(w, "file", wr->source_file);
	wp_jw_int(w, "line", wr->source_line);
	wp_jw_end(w);
}

/* A sample's written value, its members in the record's order. */
static void
value(struct wp_jw *w, const struct rsample *sm)
{
	const struct wp_value_in *v = &sm->value;

	if (!sm->has_value) {
		wp_jw_null(w, "written_value");
		return;
	}
	wp_jw_obj(w, "written_value");
	wp_jw_str(w, "kind", v->kind_word);
	if (v->reg != NULL)
		wp_jw_str(w, "register", v->reg);
	if (v->has_width)
		wp_jw_int(w, "width", v->width);
	if (v->has_value_member)
		WP_JW_OR_NULL(wp_jw_hex, w, "value", v->has_value, v->value);
	if (v->has_bytes_member)
		wp_jw_str(w, "bytes", v->bytes);
	if (v->reason != NULL)
		wp_jw_str(w, "reason", v->reason);
	wp_jw_end(w);
}

/* A chain as the report's JSON has it: status, callers, hits. */
static void
chain(struct wp_jw *w, const struct rchain *c)
{
	size_t k;

	wp_jw_obj(w, NULL);
	wp_jw_str(w, "status", c->status[0] ? c->status : NULL);
	wp_jw_arr(w, "callers");
	for (k = 0; k < c->nfr; k++)
		wp_rec_frame(w, &c->fr[k]);
	wp_jw_end(w);
	wp_jw_uint(w, "hits", c->hits);
	wp_jw_end(w);
}

static void
site(struct wp_jw *w, const struct rsite *s, int matched)
{
	const struct wp_writer_in *wr = &s->writer;
	size_t i;

	wp_jw_obj(w, NULL);
	wp_jw_str(w, "kind", wp_kind_names[s->kind]);
	wp_jw_hex(w, "trap_runtime_ip", s->trap);
	WP_JW_OR_NULL(wp_jw_hex, w, "trap_static_ip", wr->has_trap_static,
	    wr->trap_static);
	WP_JW_OR_NULL(wp_jw_hex, w, "writer_runtime_ip", s->wip != 0, s->wip);
	WP_JW_OR_NULL(wp_jw_hex, w, "writer_static_ip", wr->has_writer_static,
	    wr->writer_static);
	wp_jw_str(w, "module", wr->module);
	wp_jw_str(w, "writer_function", wr->function);
	wp_jw_str(w, "writer_symbol", wr->symbol);
	source(w, wr);
	wp_jw_str(w, "insn", wr->insn);
	wp_jw_str(w, "confidence", wp_conf_names[s->worst]);
	wp_jw_obj(w, "confidence_counts");
	for (i = 0; i < WP_NCONFS; i++)
		if (s->conf[i] > 0)
			wp_jw_uint(w, wp_conf_names[i], s->conf[i]);
	wp_jw_end(w);
	wp_jw_str(w, "reason", wr->reason);
	wp_jw_str(w, "caveat", wr->caveat);
	wp_jw_uint(w, "hits", s->hits);
	if (matched)
		wp_jw_uint(w, "matched", s->matched);
	if (s->chains.n > 0 || s->chains_other > 0) {
		wp_jw_arr(w, "call_chains");
		for (i = 0; i < s->nshown; i++)
			chain(w, s->shown[i]);
		wp_jw_end(w);
		wp_jw_uint(w, "other_call_chains_hits", s->chains_rest);
		wp_jw_uint(w, "hits_without_call_chain", s->chains_none);
	}
	wp_jw_end(w);
}

static void
comm(const struct report *r, struct wp_jw *w, int64_t tid)
{
	wp_jw_str(w, "comm", report_comm(r, tid));
}

static void
threads(const struct report *r, const struct rtarget *t, struct wp_jw *w)
{
	size_t i;

	wp_jw_arr(w, "threads");
	for (i = 0; i < t->nthr; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "tid", t->thr[i].tid);
		comm(r, w, t->thr[i].tid);
		wp_jw_uint(w, "hits", t->thr[i].hits);
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_bool(w, "threads_truncated", t->other_thread_hits > 0);
}

/* Samples (or last writes) a[0..n) as the array name. */
static void
doc_samples(const struct report *r, const char *name,
    const struct rsample *a, size_t n, struct wp_jw *w)
{
	const struct wp_writer_in *wr;
	const struct rsample *sm;
	size_t i;

	wp_jw_arr(w, name);
	for (i = 0; i < n; i++) {
		sm = &a[i];
		wr = &sm->writer;
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "tid", sm->tid);
		comm(r, w, sm->tid);
		wp_jw_int(w, "time_ns", sm->time_ns);
		wp_jw_hex(w, "trap_runtime_ip", sm->trap);
		wp_jw_str(w, "module", wr->module);
		WP_JW_OR_NULL(wp_jw_hex, w, "writer_static_ip",
		    wr->has_writer_static, wr->writer_static);
		wp_jw_str(w, "writer_symbol", wr->symbol);
		WP_JW_OR_NULL(wp_jw_hex, w, "store_offset", sm->has_store,
		    sm->store_off);
		WP_JW_OR_NULL(wp_jw_int, w, "store_len", sm->has_store,
		    sm->store_len);
		value(w, sm);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

void
doc_last(const struct report *r, const struct rtarget *t, struct wp_jw *w)
{
	if (t->nlasts == 0)
		return;
	wp_jw_obj(w, "last_writes");
	wp_jw_str(w, "before", t->last_end);
	doc_samples(r, "writes", t->lasts, t->nlasts, w);
	wp_jw_end(w);
}

static void
samples(const struct report *r, const struct rtarget *t, struct wp_jw *w)
{
	doc_samples(r, "samples", t->samples, t->nsamples, w);
	wp_jw_bool(w, "samples_truncated", t->samples_truncated);
}

/* Updates lost (lost.c), or null where that cannot be told. */
static void
lost_updates(const struct report *r, const struct rtarget *t,
    struct wp_jw *w)
{
	struct rlost a[MAXFIELDS];
	ssize_t i, n = report_lost(r, t, a);

	if (n < 0) {
		wp_jw_null(w, "lost_updates");
		return;
	}
	wp_jw_arr(w, "lost_updates");
	for (i = 0; i < n; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_hex(w, "offset", a[i].off);
		wp_jw_int(w, "len", a[i].len);
		wp_jw_str(w, "since", a[i].whole ? "initial_value" :
		    "first_write");
		wp_jw_int(w, "moved", a[i].moved);
		wp_jw_uint(w, "writes", a[i].writes);
		wp_jw_int(w, "writes_add_up_to", a[i].sum);
		wp_jw_int(w, "lost", a[i].less);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

/* What a target and a follow chain's leaf both show: counts, sites. */
static void
leaf(const struct report *r, const struct rtarget *t, struct wp_jw *w)
{
	size_t i;

	wp_field_write(w, "counted", t->obs ? &t->obs->counted : NULL);
	wp_field_write(w, "lost", t->obs ? &t->obs->lost : NULL);
	wp_jw_str(w, "snapshot_caveat", r->snapshot_caveat);
	if (t->have_time) {
		wp_jw_int(w, "first_time_ns", t->first);
		wp_jw_int(w, "last_time_ns", t->last);
	} else {
		wp_jw_null(w, "first_time_ns");
		wp_jw_null(w, "last_time_ns");
	}
	wp_jw_str(w, "writer_counts", t->tallied ? "tallied" : "sampled");
	if (t->tallied)
		wp_jw_uint(w, "tallied_hits", t->tallied_hits);
	else
		wp_jw_null(w, "tallied_hits");
	if (t->conditioned) {
		wp_jw_str(w, "condition", r->armed.condition.text);
		wp_jw_uint(w, "matched_hits", t->matched_hits);
	}
	wp_jw_uint(w, "read_hits", t->read_hits);
	wp_jw_uint(w, "write_hits", t->write_hits);
	wp_jw_uint(w, "spurious_hits", t->spurious_hits);
	lost_updates(r, t, w);
	threads(r, t, w);
	wp_jw_arr(w, "writer_sites");
	for (i = 0; i < t->nsorted; i++)
		site(w, t->sorted[i], t->conditioned);
	wp_jw_end(w);
	samples(r, t, w);
	doc_last(r, t, w);
}

void
doc_watch(const struct report *r, const struct rtarget *t, struct wp_jw *w)
{
	const struct wp_watch_pass *x = &t->rec;
	const struct wp_field *latest = t->obs ? &t->obs->latest_value :
	    &absent;

	wp_jw_obj(w, NULL);
	wp_jw_int(w, "id", t->id);
	wp_target_pass_write(w, x);
	wp_field_write(w, "initial_value", t->initial);
	wp_field_write(w, "latest_value", latest);
	if (t->initial->text != NULL && latest->text != NULL)
		wp_jw_bool(w, "changed", strcmp(t->initial->text,
		    latest->text) != 0);
	else
		wp_jw_null(w, "changed");
	wp_jw_uint(w, "accepted_hits", t->hits);
	leaf(r, t, w);
	wp_jw_end(w);
}

static void
binding(struct wp_jw *w, const void *p)
{
	const struct rbind *b = p;

	wp_jw_uint(w, "generation", b->generation);
	wp_jw_str(w, "binding", b->binding);
	WP_JW_OR_NULL(wp_jw_hex, w, "leaf_addr", b->leaf != 0, b->leaf);
	wp_jw_int(w, "time_ns", b->time_ns);
	wp_jw_uint(w, "leaf_hits", b->leaf_hits);
	wp_rec_rearm_members(w, b->rearm_ns, b->held, b->missed);
}

/* How long the leaf went unwatched at each re-arm, over the bindings. */
static void
rearm(const struct rrearm *a, struct wp_jw *w)
{
	wp_jw_obj(w, "rearm");
	wp_jw_uint(w, "measured", a->measured);
	wp_jw_uint(w, "held", a->held);
	wp_jw_uint(w, "missed_in_window", a->missed);
	WP_JW_OR_NULL(wp_jw_int, w, "min_ns", a->measured > 0, a->min);
	WP_JW_OR_NULL(wp_jw_int, w, "median_ns", a->measured > 0, a->median);
	WP_JW_OR_NULL(wp_jw_int, w, "p90_ns", a->measured > 0, a->p90);
	WP_JW_OR_NULL(wp_jw_int, w, "max_ns", a->measured > 0, a->max);
	wp_jw_end(w);
}

/* A --follow chain: where it points, its history, and its leaf's hits. */
void
doc_follow(const struct report *r, const struct rtarget *t, struct wp_jw *w)
{
	const struct wp_watch_pass *x = &t->rec;
	const struct rbind *b = t->nbinds ? &t->binds[t->nbinds - 1] : NULL;

	wp_jw_obj(w, NULL);
	wp_jw_int(w, "id", t->id);
	wp_field_write(w, "input", &x->input);
	wp_field_write(w, "ptr_slot_addr", &x->slot_addr);
	wp_field_write(w, "ptr_slot_static_addr", &x->slot_static_addr);
	wp_field_write(w, "ptr_slot_module", &x->slot_module);
	wp_field_write(w, "chain_offsets", &x->offsets);
	wp_field_write(w, "len", &x->len);
	wp_field_write(w, "access", &x->access);
	wp_field_write(w, "slots_reserved", &x->slots);
	if (b != NULL) {
		wp_jw_str(w, "binding_state", b->binding);
		wp_jw_uint(w, "generation", b->generation);
		WP_JW_OR_NULL(wp_jw_hex, w, "active_leaf_addr", b->leaf != 0,
		    b->leaf);
	} else {
		wp_field_write(w, "binding_state", &x->binding);
		wp_jw_null(w, "generation");
		wp_field_write(w, "active_leaf_addr", &x->leaf_addr);
	}
	wp_field_write(w, "rebinds",
	    t->obs_follow ? &t->obs_follow->rebinds : NULL);
	wp_jw_uint(w, "pointer_slot_hits", t->ptr_hits);
	wp_jw_uint(w, "leaf_hits", t->hits);
	wp_jw_objects(w, "bindings", t->binds, t->nbinds, sizeof *t->binds,
	    binding);
	rearm(&t->rearm, w);
	wp_jw_bool(w, "bindings_truncated", t->binds_truncated);
	leaf(r, t, w);
	wp_jw_end(w);
}
