/*
 * The view of the aggregate that the document and the table both print:
 * per target the writer sites (from the in-kernel tallies when there
 * are any), most hits first, each with its call chains so sorted, the
 * threads so sorted, a follow chain's re-arm times; and whether the
 * counts are a lower bound and why.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"
#include "x86.h"

static int
cmp_chain(const void *a, const void *b)
{
	const struct rchain *x = *(const struct rchain *const *)a;
	const struct rchain *y = *(const struct rchain *const *)b;
	int c;

	/* most hits first */
	if ((c = WP_ORDER(y->hits, x->hits)) == 0)
		c = chain_cmp(x, y);
	return c;
}

/* The site's most frequent maxchains call chains, and the rest's hits. */
static void
view_chains(struct rsite *s, size_t maxchains)
{
	struct rchain **sorted, *c;
	uint64_t all = s->chains_other;
	size_t i, n = 0;

	s->chains_rest = s->chains_other;
	if (s->chains.n == 0 && s->chains_other == 0)
		return;
	sorted = wp_xcalloc(s->chains.n + 1, sizeof *sorted);
	for (i = 0; i < s->chains.cap; i++)
		if ((c = wp_hmap_slot(&s->chains, i)) != NULL)
			sorted[n++] = c;
	qsort(sorted, n, sizeof *sorted, cmp_chain);
	for (i = 0; i < n; i++) {
		all += sorted[i]->hits;
		if (i >= maxchains)
			s->chains_rest += sorted[i]->hits;
	}
	s->shown = sorted;
	s->nshown = n < maxchains ? n : maxchains;
	/* a tallied site whose chains are its samples' */
	s->chains_none = s->hits > all ? s->hits - all : 0;
}

const char *const report_note_names[RN_N] = {
	[RN_NO_CALLERS] = "no_callers",
	[RN_OUTSIDE_CODE] = "outside_code",
};

const char *
report_note_text(const struct report *r, enum rnote n)
{
	const char *callchain = wp_field_str(&r->armed.callchain);

	if (n == RN_NO_CALLERS)
		/* Debian's code keeps no frame pointers: the kernel's walk
		   stops at the writer */
		return "no callers: the frame pointers ended at the writer "
		    "(code built without them,\nas Debian's is); --callchain "
		    "dwarf unwinds with the modules' call frame information";
	/* the armed record's: the kernel walked frame pointers */
	if (callchain != NULL && strcmp(callchain, "fp") == 0)
		return "outside_code: a chain stopped at a return address "
		    "outside executable code (dropped):\nframe pointers "
		    "walked through a function built without them; "
		    "--callchain dwarf\nunwinds with the modules' call frame "
		    "information";
	return "outside_code: a chain stopped at a return address outside "
	    "executable code (dropped):\na function without call frame "
	    "information, whose frame pointer libdw walked";
}

/* What the chains shown of site s tell (enum rnote), into notes. */
static void
chain_notes(const struct rsite *s, int *notes)
{
	const struct rchain *c;
	size_t i;

	for (i = 0; i < s->nshown; i++) {
		c = s->shown[i];
		if (c->nfr == 0 && strcmp(c->status, "frame_pointers") == 0)
			notes[RN_NO_CALLERS] = 1;
		if (strcmp(c->status, "outside_code") == 0)
			notes[RN_OUTSIDE_CODE] = 1;
	}
}

static int
cmp_site(const void *a, const void *b)
{
	const struct rsite *x = *(const struct rsite *const *)a;
	const struct rsite *y = *(const struct rsite *const *)b;
	int c;

	if ((c = WP_ORDER(y->hits, x->hits)) == 0 &&
	    (c = WP_ORDER(x->wip, y->wip)) == 0 &&
	    (c = WP_ORDER(x->trap, y->trap)) == 0)
		c = WP_ORDER(x->kind, y->kind);
	return c;
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct rthread *x = a, *y = b;
	int c;

	if ((c = WP_ORDER(y->hits, x->hits)) == 0)
		c = WP_ORDER(x->tid, y->tid);
	return c;
}

/*
 * Tallies without chains (the bpf backend with --callchain dwarf keeps
 * the copied stacks in its samples): each site's chains from the hits
 * sampled there, said to be so.
 */
