/*
 * The report document: one JSON object with the process, the
 * observation, whether the counts are a lower bound and why, and per
 * watch its writer sites, threads and samples (field names after the
 * reference tool's live_watch report).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

static const char snapshot_caveat[] =
    "snapshots are read before arming and after disarming, not "
    "atomically with the hits";

/* A new reference to member k of o, or NULL. */
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
	return s ? jsonc_parse(s, strlen(s)) : NULL;
}

static void
add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *
hex_or_null(int have, uint64_t v)
{
	return have ? jsonc_hex(v) : NULL;
}

static json_object *
str_or_null(const char *s)
{
	return s != NULL ? json_object_new_string(s) : NULL;
}

/* A writer's "source": {"file", "line"}, or null. */
static json_object *
source_json(const struct wp_writer_in *w)
{
	json_object *o;

	if (w->source_file == NULL)
		return NULL;
	o = json_object_new_object();
	add(o, "file", json_object_new_string(w->source_file));
	add(o, "line", json_object_new_int64(w->source_line));
	return o;
}

/* A sample's written value, its members in the record's order. */
static json_object *
value_json(const struct rsample *sm)
{
	const struct wp_value_in *v = &sm->value;
	json_object *o;

	if (!sm->has_value)
		return NULL;
	o = json_object_new_object();
	add(o, "kind", str_or_null(v->kind_word));
	if (v->reg != NULL)
		add(o, "register", json_object_new_string(v->reg));
	if (v->has_width)
		add(o, "width", json_object_new_int64(v->width));
	if (v->has_value_member)
		add(o, "value", hex_or_null(v->has_value, v->value));
	if (v->has_bytes_member)
		add(o, "bytes", str_or_null(v->bytes));
	if (v->reason != NULL)
		add(o, "reason", json_object_new_string(v->reason));
	return o;
}

static size_t maxchains;	/* report_document sets it */

static int
cmp_chain(const void *a, const void *b)
{
	const struct rchain *x = *(const struct rchain *const *)a;
	const struct rchain *y = *(const struct rchain *const *)b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return strcmp(x->text, y->text);
}

/* The site's most frequent call chains, and the hits of the rest. */
static void
chains_json(const struct rsite *s, json_object *o)
{
	struct rchain **sorted, *c;
	json_object *a, *x;
	uint64_t rest = s->chains_other, all = s->chains_other;
	size_t i, n = 0;

	if (s->chains.n == 0 && s->chains_other == 0)
		return;
	sorted = wp_xcalloc(s->chains.n + 1, sizeof *sorted);
	for (i = 0; i < s->chains.cap; i++)
		if ((c = wp_hmap_slot(&s->chains, i)) != NULL)
			sorted[n++] = c;
	qsort(sorted, n, sizeof *sorted, cmp_chain);
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		all += sorted[i]->hits;
		if (i >= maxchains) {
			rest += sorted[i]->hits;
			continue;
		}
		if ((x = parse_raw(sorted[i]->text)) == NULL)
			x = json_object_new_object();
		add(x, "hits", json_object_new_uint64(sorted[i]->hits));
		json_object_array_add(a, x);
	}
	free(sorted);
	add(o, "call_chains", a);
	add(o, "other_call_chains_hits", json_object_new_uint64(rest));
	/* a tallied site whose chains are its samples' */
	add(o, "hits_without_call_chain", json_object_new_uint64(
	    s->hits > all ? s->hits - all : 0));
}

