#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "record.h"
#include "report.h"
#include "util.h"

#define MAXTHREADS 256

enum { C_EXACT, C_HIGH, C_MEDIUM, C_LOW, C_UNKNOWN, C_N };
static const char *const conf_names[C_N] = {
	"exact", "high", "medium", "low", "unknown"
};

struct rsite {
	uint64_t	 trap, wip;
	int		 used;
	char		*writer;	/* raw JSON of the first hit's writer */
	uint64_t	 hits;
	uint64_t	 conf[C_N];
	size_t		 nsamples;
};

struct rthread {
	int		 tid;
	uint64_t	 hits;
};

struct rsample {
	uint64_t	 skey_trap, skey_wip;	/* the site it came from */
	int64_t		 tid;
	int64_t		 time_ns;
	uint64_t	 trap;
	char		*writer;
	char		*value;
};

#define MAXBINDS 1024

struct rbind {
	uint64_t	 generation;
	char		 binding[16];
	uint64_t	 leaf;
	int64_t		 time_ns;
	uint64_t	 leaf_hits;
};

struct rtarget {
	int		 id;
	int		 follow;	/* a --follow chain: hits are the leaf's */
	json_object	*rec;
	uint64_t	 ptr_hits;
	struct rbind	*binds;
	size_t		 nbinds;
	int		 binds_truncated;
	uint64_t	 hits;
	int64_t		 first, last;
	int		 have_time;
	struct rsite	*sites;
	size_t		 nsites, cap;
	struct rthread	 thr[MAXTHREADS];
	size_t		 nthr;
	uint64_t	 other_thread_hits;
	struct rsample	*samples;
	size_t		 nsamples;
	int		 samples_truncated;
};

struct wp_report {
	json_object	*session, *armed, *observation;
	struct rtarget	*t;
	size_t		 nt;
	size_t		 maxsamples;
	uint64_t	 records, hits, orphan_hits, lost_records, lost;
	uint64_t	 thread_records, other_records;
	int		 regs_seen;
};

struct wp_report *
wp_report_new(size_t maxsamples)
{
	struct wp_report *r = wp_xcalloc(1, sizeof *r);

	r->maxsamples = maxsamples;
	return r;
}

void
wp_report_free(struct wp_report *r)
{
	size_t i, j;

	for (i = 0; i < r->nt; i++) {
		struct rtarget *t = &r->t[i];

		json_object_put(t->rec);
		for (j = 0; j < t->cap; j++)
			free(t->sites[j].writer);
		free(t->sites);
		for (j = 0; j < t->nsamples; j++) {
			free(t->samples[j].writer);
			free(t->samples[j].value);
		}
		free(t->samples);
		free(t->binds);
	}
	free(r->t);
	json_object_put(r->session);
	json_object_put(r->armed);
	json_object_put(r->observation);
	free(r);
}

int
wp_report_complete(const struct wp_report *r)
{
	return r->observation != NULL;
}

static struct rtarget *
target(struct wp_report *r, int id)
{
	size_t i;

	for (i = 0; i < r->nt; i++)
		if (r->t[i].id == id)
			return &r->t[i];
	return NULL;
}