static void
sampled_chains(struct rtarget *t, struct wp_hmap *sites)
{
	struct rsite *h, *s;
	struct rchain *c;
	uint64_t k1, k2;
	size_t i, j;

	for (i = 0; i < t->sites.cap; i++) {
		if ((h = wp_hmap_slot(&t->sites, i)) == NULL)
			continue;
		report_site_key(h->trap, h->wip, 0, &k1, &k2);
		if ((h->chains.n == 0 && h->chains_other == 0) ||
		    (s = wp_hmap_get(sites, k1, k2)) == NULL ||
		    (s->chains.n > 0 && !s->chains_sampled))
			continue;
		s->chains_sampled = 1;
		for (j = 0; j < h->chains.cap; j++)
			if ((c = wp_hmap_slot(&h->chains, j)) != NULL)
				site_add_chain(s, h->chains.keys[2 * j],
				    h->chains.keys[2 * j + 1], c, c->hits);
		s->chains_other += h->chains_other;
	}
}

/* A tally of hits whose writer accessed elsewhere: kept apart. */
static int
spurious(const struct rtally *y)
{
	return y->has_writer && y->writer.kind == WP_KIND_SPURIOUS;
}

/*
 * Writer sites from in-kernel tallies, into sites (keyed as the
 * samples' are): every write, each of its writer.
 */
static void
tally_sites(struct rtarget *t, struct wp_hmap *sites)
{
	struct rtally *y;
	struct rsite *s;
	uint64_t wip, k1, k2;
	size_t i;
	int isnew;

	wp_hmap_init(sites, sizeof(struct rsite));
	for (i = 0; i < t->tallies.cap; i++) {
		if ((y = wp_hmap_slot(&t->tallies, i)) == NULL || spurious(y))
			continue;
		/* none when no instruction wrote */
		wip = y->writer.has_writer_ip ? y->writer.writer_ip : 0;
		report_site_key(y->ip, wip, 0, &k1, &k2);
		s = wp_hmap_put(sites, k1, k2, &isnew);
		if (isnew) {
			s->trap = y->ip;
			s->wip = wip;
			s->kind = y->writer.kind;
			s->has_writer = y->has_writer;
			wp_writer_in_copy(&s->writer, &y->writer);
		}
		s->hits += y->hits;
		s->matched += y->matched;
		if (y->chain != NULL)
			site_add_chain(s, y->k1, y->k2, y->chain, y->hits);
		s->conf[y->has_writer ? y->writer.conf : WP_CONF_UNKNOWN] +=
		    y->hits;
	}
	sampled_chains(t, sites);
}

/* Threads and their hits from the tallies: every write of each. */
static void
tally_threads(struct rtarget *t)
{
	struct rtally *y;
	size_t i, k;

	t->nthr = 0;
	t->other_thread_hits = 0;
	t->tallied_hits = 0;
	t->matched_hits = 0;
	for (i = 0; i < t->tallies.cap; i++) {
		if ((y = wp_hmap_slot(&t->tallies, i)) == NULL || spurious(y))
			continue;
		t->tallied_hits += y->hits;
		t->matched_hits += y->matched;
		for (k = 0; k < t->nthr && t->thr[k].tid != y->tid; k++)
			;
		if (k < t->nthr)
			t->thr[k].hits += y->hits;
		else if (t->nthr < MAXTHREADS) {
			t->thr[t->nthr].tid = y->tid;
			t->thr[t->nthr++].hits = y->hits;
		} else
			t->other_thread_hits += y->hits;
	}
}

/* The entry of id in the observation's entries e[0..n), or NULL. */
/* Hits whose writer is of kind k: sampled, or tallied. */
static uint64_t
kind_hits(const struct rtarget *t, int k)
{
	struct rtally *y;
	uint64_t n = 0;
	size_t i;

	if (!t->tallied)
		return t->kinds[k];
	for (i = 0; i < t->tallies.cap; i++)
		if ((y = wp_hmap_slot(&t->tallies, i)) != NULL &&
		    y->has_writer && y->writer.kind == k)
			n += y->hits;
	return n;
}

static const struct wp_obs_entry_pass *
obs_entry(const struct wp_obs_entry_pass *e, size_t n, int id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (e[i].id == id)
			return &e[i];
	return NULL;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return WP_ORDER(x, y);
}

