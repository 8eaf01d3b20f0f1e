/*
 * The record contract of wp-records(7): one builder per record type,
 * and the readers of the records that several tools read.  The order of
 * members is the order the page lists them in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "util.h"

#define MAXLEN	(1u << 20)	/* the longest target wp-resolve accepts */

/* ---- the contract's types, from share/wp-records.schema.json ---- */

static const char schema_text[] =
#include "schema.h"
;

/*
 * The schema, compiled once into a tree of types: a record's members
 * are found by name in a small hash table per object type, and a path
 * for the message is written only when a member is wrong.
 */
#define P_STRING	0x01
#define P_INTEGER	0x02
#define P_BOOLEAN	0x04
#define P_NULL		0x08
#define P_HEX		0x10
#define P_SHEX		0x20

struct stype;

struct smember {
	char		*name;
	size_t		 len;
	struct stype	*type;
};

/* An object type: its members by name (required first, then optional). */
#define NHINT	32

struct sobj {
	struct smember	*m;
	size_t		 n;
	int		*slot;		/* hash of the names: index in m, -1 */
	size_t		 mask;
	/* the member found at each place of the last such object: records
	   of one type come with their members in one order */
	const struct smember *hint[NHINT];
};

/* A member's type: one of primitives, an object, an array or map of
 * one type, or one of several types. */
struct stype {
	unsigned	 prims;
	const char	*text;		/* the primitives, for the message */
	size_t		 textlen;
	struct sobj	*obj;		/* "object", or "$NAME" */
	int		 container;	/* WP_JARRAY, WP_JOBJECT (map), -1 */
	struct stype	*elem;
	struct stype	**alt;		/* oneof */
	size_t		 nalt;
	int		 any;		/* a spec wp does not know: anything */
};

struct stypename {
	char		*name;
	struct sobj	*obj;
};

static struct wp_json schema;
static int schema_state;	/* 0 unread, 1 read, -1 broken */
static struct stypename *stypes, *snamed;
static size_t nstypes, nsnamed;

static size_t
name_hash(const char *k, size_t n)
{
	size_t h = n, i;

	for (i = 0; i < n; i++)
		h = h * 31 + (unsigned char)k[i];
	return h;
}

static void fill_obj(struct sobj *ob, int o);
static struct sobj *compile_obj(int o);

/* The object type "$NAME" of the schema's "objects", compiled once. */
static struct sobj *
named_obj(const char *name, size_t len)
{
	const struct wp_json *sc = &schema;
	char buf[64];
	size_t i;

	snprintf(buf, sizeof buf, "%.*s", (int)len, name);
	for (i = 0; i < nsnamed; i++)
		if (strcmp(snamed[i].name, buf) == 0)
			return snamed[i].obj;
	snamed = wp_xrealloc(snamed, (nsnamed + 1) * sizeof *snamed);
	snamed[nsnamed].name = wp_xstrdup(buf);
	snamed[nsnamed].obj = wp_xcalloc(1, sizeof *snamed[nsnamed].obj);
	nsnamed++;
	/* a type that names itself finds itself */
	fill_obj(snamed[nsnamed - 1].obj, wp_json_get(sc, wp_json_get(sc, 0,
	    "objects"), buf));
	return snamed[nsnamed - 1].obj;
}

static struct stype *
compile_type(int spec)
{
	const struct wp_json *sc = &schema;
	struct stype *t = wp_xcalloc(1, sizeof *t);
	const char *p, *bar;
	size_t len, k, n;
	int x, a;

	t->container = -1;
	if (wp_json_is(sc, spec, WP_JSTRING)) {
		p = wp_json_raw(sc, spec, &len) + 1;
		len -= 2;
		if (len > 0 && p[0] == '$') {
			t->obj = named_obj(p, len);
			return t;
		}
		t->text = p;
		t->textlen = len;
		for (k = 0; k < len; k = (size_t)(bar - p) + 1) {
			if ((bar = memchr(p + k, '|', len - k)) == NULL)
				bar = p + len;
			n = (size_t)(bar - p) - k;
#define IS(s) (n == sizeof s - 1 && memcmp(p + k, s, n) == 0)
			t->prims |= IS("string") ? P_STRING : IS("integer") ?
			    P_INTEGER : IS("boolean") ? P_BOOLEAN : IS("null") ?
			    P_NULL : IS("hex") ? P_HEX : IS("shex") ? P_SHEX : 0;
#undef IS
		}
		return t;
	}
	if ((x = wp_json_get(sc, spec, "object")) >= 0)
		t->obj = compile_obj(x);
	else if ((x = wp_json_get(sc, spec, "oneof")) >= 0) {
		t->nalt = wp_json_count(sc, x);
		t->alt = wp_xcalloc(t->nalt + 1, sizeof *t->alt);
		k = 0;
		for (a = wp_json_first(sc, x); a >= 0; a = wp_json_next(sc, x, a))
			t->alt[k++] = compile_type(a);
	} else if ((x = wp_json_get(sc, spec, "array")) >= 0) {
		t->container = WP_JARRAY;
		t->elem = compile_type(x);
	} else if ((x = wp_json_get(sc, spec, "map")) >= 0) {
		t->container = WP_JOBJECT;
		t->elem = compile_type(x);
	} else
		t->any = 1;
	return t;
}

