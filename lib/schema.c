/*
 * The contract's types (share/wp-records.schema.json, compiled in),
 * checked on every record a tool reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "schema.h"
#include "util.h"

/* ---- the contract's types, from share/wp-records.schema.json ---- */

static const char schema_text[] =
#include "schema-text.h"
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

/* An object type: its members by name (required first, then optional);
   the first MAXREQ required members are checked for. */
#define NHINT	32
#define MAXREQ	64

struct sobj {
	struct smember	*m;
	size_t		 n;
	size_t		 nreq;		/* the first nreq of m are required */
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
/*
 * The record being checked is one of a write (hit, tally, last_write):
 * its required members must all be there, for it is counted, placed
 * and drawn by them.  Other records missing one (an observation of an
 * earlier version) are read for what they have.
 */
static int whole;
static const char *const whole_types[] = { "hit", "tally", "last_write" };
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
	if ((x = wp_json_get(sc, spec, "enum")) >= 0) {
		/* the words are the writers' to keep: a string here */
		t->prims = P_STRING;
		t->text = "string";
		for (a = wp_json_first(sc, x); a >= 0; a = wp_json_next(sc, x, a))
			if (wp_json_is(sc, a, WP_JNULL)) {
				t->prims |= P_NULL;
				t->text = "string|null";
			}
		t->textlen = strlen(t->text);
	} else if ((x = wp_json_get(sc, spec, "object")) >= 0)
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
	ob->nreq = ob->n < MAXREQ ? ob->n : MAXREQ;
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

/* An object's members, each of its declared type (a write's record:
   none of its required ones missing); others are let be. */
static int
members_conform(const struct wp_json *j, int v, struct sobj *o,
    const struct spath *p, struct wp_error *err)
{
	const struct smember *sm;
	const struct wp_jtok *k;
	struct spath here;
	char key[128];
	uint64_t seen = 0;
	size_t at = 0, i;
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
		if ((size_t)(sm - o->m) < o->nreq)
			seen |= (uint64_t)1 << (sm - o->m);
		if (sm->type->text != NULL ? !prims(j, m, sm->type->prims) &&
		    bad_at(err, &here, "%s is not %.*s", sm->type->text,
		    sm->type->textlen) == -1 : conforms(j, m, sm->type, &here,
		    err) == -1)
			return -1;
	}
	for (i = 0; whole && p->up == NULL && i < o->nreq; i++)
		if (!(seen >> i & 1)) {
			here.key = o->m[i].name;
			here.keylen = o->m[i].len;
			return bad_at(err, &here, "%s is missing%.*s", "", 0);
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
		session = rec->kind == WP_REC_SESSION;
		whole = 0;
		for (i = 0; i < sizeof whole_types / sizeof whole_types[0];
		    i++)
			whole |= strcmp(rec->type, whole_types[i]) == 0;
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