static json_object *
site_json(const struct rsite *s)
{
	const struct wp_writer_in *w = &s->writer;
	json_object *o, *c;
	int i, worst = WP_CONF_EXACT;

	for (i = 0; i < WP_NCONFS; i++)
		if (s->conf[i] > 0)
			worst = i;
	o = json_object_new_object();
	add(o, "kind", json_object_new_string(wp_kind_names[s->kind]));
	add(o, "trap_runtime_ip", jsonc_hex(s->trap));
	add(o, "trap_static_ip", hex_or_null(w->has_trap_static,
	    w->trap_static));
	add(o, "writer_runtime_ip", s->wip ? jsonc_hex(s->wip) : NULL);
	add(o, "writer_static_ip", hex_or_null(w->has_writer_static,
	    w->writer_static));
	add(o, "module", str_or_null(w->module));
	add(o, "writer_function", str_or_null(w->function));
	add(o, "writer_symbol", str_or_null(w->symbol));
	add(o, "source", source_json(w));
	add(o, "insn", str_or_null(w->insn));
	add(o, "confidence", json_object_new_string(wp_conf_names[worst]));
	c = json_object_new_object();
	for (i = 0; i < WP_NCONFS; i++)
		if (s->conf[i] > 0)
			add(c, wp_conf_names[i],
			    json_object_new_uint64(s->conf[i]));
	add(o, "confidence_counts", c);
	add(o, "reason", str_or_null(w->reason));
	add(o, "caveat", str_or_null(w->caveat));
	add(o, "hits", json_object_new_uint64(s->hits));
	chains_json(s, o);
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
	if (x->trap != y->trap)
		return x->trap < y->trap ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct rthread *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
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
	size_t i, j;

	for (i = 0; i < t->sites.cap; i++) {
		if ((h = wp_hmap_slot(&t->sites, i)) == NULL ||
		    (h->chains.n == 0 && h->chains_other == 0) ||
		    (s = wp_hmap_get(sites, h->trap, h->wip)) == NULL ||
		    (s->chains.n > 0 && !s->chains_sampled))
			continue;
		s->chains_sampled = 1;
		for (j = 0; j < h->chains.cap; j++)
			if ((c = wp_hmap_slot(&h->chains, j)) != NULL)
				site_add_chain(s, h->chains.keys[2 * j],
				    h->chains.keys[2 * j + 1], c->text, c->hits);
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
	uint64_t wip;
	size_t i;
	int isnew;

	wp_hmap_init(sites, sizeof(struct rsite));
	for (i = 0; i < t->tallies.cap; i++) {
		if ((y = wp_hmap_slot(&t->tallies, i)) == NULL ||
		    spurious(y))
			continue;
		/* none when no instruction wrote */
		wip = y->writer.has_writer_ip ? y->writer.writer_ip : 0;
		s = wp_hmap_put(sites, y->ip, wip, &isnew);
		if (isnew) {
			s->trap = y->ip;
			s->wip = wip;
			s->kind = y->writer.kind;
			s->has_writer = y->has_writer;
			wp_writer_in_copy(&s->writer, &y->writer);
		}
		s->hits += y->hits;
		if (y->chain != NULL)
			site_add_chain(s, y->k1, y->k2, y->chain, y->hits);
		s->conf[y->has_writer ? y->writer.conf : WP_CONF_UNKNOWN] +=
		    y->hits;
	}
	sampled_chains(t, sites);
}

static uint64_t
tally_sum(struct rtarget *t)
{
	struct rtally *y;
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->tallies.cap; i++)
		if ((y = wp_hmap_slot(&t->tallies, i)) != NULL && !spurious(y))
			n += y->hits;
	return n;
}

/* Hits whose writer is of kind k: sampled, or tallied. */
static uint64_t
kind_hits(struct rtarget *t, int tallied, int k)
{
	struct rtally *y;
	uint64_t n = 0;
	size_t i;

	if (!tallied)
		return t->kinds[k];
	for (i = 0; i < t->tallies.cap; i++)
		if ((y = wp_hmap_slot(&t->tallies, i)) != NULL &&
		    y->has_writer && y->writer.kind == k)
			n += y->hits;
	return n;
}

static void
free_sites(struct wp_hmap *sites)
{
	struct rsite *s;
	size_t i;

	for (i = 0; i < sites->cap; i++)
		if ((s = wp_hmap_slot(sites, i)) != NULL) {
			wp_writer_in_free(&s->writer);
			site_chains_free(s);
		}
	wp_hmap_free(sites);
}