static void
add_members(struct sobj *o, int spec)
{
	const struct wp_json *sc = &schema;
	struct smember *m;
	size_t h;
	int v;

	for (v = wp_json_first(sc, spec); v >= 0 && wp_json_is(sc, spec,
	    WP_JOBJECT); v = wp_json_next(sc, spec, v)) {
		m = &o->m[o->n];
		m->name = wp_json_strdup(sc, v - 1);
		m->len = strlen(m->name);
		for (h = name_hash(m->name, m->len) & o->mask; o->slot[h] >= 0;
		    h = (h + 1) & o->mask)
			if (o->m[o->slot[h]].len == m->len &&
			    memcmp(o->m[o->slot[h]].name, m->name, m->len) == 0)
				break;
		if (o->slot[h] >= 0) {
			free(m->name);	/* named before: the first one holds */
			continue;
		}
		m->type = compile_type(v);
		o->slot[h] = (int)o->n++;
	}
}

/* An object spec {"required": {...}, "optional": {...}}; o -1: none. */
static struct sobj *
compile_obj(int o)
{
	struct sobj *ob = wp_xcalloc(1, sizeof *ob);

	fill_obj(ob, o);
	return ob;
}

static void
fill_obj(struct sobj *ob, int o)
{
	const struct wp_json *sc = &schema;
	int req = wp_json_get(sc, o, "required");
	int opt = wp_json_get(sc, o, "optional");
	size_t n = 0, i;

	if (wp_json_is(sc, req, WP_JOBJECT))
		n += wp_json_count(sc, req);
	if (wp_json_is(sc, opt, WP_JOBJECT))
		n += wp_json_count(sc, opt);
	ob->m = wp_xcalloc(n + 1, sizeof *ob->m);
	for (ob->mask = 7; ob->mask + 1 < 2 * (n + 1); )
		ob->mask = ob->mask * 2 + 1;
	ob->slot = wp_xcalloc(ob->mask + 1, sizeof *ob->slot);
	for (i = 0; i <= ob->mask; i++)
		ob->slot[i] = -1;
	add_members(ob, req);
	add_members(ob, opt);
}

static void
compile_schema(void)
{
	const struct wp_json *sc = &schema;
	int types = wp_json_get(sc, 0, "types"), v;

	stypes = wp_xcalloc(wp_json_count(sc, types) + 1, sizeof *stypes);
	for (v = wp_json_first(sc, types); v >= 0 && wp_json_is(sc, types,
	    WP_JOBJECT); v = wp_json_next(sc, types, v)) {
		stypes[nstypes].name = wp_json_strdup(sc, v - 1);
		stypes[nstypes++].obj = compile_obj(v);
	}
}

/* The member named k of object type o, the at-th of its object. */
static const struct smember *
find_member(struct sobj *o, const char *k, size_t n, size_t at)
{
	const struct smember *m;
	size_t h;

	if (at < NHINT && (m = o->hint[at]) != NULL && m->len == n &&
	    wp_same_bytes(m->name, k, n))
		return m;
	for (h = name_hash(k, n) & o->mask; o->slot[h] >= 0;
	    h = (h + 1) & o->mask) {
		m = &o->m[o->slot[h]];
		if (m->len == n && wp_same_bytes(m->name, k, n)) {
			if (at < NHINT)
				o->hint[at] = m;
			return m;
		}
	}
	return NULL;
}

/* Where a value is, for the message: a member's name or an index. */
struct spath {
	const struct spath *up;
	const char	*key;		/* NULL: index */
	size_t		 keylen;
	size_t		 index;
};

/* -1, and the message in err unless it is NULL (a oneof's trial). */
static int
bad_at(struct wp_error *err, const struct spath *p, const char *fmt,
    const char *arg, size_t arglen)
{
	const struct spath *q, *chain[WP_JSON_MAXDEPTH + 2];
	char path[256];
	size_t n = 0, k;

	if (err == NULL)
		return -1;
	for (q = p; q != NULL && n < sizeof chain / sizeof chain[0];
	    q = q->up)
		chain[n++] = q;
	path[0] = '\0';
	while (n-- > 0) {
		q = chain[n];
		k = strlen(path);
		if (q->up == NULL)
			snprintf(path, sizeof path, "%.*s", (int)q->keylen,
			    q->key);
		else if (q->key != NULL)
			snprintf(path + k, sizeof path - k, ".%.*s",
			    (int)q->keylen, q->key);
		else
			snprintf(path + k, sizeof path - k, "[%zu]", q->index);
	}
	return wp_error_set(err, WP_EXIT_MALFORMED, fmt, path, (int)arglen,
	    arg);
}

static int conforms(const struct wp_json *j, int v, const struct stype *t,
    const struct spath *p, struct wp_error *err);

static int
prims(const struct wp_json *j, int v, unsigned want)
{
	const struct wp_jtok *t = &j->t[v];
	int64_t i;

	switch (t->type) {
	case WP_JSTRING:
		return (want & P_STRING) || ((want & P_HEX) && t->fits) ||
		    ((want & P_SHEX) && wp_json_shex(j, v, &i) == 0);
	case WP_JNUMBER:
		/* the parser said whether it is an integer that fits */
		return (want & P_INTEGER) && t->fits;
	case WP_JTRUE:
	case WP_JFALSE:
		return (want & P_BOOLEAN) != 0;
	case WP_JNULL:
		return (want & P_NULL) != 0;
	default:
		return 0;
	}
}

