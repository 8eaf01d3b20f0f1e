/*
 * The readers of wp-resolve's records (session, target, follow), which
 * every later stage reads, and a record's members by name for them and
 * the schema check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "util.h"

/* ---- field access ---- */

int
wp_rec_get(const struct wp_record *rec, const char *key)
{
	return wp_json_get(rec->j, 0, key);
}

int
wp_rec_int(const struct wp_record *rec, const char *key, int64_t *v)
{
	return wp_json_int(rec->j, wp_rec_get(rec, key), v);
}

int
wp_rec_hex(const struct wp_record *rec, const char *key, uint64_t *v)
{
	return wp_json_hex(rec->j, wp_rec_get(rec, key), v);
}

const char *
wp_rec_raw(const struct wp_record *rec, const char *key, size_t *len)
{
	int v = wp_rec_get(rec, key);

	return v < 0 ? NULL : wp_json_raw(rec->j, v, len);
}

/* ---- session ---- */

/*
 * Room for the elements of array member key of the session (a: its
 * value), size bytes each, in *v: 0 (*v NULL where it is absent or
 * null), or -1 with err when it is not an array.
 */
static int
session_array(const struct wp_json *j, int a, const char *key, size_t size,
    void **v, struct wp_error *err)
{
	*v = NULL;
	if (a < 0 || wp_json_is(j, a, WP_JNULL))
		return 0;
	if (!wp_json_is(j, a, WP_JARRAY))
		return wp_error_set(err, WP_EXIT_MALFORMED, "\"%s\" is not an "
		    "array", key);
	*v = wp_xcalloc(wp_json_count(j, a), size);
	return 0;
}

static int
read_modules(const struct wp_json *j, int a, struct wp_session *s,
    struct wp_error *err)
{
	struct wp_module_rec *m;
	int o;

	if (session_array(j, a, "modules", sizeof *s->mods, (void **)&s->mods,
	    err) == -1)
		return -1;
	for (o = s->mods ? wp_json_first(j, a) : -1; o >= 0;
	    o = wp_json_next(j, a, o)) {
		m = &s->mods[s->nmods];
		if ((m->path = wp_json_strdup(j, wp_json_get(j, o, "path"))) ==
		    NULL) {
			wp_error_set(err, WP_EXIT_MALFORMED, "a module without a \"path\"");
			return -1;
		}
		s->nmods++;
		/* NULL: not a file (the vDSO) */
		m->file = wp_json_strdup(j, wp_json_get(j, o, "file"));
		m->build_id = wp_json_strdup(j, wp_json_get(j, o, "build_id"));
		wp_json_hex(j, wp_json_get(j, o, "load_bias"), &m->load_bias);
	}
	return 0;
}

static int
read_mappings(const struct wp_json *j, int a, struct wp_session *s,
    struct wp_error *err)
{
	struct wp_mapping_rec *m;
	int o;

	if (session_array(j, a, "mappings", sizeof *s->maps, (void **)&s->maps,
	    err) == -1)
		return -1;
	for (o = s->maps ? wp_json_first(j, a) : -1; o >= 0;
	    o = wp_json_next(j, a, o)) {
		m = &s->maps[s->nmaps];
		if (wp_json_hex(j, wp_json_get(j, o, "start"), &m->start) ||
		    wp_json_hex(j, wp_json_get(j, o, "end"), &m->end))
			continue;
		m->path = wp_json_strdup(j, wp_json_get(j, o, "path"));
		m->has_bias = wp_json_hex(j, wp_json_get(j, o, "load_bias"),
		    &m->load_bias) == 0;
		s->nmaps++;
	}
	return 0;
}

int
wp_rec_read_session(const struct wp_record *rec, struct wp_session *s,
    struct wp_error *err)
{
	const struct wp_json *j = rec->j;
	int64_t v;

