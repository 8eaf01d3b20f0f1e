/*
 * The aggregate of a stream: per target, the writer sites, threads,
 * bindings and a bounded set of samples, in memory that does not grow
 * with the number of hits.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "reader.h"
#include "report.h"
#include "util.h"

void
report_init(struct report *r, size_t maxsamples, size_t maxchains)
{
	memset(r, 0, sizeof *r);
	r->maxsamples = maxsamples;
	r->maxchains = maxchains;
	wp_hmap_init(&r->comms, sizeof(struct rcomm));
}

static void
free_target(struct rtarget *t)
{
	size_t j;

	wp_watch_pass_free(&t->rec);
	sites_free(&t->sites);
	for (j = 0; j < t->tallies.cap; j++) {
		struct rtally *y = wp_hmap_slot(&t->tallies, j);

		if (y != NULL) {
			wp_writer_in_free(&y->writer);
			if (y->chain != NULL)
				chain_free(y->chain);
			free(y->chain);
		}
	}
	wp_hmap_free(&t->tallies);
	for (j = 0; j < t->nsamples; j++) {
		wp_writer_in_free(&t->samples[j].writer);
		wp_value_in_free(&t->samples[j].value);
	}
	free(t->samples);
	last_free(t);
	free(t->binds);
	free(t->sorted);
	if (t->tallied)
		sites_free(&t->tsites);
}

void
report_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nt; i++)
		free_target(&r->t[i]);
	free(r->t);
	wp_hmap_free(&r->comms);
	wp_session_pass_free(&r->session);
	wp_armed_pass_free(&r->armed);
	wp_obs_pass_free(&r->observation);
	access_free(r);
	chains_done();
	memset(r, 0, sizeof *r);
}

int
report_complete(const struct report *r)
{
	return r->observation.present;
}

const char *
report_comm(const struct report *r, int64_t tid)
{
	const struct rcomm *c = wp_hmap_get(&r->comms, (uint64_t)tid, 0);

	return c != NULL ? c->comm : NULL;
}

static struct rtarget *
target(struct report *r, int id)
{
	return (struct rtarget *)wp_find_int(r->t, r->nt, sizeof *r->t,
	    offsetof(struct rtarget, id), id);
}

/*
 * When the samples are full and a writer without a sample appears, the
 * latest sample of the writer with the most samples makes room, so that
 * every writer keeps at least one (while there are enough).
 */
static struct rsample *
evict(struct rtarget *t)
{
	struct rsite *most = NULL, *s;
	struct rsample *sm;
	size_t i;

	for (i = 0; i < t->sites.cap; i++)
		if ((s = wp_hmap_slot(&t->sites, i)) != NULL &&
		    s->nsamples > 1 &&
		    (most == NULL || s->nsamples > most->nsamples))
			most = s;
	if (most == NULL)
		return NULL;
	for (i = t->nsamples; i-- > 0;) {
		sm = &t->samples[i];
		if (sm->trap != most->trap || sm->wip != most->wip ||
		    sm->kind != most->kind)
			continue;
		wp_writer_in_free(&sm->writer);
		wp_value_in_free(&sm->value);
		most->nsamples--;
		memmove(sm, sm + 1, (t->nsamples - i - 1) * sizeof *sm);
		return &t->samples[t->nsamples - 1];
	}
	return NULL;
}

static void
count_thread(struct rtarget *t, int tid)
{
	size_t i;

	for (i = 0; i < t->nthr; i++)
		if (t->thr[i].tid == tid) {
			t->thr[i].hits++;
			return;
		}
	if (t->nthr < MAXTHREADS) {
		t->thr[t->nthr].tid = tid;
		t->thr[t->nthr++].hits = 1;
	} else
		t->other_thread_hits++;
}

/*
 * Where hit h's write landed in target t, into sample sm: its offset
 * from where the target was (a chain's leaf then, else the target
 * record's address).
 */
static void
sample_store(const struct rtarget *t, const struct wp_hit_in *h,
    struct rsample *sm)
{
	const char *a = wp_field_str(&t->rec.runtime_addr);
	uint64_t base = h->has_addr ? h->addr : 0;

	if (!h->has_addr && (a == NULL || wp_parse_u64(a, &base) == -1))
		return;
	if (!h->has_store || h->store_addr < base)
		return;
	sm->has_store = 1;
	sm->store_off = h->store_addr - base;
	sm->store_len = h->store_len;
}