/* An object's members, each of its declared type; others are let be. */
static int
members_conform(const struct wp_json *j, int v, struct sobj *o,
    const struct spath *p, struct wp_error *err)
{
	const struct smember *sm;
	const struct wp_jtok *k;
	struct spath here;
	char key[128];
	size_t at = 0;
	int m, n;

	if (!wp_json_is(j, v, WP_JOBJECT))
		return bad_at(err, p, "%s is not an object%.*s", "", 0);
	here.up = p;
	here.index = 0;
	/* the values: each after its name, the next name after its end */
	for (m = v + 2; m < (int)j->t[v].end; m = (int)j->t[m].end + 1) {
		k = &j->t[m - 1];
		if (!k->esc) {
			/* no NUL: the parser let no control character by */
			here.key = j->text + k->start + 1;
			here.keylen = k->len - 2;
			if (here.keylen >= sizeof key)
				continue;
		} else {
			if ((n = wp_json_str(j, m - 1, key, sizeof key)) == -1)
				continue;
			here.key = key;
			here.keylen = (size_t)n;
		}
		if ((sm = find_member(o, here.key, here.keylen, at++)) == NULL)
			continue;
		if (sm->type->text != NULL ? !prims(j, m, sm->type->prims) &&
		    bad_at(err, &here, "%s is not %.*s", sm->type->text,
		    sm->type->textlen) == -1 : conforms(j, m, sm->type, &here,
		    err) == -1)
			return -1;
	}
	return 0;
}

/* Whether value v is of type t. */
static int
conforms(const struct wp_json *j, int v, const struct stype *t,
    const struct spath *p, struct wp_error *err)
{
	struct spath here;
	size_t k;
	int e;

	if (t->obj != NULL)
		return members_conform(j, v, t->obj, p, err);
	if (t->text != NULL) {
		if (prims(j, v, t->prims))
			return 0;
		return bad_at(err, p, "%s is not %.*s", t->text, t->textlen);
	}
	if (t->alt != NULL) {
		/* the message is the last one's */
		for (k = 0; k < t->nalt; k++)
			if (conforms(j, v, t->alt[k], p, k + 1 < t->nalt ?
			    NULL : err) == 0)
				return 0;
		return -1;
	}
	if (t->container == -1)
		return 0;
	if (!wp_json_is(j, v, t->container))
		return bad_at(err, p, "%s is not %.*s", t->container ==
		    WP_JARRAY ? "an array" : "an object", t->container ==
		    WP_JARRAY ? 8 : 9);
	/* a map of hex strings (registers): the parser saw them all */
	if (t->elem->text != NULL && (t->elem->prims & P_HEX) &&
	    (j->t[v].kinds & ~(1u << WP_JSTRING)) == 0)
		return 0;
	here.up = p;
	here.key = NULL;
	here.keylen = 0;
	here.index = 0;
	for (e = wp_json_first(j, v); e >= 0; e = wp_json_next(j, v, e)) {
		/* registers: a map of one primitive type */
		if (t->elem->text != NULL ? !prims(j, e, t->elem->prims) &&
		    bad_at(err, &here, "%s is not %.*s", t->elem->text,
		    t->elem->textlen) == -1 : conforms(j, e, t->elem, &here,
		    err) == -1)
			return -1;
		here.index++;
	}
	return 0;
}

int
wp_rec_check(const struct wp_record *rec, struct wp_error *err)
{
	static struct sobj *last;
	static const char *lastname;
	static int session;
	struct spath top;
	int64_t version;
	size_t i;

	if (schema_state == 0) {
		schema_state = wp_json_parse(&schema, schema_text,
		    sizeof schema_text - 1) == 0 ? 1 : -1;
		if (schema_state == 1)
			compile_schema();
	}
	if (schema_state == -1)
		return 0;
	/* records come in runs of one type */
	if (lastname == NULL || strcmp(lastname, rec->type) != 0) {
		last = NULL;
		lastname = NULL;
		for (i = 0; i < nstypes; i++)
			if (strcmp(stypes[i].name, rec->type) == 0) {
				last = stypes[i].obj;
				lastname = stypes[i].name;
				break;
			}
		session = strcmp(rec->type, "session") == 0;
	}
	if (session &&
	    (wp_rec_int(rec, "schema_version", &version) == -1 ||
	    version != WP_SCHEMA_VERSION)) {
		size_t n;
		const char *raw = wp_rec_raw(rec, "schema_version", &n);

		return wp_error_set(err, WP_EXIT_MALFORMED, "session record: "
		    "schema_version %.*s: this wp reads %d", raw ? (int)n : 6,
		    raw ? raw : "absent", WP_SCHEMA_VERSION);
	}
	if (last == NULL)
		return 0;	/* a type wp does not know: passed on */
	top.up = NULL;
	top.key = rec->type;
	top.keylen = strlen(rec->type);
	top.index = 0;
	return members_conform(rec->j, 0, last, &top, err);
}

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

/* ---- helpers of the builders ---- */

static void
hex_or_null(struct wp_jw *w, const char *key, int have, uint64_t v)
{
	if (have)
		wp_jw_hex(w, key, v);
	else
		wp_jw_null(w, key);
}

