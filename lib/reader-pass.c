/*
 * The records wp-report passes through (session, armed, observation,
 * target, follow): the members it shows, read once into typed fields,
 * each kept as its JSON text and as text (reader.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "util.h"
#include "vocab.h"

/* A member ("key", or "object.key") and where its field is in the struct
   read. */
struct member {
	const char	*key;
	size_t		 off;
};

static char *
dup_raw(const struct wp_json *j, int v)
{
	const char *raw;
	size_t n;
	char *s;

	raw = wp_json_raw(j, v, &n);
	s = wp_xmalloc(n + 1);
	memcpy(s, raw, n);
	s[n] = '\0';
	return s;
}

static void
field_read(const struct wp_json *j, int v, struct wp_field *f)
{
	memset(f, 0, sizeof *f);
	f->type = -1;
	if (v < 0)
		return;
	f->type = j->t[v].type;
	f->json = dup_raw(j, v);
	if (f->type == WP_JSTRING)
		f->text = wp_json_strdup(j, v);
	else if (f->type != WP_JNULL)
		f->text = wp_xstrdup(f->json);
}

static void
field_free(struct wp_field *f)
{
	free(f->json);
	free(f->text);
	memset(f, 0, sizeof *f);
	f->type = -1;
}

/* The value at path ("key", "object.key", "a.b.key") in object obj, or
   -1. */
static int
member(const struct wp_json *j, int obj, const char *path)
{
	const char *dot = strchr(path, '.');
	char head[32];
	size_t n;

	if (dot != NULL && (n = (size_t)(dot - path)) < sizeof head) {
		memcpy(head, path, n);
		head[n] = '\0';
		return member(j, member(j, obj, head), dot + 1);
	}
	return obj >= 0 && wp_json_is(j, obj, WP_JOBJECT) ?
	    wp_json_get(j, obj, path) : -1;
}

/* The members m[0..n) of object obj into the struct at base. */
static void
read_members(const struct wp_json *j, int obj, const struct member *m,
    size_t n, void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		field_read(j, member(j, obj, m[i].key),
		    (struct wp_field *)((char *)base + m[i].off));
}

static void
free_members(const struct member *m, size_t n, void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		field_free((struct wp_field *)((char *)base + m[i].off));
}

/* The members m[0..n) of the struct at base, as they were read. */
static void
write_members(struct wp_jw *w, const struct member *m, size_t n,
    const void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		wp_field_write(w, m[i].key, (const struct wp_field *)
		    ((const char *)base + m[i].off));
}

/* a member of each struct read: its key, its field */
#define M(s, k, f)	{ k, offsetof(struct s, f) }
#define SESSION(k, f)	M(wp_session_pass, k, f)
#define ARMED(k, f)	M(wp_armed_pass, k, f)
#define OBS(k, f)	M(wp_obs_pass, k, f)
#define ENTRY(k, f)	M(wp_obs_entry_pass, k, f)
#define WATCH(k, f)	M(wp_watch_pass, k, f)
#define NM(a)		(sizeof (a) / sizeof (a)[0])

/* the session's members a report shows as they are: the first 6 */
#define SESSION_SHOWN	6
static const struct member session_m[] = {
	SESSION("pid", pid),
	SESSION("start_time", start_time),
	SESSION("exe", exe),
	SESSION("binary_match", binary_match),
	SESSION("pie_slide", pie_slide),
	SESSION("slot_limit", slot_limit),
	SESSION("warnings", warnings),
	SESSION("comm", comm),
};

static const struct member armed_m[] = {
	ARMED("backend", backend),
	ARMED("regs", regs),
	ARMED("condition", condition),
	ARMED("condition_where", condition_where),
	ARMED("callchain", callchain),
};