static void
keep_sample(struct report *r, struct rtarget *t, struct rsite *s,
    const struct wp_hit_in *h, int64_t tid, int64_t tns)
{
	struct rsample *sm = NULL;

	if (t->nsamples < r->maxsamples) {
		if (t->samples == NULL)
			t->samples = wp_xcalloc(r->maxsamples,
			    sizeof *t->samples);
		sm = &t->samples[t->nsamples++];
	} else {
		t->samples_truncated = 1;
		if (s->nsamples == 0)
			sm = evict(t);
	}
	if (sm == NULL)
		return;
	sm->trap = s->trap;
	sm->wip = s->wip;
	sm->kind = s->kind;
	sm->tid = tid;
	sm->time_ns = tns;
	sm->has_writer = wp_rec_read_writer(h, &sm->writer, 1) == 0;
	sm->has_value = wp_rec_read_value(h, &sm->value) == 0;
	sm->has_store = 0;
	sample_store(t, h, sm);
	s->nsamples++;
}

int
report_counts(const struct rtarget *t, const struct wp_hit_in *h)
{
	return !t->follow || h->role != WP_ROLE_POINTER;
}

/* A hit of a follow chain on a pointer, or on the leaf of a binding. */
static int
follow_hit(struct rtarget *t, const struct wp_hit_in *h)
{
	size_t i;

	if (!report_counts(t, h)) {
		t->ptr_hits++;
		return 1;
	}
	if (h->has_generation)
		for (i = t->nbinds; i-- > 0;)
			if (t->binds[i].generation == h->generation) {
				t->binds[i].leaf_hits++;
				break;
			}
	return 0;
}

void
sites_free(struct wp_hmap *sites)
{
	struct rsite *s;
	size_t i;

	for (i = 0; i < sites->cap; i++)
		if ((s = wp_hmap_slot(sites, i)) != NULL) {
			wp_writer_in_free(&s->writer);
			site_chains_free(s);
			free(s->shown);
		}
	wp_hmap_free(sites);
}

void
report_site_key(uint64_t trap, uint64_t wip, uint64_t tag, uint64_t *k1,
    uint64_t *k2)
{
	*k1 = wip != 0 ? 0 : trap;
	*k2 = wip | tag;
}

/* Where hits of the site of h (whose writer is w) are counted. */
static struct rsite *
site_of(struct rtarget *t, const struct wp_hit_in *h,
    const struct wp_writer_in *w)
{
	struct rsite *s;
	uint64_t wip = w->has_writer_ip ? w->writer_ip : 0, k1, k2;
	int isnew;

	report_site_key(h->ip, wip, (uint64_t)w->kind << 56, &k1, &k2);
	s = wp_hmap_put(&t->sites, k1, k2, &isnew);
	if (isnew) {
		s->trap = h->ip;
		s->wip = wip;
		s->kind = w->kind;
		s->has_writer = wp_rec_read_writer(h, &s->writer, 1) == 0;
	}
	return s;
}

/* Step d, a vote for site s's (a majority vote: the candidate left). */
static void
vote(struct rsite *s, uint64_t d)
{
	s->dvoted++;
	if (s->dvotes == 0) {
		s->dcand = d;
		s->dvotes = 1;
	} else if (s->dcand == d)
		s->dvotes++;
	else
		s->dvotes--;
}

/* The little-endian value of hit h's store bytes (8 at most), or -1. */
static int
store_value(const struct wp_hit_in *h, uint64_t *v)
{
	const char *p = h->store_bytes;
	unsigned b;
	size_t i, n;

	/* a JSON string of two hex digits a byte, its quotes included */
	if (p == NULL || h->nstore_bytes < 4 || *p != '"')
		return -1;
	n = (h->nstore_bytes - 2) / 2;
	if (n == 0 || n > 8 || (int64_t)n != h->store_len)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (sscanf(p + 1 + 2 * i, "%2x", &b) != 1)
			return -1;
		*v |= (uint64_t)b << (8 * i);
	}
	return 0;
}

/*
 * Of a target wider than 8 bytes: the step of hit h in the field its
 * store wrote (from the value that field's previous store left), a vote
 * for its site's.  A store that is no field (wider than 8 bytes, across
 * another, of unknown bytes) leaves the target's fields unknown.
 */
static void
vote_field(struct rtarget *t, struct rsite *s, const struct wp_hit_in *h)
{
	const char *a = wp_field_str(&t->rec.runtime_addr);
	uint64_t base = h->has_addr ? h->addr : 0, off, v;
	struct rfield *f = NULL;
	size_t i;

	if (t->fields_unknown)
		return;
	if (h->flags != 0 || !h->has_store || store_value(h, &v) == -1 ||
	    (!h->has_addr && (a == NULL || wp_parse_u64(a, &base) == -1)) ||
	    h->store_addr < base) {
		t->fields_unknown = 1;
		return;
	}
	off = h->store_addr - base;
	for (i = 0; i < t->nfields && f == NULL; i++) {
		if (t->fields[i].off == off && t->fields[i].len == h->store_len)
			f = &t->fields[i];
		else if (off < t->fields[i].off + (uint64_t)t->fields[i].len &&
		    t->fields[i].off < off + (uint64_t)h->store_len) {
			t->fields_unknown = 1;	/* across another field */
			return;
		}
	}
	if (f == NULL) {
		if (t->nfields == MAXFIELDS) {
			t->fields_unknown = 1;
			return;
		}
		f = &t->fields[t->nfields++];
		f->off = off;
		f->len = h->store_len;
		f->first = v;
	} else
		vote(s, v - f->prev);
	f->prev = v;
	f->stores++;
	if (s->field == 0)
		s->field = (int)(f - t->fields) + 1;
	else if (s->field != (int)(f - t->fields) + 1)
		s->field = -1;
}