static void
strings(struct wp_jw *w, const char *key, const char *const *s, size_t n)
{
	size_t i;

	wp_jw_arr(w, key);
	for (i = 0; i < n; i++)
		wp_jw_str(w, NULL, s[i]);
	wp_jw_end(w);
}

/* initial_value (little-endian, up to 8 bytes) and initial_bytes. */
static void
value_bytes(struct wp_jw *w, const char *vkey, const char *bkey,
    const unsigned char *b, size_t len)
{
	hex_or_null(w, vkey, b != NULL && len <= 8, b ? wp_le64(b, len) : 0);
	if (b != NULL)
		wp_jw_bytes(w, bkey, b, len);
	else
		wp_jw_null(w, bkey);
}

static void
place(struct wp_jw *w, const char *prefix, const struct wp_place *p)
{
	char key[32];

	snprintf(key, sizeof key, "%sstatic_addr", prefix);
	hex_or_null(w, key, p->has_static, p->static_addr);
	snprintf(key, sizeof key, "%smodule", prefix);
	wp_jw_str(w, key, p->module);
	snprintf(key, sizeof key, "%sregion", prefix);
	wp_jw_str(w, key, p->region);
	snprintf(key, sizeof key, "%sperms", prefix);
	wp_jw_str(w, key, p->perms);
}

/* ---- session ---- */

