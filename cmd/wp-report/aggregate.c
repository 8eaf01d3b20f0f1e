/*
 * The aggregate of a stream: per target, the writer sites, threads,
 * bindings and a bounded set of samples, in memory that does not grow
 * with the number of hits.
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "report.h"
#include "util.h"

const char *const conf_names[C_N] = {
	"exact", "high", "medium", "low", "unknown"
};

const char *const kind_names[K_N] = {
	"write", "read", "syscall", "kernel", "unexplained"
};

/* The kind of a decoded access; a writer without one wrote. */
int
kind_rank(const struct wp_json *j, int v)
{
	int i;

	for (i = 0; i < K_N; i++)
		if (wp_json_streq(j, v, kind_names[i]))
			return i;
	return K_WRITE;
}

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
	struct rsite *s;
	size_t j;

	json_object_put(t->rec);
	for (j = 0; j < t->sites.cap; j++)
		if ((s = wp_hmap_slot(&t->sites, j)) != NULL) {
			free(s->writer);
			site_chains_free(s);
		}
	wp_hmap_free(&t->sites);
	for (j = 0; j < t->tallies.cap; j++) {
		struct rtally *y = wp_hmap_slot(&t->tallies, j);

		if (y != NULL) {
			free(y->writer);
			free(y->chain);
		}
	}
	wp_hmap_free(&t->tallies);
	for (j = 0; j < t->nsamples; j++) {
		free(t->samples[j].writer);
		free(t->samples[j].value);
	}
	free(t->samples);
	free(t->binds);
}

void
report_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nt; i++)
		free_target(&r->t[i]);
	free(r->t);
	wp_hmap_free(&r->comms);
	json_object_put(r->session);
	json_object_put(r->armed);
	json_object_put(r->observation);
	memset(r, 0, sizeof *r);
}

int
report_complete(const struct report *r)
{
	return r->observation != NULL;
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
		free(sm->writer);
		free(sm->value);
		most->nsamples--;
		memmove(sm, sm + 1, (t->nsamples - i - 1) * sizeof *sm);
		return &t->samples[t->nsamples - 1];
	}
	return NULL;
}