/* How long the leaf went unwatched at each re-arm, over the bindings. */
static void
view_rearm(struct rtarget *t)
{
	struct rrearm *a = &t->rearm;
	int64_t *v = wp_xcalloc(t->nbinds + 1, sizeof *v);
	size_t i, n = 0;

	memset(a, 0, sizeof *a);
	for (i = 0; i < t->nbinds; i++) {
		if (t->binds[i].rearm_ns >= 0)
			v[n++] = t->binds[i].rearm_ns;
		a->held += t->binds[i].held;
		a->missed += t->binds[i].missed == 1;
	}
	qsort(v, n, sizeof *v, cmp_i64);
	if ((a->measured = n) > 0) {
		a->min = v[0];
		a->median = v[n / 2];
		a->p90 = v[(n * 9) / 10];
		a->max = v[n - 1];
	}
	free(v);
}

static void
view_target(struct report *r, struct rtarget *t)
{
	const struct wp_obs_entry_pass *armed;
	struct wp_hmap *sites = &t->sites;
	struct rsite *s;
	size_t i, n = 0;
	int c;

	t->obs = obs_entry(r->observation.targets, r->observation.ntargets,
	    t->id);
	t->obs_follow = obs_entry(r->observation.follows,
	    r->observation.nfollows, t->id);
	/* the armed record's value (streams since it carries one) */
	armed = obs_entry(r->armed.initial, r->armed.ninitial, t->id);
	t->initial = armed != NULL && armed->initial_value.type != -1 ?
	    &armed->initial_value : &t->rec.initial_value;
	if ((t->tallied = t->tallies.n > 0)) {
		tally_sites(t, &t->tsites);
		tally_threads(t);
		sites = &t->tsites;
	}
	t->conditioned = r->armed.condition.text != NULL && t->tallied;
	t->read_hits = kind_hits(t, WP_KIND_READ);
	t->write_hits = (t->tallied ? t->tallied_hits : t->hits) -
	    t->read_hits;
	t->spurious_hits = kind_hits(t, WP_KIND_SPURIOUS);
	qsort(t->thr, t->nthr, sizeof *t->thr, cmp_thr);
	view_rearm(t);
	t->sorted = wp_xcalloc(sites->n + 1, sizeof *t->sorted);
	for (i = 0; i < sites->cap; i++)
		if ((s = wp_hmap_slot(sites, i)) != NULL) {
			t->sorted[n++] = s;
			view_chains(s, r->maxchains);
			chain_notes(s, r->notes);
			s->worst = WP_CONF_EXACT;
			for (c = 0; c < WP_NCONFS; c++)
				if (s->conf[c] > 0)
					s->worst = c;
		}
	qsort(t->sorted, n, sizeof *t->sorted, cmp_site);
	t->nsorted = n;
}

static void
reason(struct report *r, enum wp_bound why)
{
	r->reasons[r->nreasons++] = why;
}

/*
 * Whether a rep string instruction wrote under a data breakpoint (perf
 * or bpf): a CPU with fast strings traps once for several elements.
 */
static int
rep_traps(const struct report *r)
{
	const char *b = r->backend;
	const struct rsite *s;
	const struct rtally *y;
	size_t i, j;

	if (r->tracer != NULL || b == NULL ||
	    (strcmp(b, wp_backend_names[WP_BK_PERF]) != 0 &&
	    strcmp(b, wp_backend_names[WP_BK_BPF]) != 0))
		return 0;
	for (i = 0; i < r->nt; i++) {
		for (j = 0; j < r->t[i].sites.cap; j++)
			if ((s = wp_hmap_slot(&r->t[i].sites, j)) != NULL &&
			    s->has_writer && wp_x86_text_rep_store(s->writer.insn))
				return 1;
		for (j = 0; j < r->t[i].tallies.cap; j++)
			if ((y = wp_hmap_slot(&r->t[i].tallies, j)) != NULL &&
			    y->has_writer && wp_x86_text_rep_store(y->writer.insn))
				return 1;
	}
	return 0;
}