static void
modules(struct wp_jw *w, const struct wp_session *s)
{
	const struct wp_module_rec *m;
	size_t i;

	wp_jw_arr(w, "modules");
	for (i = 0; i < s->nmods; i++) {
		m = &s->mods[i];
		wp_jw_obj(w, NULL);
		wp_jw_str(w, "path", m->path);
		wp_jw_str(w, "file", m->file);
		wp_jw_str(w, "build_id", m->build_id);
		wp_jw_hex(w, "load_bias", m->load_bias);
		wp_jw_str(w, "kind", m->kind);
		wp_jw_bool(w, "main", m->main);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
mappings(struct wp_jw *w, const struct wp_session *s)
{
	const struct wp_mapping_rec *m;
	size_t i;

	wp_jw_arr(w, "mappings");
	for (i = 0; i < s->nmaps; i++) {
		m = &s->maps[i];
		wp_jw_obj(w, NULL);
		wp_jw_hex(w, "start", m->start);
		wp_jw_hex(w, "end", m->end);
		wp_jw_str(w, "perms", m->perms);
		wp_jw_hex(w, "offset", m->offset);
		wp_jw_str(w, "path", m->path);
		hex_or_null(w, "load_bias", m->has_bias, m->load_bias);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

void
wp_rec_session(struct wp_jw *w, const struct wp_session *s)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "session");
	wp_jw_int(w, "schema_version", WP_SCHEMA_VERSION);
	wp_jw_str(w, "tool", "wp-resolve");
	wp_jw_str(w, "tool_version", WP_VERSION);
	wp_jw_int(w, "pid", s->pid);
	wp_jw_uint(w, "start_time", s->start_time);
	wp_jw_str(w, "exe", s->exe);
	wp_jw_str(w, "exe_build_id", s->exe_build_id);
	wp_jw_str(w, "bin", s->bin);
	wp_jw_str(w, "bin_build_id", s->bin_build_id);
	wp_jw_str(w, "binary_match", s->binary_match);
	wp_jw_str(w, "arch", "x86_64");
	wp_jw_bool(w, "pie", s->pie);
	wp_jw_hex(w, "pie_slide", s->pie_slide);
	if (s->slot_limit)
		wp_jw_int(w, "slot_limit", s->slot_limit);
	else
		wp_jw_null(w, "slot_limit");
	modules(w, s);
	mappings(w, s);
	strings(w, "warnings", (const char *const *)s->warnings, s->nwarnings);
	wp_jw_end(w);
}

static int
read_modules(const struct wp_json *j, int a, struct wp_session *s,
    struct wp_error *err)
{
	struct wp_module_rec *m;
	int o;

	if (a < 0 || wp_json_is(j, a, WP_JNULL))
		return 0;
	if (!wp_json_is(j, a, WP_JARRAY)) {
		wp_error_set(err, WP_EXIT_MALFORMED, "\"modules\" is not an array");
		return -1;
	}
	s->mods = wp_xcalloc(wp_json_count(j, a), sizeof *s->mods);
	for (o = wp_json_first(j, a); o >= 0; o = wp_json_next(j, a, o)) {
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

	if (a < 0 || wp_json_is(j, a, WP_JNULL))
		return 0;
	if (!wp_json_is(j, a, WP_JARRAY)) {
		wp_error_set(err, WP_EXIT_MALFORMED, "\"mappings\" is not an array");
		return -1;
	}
	s->maps = wp_xcalloc(wp_json_count(j, a), sizeof *s->maps);
	for (o = wp_json_first(j, a); o >= 0; o = wp_json_next(j, a, o)) {
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
	memset(s, 0, sizeof *s);
}

/* ---- target and follow ---- */

void
wp_rec_target(struct wp_jw *w, const struct wp_target_rec *t)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "target");
	wp_jw_int(w, "id", t->id);
	wp_jw_str(w, "input", t->input);
	wp_jw_hex(w, "runtime_addr", t->addr);
	place(w, "", &t->place);
	wp_jw_uint(w, "len", t->len);
	wp_jw_str(w, "access", t->rw ? "rw" : "w");
	wp_jw_int(w, "slots", 1);
	value_bytes(w, "initial_value", "initial_bytes", t->initial, t->len);
	strings(w, "warnings", t->warnings, t->nwarnings);
	wp_jw_end(w);
}

void
wp_rec_follow(struct wp_jw *w, const struct wp_follow_rec *f)
{
	size_t i;
	int bound = strcmp(f->binding, "bound") == 0;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "follow");
	wp_jw_int(w, "id", f->id);
	wp_jw_str(w, "input", f->input);
	wp_jw_hex(w, "slot_addr", f->slot);
	place(w, "slot_", &f->place);
	wp_jw_arr(w, "offsets");
	for (i = 0; i < f->noffs; i++)
		wp_jw_shex(w, NULL, f->offs[i]);
	wp_jw_end(w);
	wp_jw_uint(w, "len", f->len);
	wp_jw_str(w, "access", f->rw ? "rw" : "w");
	wp_jw_uint(w, "slots", f->noffs + 1);
	wp_jw_arr(w, "chain");
	for (i = 0; i < f->nptrs; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_hex(w, "addr", f->ptr_addr[i]);
		wp_jw_hex(w, "value", f->ptr_value[i]);
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_str(w, "binding", f->binding);
	hex_or_null(w, "leaf_addr", bound, f->leaf);
	value_bytes(w, "initial_value", "initial_bytes",
	    bound ? f->initial : NULL, f->len);
	wp_jw_end(w);
}

/* len and access, common to targets and follows. */
static int
read_len_access(const struct wp_record *rec, struct wp_spec *t, struct wp_error *err)
{
	int64_t v;
	int a;

	t->len = 4;
	if (wp_rec_get(rec, "len") >= 0) {
		if (wp_rec_int(rec, "len", &v) == -1 || v < 1 || v > MAXLEN) {
			wp_error_set(err, WP_EXIT_MALFORMED, "%s record %d: \"len\" must be 1 to "
			    "%u", rec->type, t->id, MAXLEN);
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

/* ---- records of wp-arm ---- */

static void
int_or_null(struct wp_jw *w, const char *key, long v)
{
	if (v < 0)
		wp_jw_null(w, key);
	else
		wp_jw_int(w, key, v);
}

void
wp_rec_armed(struct wp_jw *w, const struct wp_armed_rec *a)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "armed");
	wp_jw_str(w, "backend", a->backend);
	wp_jw_int(w, "pid", a->pid);
	wp_jw_uint(w, "threads", a->threads);
	wp_jw_uint(w, "targets", a->targets);
	int_or_null(w, "cpus", a->cpus);
	int_or_null(w, "events", a->events);
	int_or_null(w, "ring_pages", a->ring_pages);
	wp_jw_bool(w, "regs", a->regs);
	wp_jw_str(w, "clock", "CLOCK_MONOTONIC");
	wp_jw_hex(w, "time_base_ns", a->time_base_ns);
	int_or_null(w, "duration_ms", a->duration_ms);
	if (a->callchain != NULL) {
		wp_jw_str(w, "callchain", a->callchain);
		wp_jw_uint(w, "callchain_depth", a->callchain_depth);
	}
	wp_jw_end(w);
}

static void
hit_flags(struct wp_jw *w, const struct wp_hit_rec *h)
{
	wp_jw_arr(w, "flags");
	if (h->flags & WP_HIT_READ)
		wp_jw_str(w, NULL, "read");
	if (h->flags & WP_HIT_SYSCALL)
		wp_jw_str(w, NULL, "syscall");
	if (h->flags & WP_HIT_UNEXPLAINED)
		wp_jw_str(w, NULL, "unexplained");
	if (h->flags & WP_HIT_KERNEL)
		wp_jw_str(w, NULL, "kernel");
	if (h->flags & WP_HIT_UNVERIFIED)
		wp_jw_str(w, NULL, "unverified");
	wp_jw_end(w);
	int_or_null(w, "signal", h->signal > 0 ? h->signal : -1);
}

/*
 * "regs":{...}: a member per register sampled, in the register table's
 * order.  A hit of wp-arm --regs carries 18 of them, so they are
 * written at once: each key is made once, with its quotes, colon and
 * the value's "0x".
 */
static void
regs_member(struct wp_jw *w, const struct wp_x86_regs *r)
{
	static char qkey[WP_NREGS][16];	/* ,"rax":" (12 at most) */
	static size_t qlen[WP_NREGS];
	char *buf, *p;
	size_t first;
	int i;

	if (qlen[0] == 0)
		for (i = 0; i < WP_NREGS; i++)
			qlen[i] = (size_t)snprintf(qkey[i], sizeof qkey[i],
			    ",\"%s\":\"", wp_x86_reg_names[i]);
	p = buf = wp_jw_raw_begin(w, "regs", WP_NREGS * 32 + 2);
	*p++ = '{';
	for (i = 0; i < WP_NREGS; i++) {
		if (!(r->have & (1u << i)))
			continue;
		first = p == buf + 1;	/* no comma */
		/* a fixed size: no call; the bytes after are written over */
		memcpy(p, qkey[i] + first, 14);
		p += qlen[i] - first;
		p += wp_fmt_hex(p, r->v[i]);
		*p++ = '"';
	}
	*p++ = '}';
	wp_jw_raw_end(w, (size_t)(p - buf));
}

/* --callchain: the callers' return addresses, and the chain's status */
static void
chain_member(struct wp_jw *w, const char *status, const uint64_t *chain,
    size_t n)
{
	size_t i;

	wp_jw_arr(w, "callchain");
	for (i = 0; i < n; i++)
		wp_jw_hex(w, NULL, chain[i]);
	wp_jw_end(w);
	wp_jw_str(w, "callchain_status", status);
}

void
wp_rec_hit(struct wp_jw *w, const struct wp_hit_rec *h)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "hit");
	wp_jw_int(w, "target", h->target);
	wp_jw_int(w, "pid", h->pid);
	wp_jw_int(w, "tid", h->tid);
	int_or_null(w, "cpu", h->cpu);
	wp_jw_int(w, "time_ns", h->time_ns);
	wp_jw_hex(w, "ip", h->ip);
	if (h->exact)
		hex_or_null(w, "writer_ip", h->has_writer_ip, h->writer_ip);
	if (h->exact || h->bytes != NULL)
		value_bytes(w, "new_value", "new_bytes", h->bytes, h->nbytes);
	if (h->exact)
		hit_flags(w, h);
	if (h->role == WP_ROLE_POINTER) {
		wp_jw_str(w, "role", "pointer");
		wp_jw_int(w, "level", h->level);
	} else if (h->role == WP_ROLE_LEAF) {
		wp_jw_str(w, "role", "leaf");
		wp_jw_uint(w, "generation", h->generation);
	}
	if (h->role != WP_ROLE_NONE) {
		wp_jw_hex(w, "addr", h->addr);
		wp_jw_int(w, "len", h->len);
	}
	if (h->regs != NULL)
		regs_member(w, h->regs);
	if (h->chain_status != NULL)
		chain_member(w, h->chain_status, h->chain, h->nchain);
	if (h->stack != NULL)
		wp_jw_bytes(w, "user_stack", h->stack, h->nstack);
	wp_jw_end(w);
}

void
wp_rec_thread(struct wp_jw *w, const struct wp_thread_rec *t)
{
	int fork = strcmp(t->event, "fork_process") == 0;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "thread");
	wp_jw_str(w, "event", t->event);
	if (fork)
		wp_jw_int(w, "pid", t->pid);
	else
		wp_jw_int(w, "tid", t->tid);
	if (t->comm != NULL)
		wp_jw_str(w, "comm", t->comm);
	if (fork || strcmp(t->event, "start") == 0)
		int_or_null(w, "by_tid", t->by_tid ? t->by_tid : -1);
	if (strcmp(t->event, "start") == 0)
		wp_jw_str(w, "coverage", t->coverage);
	if (strcmp(t->event, "arm_failed") == 0) {
		wp_jw_int(w, "errno", t->err);
		wp_jw_str(w, "error", strerror(t->err));
	}
	if (t->has_time)
		wp_jw_int(w, "time_ns", t->time_ns);
	wp_jw_end(w);
}