/* The writer sites, most hits first. */
static json_object *
sites_json(struct wp_hmap *sites)
{
	struct rsite **sorted, *s;
	json_object *a = json_object_new_array();
	size_t i, n = 0;

	sorted = wp_xcalloc(sites->n + 1, sizeof *sorted);
	for (i = 0; i < sites->cap; i++)
		if ((s = wp_hmap_slot(sites, i)) != NULL)
			sorted[n++] = s;
	qsort(sorted, n, sizeof *sorted, cmp_site);
	for (i = 0; i < n; i++)
		json_object_array_add(a, site_json(sorted[i]));
	free(sorted);
	return a;
}

/* Threads from the tallies: every write of each. */
static void
tally_threads(struct rtarget *t)
{
	struct rtally *y;
	size_t i, k;

	t->nthr = 0;
	t->other_thread_hits = 0;
	for (i = 0; i < t->tallies.cap; i++) {
		if ((y = wp_hmap_slot(&t->tallies, i)) == NULL || spurious(y))
			continue;
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

/* Thread tid's name, or null. */
static json_object *
comm_json(const struct report *r, int64_t tid)
{
	const char *c = report_comm(r, tid);

	return c != NULL ? json_object_new_string(c) : NULL;
}

static json_object *
threads_json(struct report *r, struct rtarget *t)
{
	json_object *a = json_object_new_array(), *x;
	size_t i;

	qsort(t->thr, t->nthr, sizeof *t->thr, cmp_thr);
	for (i = 0; i < t->nthr; i++) {
		x = json_object_new_object();
		add(x, "tid", json_object_new_int(t->thr[i].tid));
		add(x, "comm", comm_json(r, t->thr[i].tid));
		add(x, "hits", json_object_new_uint64(t->thr[i].hits));
		json_object_array_add(a, x);
	}
	return a;
}

static json_object *
samples_json(struct report *r, struct rtarget *t)
{
	json_object *a = json_object_new_array(), *s;
	const struct wp_writer_in *w;
	struct rsample *sm;
	size_t i;

	for (i = 0; i < t->nsamples; i++) {
		sm = &t->samples[i];
		w = &sm->writer;
		s = json_object_new_object();
		add(s, "tid", json_object_new_int64(sm->tid));
		add(s, "comm", comm_json(r, sm->tid));
		add(s, "time_ns", json_object_new_int64(sm->time_ns));
		add(s, "trap_runtime_ip", jsonc_hex(sm->trap));
		add(s, "module", str_or_null(w->module));
		add(s, "writer_static_ip", hex_or_null(w->has_writer_static,
		    w->writer_static));
		add(s, "writer_symbol", str_or_null(w->symbol));
		add(s, "written_value", value_json(sm));
		json_object_array_add(a, s);
	}
	return a;
}

/* The member of the observation's array key whose id is id. */
static json_object *
obs_entry(struct report *r, const char *key, int id)
{
	json_object *a, *x;
	size_t i;

	if (r->observation == NULL ||
	    !json_object_object_get_ex(r->observation, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(a); i++) {
		x = json_object_array_get_idx(a, i);
		if (json_object_get_int(json_object_object_get(x, "id")) == id)
			return x;
	}
	return NULL;
}

static json_object *
target_json(struct report *r, struct rtarget *t)
{
	json_object *o = json_object_new_object(), *latest, *init;
	struct wp_hmap tsites;
	int tallied;
	static const char *const copy[] = { "input", "runtime_addr",
	    "static_addr", "module", "region", "perms", "access", "len" };
	size_t i;

	add(o, "id", json_object_new_int(t->id));
	for (i = 0; i < sizeof copy / sizeof copy[0]; i++)
		add(o, copy[i], field(t->rec, copy[i]));
	init = field(t->rec, "initial_value");
	add(o, "initial_value", init);
	add(o, "counted", field(obs_entry(r, "targets", t->id), "counted"));
	add(o, "lost", field(obs_entry(r, "targets", t->id), "lost"));
	latest = field(obs_entry(r, "targets", t->id), "latest_value");
	add(o, "latest_value", latest);
	add(o, "changed", init && latest ? json_object_new_boolean(strcmp(
	    json_object_get_string(init), json_object_get_string(latest)) != 0) :
	    NULL);
	add(o, "snapshot_caveat", json_object_new_string(snapshot_caveat));
	add(o, "accepted_hits", json_object_new_uint64(t->hits));
	add(o, "first_time_ns", t->have_time ?
	    json_object_new_int64(t->first) : NULL);
	add(o, "last_time_ns", t->have_time ?
	    json_object_new_int64(t->last) : NULL);
	tallied = t->tallies.n > 0;
	add(o, "writer_counts", json_object_new_string(tallied ? "tallied" :
	    "sampled"));
	if (tallied) {
		tally_sites(t, &tsites);
		tally_threads(t);
	}
	add(o, "tallied_hits", tallied ? json_object_new_uint64(tally_sum(t)) :
	    NULL);
	add(o, "read_hits", json_object_new_uint64(kind_hits(t, tallied,
	    WP_KIND_READ)));
	add(o, "write_hits", json_object_new_uint64((tallied ? tally_sum(t) :
	    t->hits) - kind_hits(t, tallied, WP_KIND_READ)));
	add(o, "spurious_hits", json_object_new_uint64(kind_hits(t, tallied,
	    WP_KIND_SPURIOUS)));
	add(o, "threads", threads_json(r, t));
	add(o, "threads_truncated",
	    json_object_new_boolean(t->other_thread_hits > 0));
	add(o, "writer_sites", sites_json(tallied ? &tsites : &t->sites));
	if (tallied)
		free_sites(&tsites);
	add(o, "samples", samples_json(r, t));
	add(o, "samples_truncated",
	    json_object_new_boolean(t->samples_truncated));
	return o;
}

static json_object *
bindings_json(const struct rtarget *t)
{
	json_object *a = json_object_new_array(), *x;
	const struct rbind *b;
	size_t i;

	for (i = 0; i < t->nbinds; i++) {
		b = &t->binds[i];
		x = json_object_new_object();
		add(x, "generation", json_object_new_uint64(b->generation));
		add(x, "binding", json_object_new_string(b->binding));
		add(x, "leaf_addr", b->leaf ? jsonc_hex(b->leaf) : NULL);
		add(x, "time_ns", json_object_new_int64(b->time_ns));
		add(x, "leaf_hits", json_object_new_uint64(b->leaf_hits));
		add(x, "rearm_ns", b->rearm_ns >= 0 ?
		    json_object_new_int64(b->rearm_ns) : NULL);
		add(x, "held", json_object_new_boolean(b->held));
		add(x, "missed_in_window", b->missed >= 0 ?
		    json_object_new_boolean(b->missed) : NULL);
		json_object_array_add(a, x);
	}
	return a;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* How long the leaf went unwatched at each re-arm, over the bindings. */
static json_object *
rearm_json(const struct rtarget *t)
{
	json_object *o = json_object_new_object();
	int64_t *v = wp_xcalloc(t->nbinds + 1, sizeof *v);
	size_t i, n = 0, held = 0, missed = 0;

	for (i = 0; i < t->nbinds; i++) {
		if (t->binds[i].rearm_ns >= 0)
			v[n++] = t->binds[i].rearm_ns;
		held += t->binds[i].held;
		missed += t->binds[i].missed == 1;
	}
	qsort(v, n, sizeof *v, cmp_i64);
	add(o, "measured", json_object_new_uint64(n));
	add(o, "held", json_object_new_uint64(held));
	add(o, "missed_in_window", json_object_new_uint64(missed));
	add(o, "min_ns", n ? json_object_new_int64(v[0]) : NULL);
	add(o, "median_ns", n ? json_object_new_int64(v[n / 2]) : NULL);
	add(o, "p90_ns", n ? json_object_new_int64(v[(n * 9) / 10]) : NULL);
	add(o, "max_ns", n ? json_object_new_int64(v[n - 1]) : NULL);
	free(v);
	return o;
}

/* A --follow chain: where it points, its history, and its leaf's hits. */
static json_object *
follow_json(struct report *r, struct rtarget *t)
{
	json_object *o = json_object_new_object(), *leaf;
	static const char *const drop[] = { "initial_value", "latest_value",
	    "changed", "static_addr", "module", "region", "perms",
	    "runtime_addr", NULL };
	const struct rbind *b = t->nbinds ? &t->binds[t->nbinds - 1] : NULL;
	size_t i;

	leaf = target_json(r, t);
	for (i = 0; drop[i] != NULL; i++)
		json_object_object_del(leaf, drop[i]);
	add(o, "id", json_object_new_int(t->id));
	add(o, "input", field(t->rec, "input"));
	add(o, "ptr_slot_addr", field(t->rec, "slot_addr"));
	add(o, "ptr_slot_static_addr", field(t->rec, "slot_static_addr"));
	add(o, "ptr_slot_module", field(t->rec, "slot_module"));
	add(o, "chain_offsets", field(t->rec, "offsets"));
	add(o, "len", field(t->rec, "len"));
	add(o, "access", field(t->rec, "access"));
	add(o, "slots_reserved", field(t->rec, "slots"));
	add(o, "binding_state", b ? json_object_new_string(b->binding) :
	    field(t->rec, "binding"));
	add(o, "generation", b ? json_object_new_uint64(b->generation) : NULL);
	add(o, "active_leaf_addr", b ? (b->leaf ? jsonc_hex(b->leaf) : NULL) :
	    field(t->rec, "leaf_addr"));
	add(o, "rebinds", field(obs_entry(r, "follows", t->id), "rebinds"));
	add(o, "pointer_slot_hits", json_object_new_uint64(t->ptr_hits));
	add(o, "leaf_hits", json_object_new_uint64(t->hits));
	add(o, "bindings", bindings_json(t));
	add(o, "rearm", rearm_json(t));
	add(o, "bindings_truncated", json_object_new_boolean(t->binds_truncated));
	json_object_object_foreach(leaf, k, v)
		if (json_object_object_get(o, k) == NULL &&
		    strcmp(k, "accepted_hits") != 0 && strcmp(k, "id") != 0)
			add(o, k, json_object_get(v));
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

static const char *
obs_str(json_object *o, const char *key)
{
	json_object *x;

	if (o == NULL || !json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

static json_object *
capabilities(struct report *r)
{
	json_object *c = json_object_new_object(), *x;
	json_object *obs = r->observation;

	x = json_object_new_object();
	add(x, "collected", json_object_new_boolean(r->armed != NULL ||
	    obs != NULL));
	add(c, "per_thread_watchpoints", x);
	x = json_object_new_object();
	add(x, "collected", json_object_new_boolean(r->regs_seen ||
	    obs_bool(r->armed, "regs", NULL)));
	add(c, "registers", x);
	x = json_object_new_object();
	add(x, "collected", json_object_new_boolean(obs != NULL &&
	    json_object_object_get(obs, "target_alive_after") != NULL));
	add(c, "memory_snapshots", x);
	return c;
}

static json_object *
process(struct report *r)
{
	json_object *p = json_object_new_object(), *x;
	static const char *const copy[] = { "pid", "start_time", "exe",
	    "binary_match", "pie_slide", "slot_limit" };
	const char *stop = obs_str(r->observation, "stop_reason");
	size_t i;

	for (i = 0; i < sizeof copy / sizeof copy[0]; i++)
		add(p, copy[i], field(r->session, copy[i]));
	add(p, "alive_after", field(r->observation, "target_alive_after"));
	add(p, "changed", stop ? json_object_new_boolean(strcmp(stop,
	    wp_stop_names[WP_STOP_EXEC]) == 0) : NULL);
	x = field(r->session, "warnings");
	add(p, "warnings", x ? x : json_object_new_array());
	return p;
}

static void
reason(json_object *a, enum wp_bound why)
{
	json_object_array_add(a, json_object_new_string(wp_bound_names[why]));
}

static json_object *
lower_bound_reasons(struct report *r, long malformed)
{
	json_object *a = json_object_new_array(), *obs = r->observation;
	const char *stop = obs_str(obs, "stop_reason");

	if (obs == NULL)
		reason(a, WP_BOUND_INCOMPLETE);
	if (r->lost > 0 || r->lost_records > 0 ||
	    (obs && !obs_bool(obs, "lost_events", "known")) ||
	    (obs && json_object_get_int64(json_object_object_get(
	    json_object_object_get(obs, "lost_events"), "total")) > 0))
		reason(a, WP_BOUND_LOST);
	if (obs_bool(obs, "truncated_by_max_events", NULL) &&
	    !obs_bool(obs, "tallied", NULL))
		reason(a, WP_BOUND_TRUNCATED);
	if (obs_bool(obs, "thread_coverage", "partial_coverage"))
		reason(a, WP_BOUND_PARTIAL);
	if (stop && strcmp(stop, wp_stop_names[WP_STOP_OUTPUT_CLOSED]) == 0)
		reason(a, WP_BOUND_OUTPUT_CLOSED);
	if (malformed > 0)
		reason(a, WP_BOUND_MALFORMED);
	if (obs_bool(obs, "ptrace", "unmodeled_stores"))
		reason(a, WP_BOUND_UNMODELED);
	if (json_object_array_length(a) == 0 &&
	    obs_bool(obs, "counts_are_lower_bound", NULL))
		reason(a, WP_BOUND_WP_ARM);
	return a;
}

static json_object *
stream_json(struct report *r, long malformed)
{
	json_object *x = json_object_new_object();

	add(x, "records", json_object_new_uint64(r->records));
	add(x, "hits", json_object_new_uint64(r->hits));
	add(x, "hits_of_unknown_targets", json_object_new_uint64(r->orphan_hits));
	add(x, "lost_records", json_object_new_uint64(r->lost_records));
	add(x, "thread_records", json_object_new_uint64(r->thread_records));
	add(x, "other_records", json_object_new_uint64(r->other_records));
	add(x, "malformed_lines", json_object_new_int64(malformed));
	return x;
}

static json_object *
watches(struct report *r, int follows)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < r->nt; i++)
		if (r->t[i].follow == follows)
			json_object_array_add(a, follows ?
			    follow_json(r, &r->t[i]) : target_json(r, &r->t[i]));
	return a;
}

json_object *
report_document(struct report *r, long malformed)
{
	json_object *o = json_object_new_object(), *x = NULL, *reasons;
	json_object *obs = r->observation;
	const char *backend;

	maxchains = r->maxchains;
	backend = obs ? obs_str(obs, "backend") : obs_str(r->armed, "backend");
	add(o, "schema_version", json_object_new_int(WP_SCHEMA_VERSION));
	add(o, "tool", json_object_new_string("wp"));
	add(o, "tool_version", json_object_new_string(WP_VERSION));
	add(o, "operation", json_object_new_string("live_watch"));
	add(o, "backend", backend ? json_object_new_string(backend) : NULL);
	add(o, "complete", json_object_new_boolean(obs != NULL));
	add(o, "incomplete_reason", obs ? NULL : json_object_new_string(
	    "the stream ended without an observation record: the watch was "
	    "killed or is still running"));
	add(o, "capabilities", capabilities(r));
	add(o, "process", process(r));
	if (obs != NULL && json_object_deep_copy(obs, &x, NULL) == 0) {
		json_object_object_del(x, "type");
		json_object_object_del(x, "targets");
	}
	add(o, "observation", x);
	reasons = lower_bound_reasons(r, malformed);
	add(o, "counts_are_lower_bound",
	    json_object_new_boolean(json_object_array_length(reasons) > 0));
	add(o, "lower_bound_reasons", reasons);
	add(o, "watches", watches(r, 0));
	add(o, "dependent_watches", watches(r, 1));
	add(o, "stream", stream_json(r, malformed));
	return o;
}