static const struct member obs_m[] = {
	OBS("backend", backend),
	OBS("elapsed_ms", elapsed_ms),
	OBS("duration_requested_ms", duration_requested_ms),
	OBS("stop_reason", stop_reason),
	OBS("stop_detail", stop_detail),
	OBS("error", error),
	OBS("target_alive_after", target_alive_after),
	OBS("truncated_by_max_events", truncated_by_max_events),
	OBS("max_events", max_events),
	OBS("tallied", tallied),
	OBS("counts_are_lower_bound", counts_are_lower_bound),
	OBS("lost_events.known", lost_known),
	OBS("lost_events.total", lost_total),
	OBS("lost_events.undelivered_records", lost_undelivered),
	OBS("thread_coverage.seeded_tids", seeded),
	OBS("thread_coverage.inherited_tids", inherited),
	OBS("thread_coverage.dynamically_attached_tids", attached_late),
	OBS("thread_coverage.unattached_tids", unattached),
	OBS("thread_coverage.exited_tids", exited),
	OBS("thread_coverage.forked_processes", forked),
	OBS("thread_coverage.partial_coverage", partial),
	OBS("stopped_at.tid", stopped_tid),
	OBS("stopped_at.writer_ip", stopped_writer_ip),
	OBS("stopped_at.ip", stopped_ip),
	OBS("stopped_at.core", stopped_core),
	OBS("stopped_at.process", stopped_process),
	OBS("ptrace.steps_per_second", steps_per_second),
	OBS("ptrace.native_run_us", native_run_us),
	OBS("ptrace.blocked_us", blocked_us),
	OBS("ptrace.steps", steps),
	OBS("ptrace.native_instructions_per_second", native_ips),
	OBS("ptrace.unmodeled_stores", unmodeled_stores),
	OBS("page.faults_watched", faults_watched),
	OBS("page.faults_neighbour", faults_neighbour),
	OBS("page.emulated", emulated),
	OBS("page.stepped", stepped),
	OBS("page.tracer_moves", tracer_moves),
	OBS("page.kernel_writes", kernel_writes),
	OBS("page.native_run_us", page_native_run_us),
	OBS("page.stops", page_stops),
	OBS("page.worst_second.from_us", worst_from_us),
	OBS("page.worst_second.span_us", worst_span_us),
	OBS("page.worst_second.native_run_us", worst_native_us),
	OBS("page.worst_second.stops", worst_stops),
};

static const struct member entry_m[] = {
	ENTRY("counted", counted),
	ENTRY("lost", lost),
	ENTRY("latest_value", latest_value),
	ENTRY("rebinds", rebinds),
	ENTRY("initial_value", initial_value),
	ENTRY("pages_dropped", pages_dropped),
};

/* a target record's members as a report shows them: the first 8 */
#define TARGET_SHOWN	8
static const struct member trec_m[] = {
	WATCH("input", input),
	WATCH("runtime_addr", runtime_addr),
	WATCH("static_addr", static_addr),
	WATCH("module", module),
	WATCH("region", region),
	WATCH("perms", perms),
	WATCH("access", access),
	WATCH("len", len),
	WATCH("initial_value", initial_value),
	WATCH("slot_addr", slot_addr),
	WATCH("slot_static_addr", slot_static_addr),
	WATCH("slot_module", slot_module),
	WATCH("offsets", offsets),
	WATCH("slots", slots),
	WATCH("binding", binding),
	WATCH("leaf_addr", leaf_addr),
};

void
wp_rec_pass_session(const struct wp_record *rec, struct wp_session_pass *s)
{
	const struct wp_json *j = rec->j;
	int a, x;

	s->present = 1;
	read_members(j, 0, session_m, NM(session_m), s);
	a = wp_json_get(j, 0, "warnings");
	if (!wp_json_is(j, a, WP_JARRAY))
		return;
	s->warn = wp_xcalloc(wp_json_count(j, a) + 1, sizeof *s->warn);
	for (x = wp_json_first(j, a); x >= 0; x = wp_json_next(j, a, x))
		if (wp_json_is(j, x, WP_JSTRING))
			s->warn[s->nwarn++] = wp_json_strdup(j, x);
}

void
wp_session_pass_write(struct wp_jw *w, const struct wp_session_pass *s)
{
	write_members(w, session_m, SESSION_SHOWN, s);
}

void
wp_session_pass_free(struct wp_session_pass *s)
{
	size_t i;

	if (!s->present)
		return;
	free_members(session_m, NM(session_m), s);
	for (i = 0; i < s->nwarn; i++)
		free(s->warn[i]);
	free(s->warn);
	memset(s, 0, sizeof *s);
}


/* The observation less its type and targets, its members verbatim. */
static char *
obs_json(const struct wp_json *j)
{
	struct wp_jw w = { 0 };
	const char *raw;
	size_t n;
	int v, first = 1;

	wp_jw_append(&w, "{", 1);
	for (v = wp_json_first(j, 0); v >= 0; v = wp_json_next(j, 0, v)) {
		if (wp_json_key_is(j, v, "type", 4) ||
		    wp_json_key_is(j, v, "targets", 7))
			continue;
		if (!first)
			wp_jw_append(&w, ",", 1);
		first = 0;
		raw = wp_json_raw(j, v - 1, &n);
		wp_jw_append(&w, raw, n);
		wp_jw_append(&w, ":", 1);
		raw = wp_json_raw(j, v, &n);
		wp_jw_append(&w, raw, n);
	}
	wp_jw_append(&w, "}", 1);
	return w.buf;
}

/* The entries of the observation's array key, each with its id. */
static struct wp_obs_entry_pass *
obs_entries(const struct wp_json *j, const char *key, size_t *n)
{
	struct wp_obs_entry_pass *e;
	struct wp_field id;
	int a, x;

	*n = 0;
	a = wp_json_get(j, 0, key);
	if (!wp_json_is(j, a, WP_JARRAY))
		return NULL;
	e = wp_xcalloc(wp_json_count(j, a) + 1, sizeof *e);
	for (x = wp_json_first(j, a); x >= 0; x = wp_json_next(j, a, x)) {
		field_read(j, wp_json_is(j, x, WP_JOBJECT) ?
		    wp_json_get(j, x, "id") : -1, &id);
		e[*n].id = (int)wp_field_int(&id);
		field_free(&id);
		read_members(j, x, entry_m, NM(entry_m), &e[(*n)++]);
	}
	return e;
}