void
wp_rec_lost(struct wp_jw *w, uint64_t count, int cpu, int64_t time_ns)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "lost");
	wp_jw_uint(w, "count", count);
	int_or_null(w, "cpu", cpu);
	wp_jw_int(w, "time_ns", time_ns);
	wp_jw_end(w);
}

static void
role(struct wp_jw *w, int r, int level)
{
	if (r == WP_ROLE_NONE)
		return;
	wp_jw_str(w, "role", r == WP_ROLE_POINTER ? "pointer" : "leaf");
	wp_jw_int(w, "level", level);
}

void
wp_rec_count(struct wp_jw *w, const struct wp_count_rec *c)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "count");
	wp_jw_int(w, "target", c->target);
	role(w, c->role, c->level);
	wp_jw_uint(w, "counted", c->counted);
	wp_jw_uint(w, "sampled", c->sampled);
	wp_jw_int(w, "time_ns", c->time_ns);
	wp_jw_end(w);
}

void
wp_rec_tally(struct wp_jw *w, const struct wp_tally_rec *t)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "tally");
	wp_jw_int(w, "target", t->target);
	role(w, t->role, t->level);
	wp_jw_int(w, "tid", t->tid);
	wp_jw_hex(w, "ip", t->ip);
	wp_jw_uint(w, "hits", t->hits);
	wp_jw_hex(w, "first_value", t->first);
	wp_jw_hex(w, "last_value", t->last);
	wp_jw_uint(w, "unchanged", t->unchanged);
	wp_jw_int(w, "time_ns", t->time_ns);
	if (t->chain_status != NULL)
		chain_member(w, t->chain_status, t->chain, t->nchain);
	wp_jw_end(w);
}

void
wp_rec_rebind(struct wp_jw *w, const struct wp_rebind_rec *r)
{
	size_t i;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "rebind");
	wp_jw_int(w, "target", r->target);
	wp_jw_uint(w, "generation", r->generation);
	wp_jw_str(w, "binding", r->binding);
	hex_or_null(w, "old_leaf", r->old_leaf != 0, r->old_leaf);
	hex_or_null(w, "new_leaf", r->new_leaf != 0, r->new_leaf);
	wp_jw_arr(w, "pointers");
	for (i = 0; i < r->npointers; i++)
		wp_jw_hex(w, NULL, r->pointers[i]);
	wp_jw_end(w);
	wp_jw_int(w, "time_ns", r->time_ns);
	int_or_null(w, "rearm_ns", r->rearm_ns);
	wp_jw_bool(w, "held", r->held);
	if (r->missed < 0)
		wp_jw_null(w, "missed_in_window");
	else
		wp_jw_bool(w, "missed_in_window", r->missed);
	wp_jw_end(w);
}