static void
lower_bound_reasons(struct report *r)
{
	const struct wp_obs_pass *o = &r->observation;
	const char *stop = wp_field_str(&o->stop_reason);
	const unsigned window = 1U << WP_PARTIAL_REBIND_WINDOW;
	const unsigned quiet = 1U << WP_PARTIAL_QUIET;
	const unsigned dropped = 1U << WP_PARTIAL_PAGES_DROPPED;
	const unsigned shared = 1U << WP_PARTIAL_PAGE_WINDOWS_SHARED;
	const unsigned async = 1U << WP_PARTIAL_ASYNC_IO;
	const unsigned apart = window | quiet | dropped | shared | async;

	if (!o->present)
		reason(r, WP_BOUND_INCOMPLETE);
	if (r->lost > 0 || r->stream[RS_LOST_RECORDS] > 0 || (o->present &&
	    (!wp_field_bool(&o->lost_known) ||
	    wp_field_int(&o->lost_total) > 0)))
		reason(r, WP_BOUND_LOST);
	if (wp_field_bool(&o->truncated_by_max_events) &&
	    !wp_field_bool(&o->tallied))
		reason(r, WP_BOUND_TRUNCATED);
	/* the rebind window, quiet breakpoints, pages let go or given back
	   to a system call: no thread's */
	if (wp_field_bool(&o->partial) &&
	    (o->partial_reasons == 0 || (o->partial_reasons & ~apart) != 0))
		reason(r, WP_BOUND_PARTIAL);
	if (o->partial_reasons & window)
		reason(r, WP_BOUND_REBIND_WINDOW);
	if (o->partial_reasons & quiet)
		reason(r, WP_BOUND_QUIET);
	if (o->partial_reasons & dropped)
		reason(r, WP_BOUND_PAGES_DROPPED);
	if (o->partial_reasons & shared)
		reason(r, WP_BOUND_PAGE_WINDOWS);
	if (o->partial_reasons & async)
		reason(r, WP_BOUND_ASYNC_IO);
	if (stop && strcmp(stop, wp_stop_names[WP_STOP_OUTPUT_CLOSED]) == 0)
		reason(r, WP_BOUND_OUTPUT_CLOSED);
	if (r->malformed > 0)
		reason(r, WP_BOUND_MALFORMED);
	if (wp_field_int(&o->unmodeled_stores) > 0)
		reason(r, WP_BOUND_UNMODELED);
	if (rep_traps(r))
		reason(r, WP_BOUND_REP_TRAPS);
	if (r->nreasons == 0 && wp_field_bool(&o->counts_are_lower_bound))
		reason(r, WP_BOUND_WP_ARM);
}

/*
 * Whether t's counts are a lower bound: any of the report's reasons,
 * but pages let go only where one of them was t's (the observation
 * says so per target, on the page backend).
 */
static int
target_lower(const struct report *r, const struct rtarget *t)
{
	const struct wp_field *own = t->obs != NULL ?
	    &t->obs->pages_dropped : NULL;
	size_t i;

	for (i = 0; i < r->nreasons; i++)
		if (r->reasons[i] != WP_BOUND_PAGES_DROPPED ||
		    own == NULL || own->text == NULL || wp_field_int(own) > 0)
			return 1;
	return 0;
}

/*
 * How the backend of a tracing watch counted the writes, as its
 * observation's own object says, or NULL (see struct report's tracer).
 */
static const char *
tracer(const struct report *r)
{
	if (r->observation.has_ptrace)
		return "single-stepping";
	if (r->observation.has_page)
		return "page faults";
	return NULL;
}

int
report_tallies_at_end(const struct report *r)
{
	const char *b = wp_field_str(&r->armed.backend);
	const char *where = wp_field_str(&r->armed.condition_where);

	if (tracer(r) != NULL || (b != NULL &&
	    (strcmp(b, wp_backend_names[WP_BK_PTRACE]) == 0 ||
	    strcmp(b, wp_backend_names[WP_BK_PAGE]) == 0)))
		return 1;
	return where != NULL && strcmp(where, "wp-arm") == 0;
}

void
report_view(struct report *r, long malformed)
{
	size_t i;

	r->malformed = malformed;
	r->backend = r->observation.present ?
	    wp_field_str(&r->observation.backend) :
	    wp_field_str(&r->armed.backend);
	r->tracer = tracer(r);
	r->kernel_tallies = !report_tallies_at_end(r);
	/* perf and bpf cannot hold the threads for the values' reads */
	r->snapshot_caveat = r->tracer != NULL ? NULL : "values read as "
	    "the threads ran, apart from the hits: latest - initial need "
	    "not be the count";
	r->nreasons = 0;
	memset(r->notes, 0, sizeof r->notes);
	lower_bound_reasons(r);
	for (i = 0; i < r->nt; i++) {
		view_target(r, &r->t[i]);
		r->t[i].lower = target_lower(r, &r->t[i]);
	}
}