static int
conf_rank(const struct wp_json *j, int v)
{
	int i;

	for (i = 0; i < C_N; i++)
		if (wp_json_streq(j, v, conf_names[i]))
			return i;
	return C_UNKNOWN;
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

static void
keep_sample(struct report *r, struct rtarget *t, struct rsite *s,
    const struct wp_record *rec, int64_t tid, int64_t tns)
{
	struct rsample *sm = NULL;
	const char *raw;
	size_t n;

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
	raw = wp_rec_raw(rec, "writer", &n);
	sm->writer = raw && wp_json_is(rec->j, wp_rec_get(rec, "writer"),
	    WP_JOBJECT) ? dupn(raw, n) : NULL;
	raw = wp_rec_raw(rec, "written_value", &n);
	sm->value = raw ? dupn(raw, n) : NULL;
	s->nsamples++;
}

/* A hit of a follow chain on a pointer, or on the leaf of a binding. */
static int
follow_hit(struct rtarget *t, const struct wp_record *rec)
{
	int64_t g;
	size_t i;

	if (wp_json_streq(rec->j, wp_rec_get(rec, "role"), "pointer")) {
		t->ptr_hits++;
		return 1;
	}
	if (wp_rec_int(rec, "generation", &g) == 0)
		for (i = t->nbinds; i-- > 0;)
			if (t->binds[i].generation == (uint64_t)g) {
				t->binds[i].leaf_hits++;
				break;
			}
	return 0;
}

void
site_chains_free(struct rsite *s)
{
	struct rchain *c;
	size_t i;

	for (i = 0; i < s->chains.cap; i++)
		if ((c = wp_hmap_slot(&s->chains, i)) != NULL)
			free(c->text);
	wp_hmap_free(&s->chains);
}

static uint64_t
fnv(const char *p, size_t n, uint64_t h)
{
	while (n-- > 0)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

/*
 * The call chain of hit or tally rec, when it has one: its keys, and
 * the text a report shows ({"status":..., "callers":[...]}, to free).
 */
static char *
chain_of(const struct wp_record *rec, uint64_t *k1, uint64_t *k2)
{
	const char *raw, *st, *callers;
	size_t n, sn, cn;
	char *text;

	if ((raw = wp_rec_raw(rec, "callchain", &n)) == NULL)
		return NULL;
	if ((st = wp_rec_raw(rec, "callchain_status", &sn)) == NULL) {
		st = "null";
		sn = 4;
	}
	*k1 = fnv(st, sn, fnv(raw, n, 0xcbf29ce484222325ULL));
	*k2 = fnv(raw, n, fnv(st, sn, 0x84222325cbf29ce4ULL));
	if ((callers = wp_rec_raw(rec, "callers", &cn)) == NULL) {
		callers = raw;
		cn = n;
	}
	text = wp_xmalloc(sn + cn + 32);
	snprintf(text, sn + cn + 32, "{\"status\":%.*s,\"callers\":%.*s}",
	    (int)sn, st, (int)cn, callers);
	return text;
}

void
site_add_chain(struct rsite *s, uint64_t k1, uint64_t k2, const char *text,
    uint64_t hits)
{
	struct rchain *c;
	int isnew;

	if (s->chains.cap == 0)
		wp_hmap_init(&s->chains, sizeof(struct rchain));
	if (wp_hmap_get(&s->chains, k1, k2) == NULL &&
	    s->chains.n >= MAXCHAINS) {
		s->chains_other += hits;
		return;
	}
	c = wp_hmap_put(&s->chains, k1, k2, &isnew);
	if (isnew)
		c->text = wp_xstrdup(text);
	c->hits += hits;
}

/* Counts the hit's call chain at its site, when it has one. */
static void
add_chain(struct rsite *s, const struct wp_record *rec)
{
	uint64_t k1, k2;
	char *text;

	if ((text = chain_of(rec, &k1, &k2)) == NULL)
		return;
	site_add_chain(s, k1, k2, text, 1);
	free(text);
}

static void
add_hit(struct report *r, const struct wp_record *rec)
{
	const struct wp_json *j = rec->j;
	struct rtarget *t;
	struct rsite *s;
	int64_t id = -1, tid = -1, tns = 0;
	uint64_t trap = 0, wip = 0;
	int w, isnew, have_t, kind;
	size_t n;
	const char *raw;

	r->hits++;
	if (wp_rec_int(rec, "target", &id) == -1 ||
	    (t = target(r, (int)id)) == NULL) {
		r->orphan_hits++;
		return;
	}
	if (t->follow && follow_hit(t, rec))
		return;
	wp_rec_int(rec, "tid", &tid);
	have_t = wp_rec_int(rec, "time_ns", &tns) == 0;
	wp_rec_hex(rec, "ip", &trap);
	if (wp_rec_get(rec, "regs") >= 0)
		r->regs_seen = 1;
	w = wp_rec_get(rec, "writer");
	if (!wp_json_is(j, w, WP_JOBJECT))
		w = -1;
	wp_json_hex(j, wp_json_get(j, w, "writer_ip"), &wip);
	kind = kind_rank(j, wp_json_get(j, w, "kind"));
	t->hits++;
	if (have_t) {
		if (!t->have_time || tns < t->first)
			t->first = tns;
		if (!t->have_time || tns > t->last)
			t->last = tns;
		t->have_time = 1;
	}
	/* a user address leaves the top byte free for the kind */
	s = wp_hmap_put(&t->sites, trap, wip | (uint64_t)kind << 56, &isnew);
	if (isnew) {
		s->trap = trap;
		s->wip = wip;
		s->kind = kind;
		raw = w >= 0 ? wp_json_raw(j, w, &n) : "null";
		s->writer = dupn(raw, w >= 0 ? n : 4);
	}
	s->hits++;
	add_chain(s, rec);
	s->conf[w >= 0 ? conf_rank(j, wp_json_get(j, w, "confidence")) :
	    C_UNKNOWN]++;
	count_thread(t, (int)tid);
	keep_sample(r, t, s, rec, tid, tns);
}

static void
add_rebind(struct report *r, const struct wp_record *rec)
{
	struct rtarget *t;
	struct rbind *b;
	int64_t id, g = 0, tns = 0;
	uint64_t leaf = 0;

	if (wp_rec_int(rec, "target", &id) == -1 ||
	    (t = target(r, (int)id)) == NULL || !t->follow)
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
	wp_rec_int(rec, "generation", &g);
	wp_rec_int(rec, "time_ns", &tns);
	wp_rec_hex(rec, "new_leaf", &leaf);
	b->generation = (uint64_t)g;
	b->leaf = leaf;
	b->time_ns = tns;
	if (wp_rec_int(rec, "rearm_ns", &b->rearm_ns) == -1)
		b->rearm_ns = -1;
	if (wp_json_bool(rec->j, wp_rec_get(rec, "held"), &b->held) == -1)
		b->held = 0;
	if (wp_json_bool(rec->j, wp_rec_get(rec, "missed_in_window"),
	    &b->missed) == -1)
		b->missed = -1;
	wp_json_str(rec->j, wp_rec_get(rec, "binding"), b->binding,
	    sizeof b->binding);
}

static void
add_target(struct report *r, const struct wp_record *rec)
{
	struct rtarget *t;
	int64_t id;

	if (wp_rec_int(rec, "id", &id) == -1 || target(r, (int)id) != NULL)
		return;
	r->t = wp_xrealloc(r->t, (r->nt + 1) * sizeof *r->t);
	t = &r->t[r->nt++];
	memset(t, 0, sizeof *t);
	t->id = (int)id;
	t->follow = strcmp(rec->type, "follow") == 0;
	t->rec = jsonc_record(rec);
	wp_hmap_init(&t->sites, sizeof(struct rsite));
	wp_hmap_init(&t->tallies, sizeof(struct rtally));
}

/* Tallies are cumulative: the latest of each writer and thread holds. */
static void
add_tally(struct report *r, const struct wp_record *rec)
{
	struct rtarget *t;
	struct rtally *y;
	int64_t id = -1, tid = -1, hits = 0;
	uint64_t ip = 0, k1 = 0, k2 = 0;
	char *chain;
	const char *raw;
	size_t n;
	int isnew;

	if (wp_rec_int(rec, "target", &id) == -1 ||
	    (t = target(r, (int)id)) == NULL || t->follow)
		return;
	wp_rec_int(rec, "tid", &tid);
	wp_rec_hex(rec, "ip", &ip);
	wp_rec_int(rec, "hits", &hits);
	/* with --callchain, a tally per writer, thread and chain */
	chain = chain_of(rec, &k1, &k2);
	y = wp_hmap_put(&t->tallies, chain ? ip ^ k1 : ip, chain ?
	    (uint64_t)tid ^ k2 : (uint64_t)tid, &isnew);
	y->ip = ip;
	y->tid = (int)tid;
	y->hits = hits > 0 ? (uint64_t)hits : 0;
	if (isnew) {
		y->chain = chain;
		y->k1 = k1;
		y->k2 = k2;
	} else
		free(chain);
	if (y->writer == NULL && (raw = wp_rec_raw(rec, "writer", &n)) &&
	    wp_json_is(rec->j, wp_rec_get(rec, "writer"), WP_JOBJECT))
		y->writer = dupn(raw, n);
}

/* A thread record: its name, the first given, for the first MAXCOMMS. */
static void
add_thread(struct report *r, const struct wp_record *rec)
{
	struct rcomm *c;
	char comm[sizeof c->comm];
	int64_t tid;
	int isnew;

	r->thread_records++;
	if (wp_rec_int(rec, "tid", &tid) == -1 || wp_json_str(rec->j,
	    wp_rec_get(rec, "comm"), comm, sizeof comm) == -1 ||
	    (r->comms.n >= MAXCOMMS && report_comm(r, tid) == NULL))
		return;
	c = wp_hmap_put(&r->comms, (uint64_t)tid, 0, &isnew);
	if (isnew)
		memcpy(c->comm, comm, sizeof comm);
}

/* Keeps the first record of a kind (the last, for the observation). */
static void
keep(json_object **slot, const struct wp_record *rec, int replace)
{
	if (*slot != NULL && !replace)
		return;
	json_object_put(*slot);
	*slot = jsonc_record(rec);
}

void
report_add(struct report *r, const struct wp_record *rec)
{
	int64_t n;

	r->records++;
	if (strcmp(rec->type, "hit") == 0)
		add_hit(r, rec);
	else if (strcmp(rec->type, "session") == 0)
		keep(&r->session, rec, 0);
	else if (strcmp(rec->type, "target") == 0 ||
	    strcmp(rec->type, "follow") == 0)
		add_target(r, rec);
	else if (strcmp(rec->type, "rebind") == 0)
		add_rebind(r, rec);
	else if (strcmp(rec->type, "tally") == 0)
		add_tally(r, rec);
	else if (strcmp(rec->type, "armed") == 0)
		keep(&r->armed, rec, 0);
	else if (strcmp(rec->type, "observation") == 0)
		keep(&r->observation, rec, 1);
	else if (strcmp(rec->type, "lost") == 0) {
		r->lost_records++;
		if (wp_rec_int(rec, "count", &n) == 0 && n > 0)
			r->lost += (uint64_t)n;
	} else if (strcmp(rec->type, "thread") == 0)
		add_thread(r, rec);
	else
		r->other_records++;
}