static char *
dupn(const char *s, size_t n)
{
	char *p = wp_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static size_t
site_hash(uint64_t a, uint64_t b, size_t cap)
{
	return (size_t)(((a ^ (b * 0x9E3779B97F4A7C15ULL)) *
	    0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static struct rsite *
site(struct rtarget *t, uint64_t trap, uint64_t wip)
{
	struct rsite *old;
	size_t i, h, ocap;

	if (t->nsites * 2 >= t->cap) {
		old = t->sites;
		ocap = t->cap;
		t->cap = t->cap ? t->cap * 2 : 16;
		t->sites = wp_xcalloc(t->cap, sizeof *t->sites);
		for (i = 0; i < ocap; i++) {
			if (!old[i].used)
				continue;
			h = site_hash(old[i].trap, old[i].wip, t->cap);
			while (t->sites[h].used)
				h = (h + 1) & (t->cap - 1);
			t->sites[h] = old[i];
		}
		free(old);
	}
	h = site_hash(trap, wip, t->cap);
	while (t->sites[h].used) {
		if (t->sites[h].trap == trap && t->sites[h].wip == wip)
			return &t->sites[h];
		h = (h + 1) & (t->cap - 1);
	}
	t->sites[h].used = 1;
	t->sites[h].trap = trap;
	t->sites[h].wip = wip;
	t->nsites++;
	return &t->sites[h];
}

/*
 * When the samples are full and a writer without a sample appears, the
 * latest sample of the writer with the most samples makes room, so that
 * every writer keeps at least one (while there are enough).
 */
static struct rsample *
evict(struct rtarget *t)
{
	struct rsite *most = NULL;
	struct rsample *sm;
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->sites[i].used && t->sites[i].nsamples > 1 &&
		    (most == NULL || t->sites[i].nsamples > most->nsamples))
			most = &t->sites[i];
	if (most == NULL)
		return NULL;
	for (i = t->nsamples; i-- > 0;) {
		sm = &t->samples[i];
		if (sm->skey_trap != most->trap || sm->skey_wip != most->wip)
			continue;
		free(sm->writer);
		free(sm->value);
		most->nsamples--;
		memmove(sm, sm + 1, (t->nsamples - i - 1) * sizeof *sm);
		return &t->samples[t->nsamples - 1];
	}
	return NULL;
}

static int
conf_rank(const char *v, size_t n)
{
	int i;

	for (i = 0; i < C_N; i++)
		if (n == strlen(conf_names[i]) + 2 &&
		    memcmp(v + 1, conf_names[i], n - 2) == 0)
			return i;
	return C_UNKNOWN;
}

static void
add_hit(struct wp_report *r, struct wp_record *rec)
{
	struct rtarget *t;
	struct rsite *s;
	struct rsample *sm;
	const char *w = NULL, *v = NULL, *x;
	size_t wl = 0, vl = 0, xl, i;
	int64_t id = -1, tid = -1, tns = 0;
	uint64_t trap = 0, wip = 0;
	int have_t;

	r->hits++;
	if (wp_record_int(rec, "target", &id) == -1 ||
	    (t = target(r, (int)id)) == NULL) {
		r->orphan_hits++;
		return;
	}
	if (t->follow && wp_record_raw(rec, "role", &x, &xl) == 0 &&
	    xl == 9 && memcmp(x, "\"pointer\"", 9) == 0) {
		t->ptr_hits++;
		return;
	}
	if (t->follow && wp_record_int(rec, "generation", &tns) == 0)
		for (i = t->nbinds; i-- > 0;)
			if (t->binds[i].generation == (uint64_t)tns) {
				t->binds[i].leaf_hits++;
				break;
			}
	wp_record_int(rec, "tid", &tid);
	have_t = wp_record_int(rec, "time_ns", &tns) == 0;
	wp_record_hex(rec, "ip", &trap);
	if (wp_record_raw(rec, "regs", &x, &xl) == 0)
		r->regs_seen = 1;
	if (wp_record_raw(rec, "writer", &w, &wl) == 0 && wl > 0 && w[0] == '{') {
		if (wp_json_member(w, wl, "writer_ip", &x, &xl) == 0)
			wp_json_hexval(x, xl, &wip);
	} else
		w = NULL;
	if (wp_record_raw(rec, "written_value", &v, &vl) == -1)
		v = NULL;
	t->hits++;
	if (have_t) {
		if (!t->have_time || tns < t->first)
			t->first = tns;
		if (!t->have_time || tns > t->last)
			t->last = tns;
		t->have_time = 1;
	}
	s = site(t, trap, wip);
	if (s->writer == NULL)
		s->writer = w ? dupn(w, wl) : wp_xstrdup("null");
	s->hits++;
	if (w != NULL && wp_json_member(w, wl, "confidence", &x, &xl) == 0)
		s->conf[conf_rank(x, xl)]++;
	else
		s->conf[C_UNKNOWN]++;
	for (i = 0; i < t->nthr; i++)
		if (t->thr[i].tid == (int)tid)
			break;
	if (i < t->nthr)
		t->thr[i].hits++;
	else if (t->nthr < MAXTHREADS) {
		t->thr[t->nthr].tid = (int)tid;
		t->thr[t->nthr++].hits = 1;
	} else
		t->other_thread_hits++;
	sm = NULL;
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
	if (sm != NULL) {
		sm->skey_trap = trap;
		sm->skey_wip = wip;
		sm->tid = tid;
		sm->time_ns = tns;
		sm->trap = trap;
		sm->writer = w ? dupn(w, wl) : NULL;
		sm->value = v ? dupn(v, vl) : NULL;
		s->nsamples++;
	}
}

static void
add_rebind(struct wp_report *r, struct wp_record *rec)
{
	struct rtarget *t;
	struct rbind *b;
	const char *v;
	size_t vl;
	int64_t id, g = 0, tns = 0;
	uint64_t leaf = 0;

	if (wp_record_int(rec, "target", &id) == -1 ||
	    (t = target(r, (int)id)) == NULL || !t->follow)
		return;
	if (t->nbinds == MAXBINDS) {
		/* keep the first and the latest bindings */
		memmove(&t->binds[1], &t->binds[2],
		    (MAXBINDS - 2) * sizeof *t->binds);
		t->nbinds--;
		t->binds_truncated = 1;
	}
	if (t->binds == NULL)
		t->binds = wp_xcalloc(MAXBINDS, sizeof *t->binds);
	b = &t->binds[t->nbinds++];
	memset(b, 0, sizeof *b);
	wp_record_int(rec, "generation", &g);
	wp_record_int(rec, "time_ns", &tns);
	wp_record_hex(rec, "new_leaf", &leaf);
	b->generation = (uint64_t)g;
	b->leaf = leaf;
	b->time_ns = tns;
	if (wp_record_raw(rec, "binding", &v, &vl) == 0 && vl >= 2 &&
	    vl - 2 < sizeof b->binding)
		memcpy(b->binding, v + 1, vl - 2);
}

void
wp_report_add(struct wp_report *r, struct wp_record *rec)
{
	json_object *o;
	int64_t id;

	r->records++;
	if (strcmp(rec->type, "hit") == 0) {
		add_hit(r, rec);
		return;
	}
	if (strcmp(rec->type, "session") == 0) {
		if (r->session == NULL)
			r->session = json_object_get(wp_record_obj(rec));
	} else if (strcmp(rec->type, "target") == 0 ||
	    strcmp(rec->type, "follow") == 0) {
		o = wp_record_obj(rec);
		if (wp_json_get_int(o, "id", &id) == 0 &&
		    target(r, (int)id) == NULL) {
			r->t = wp_xrealloc(r->t, (r->nt + 1) * sizeof *r->t);
			memset(&r->t[r->nt], 0, sizeof *r->t);
			r->t[r->nt].id = (int)id;
			r->t[r->nt].follow = strcmp(rec->type, "follow") == 0;
			r->t[r->nt].rec = json_object_get(o);
			r->nt++;
		}
	} else if (strcmp(rec->type, "rebind") == 0)
		add_rebind(r, rec);
	else if (strcmp(rec->type, "armed") == 0) {
		if (r->armed == NULL)
			r->armed = json_object_get(wp_record_obj(rec));
	} else if (strcmp(rec->type, "observation") == 0) {
		json_object_put(r->observation);
		r->observation = json_object_get(wp_record_obj(rec));
	} else if (strcmp(rec->type, "lost") == 0) {
		r->lost_records++;
		if (wp_record_int(rec, "count", &id) == 0 && id > 0)
			r->lost += (uint64_t)id;
	} else if (strcmp(rec->type, "thread") == 0)
		r->thread_records++;
	else
		r->other_records++;
}

/* ---- the JSON report ---- */

static json_object *
field(json_object *o, const char *k)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v))
		return NULL;
	return json_object_get(v);
}