	memset(s, 0, sizeof *s);
	if (wp_rec_int(rec, "pid", &v) == -1 || v <= 0 || v > INT32_MAX) {
		wp_error_set(err, WP_EXIT_MALFORMED, "session record without pid or "
		    "start_time");
		return -1;
	}
	s->pid = (pid_t)v;
	if (wp_rec_int(rec, "start_time", &v) == -1 || v < 0) {
		wp_error_set(err, WP_EXIT_MALFORMED, "session record without pid or "
		    "start_time");
		return -1;
	}
	s->start_time = (uint64_t)v;
	s->exe = wp_json_strdup(j, wp_rec_get(rec, "exe"));
	s->exe_build_id = wp_json_strdup(j, wp_rec_get(rec, "exe_build_id"));
	if (read_modules(j, wp_rec_get(rec, "modules"), s, err) == -1 ||
	    read_mappings(j, wp_rec_get(rec, "mappings"), s, err) == -1) {
		wp_session_free(s);
		return -1;
	}
	return 0;
}

void
wp_session_free(struct wp_session *s)
{
	size_t i;

	for (i = 0; i < s->nmods; i++) {
		free(s->mods[i].path);
		free(s->mods[i].file);
		free(s->mods[i].build_id);
	}
	for (i = 0; i < s->nmaps; i++)
		free(s->maps[i].path);
	free(s->mods);
	free(s->maps);
	free(s->exe);
	free(s->exe_build_id);
	memset(s, 0, sizeof *s);
}

/* ---- target and follow ---- */

/* len and access, common to targets and follows. */
static int
read_len_access(const struct wp_record *rec, struct wp_spec *t, struct wp_error *err)
{
	int64_t v;
	int a;

	t->len = 4;
	if (wp_rec_get(rec, "len") >= 0) {
		if (wp_rec_int(rec, "len", &v) == -1 || v < 1 ||
		    v > WP_TARGET_MAXLEN) {
			wp_error_set(err, WP_EXIT_MALFORMED, "%s record %d: "
			    "\"len\" must be 1 to %u", rec->type, t->id,
			    WP_TARGET_MAXLEN);
			return -1;
		}
		t->len = (size_t)v;
	}
	a = wp_rec_get(rec, "access");
	t->rw = wp_json_streq(rec->j, a, "rw");
	if (a >= 0 && !t->rw && !wp_json_streq(rec->j, a, "w")) {
		wp_error_set(err, WP_EXIT_MALFORMED, "%s record %d: \"access\" must be \"w\" or "
		    "\"rw\"", rec->type, t->id);
		return -1;
	}
	return 0;
}

int
wp_rec_read_target(const struct wp_record *rec, struct wp_spec *t, struct wp_error *err)
{
	int64_t v;

	memset(t, 0, sizeof *t);
	if (wp_rec_int(rec, "id", &v) == -1 || v < 0 || v > INT32_MAX ||
	    wp_rec_hex(rec, "runtime_addr", &t->addr) == -1) {
		wp_error_set(err, WP_EXIT_MALFORMED, "target record without id or "
		    "runtime_addr");
		return -1;
	}
	t->id = (int)v;
	return read_len_access(rec, t, err);
}

int
wp_rec_read_follow(const struct wp_record *rec, struct wp_spec *f, struct wp_error *err)
{
	const struct wp_json *j = rec->j;
	int64_t v;
	int a, x;

	memset(f, 0, sizeof *f);
	a = wp_rec_get(rec, "offsets");
	if (wp_rec_int(rec, "id", &v) == -1 || v < 0 || v > INT32_MAX ||
	    wp_rec_hex(rec, "slot_addr", &f->addr) == -1 ||
	    !wp_json_is(j, a, WP_JARRAY) || wp_json_count(j, a) == 0 ||
	    wp_json_count(j, a) > WP_CHAIN_MAXDEPTH) {
		wp_error_set(err, WP_EXIT_MALFORMED, "follow record without id, slot_addr or "
		    "offsets");
		return -1;
	}
	f->id = (int)v;
	for (x = wp_json_first(j, a); x >= 0; x = wp_json_next(j, a, x))
		if (wp_json_shex(j, x, &f->offs[f->noffs++]) == -1) {
			wp_error_set(err, WP_EXIT_MALFORMED, "follow record without id, "
			    "slot_addr or offsets");
			return -1;
		}
	return read_len_access(rec, f, err);
}