/* The partial_coverage_reasons of the thread_coverage object tc. */
static unsigned
partial_reasons(const struct wp_json *j, int tc)
{
	char s[64];
	unsigned m = 0;
	int a, x, k, len;

	a = tc >= 0 && wp_json_is(j, tc, WP_JOBJECT) ?
	    wp_json_get(j, tc, "partial_coverage_reasons") : -1;
	if (!wp_json_is(j, a, WP_JARRAY))
		return 0;
	for (x = wp_json_first(j, a); x >= 0; x = wp_json_next(j, a, x))
		if ((len = wp_json_str(j, x, s, sizeof s)) >= 0 &&
		    (k = wp_vocab_find(wp_partial_names, WP_NPARTIALS, s,
		    (size_t)len)) >= 0)
			m |= 1U << k;
	return m;
}

void
wp_rec_pass_observation(const struct wp_record *rec, struct wp_obs_pass *o)
{
	const struct wp_json *j = rec->j;
	int p;

	wp_obs_pass_free(o);
	o->present = 1;
	o->json = obs_json(j);
	read_members(j, 0, obs_m, NM(obs_m), o);
	o->partial_reasons = partial_reasons(j, wp_json_get(j, 0,
	    "thread_coverage"));
	p = wp_json_get(j, 0, "ptrace");
	o->has_ptrace = p >= 0 && j->t[p].type != WP_JNULL;
	p = wp_json_get(j, 0, "page");
	o->has_page = p >= 0 && j->t[p].type != WP_JNULL;
	o->targets = obs_entries(j, "targets", &o->ntargets);
	o->follows = obs_entries(j, "follows", &o->nfollows);
}

static void
free_entries(struct wp_obs_entry_pass *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free_members(entry_m, NM(entry_m), &e[i]);
	free(e);
}

void
wp_obs_pass_free(struct wp_obs_pass *o)
{
	if (!o->present)
		return;
	free(o->json);
	free_members(obs_m, NM(obs_m), o);
	free_entries(o->targets, o->ntargets);
	free_entries(o->follows, o->nfollows);
	memset(o, 0, sizeof *o);
}

void
wp_rec_pass_armed(const struct wp_record *rec, struct wp_armed_pass *a)
{
	a->present = 1;
	read_members(rec->j, 0, armed_m, NM(armed_m), a);
	a->initial = obs_entries(rec->j, "initial", &a->ninitial);
}

void
wp_armed_pass_free(struct wp_armed_pass *a)
{
	if (a->present) {
		free_members(armed_m, NM(armed_m), a);
		free_entries(a->initial, a->ninitial);
	}
	memset(a, 0, sizeof *a);
}

void
wp_rec_pass_target(const struct wp_record *rec, struct wp_watch_pass *t)
{
	read_members(rec->j, 0, trec_m, NM(trec_m), t);
}

void
wp_target_pass_write(struct wp_jw *w, const struct wp_watch_pass *t)
{
	write_members(w, trec_m, TARGET_SHOWN, t);
}

void
wp_watch_pass_free(struct wp_watch_pass *t)
{
	free_members(trec_m, NM(trec_m), t);
}

void
wp_field_write(struct wp_jw *w, const char *key, const struct wp_field *f)
{
	if (f != NULL && f->json != NULL)
		wp_jw_raw(w, key, f->json, strlen(f->json));
	else
		wp_jw_null(w, key);
}

int
wp_field_bool(const struct wp_field *f)
{
	switch (f->type) {
	case WP_JTRUE:
		return 1;
	case WP_JNUMBER:
		return strtod(f->text, NULL) != 0;
	case WP_JSTRING:
		return f->text[0] != '\0';
	default:
		return 0;
	}
}

int64_t
wp_field_int(const struct wp_field *f)
{
	double d;

	switch (f->type) {
	case WP_JTRUE:
		return 1;
	case WP_JNUMBER:
		if (strpbrk(f->text, ".eE") == NULL)
			return strtoll(f->text, NULL, 10);
		d = strtod(f->text, NULL);
		return d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN :
		    (int64_t)d;
	case WP_JSTRING:
		return strtoll(f->text, NULL, 10);
	default:
		return 0;
	}
}

const char *
wp_field_str(const struct wp_field *f)
{
	return f->type == WP_JSTRING ? f->text : NULL;
}

const char *
wp_field_text(const struct wp_field *f)
{
	return f->text != NULL ? f->text : "-";
}