static void
coverage(struct wp_jw *w, const struct wp_observation *o)
{
	size_t i;

	wp_jw_obj(w, "thread_coverage");
	wp_jw_uint(w, "seeded_tids", o->seeded);
	wp_jw_uint(w, "inherited_tids", o->inherited);
	wp_jw_uint(w, "dynamically_attached_tids", o->attached_late);
	wp_jw_uint(w, "unattached_tids", o->unattached);
	wp_jw_uint(w, "exited_tids", o->exited);
	wp_jw_arr(w, "failed_tids");
	for (i = 0; i < o->nfailed; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "tid", o->failed[i].tid);
		wp_jw_int(w, "errno", o->failed[i].err);
		wp_jw_str(w, "error", strerror(o->failed[i].err));
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_uint(w, "forked_processes", o->forked);
	wp_jw_uint(w, "excluded_other_process_events", o->excluded);
	wp_jw_uint(w, "ambiguous_events", o->ambiguous);
	wp_jw_uint(w, "unparsed_records", o->unparsed);
	wp_jw_bool(w, "partial_coverage", o->npartial > 0);
	strings(w, "partial_coverage_reasons", o->partial_reasons, o->npartial);
	wp_jw_end(w);
}

static void
uint_or_null(struct wp_jw *w, const char *key, int have, uint64_t v)
{
	if (have)
		wp_jw_uint(w, key, v);
	else
		wp_jw_null(w, key);
}

