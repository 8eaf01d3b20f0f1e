/*
 * The readers of wp-resolve's records (session, target, follow), which
 * every later stage reads, and a record's members by name for them and
 * the schema check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "reader.h"
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

/* ---- count ---- */

void
wp_rec_read_count(const struct wp_record *rec, struct wp_count_in *c)
{
	int64_t v;

	memset(c, 0, sizeof *c);
	if (wp_rec_int(rec, "target", &v) == 0 && v >= INT32_MIN &&
	    v <= INT32_MAX) {
		c->has_target = 1;
		c->target = (int)v;
	}
	if (wp_rec_int(rec, "counted", &v) == 0 && v >= 0) {
		c->has_counted = 1;
		c->counted = (uint64_t)v;
	}
	c->pointer = wp_json_streq(rec->j, wp_rec_get(rec, "role"),
	    wp_role_names[WP_ROLE_POINTER]);
}

/* ---- session ---- */

/* A module of the session: 0, or -1 with err. */
static int
read_module(const struct wp_json *j, int o, void *elem, struct wp_error *err)
{
	struct wp_module_rec *m = elem;

	if ((m->path = wp_json_strdup(j, wp_json_get(j, o, "path"))) == NULL)
		return wp_error_set(err, WP_EXIT_MALFORMED, "a module without "
		    "a \"path\"");
	/* NULL: not a file (the vDSO) */
	m->file = wp_json_strdup(j, wp_json_get(j, o, "file"));
	m->build_id = wp_json_strdup(j, wp_json_get(j, o, "build_id"));
	wp_json_hex(j, wp_json_get(j, o, "load_bias"), &m->load_bias);
	return 0;
}

/* A mapping of the session: 0; 1, skipped, where it has no range. */
static int
read_mapping(const struct wp_json *j, int o, void *elem,
    struct wp_error *err)
{
	struct wp_mapping_rec *m = elem;

	(void)err;
	if (wp_json_hex(j, wp_json_get(j, o, "start"), &m->start) ||
	    wp_json_hex(j, wp_json_get(j, o, "end"), &m->end))
		return 1;
	m->path = wp_json_strdup(j, wp_json_get(j, o, "path"));
	m->has_bias = wp_json_hex(j, wp_json_get(j, o, "load_bias"),
	    &m->load_bias) == 0;
	return 0;
}

/*
 * The elements of the session's array member key, size bytes each, into
 * *v (NULL where it is absent or null), *n of them: one reads each, and
 * returns 0 to keep it, 1 to skip it, or -1 with err.  0, or -1 with
 * err (the elements read so far kept, for the caller to free).
 */
static int
read_array(const struct wp_record *rec, const char *key, size_t size,
    void **v, size_t *n, int (*one)(const struct wp_json *, int, void *,
    struct wp_error *), struct wp_error *err)
{
	const struct wp_json *j = rec->j;
	int a, o, rc;

	*v = NULL;
	a = wp_rec_get(rec, key);
	if (a < 0 || wp_json_is(j, a, WP_JNULL))
		return 0;
	if (!wp_json_is(j, a, WP_JARRAY))
		return wp_error_set(err, WP_EXIT_MALFORMED, "\"%s\" is not an "
		    "array", key);
	*v = wp_xcalloc(wp_json_count(j, a), size);
	for (o = wp_json_first(j, a); o >= 0; o = wp_json_next(j, a, o)) {
		if ((rc = one(j, o, (char *)*v + *n * size, err)) == -1)
			return -1;
		if (rc == 0)
			(*n)++;
	}
	return 0;
}

int
wp_rec_read_session(const struct wp_record *rec, struct wp_session *s,
    struct wp_error *err)
{
	const struct wp_json *j = rec->j;
	int64_t pid, start;
	char name[16];
	int m;