/*
 * The step of hit h (from the value its previous hit left), a vote for
 * its site's: the one that most of the site's hits make wins where
 * three in four do (a majority vote: table-watch.c's lost updates).
 */
static void
vote_step(struct rtarget *t, struct rsite *s, const struct wp_hit_in *h)
{
	if (t->len > 8) {
		vote_field(t, s, h);
		return;
	}
	if (!h->has_new_value || h->flags != 0) {
		t->steps_unknown = 1;
		return;
	}
	if (t->has_prev)
		vote(s, h->new_value - t->prev);
	t->prev = h->new_value;
	t->has_prev = 1;
}

static void
add_hit(struct report *r, const struct wp_record *rec)
{
	struct wp_hit_in *h = &r->hit;
	struct wp_writer_in w;
	struct rtarget *t;
	struct rsite *s;
	int64_t tid, tns;
	int has_w;

	r->stream[RS_HITS]++;
	wp_rec_read_hit(rec, h);
	if (!h->has_target || (t = target(r, h->target)) == NULL) {
		r->stream[RS_ORPHAN_HITS]++;
		return;
	}
	if (t->follow && follow_hit(t, h))
		return;
	tid = h->has_tid ? h->tid : -1;
	tns = h->has_time ? h->time_ns : 0;
	if (h->has_regs)
		r->regs_seen = 1;
	has_w = wp_rec_read_writer(h, &w, 0) == 0;
	if (has_w && w.kind >= 0 && w.kind < WP_NKINDS)
		t->kinds[w.kind]++;
	if (has_w && w.kind == WP_KIND_SPURIOUS)
		return;		/* no access of the target: said apart */
	t->hits++;
	if (h->has_time) {
		if (!t->have_time || tns < t->first)
			t->first = tns;
		if (!t->have_time || tns > t->last)
			t->last = tns;
		t->have_time = 1;
	}
	s = site_of(t, h, &w);
	s->hits++;
	vote_step(t, s, h);
	site_add_hit_chain(s, h);
	/* the confidence of this hit's writer, not the first one's */
	s->conf[has_w ? w.conf : WP_CONF_UNKNOWN]++;
	/* a change no thread made (another process's) is no thread's */
	if (!(h->flags & WP_HIT_UNEXPLAINED))
		count_thread(t, (int)tid);
	keep_sample(r, t, s, h, tid, tns);
}

static void
add_rebind(struct report *r, const struct wp_record *rec)
{
	struct wp_rebind_in in;
	struct rtarget *t;
	struct rbind *b;

	wp_rec_read_rebind(rec, &in);
	if (!in.has_target || (t = target(r, in.target)) == NULL ||
	    !t->follow)
		return;
	if (t->nbinds == 2 * MAXBINDS) {
		/* keep the first MAXBINDS bindings and the latest MAXBINDS */
		memmove(&t->binds[MAXBINDS], &t->binds[MAXBINDS + 1],
		    (MAXBINDS - 1) * sizeof *t->binds);
		t->nbinds--;
		t->binds_truncated = 1;
	}
	if (t->binds == NULL)
		t->binds = wp_xcalloc(2 * MAXBINDS, sizeof *t->binds);
	b = &t->binds[t->nbinds++];
	memset(b, 0, sizeof *b);
	b->generation = in.generation;
	b->leaf = in.new_leaf;
	b->time_ns = in.time_ns;
	b->rearm_ns = in.rearm_ns;
	b->held = in.held;
	b->missed = in.missed;
	memcpy(b->binding, in.binding, sizeof b->binding);
}

static void
add_target(struct report *r, const struct wp_record *rec)
{
	struct rtarget *t;
	int id;

	if (wp_rec_read_id(rec, &id) == -1 || target(r, id) != NULL)
		return;
	r->t = wp_xrealloc(r->t, (r->nt + 1) * sizeof *r->t);
	t = &r->t[r->nt++];
	memset(t, 0, sizeof *t);
	t->id = id;
	t->follow = rec->kind == WP_REC_FOLLOW;
	wp_rec_pass_target(rec, &t->rec);
	t->len = wp_field_int(&t->rec.len);
	wp_hmap_init(&t->sites, sizeof(struct rsite));
	wp_hmap_init(&t->tallies, sizeof(struct rtally));
}

