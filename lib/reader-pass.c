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

/* A member and where its field is in the struct read. */
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

/* The members m[0..n) of object obj into the struct at base. */
static void
read_members(const struct wp_json *j, int obj, const struct member *m,
    size_t n, void *base)
{
	size_t i;
	int v;

	for (i = 0; i < n; i++) {
		v = obj >= 0 && wp_json_is(j, obj, WP_JOBJECT) ?
		    wp_json_get(j, obj, m[i].key) : -1;
		field_read(j, v, (struct wp_field *)((char *)base + m[i].off));
	}
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

#define M(s, k, f)	{ k, offsetof(struct s, f) }
#define NM(a)		(sizeof (a) / sizeof (a)[0])

/* the session's members a report shows as they are: the first 6 */
#define SESSION_SHOWN	6
static const struct member session_m[] = {
	M(wp_session_pass, "pid", pid),
	M(wp_session_pass, "start_time", start_time),
	M(wp_session_pass, "exe", exe),
	M(wp_session_pass, "binary_match", binary_match),
	M(wp_session_pass, "pie_slide", pie_slide),
	M(wp_session_pass, "slot_limit", slot_limit),
	M(wp_session_pass, "warnings", warnings),
	M(wp_session_pass, "comm", comm),
};

static const struct member armed_m[] = {
	M(wp_armed_pass, "backend", backend),
	M(wp_armed_pass, "regs", regs),
	M(wp_armed_pass, "condition", condition),
	M(wp_armed_pass, "condition_where", condition_where),
};

static const struct member obs_m[] = {
	M(wp_obs_pass, "backend", backend),
	M(wp_obs_pass, "elapsed_ms", elapsed_ms),
	M(wp_obs_pass, "duration_requested_ms", duration_requested_ms),
	M(wp_obs_pass, "stop_reason", stop_reason),
	M(wp_obs_pass, "stop_detail", stop_detail),
	M(wp_obs_pass, "error", error),
	M(wp_obs_pass, "target_alive_after", target_alive_after),
	M(wp_obs_pass, "truncated_by_max_events", truncated_by_max_events),
	M(wp_obs_pass, "tallied", tallied),
	M(wp_obs_pass, "counts_are_lower_bound", counts_are_lower_bound),
};

static const struct member lost_m[] = {
	M(wp_obs_pass, "known", lost_known),
	M(wp_obs_pass, "total", lost_total),
	M(wp_obs_pass, "undelivered_records", lost_undelivered),
};

static const struct member coverage_m[] = {
	M(wp_obs_pass, "seeded_tids", seeded),
	M(wp_obs_pass, "inherited_tids", inherited),
	M(wp_obs_pass, "dynamically_attached_tids", attached_late),
	M(wp_obs_pass, "unattached_tids", unattached),
	M(wp_obs_pass, "exited_tids", exited),
	M(wp_obs_pass, "forked_processes", forked),
	M(wp_obs_pass, "partial_coverage", partial),
};

static const struct member stopped_m[] = {
	M(wp_obs_pass, "tid", stopped_tid),
	M(wp_obs_pass, "writer_ip", stopped_writer_ip),
	M(wp_obs_pass, "ip", stopped_ip),
	M(wp_obs_pass, "core", stopped_core),
};

static const struct member ptrace_m[] = {
	M(wp_obs_pass, "steps_per_second", steps_per_second),
	M(wp_obs_pass, "native_run_us", native_run_us),
	M(wp_obs_pass, "blocked_us", blocked_us),
	M(wp_obs_pass, "steps", steps),
	M(wp_obs_pass, "native_instructions_per_second", native_ips),
	M(wp_obs_pass, "unmodeled_stores", unmodeled_stores),
};

static const struct member page_m[] = {
	M(wp_obs_pass, "faults_watched", faults_watched),
	M(wp_obs_pass, "faults_neighbour", faults_neighbour),
	M(wp_obs_pass, "emulated", emulated),
	M(wp_obs_pass, "stepped", stepped),
	M(wp_obs_pass, "kernel_writes", kernel_writes),
	M(wp_obs_pass, "native_run_us", page_native_run_us),
};

static const struct member entry_m[] = {
	M(wp_obs_entry_pass, "counted", counted),
	M(wp_obs_entry_pass, "lost", lost),
	M(wp_obs_entry_pass, "latest_value", latest_value),
	M(wp_obs_entry_pass, "rebinds", rebinds),
	M(wp_obs_entry_pass, "initial_value", initial_value),
};

/* a target record's members as a report shows them: the first 8 */
#define TARGET_SHOWN	8
static const struct member trec_m[] = {
	M(wp_watch_pass, "input", input),
	M(wp_watch_pass, "runtime_addr", runtime_addr),
	M(wp_watch_pass, "static_addr", static_addr),
	M(wp_watch_pass, "module", module),
	M(wp_watch_pass, "region", region),
	M(wp_watch_pass, "perms", perms),
	M(wp_watch_pass, "access", access),
	M(wp_watch_pass, "len", len),
	M(wp_watch_pass, "initial_value", initial_value),
	M(wp_watch_pass, "slot_addr", slot_addr),
	M(wp_watch_pass, "slot_static_addr", slot_static_addr),
	M(wp_watch_pass, "slot_module", slot_module),
	M(wp_watch_pass, "offsets", offsets),
	M(wp_watch_pass, "slots", slots),
	M(wp_watch_pass, "binding", binding),
	M(wp_watch_pass, "leaf_addr", leaf_addr),
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
	read_members(j, wp_json_get(j, 0, "lost_events"), lost_m, NM(lost_m),
	    o);
	read_members(j, wp_json_get(j, 0, "thread_coverage"), coverage_m,
	    NM(coverage_m), o);
	o->partial_reasons = partial_reasons(j, wp_json_get(j, 0,
	    "thread_coverage"));
	p = wp_json_get(j, 0, "ptrace");
	o->has_ptrace = p >= 0 && j->t[p].type != WP_JNULL;
	read_members(j, p, ptrace_m, NM(ptrace_m), o);
	p = wp_json_get(j, 0, "page");
	o->has_page = p >= 0 && j->t[p].type != WP_JNULL;
	read_members(j, p, page_m, NM(page_m), o);
	read_members(j, wp_json_get(j, 0, "stopped_at"), stopped_m,
	    NM(stopped_m), o);
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
	free_members(lost_m, NM(lost_m), o);
	free_members(coverage_m, NM(coverage_m), o);
	free_members(ptrace_m, NM(ptrace_m), o);
	free_members(page_m, NM(page_m), o);
	free_members(stopped_m, NM(stopped_m), o);
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