static void
obs_targets(struct wp_jw *w, const struct wp_observation *o)
{
	const struct wp_obs_target *t;
	const struct wp_obs_follow *f;
	size_t i;

	wp_jw_arr(w, "targets");
	for (i = 0; i < o->ntargets; i++) {
		t = &o->targets[i];
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", t->id);
		wp_jw_uint(w, "hits", t->hits);
		uint_or_null(w, "counted", t->counted_known, t->counted);
		uint_or_null(w, "lost", t->counted_known, t->lost);
		hex_or_null(w, "latest_value", t->has_latest, t->latest);
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_arr(w, "follows");
	for (i = 0; i < o->nfollows; i++) {
		f = &o->follows[i];
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", f->id);
		wp_jw_uint(w, "generation", f->generation);
		wp_jw_str(w, "binding", f->binding);
		hex_or_null(w, "leaf_addr", f->leaf != 0, f->leaf);
		wp_jw_uint(w, "pointer_hits", f->pointer_hits);
		wp_jw_uint(w, "leaf_hits", f->leaf_hits);
		uint_or_null(w, "pointer_counted", f->counted_known,
		    f->pointer_counted);
		uint_or_null(w, "leaf_counted", f->counted_known, f->leaf_counted);
		wp_jw_uint(w, "rebinds", f->rebinds);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
obs_page(struct wp_jw *w, const struct wp_obs_page *p)
{
	wp_jw_obj(w, "page");
	wp_jw_uint(w, "pages", p->pages);
	wp_jw_uint(w, "pages_dropped", p->pages_dropped);
	wp_jw_uint(w, "faults_watched", p->faults_watched);
	wp_jw_uint(w, "faults_neighbour", p->faults_neighbour);
	wp_jw_uint(w, "emulated", p->emulated);
	wp_jw_uint(w, "stepped", p->stepped);
	wp_jw_uint(w, "kernel_writes", p->kernel_writes);
	wp_jw_uint(w, "windows", p->windows);
	wp_jw_uint(w, "windows_shared", p->windows_shared);
	wp_jw_uint(w, "signals_passed", p->signals_passed);
	wp_jw_uint(w, "forks_restored", p->forks_restored);
	wp_jw_uint(w, "stopped_us", p->stopped_ns / 1000);
	wp_jw_uint(w, "watched_us", p->watched_ns / 1000);
	wp_jw_end(w);
}

void
wp_rec_observation(struct wp_jw *w, const struct wp_observation *o)
{
	const struct wp_obs_ptrace *p = o->ptrace;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "observation");
	wp_jw_str(w, "backend", o->backend);
	int_or_null(w, "pid", o->pid > 0 ? o->pid : -1);
	wp_jw_uint(w, "duration_requested_ms", o->duration_ms);
	wp_jw_uint(w, "elapsed_ms", o->elapsed_ms);
	wp_jw_uint(w, "max_events", o->max_events);
	wp_jw_str(w, "stop_reason", o->stop_reason);
	wp_jw_str(w, "stop_detail", o->stop_detail);
	wp_jw_str(w, "error", o->error);
	wp_jw_bool(w, "truncated_by_max_events", o->truncated);
	wp_jw_uint(w, "accepted_hits", o->accepted);
	coverage(w, o);
	wp_jw_obj(w, "lost_events");
	wp_jw_bool(w, "known", o->lost_known);
	if (!o->lost_known)
		wp_jw_str(w, "reason", o->lost_reason);
	wp_jw_uint(w, "total", o->lost);
	wp_jw_uint(w, "lost_records", o->lost_records);
	strings(w, "reasons", o->lost_reasons, o->nlost_reasons);
	wp_jw_end(w);
	wp_jw_bool(w, "counts_are_lower_bound", o->lower_bound);
	wp_jw_bool(w, "tallied", o->tallied);
	wp_jw_str(w, "follow_mode", o->follow_mode);
	wp_jw_str(w, "follow_mode_reason", o->follow_reason);
	obs_targets(w, o);
	if (p != NULL) {
		wp_jw_obj(w, "ptrace");
		wp_jw_uint(w, "steps", p->steps);
		wp_jw_uint(w, "steps_per_second", p->steps_per_second);
		wp_jw_uint(w, "unexplained_changes", p->unexplained);
		wp_jw_uint(w, "kernel_writes", p->kernel_writes);
		wp_jw_uint(w, "signals_passed", p->signals_passed);
		if (p->native_ips > 0) {
			wp_jw_uint(w, "native_instructions_per_second",
			    p->native_ips);
			wp_jw_uint(w, "blocked_us", p->blocked_ns / 1000);
			wp_jw_uint(w, "native_run_us", (uint64_t)
			    ((unsigned __int128)p->steps * 1000000 /
			    p->native_ips) + p->blocked_ns / 1000);
		}
		wp_jw_end(w);
	}
	if (o->bpf != NULL) {
		wp_jw_obj(w, "bpf");
		wp_jw_uint(w, "samples_sent", o->bpf->samples_sent);
		wp_jw_uint(w, "samples_dropped", o->bpf->samples_dropped);
		wp_jw_uint(w, "samples_capped", o->bpf->samples_capped);
		wp_jw_uint(w, "tally_full", o->bpf->tally_full);
		wp_jw_uint(w, "read_errors", o->bpf->read_errors);
		wp_jw_uint(w, "writers_held", o->bpf->writers_held);
		wp_jw_uint(w, "signals_passed", o->bpf->signals_passed);
		wp_jw_end(w);
	}
	if (o->page != NULL)
		obs_page(w, o->page);
	if (o->alive >= 0)
		wp_jw_bool(w, "target_alive_after", o->alive);
	else
		wp_jw_null(w, "target_alive_after");
	wp_jw_end(w);
}

/* ---- what wp-decode adds ---- */

static void
symbol(struct wp_jw *w, const struct wp_writer_rec *r)
{
	char *s;
	int n;

	if (r->function == NULL || !r->has_writer || !r->has_writer_static) {
		wp_jw_null(w, "symbol");
		return;
	}
	n = asprintf(&s, "%s+0x%llx", r->function,
	    (unsigned long long)(r->writer_static - r->function_static));
	if (n < 0)
		wp_fatal_nomem();
	wp_jw_strn(w, "symbol", s, (size_t)n);
	free(s);
}

void
wp_rec_writer(struct wp_jw *w, const struct wp_writer_rec *r)
{
	wp_jw_obj(w, "writer");
	wp_jw_str(w, "kind", r->kind);
	hex_or_null(w, "trap_ip", r->has_trap, r->trap_ip);
	hex_or_null(w, "trap_static_ip", r->has_trap_static, r->trap_static);
	wp_jw_str(w, "trap_module", r->trap_module);
	wp_jw_str(w, "module", r->module);
	wp_jw_str(w, "function", r->function);
	hex_or_null(w, "function_static", r->function != NULL,
	    r->function_static);
	hex_or_null(w, "writer_ip", r->has_writer, r->writer_ip);
	hex_or_null(w, "writer_static_ip", r->has_writer &&
	    r->has_writer_static, r->writer_static);
	symbol(w, r);
	if (r->has_writer && r->source_file != NULL) {
		wp_jw_obj(w, "source");
		wp_jw_str(w, "file", r->source_file);
		wp_jw_int(w, "line", r->source_line);
		wp_jw_end(w);
	} else
		wp_jw_null(w, "source");
	wp_jw_str(w, "insn", r->has_writer ? r->insn : NULL);
	wp_jw_str(w, "confidence", r->has_writer ? r->confidence : "unknown");
	wp_jw_int(w, "candidates", r->has_writer ? r->candidates : 0);
	wp_jw_str(w, "reason", r->has_writer ? NULL :
	    r->reason ? r->reason : "unknown");
	wp_jw_str(w, "caveat", r->caveat);
	wp_jw_end(w);
}

void
wp_rec_value(struct wp_jw *w, const struct wp_value_rec *v)
{
	wp_jw_obj(w, "written_value");
	wp_jw_str(w, "kind", v->kind);
	if (strcmp(v->kind, "unknown") == 0)
		wp_jw_str(w, "reason", v->reason);
	else {
		if (strcmp(v->kind, "register_store") == 0)
			wp_jw_str(w, "register", v->reg);
		wp_jw_int(w, "width", v->width);
		hex_or_null(w, "value", v->has_value, v->value);
		if (strcmp(v->kind, "observed") == 0) {
			if (v->bytes != NULL)
				wp_jw_raw(w, "bytes", v->bytes, v->nbytes);
			else
				wp_jw_null(w, "bytes");
		}
	}
	wp_jw_end(w);
}