static json_object *
parse_raw(const char *s)
{
	return s ? json_tokener_parse(s) : NULL;
}

static json_object *
site_json(const struct rsite *s)
{
	json_object *w = parse_raw(s->writer), *o, *c;
	int i, worst = C_EXACT;

	for (i = 0; i < C_N; i++)
		if (s->conf[i] > 0)
			worst = i;
	o = json_object_new_object();
	json_object_object_add(o, "trap_runtime_ip", wp_json_hex(s->trap));
	json_object_object_add(o, "trap_static_ip", field(w, "trap_static_ip"));
	json_object_object_add(o, "writer_runtime_ip",
	    s->wip ? wp_json_hex(s->wip) : NULL);
	json_object_object_add(o, "writer_static_ip",
	    field(w, "writer_static_ip"));
	json_object_object_add(o, "module", field(w, "module"));
	json_object_object_add(o, "writer_function", field(w, "function"));
	json_object_object_add(o, "writer_symbol", field(w, "symbol"));
	json_object_object_add(o, "source", field(w, "source"));
	json_object_object_add(o, "insn", field(w, "insn"));
	json_object_object_add(o, "confidence",
	    json_object_new_string(conf_names[worst]));
	c = json_object_new_object();
	for (i = 0; i < C_N; i++)
		if (s->conf[i] > 0)
			json_object_object_add(c, conf_names[i],
			    json_object_new_uint64(s->conf[i]));
	json_object_object_add(o, "confidence_counts", c);
	json_object_object_add(o, "reason", field(w, "reason"));
	json_object_object_add(o, "caveat", field(w, "caveat"));
	json_object_object_add(o, "hits", json_object_new_uint64(s->hits));
	json_object_put(w);
	return o;
}