	memset(s, 0, sizeof *s);	/* no "machine" (older streams): x86_64 */
	if (wp_rec_int(rec, "pid", &pid) == -1 || pid <= 0 ||
	    pid > INT32_MAX || wp_rec_int(rec, "start_time", &start) == -1 ||
	    start < 0)
		return wp_error_set(err, WP_EXIT_MALFORMED, "session record "
		    "without pid or start_time");
	s->pid = (pid_t)pid;
	s->start_time = (uint64_t)start;
	if ((m = wp_rec_get(rec, "machine")) >= 0 &&
	    (wp_json_str(j, m, name, sizeof name) == -1 ||
	    (s->machine = wp_machine_of(name)) == -1)) {
		s->machine = 0;
		return wp_error_set(err, WP_EXIT_MALFORMED, "session record: "
		    "\"machine\" is none of x86_64, aarch64");
	}
	s->exe = wp_json_strdup(j, wp_rec_get(rec, "exe"));
	s->exe_build_id = wp_json_strdup(j, wp_rec_get(rec, "exe_build_id"));
	if (read_array(rec, "modules", sizeof *s->mods, (void **)&s->mods,
	    &s->nmods, read_module, err) == -1 ||
	    read_array(rec, "mappings", sizeof *s->maps, (void **)&s->maps,
	    &s->nmaps, read_mapping, err) == -1) {
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

/* ---- site ---- */

/* The register named by member key of operand o: its index, -1 for
   null; -2 when it is no register. */
static int
site_reg(const struct wp_json *j, int o, const char *key)
{
	char name[16];
	int v = wp_json_get(j, o, key);

	if (v < 0 || wp_json_is(j, v, WP_JNULL))
		return -1;
	if (wp_json_str(j, v, name, sizeof name) == -1)
		return -2;
	v = wp_vocab_find(wp_x86_reg_names, WP_NREGS, name, strlen(name));
	return v < 0 ? -2 : v;
}

int
wp_rec_read_site(const struct wp_record *rec, struct wp_site_spec *s,
    struct wp_error *err)
{
	const struct wp_json *j = rec->j;
	struct wp_x86_mem *m = &s->in.mem;
	int64_t id, len, width, scale, abytes;
	int o, a, seg;
	char sv[8] = "";

	memset(s, 0, sizeof *s);
	o = wp_rec_get(rec, "operand");
	a = wp_rec_get(rec, "access");
	if (wp_rec_int(rec, "id", &id) == -1 || id < 0 || id > INT32_MAX ||
	    wp_rec_hex(rec, "runtime_addr", &s->addr) == -1 ||
	    wp_rec_int(rec, "insn_len", &len) == -1 || len < 1 || len > 15 ||
	    !wp_json_is(j, o, WP_JOBJECT) ||
	    wp_json_int(j, wp_json_get(j, o, "width"), &width) == -1 ||
	    wp_json_int(j, wp_json_get(j, o, "scale"), &scale) == -1 ||
	    wp_json_int(j, wp_json_get(j, o, "addr_bytes"), &abytes) == -1 ||
	    wp_json_shex(j, wp_json_get(j, o, "disp"), &m->disp) == -1 ||
	    wp_json_bool(j, wp_json_get(j, o, "writes"), &s->in.writes) == -1 ||
	    wp_json_bool(j, wp_json_get(j, o, "reads"), &s->in.reads) == -1 ||
	    wp_json_bool(j, wp_json_get(j, o, "rip_relative"),
	    &m->rip_rel) == -1) {
		wp_error_set(err, WP_EXIT_MALFORMED, "site record without id, "
		    "runtime_addr, insn_len or operand");
		return -1;
	}
	s->id = (int)id;
	seg = wp_json_get(j, o, "segment");
	if (seg >= 0 && !wp_json_is(j, seg, WP_JNULL))
		wp_json_str(j, seg, sv, sizeof sv);
	m->seg = strcmp(sv, "fs") == 0 ? WP_FS_BASE :
	    strcmp(sv, "gs") == 0 ? WP_GS_BASE : 0;
	m->base = site_reg(j, o, "base");
	m->index = site_reg(j, o, "index");
	if (m->base == -2 || m->index == -2 || (sv[0] != '\0' && !m->seg) ||
	    (scale != 1 && scale != 2 && scale != 4 && scale != 8 &&
	    (scale != 0 || m->index != -1)) ||
	    (abytes != 4 && abytes != 8) || width < 0 || width > 64) {
		wp_error_set(err, WP_EXIT_MALFORMED, "site record %d: its "
		    "operand is not one wp computes", s->id);
		return -1;
	}
	m->scale = (int)scale;
	m->base_bytes = (int)abytes;
	s->in.addr = s->addr;
	s->in.src_reg = s->in.ld_reg = s->in.op_reg = -1;
	s->in.size = (int)len;
	s->in.width = (int)width;
	s->in.has_mem = 1;
	if (wp_rec_hex(rec, "file_offset", &s->file_offset) == 0)
		s->has_file_offset = 1;
	if (wp_json_str(j, wp_rec_get(rec, "region"), s->path,
	    sizeof s->path) == -1)
		s->path[0] = '\0';
	wp_json_str(j, wp_rec_get(rec, "insn"), s->in.text,
	    sizeof s->in.text);
	s->rw = wp_json_streq(j, a, "rw");
	return 0;
}