/*
 * Tallies are cumulative: the latest of each writer and thread holds.
 * A follow chain's are its leaf's, as its hits are.
 */
static void
add_tally(struct report *r, const struct wp_record *rec)
{
	struct wp_hit_in *h = &r->hit;
	struct rtarget *t;
	struct rtally *y;
	uint64_t k1 = 0, k2 = 0, tid;
	int isnew, chain;

	wp_rec_read_hit(rec, h);
	if (!h->has_target || (t = target(r, h->target)) == NULL ||
	    !report_counts(t, h))
		return;
	tid = h->has_tid ? (uint64_t)(int64_t)h->tid : (uint64_t)-1;
	/* with --callchain, a tally per writer, thread and chain */
	chain = chain_keys(h, &k1, &k2);
	y = wp_hmap_put(&t->tallies, chain ? h->ip ^ k1 : h->ip, chain ?
	    tid ^ k2 : tid, &isnew);
	y->ip = h->ip;
	y->tid = (int)tid;
	y->hits = h->hits;
	y->matched = h->matched;
	if (isnew && chain) {
		y->chain = wp_xmalloc(sizeof *y->chain);
		chain_read(h, y->chain);
		y->k1 = k1;
		y->k2 = k2;
	}
	if (!y->has_writer)
		y->has_writer = wp_rec_read_writer(h, &y->writer, 1) == 0;
}

/* A last_write record (wp-arm --last), of a target the stream has. */
static void
add_last(struct report *r, const struct wp_record *rec)
{
	struct rtarget *t;

	wp_rec_read_hit(rec, &r->hit);
	if (r->hit.has_target && (t = target(r, r->hit.target)) != NULL)
		last_add(r, &r->hit, t);
}

/* A thread record: its name, the first given, for the first MAXCOMMS. */
static void
add_thread(struct report *r, const struct wp_record *rec)
{
	struct wp_thread_in th;
	struct rcomm *c;
	int isnew;

	r->stream[RS_THREADS]++;
	wp_rec_read_thread(rec, &th);
	if (!th.has_tid || !th.has_comm ||
	    (r->comms.n >= MAXCOMMS && report_comm(r, th.tid) == NULL))
		return;
	c = wp_hmap_put(&r->comms, (uint64_t)th.tid, 0, &isnew);
	if (isnew)
		memcpy(c->comm, th.comm, sizeof c->comm);
}

/* A count record: the writes the backend counted so far of a target. */
static void
add_count(struct report *r, const struct wp_record *rec)
{
	struct wp_count_in c;
	struct rtarget *t;

	wp_rec_read_count(rec, &c);
	if (!c.has_target || !c.has_counted || c.pointer ||
	    (t = target(r, c.target)) == NULL)
		return;
	t->has_live_counted = 1;
	t->live_counted = c.counted;
}

void
report_add(struct report *r, const struct wp_record *rec)
{
	r->stream[RS_RECORDS]++;
	if (rec->kind == WP_REC_HIT)
		add_hit(r, rec);
	else if (rec->kind == WP_REC_SESSION) {
		/* the first session and armed record, the last observation */
		if (!r->session.present)
			wp_rec_pass_session(rec, &r->session);
	}
	else if (rec->kind == WP_REC_TARGET ||
	    rec->kind == WP_REC_FOLLOW)
		add_target(r, rec);
	else if (rec->kind == WP_REC_REBIND)
		add_rebind(r, rec);
	else if (rec->kind == WP_REC_TALLY)
		add_tally(r, rec);
	else if (rec->kind == WP_REC_LAST_WRITE)
		add_last(r, rec);
	else if (rec->kind == WP_REC_ARMED) {
		if (!r->armed.present)
			wp_rec_pass_armed(rec, &r->armed);
	} else if (rec->kind == WP_REC_OBSERVATION)
		wp_rec_pass_observation(rec, &r->observation);
	else if (rec->kind == WP_REC_LOST) {
		r->stream[RS_LOST_RECORDS]++;
		r->lost += wp_rec_read_lost(rec);
	} else if (rec->kind == WP_REC_THREAD)
		add_thread(r, rec);
	else if (rec->kind == WP_REC_SITE)
		access_site(r, rec);
	else if (rec->kind == WP_REC_ACCESS)
		access_add(r, rec);
	else {
		/* a count record: the live view's, not the report's */
		if (rec->kind == WP_REC_COUNT)
			add_count(r, rec);
		r->stream[RS_OTHERS]++;
	}
}