static int
cmp_site(const void *a, const void *b)
{
	const struct rsite *x = *(const struct rsite *const *)a;
	const struct rsite *y = *(const struct rsite *const *)b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	if (x->wip != y->wip)
		return x->wip < y->wip ? -1 : 1;
	return (x->trap > y->trap) - (x->trap < y->trap);
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct rthread *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static const char snapshot_caveat[] =
    "snapshots are read before arming and after disarming, not "
    "atomically with the hits";

static json_object *
target_json(struct wp_report *r, struct rtarget *t)
{
	json_object *o = json_object_new_object(), *a, *s, *obs_t = NULL, *x;
	json_object *w, *latest = NULL, *init;
	struct rsite **sorted;
	size_t i, j;

	json_object_object_add(o, "id", json_object_new_int(t->id));
	json_object_object_add(o, "input", field(t->rec, "input"));
	json_object_object_add(o, "runtime_addr", field(t->rec, "runtime_addr"));
	json_object_object_add(o, "static_addr", field(t->rec, "static_addr"));
	json_object_object_add(o, "module", field(t->rec, "module"));
	json_object_object_add(o, "region", field(t->rec, "region"));
	json_object_object_add(o, "perms", field(t->rec, "perms"));
	json_object_object_add(o, "access", field(t->rec, "access"));
	json_object_object_add(o, "len", field(t->rec, "len"));
	init = field(t->rec, "initial_value");
	json_object_object_add(o, "initial_value", init);
	if (r->observation != NULL &&
	    json_object_object_get_ex(r->observation, "targets", &a))
		for (i = 0; i < json_object_array_length(a); i++) {
			x = json_object_array_get_idx(a, i);
			if (json_object_get_int(json_object_object_get(x, "id"))
			    == t->id)
				obs_t = x;
		}
	latest = field(obs_t, "latest_value");
	json_object_object_add(o, "latest_value", latest);
	json_object_object_add(o, "changed", init && latest ?
	    json_object_new_boolean(strcmp(json_object_get_string(init),
	    json_object_get_string(latest)) != 0) : NULL);
	json_object_object_add(o, "snapshot_caveat",
	    json_object_new_string(snapshot_caveat));
	json_object_object_add(o, "accepted_hits", json_object_new_uint64(t->hits));
	json_object_object_add(o, "first_time_ns", t->have_time ?
	    json_object_new_int64(t->first) : NULL);
	json_object_object_add(o, "last_time_ns", t->have_time ?
	    json_object_new_int64(t->last) : NULL);

	qsort(t->thr, t->nthr, sizeof *t->thr, cmp_thr);
	a = json_object_new_array();
	for (i = 0; i < t->nthr; i++) {
		x = json_object_new_object();
		json_object_object_add(x, "tid", json_object_new_int(t->thr[i].tid));
		json_object_object_add(x, "hits",
		    json_object_new_uint64(t->thr[i].hits));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "threads", a);
	json_object_object_add(o, "threads_truncated",
	    json_object_new_boolean(t->other_thread_hits > 0));

	sorted = wp_xcalloc(t->nsites + 1, sizeof *sorted);
	for (i = j = 0; i < t->cap; i++)
		if (t->sites[i].used)
			sorted[j++] = &t->sites[i];
	qsort(sorted, t->nsites, sizeof *sorted, cmp_site);
	a = json_object_new_array();
	for (i = 0; i < t->nsites; i++)
		json_object_array_add(a, site_json(sorted[i]));
	free(sorted);
	json_object_object_add(o, "writer_sites", a);

	a = json_object_new_array();
	for (i = 0; i < t->nsamples; i++) {
		struct rsample *sm = &t->samples[i];

		w = parse_raw(sm->writer);
		s = json_object_new_object();
		json_object_object_add(s, "tid", json_object_new_int64(sm->tid));
		json_object_object_add(s, "time_ns",
		    json_object_new_int64(sm->time_ns));
		json_object_object_add(s, "trap_runtime_ip", wp_json_hex(sm->trap));
		json_object_object_add(s, "writer_static_ip",
		    field(w, "writer_static_ip"));
		json_object_object_add(s, "writer_symbol", field(w, "symbol"));
		json_object_object_add(s, "written_value", parse_raw(sm->value));
		json_object_array_add(a, s);
		json_object_put(w);
	}
	json_object_object_add(o, "samples", a);
	json_object_object_add(o, "samples_truncated",
	    json_object_new_boolean(t->samples_truncated));
	return o;
}

/* A --follow chain: where it points, its history, and its leaf's hits. */
static json_object *
follow_json(struct wp_report *r, struct rtarget *t)
{
	json_object *o = json_object_new_object(), *leaf, *a, *x, *obs_f = NULL;
	const char *drop[] = { "initial_value", "latest_value", "changed",
	    "static_addr", "module", "region", "perms", "runtime_addr", NULL };
	size_t i;

	leaf = target_json(r, t);
	for (i = 0; drop[i] != NULL; i++)
		json_object_object_del(leaf, drop[i]);
	json_object_object_add(o, "id", json_object_new_int(t->id));
	json_object_object_add(o, "input", field(t->rec, "input"));
	json_object_object_add(o, "ptr_slot_addr", field(t->rec, "slot_addr"));
	json_object_object_add(o, "ptr_slot_static_addr",
	    field(t->rec, "slot_static_addr"));
	json_object_object_add(o, "ptr_slot_module", field(t->rec, "slot_module"));
	json_object_object_add(o, "chain_offsets", field(t->rec, "offsets"));
	json_object_object_add(o, "len", field(t->rec, "len"));
	json_object_object_add(o, "access", field(t->rec, "access"));
	json_object_object_add(o, "slots_reserved", field(t->rec, "slots"));
	if (r->observation != NULL &&
	    json_object_object_get_ex(r->observation, "follows", &a))
		for (i = 0; i < json_object_array_length(a); i++) {
			x = json_object_array_get_idx(a, i);
			if (json_object_get_int(json_object_object_get(x, "id"))
			    == t->id)
				obs_f = x;
		}
	if (t->nbinds > 0) {
		struct rbind *b = &t->binds[t->nbinds - 1];

		json_object_object_add(o, "binding_state",
		    json_object_new_string(b->binding));
		json_object_object_add(o, "generation",
		    json_object_new_uint64(b->generation));
		json_object_object_add(o, "active_leaf_addr",
		    b->leaf ? wp_json_hex(b->leaf) : NULL);
	} else {
		json_object_object_add(o, "binding_state", field(t->rec, "binding"));
		json_object_object_add(o, "generation", NULL);
		json_object_object_add(o, "active_leaf_addr",
		    field(t->rec, "leaf_addr"));
	}
	json_object_object_add(o, "rebinds", field(obs_f, "rebinds"));
	json_object_object_add(o, "pointer_slot_hits",
	    json_object_new_uint64(t->ptr_hits));
	json_object_object_add(o, "leaf_hits", json_object_new_uint64(t->hits));
	a = json_object_new_array();
	for (i = 0; i < t->nbinds; i++) {
		x = json_object_new_object();
		json_object_object_add(x, "generation",
		    json_object_new_uint64(t->binds[i].generation));
		json_object_object_add(x, "binding",
		    json_object_new_string(t->binds[i].binding));
		json_object_object_add(x, "leaf_addr", t->binds[i].leaf ?
		    wp_json_hex(t->binds[i].leaf) : NULL);
		json_object_object_add(x, "time_ns",
		    json_object_new_int64(t->binds[i].time_ns));
		json_object_object_add(x, "leaf_hits",
		    json_object_new_uint64(t->binds[i].leaf_hits));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "bindings", a);
	json_object_object_add(o, "bindings_truncated",
	    json_object_new_boolean(t->binds_truncated));
	json_object_object_foreach(leaf, k, v)
		if (json_object_object_get(o, k) == NULL &&
		    strcmp(k, "accepted_hits") != 0 && strcmp(k, "id") != 0)
			json_object_object_add(o, k, json_object_get(v));
	json_object_put(leaf);
	return o;
}

static int
obs_bool(json_object *o, const char *path1, const char *path2)
{
	json_object *x;

	if (o == NULL || !json_object_object_get_ex(o, path1, &x))
		return 0;
	if (path2 != NULL && !json_object_object_get_ex(x, path2, &x))
		return 0;
	return json_object_get_boolean(x);
}

json_object *
wp_report_json(struct wp_report *r, long malformed)
{
	json_object *o, *a, *x, *c, *p, *obs = r->observation, *reasons;
	const char *stop = NULL, *backend = NULL;
	size_t i;
	int lower;

	if (obs != NULL)
		stop = json_object_get_string(json_object_object_get(obs,
		    "stop_reason"));
	if (obs != NULL)
		backend = json_object_get_string(json_object_object_get(obs,
		    "backend"));
	else if (r->armed != NULL)
		backend = json_object_get_string(json_object_object_get(r->armed,
		    "backend"));
	o = json_object_new_object();
	json_object_object_add(o, "schema_version",
	    json_object_new_int(WP_SCHEMA_VERSION));
	json_object_object_add(o, "tool", json_object_new_string("wp"));
	json_object_object_add(o, "tool_version",
	    json_object_new_string(WP_VERSION));
	json_object_object_add(o, "operation",
	    json_object_new_string("live_watch"));
	json_object_object_add(o, "backend",
	    backend ? json_object_new_string(backend) : NULL);
	json_object_object_add(o, "complete", json_object_new_boolean(obs != NULL));
	json_object_object_add(o, "incomplete_reason", obs ? NULL :
	    json_object_new_string("the stream ended without an observation "
	    "record: the watch was killed or is still running"));

	c = json_object_new_object();
	x = json_object_new_object();
	json_object_object_add(x, "collected",
	    json_object_new_boolean(r->armed != NULL || obs != NULL));
	json_object_object_add(c, "per_thread_watchpoints", x);
	x = json_object_new_object();
	json_object_object_add(x, "collected", json_object_new_boolean(
	    r->regs_seen || obs_bool(r->armed, "regs", NULL)));
	json_object_object_add(c, "registers", x);
	x = json_object_new_object();
	json_object_object_add(x, "collected", json_object_new_boolean(
	    obs != NULL && json_object_object_get(obs, "target_alive_after")
	    != NULL));
	json_object_object_add(c, "memory_snapshots", x);
	json_object_object_add(o, "capabilities", c);

	p = json_object_new_object();
	json_object_object_add(p, "pid", field(r->session, "pid"));
	json_object_object_add(p, "start_time", field(r->session, "start_time"));
	json_object_object_add(p, "exe", field(r->session, "exe"));
	json_object_object_add(p, "binary_match",
	    field(r->session, "binary_match"));
	json_object_object_add(p, "pie_slide", field(r->session, "pie_slide"));
	json_object_object_add(p, "slot_limit", field(r->session, "slot_limit"));
	json_object_object_add(p, "alive_after",
	    field(obs, "target_alive_after"));
	json_object_object_add(p, "changed", stop ? json_object_new_boolean(
	    strcmp(stop, "target_exec") == 0) : NULL);
	x = field(r->session, "warnings");
	json_object_object_add(p, "warnings", x ? x : json_object_new_array());
	json_object_object_add(o, "process", p);

	if (obs != NULL) {
		x = json_tokener_parse(json_object_to_json_string(obs));
		json_object_object_del(x, "type");
		json_object_object_del(x, "targets");
	} else
		x = NULL;
	json_object_object_add(o, "observation", x);

	reasons = json_object_new_array();
	if (obs == NULL)
		json_object_array_add(reasons,
		    json_object_new_string("incomplete_stream"));
	if (r->lost > 0 || r->lost_records > 0 ||
	    (obs && !obs_bool(obs, "lost_events", "known")) ||
	    (obs && json_object_get_int64(json_object_object_get(
	    json_object_object_get(obs, "lost_events"), "total")) > 0))
		json_object_array_add(reasons,
		    json_object_new_string("lost_events"));
	if (obs_bool(obs, "truncated_by_max_events", NULL))
		json_object_array_add(reasons,
		    json_object_new_string("truncated_by_max_events"));
	if (obs_bool(obs, "thread_coverage", "partial_coverage"))
		json_object_array_add(reasons,
		    json_object_new_string("partial_thread_coverage"));
	if (stop && strcmp(stop, "output_closed") == 0)
		json_object_array_add(reasons,
		    json_object_new_string("output_closed"));
	if (malformed > 0)
		json_object_array_add(reasons,
		    json_object_new_string("malformed_input_lines"));
	lower = json_object_array_length(reasons) > 0 ||
	    obs_bool(obs, "counts_are_lower_bound", NULL);
	if (lower && json_object_array_length(reasons) == 0)
		json_object_array_add(reasons,
		    json_object_new_string("reported_by_wp_arm"));
	json_object_object_add(o, "counts_are_lower_bound",
	    json_object_new_boolean(lower));
	json_object_object_add(o, "lower_bound_reasons", reasons);

	a = json_object_new_array();
	for (i = 0; i < r->nt; i++)
		if (!r->t[i].follow)
			json_object_array_add(a, target_json(r, &r->t[i]));
	json_object_object_add(o, "watches", a);
	a = json_object_new_array();
	for (i = 0; i < r->nt; i++)
		if (r->t[i].follow)
			json_object_array_add(a, follow_json(r, &r->t[i]));
	json_object_object_add(o, "dependent_watches", a);

	x = json_object_new_object();
	json_object_object_add(x, "records", json_object_new_uint64(r->records));
	json_object_object_add(x, "hits", json_object_new_uint64(r->hits));
	json_object_object_add(x, "hits_of_unknown_targets",
	    json_object_new_uint64(r->orphan_hits));
	json_object_object_add(x, "lost_records",
	    json_object_new_uint64(r->lost_records));
	json_object_object_add(x, "thread_records",
	    json_object_new_uint64(r->thread_records));
	json_object_object_add(x, "other_records",
	    json_object_new_uint64(r->other_records));
	json_object_object_add(x, "malformed_lines",
	    json_object_new_int64(malformed));
	json_object_object_add(o, "stream", x);
	return o;
}

/* ---- the table ---- */

static const char *
str(json_object *o, const char *k)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v) || v == NULL)
		return "-";
	return json_object_get_string(v);
}

static const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Copies s into buf, cut to width with a trailing '~'. */
static const char *
fit(char *buf, size_t sz, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (width >= sz)
		width = sz - 1;
	if (n <= width)
		return strcpy(buf, s);
	memcpy(buf, s, width - 1);
	buf[width - 1] = '~';
	buf[width] = '\0';
	return buf;
}

static void
value_text(json_object *v, char *buf, size_t sz)
{
	const char *kind = str(v, "kind");

	if (strcmp(kind, "unknown") == 0)
		snprintf(buf, sz, "unknown: %s", str(v, "reason"));
	else if (strcmp(kind, "register_store") == 0)
		snprintf(buf, sz, "%s = %s", str(v, "register"), str(v, "value"));
	else if (strcmp(kind, "-") == 0)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s", str(v, "value"));
}

static void
source_text(json_object *src, char *buf, size_t sz)
{
	if (src == NULL || json_object_get_type(src) != json_type_object)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s:%s", base(str(src, "file")),
		    str(src, "line"));
}

static int
r_has_session(json_object *rep)
{
	json_object *p = json_object_object_get(rep, "process");

	return p != NULL && json_object_object_get(p, "pid") != NULL;
}

int
wp_report_table(json_object *rep, FILE *f)
{
	json_object *p, *obs, *tc, *ws, *w, *a, *x, *r;
	char b1[128], b2[128], b3[128], b4[256], b5[256];
	size_t i, j, n;

	p = json_object_object_get(rep, "process");
	obs = json_object_object_get(rep, "observation");
	fprintf(f, "process  pid %s  %s  start %s  binary %s  slide %s\n",
	    str(p, "pid"), base(str(p, "exe")), str(p, "start_time"),
	    str(p, "binary_match"), str(p, "pie_slide"));
	if (r_has_session(rep) && json_object_object_get(p, "slot_limit") == NULL)
		fprintf(f, "note     no slot limit (--no-slot-limit): any length "
		    "and number of targets, for the ptrace backend\n");
	a = json_object_object_get(p, "warnings");
	for (i = 0; a && i < json_object_array_length(a); i++)
		fprintf(f, "warning  %s\n",
		    json_object_get_string(json_object_array_get_idx(a, i)));
	if (obs != NULL) {
		tc = json_object_object_get(obs, "thread_coverage");
		fprintf(f, "watch    %s  %s/%s ms  stop %s%s%s  lost %s\n",
		    str(rep, "backend"), str(obs, "elapsed_ms"),
		    str(obs, "duration_requested_ms"), str(obs, "stop_reason"),
		    strcmp(str(obs, "stop_detail"), "-") ? " " : "",
		    strcmp(str(obs, "stop_detail"), "-") ?
		    str(obs, "stop_detail") : "",
		    str(json_object_object_get(obs, "lost_events"), "total"));
		fprintf(f, "threads  %s seeded, %s inherited, %s attached late, "
		    "%s unattached, %s exited\n", str(tc, "seeded_tids"),
		    str(tc, "inherited_tids"),
		    str(tc, "dynamically_attached_tids"),
		    str(tc, "unattached_tids"), str(tc, "exited_tids"));
		if (strcmp(str(obs, "error"), "-") != 0)
			fprintf(f, "error    %s\n", str(obs, "error"));
	} else
		fprintf(f, "INCOMPLETE  %s\n", str(rep, "incomplete_reason"));
	if (json_object_get_boolean(json_object_object_get(rep,
	    "counts_are_lower_bound"))) {
		fprintf(f, "note     counts are a lower bound:");
		a = json_object_object_get(rep, "lower_bound_reasons");
		for (i = 0; i < json_object_array_length(a); i++)
			fprintf(f, "%s %s", i ? "," : "", json_object_get_string(
			    json_object_array_get_idx(a, i)));
		fprintf(f, "\n");
	}
	ws = json_object_object_get(rep, "watches");
	for (i = 0; i < json_object_array_length(ws); i++) {
		w = json_object_array_get_idx(ws, i);
		fprintf(f, "\ntarget %s  %s  %s", str(w, "id"), str(w, "input"),
		    str(w, "runtime_addr"));
		if (strcmp(str(w, "static_addr"), "-") != 0)
			fprintf(f, " (static %s in %s)", str(w, "static_addr"),
			    base(str(w, "module")));
		fprintf(f, "  %s  %s bytes  %s\n", str(w, "perms"),
		    str(w, "len"), str(w, "access"));
		fprintf(f, "  %s hits%s  initial %s  latest %s%s\n",
		    str(w, "accepted_hits"),
		    json_object_get_boolean(json_object_object_get(rep,
		    "counts_are_lower_bound")) ? " (lower bound)" : "",
		    str(w, "initial_value"), str(w, "latest_value"),
		    json_object_get_boolean(json_object_object_get(w, "changed"))
		    ? "  changed" : "");
		a = json_object_object_get(w, "writer_sites");
		n = json_object_array_length(a);
		fprintf(f, "  writers: %zu\n", n);
		if (n > 0)
			fprintf(f, "  %9s  %-7s %-26s %-16s %s\n", "HITS", "CONF",
			    "WRITER", "SOURCE", "INSTRUCTION");
		for (j = 0; j < n; j++) {
			x = json_object_array_get_idx(a, j);
			source_text(json_object_object_get(x, "source"), b5,
			    sizeof b5);
			snprintf(b3, sizeof b3, "%s", str(x, "writer_symbol"));
			if (strcmp(b3, "-") == 0)
				snprintf(b3, sizeof b3, "%s",
				    strcmp(str(x, "writer_static_ip"), "-") ?
				    str(x, "writer_static_ip") :
				    str(x, "trap_runtime_ip"));
			fprintf(f, "  %9s  %-7s %-26s %-16s %s\n", str(x, "hits"),
			    str(x, "confidence"), fit(b1, sizeof b1, b3, 26),
			    fit(b2, sizeof b2, b5, 16),
			    strcmp(str(x, "insn"), "-") ?
			    fit(b4, sizeof b4, str(x, "insn"), 36) :
			    fit(b4, sizeof b4, str(x, "reason"), 36));
			if (strcmp(str(x, "caveat"), "-") != 0)
				fprintf(f, "  %9s  %-7s %s\n", "", "",
				    fit(b4, sizeof b4, str(x, "caveat"), 80));
		}
		a = json_object_object_get(w, "threads");
		fprintf(f, "  threads:");
		for (j = 0; j < json_object_array_length(a) && j < 8; j++) {
			x = json_object_array_get_idx(a, j);
			fprintf(f, " %s (%s)", str(x, "tid"), str(x, "hits"));
		}
		if (j < json_object_array_length(a))
			fprintf(f, " and %zu more", json_object_array_length(a) - j);
		fprintf(f, "%s\n", j == 0 ? " none" : "");
		a = json_object_object_get(w, "samples");
		n = json_object_array_length(a);
		if (n == 0)
			continue;
		fprintf(f, "  samples: %zu of %s%s\n", n, str(w, "accepted_hits"),
		    json_object_get_boolean(json_object_object_get(w,
		    "samples_truncated")) ? " (truncated)" : "");
		fprintf(f, "  %9s  %12s  %-26s %s\n", "TID", "TIME ms", "WRITER",
		    "VALUE");
		for (j = 0; j < n; j++) {
			x = json_object_array_get_idx(a, j);
			value_text(json_object_object_get(x, "written_value"), b4,
			    sizeof b4);
			snprintf(b3, sizeof b3, "%.3f", (double)json_object_get_int64(
			    json_object_object_get(x, "time_ns")) / 1e6);
			r = json_object_object_get(x, "writer_symbol");
			fprintf(f, "  %9s  %12s  %-26s %s\n", str(x, "tid"), b3,
			    fit(b1, sizeof b1, r ? json_object_get_string(r) :
			    str(x, "trap_runtime_ip"), 26),
			    fit(b2, sizeof b2, b4, 44));
		}
	}
	ws = json_object_object_get(rep, "dependent_watches");
	for (i = 0; i < json_object_array_length(ws); i++) {
		w = json_object_array_get_idx(ws, i);
		fprintf(f, "\nfollow %s  %s  slot %s  %s  gen %s  leaf %s\n",
		    str(w, "id"), str(w, "input"), str(w, "ptr_slot_addr"),
		    str(w, "binding_state"), str(w, "generation"),
		    str(w, "active_leaf_addr"));
		fprintf(f, "  %s pointer writes, %s leaf hits%s, %s slots\n",
		    str(w, "pointer_slot_hits"), str(w, "leaf_hits"),
		    json_object_get_boolean(json_object_object_get(rep,
		    "counts_are_lower_bound")) ? " (lower bound)" : "",
		    str(w, "slots_reserved"));
		a = json_object_object_get(w, "bindings");
		n = json_object_array_length(a);
		fprintf(f, "  bindings: %zu%s\n", n, json_object_get_boolean(
		    json_object_object_get(w, "bindings_truncated")) ?
		    " (the first and the latest kept)" : "");
		for (j = 0; j < n; j++) {
			x = json_object_array_get_idx(a, j);
			snprintf(b3, sizeof b3, "%.3f", (double)json_object_get_int64(
			    json_object_object_get(x, "time_ns")) / 1e6);
			fprintf(f, "  %9s  gen %-5s %-13s leaf %-18s %s hits\n", b3,
			    str(x, "generation"), str(x, "binding"),
			    str(x, "leaf_addr"), str(x, "leaf_hits"));
		}
		a = json_object_object_get(w, "writer_sites");
		n = json_object_array_length(a);
		fprintf(f, "  leaf writers: %zu\n", n);
		for (j = 0; j < n; j++) {
			x = json_object_array_get_idx(a, j);
			source_text(json_object_object_get(x, "source"), b5,
			    sizeof b5);
			fprintf(f, "  %9s  %-7s %-26s %-16s %s\n", str(x, "hits"),
			    str(x, "confidence"), fit(b1, sizeof b1,
			    str(x, "writer_symbol"), 26), fit(b2, sizeof b2, b5, 16),
			    fit(b4, sizeof b4, str(x, "insn"), 36));
		}
	}
	return ferror(f) ? -1 : 0;
}
