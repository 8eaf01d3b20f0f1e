/*
 * The one JSON parser and writer of the record stream: a validating
 * parser that lays a line out as tokens without copying it, and a
 * writer into a growable buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

struct scan {
	struct wp_json	*j;
	const char	*p, *end, *start;
	const char	*err;
	int		 depth;
};

static int value(struct scan *);

static void
ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\r' || *s->p == '\n'))
		s->p++;
}

static int
fail(struct scan *s, const char *why)
{
	if (s->err == NULL)
		s->err = why;
	return -1;
}

static int
push(struct scan *s, enum wp_jtype type)
{
	struct wp_json *j = s->j;
	struct wp_jtok *t;

	if (j->nt == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 64;
		j->t = wp_xrealloc(j->t, j->cap * sizeof *j->t);
	}
	t = &j->t[j->nt];
	t->start = (uint32_t)(s->p - s->start);
	t->len = 0;
	t->type = (uint8_t)type;
	t->esc = 0;
	return (int)j->nt++;
}

static void
done(struct scan *s, int i)
{
	struct wp_jtok *t = &s->j->t[i];

	t->len = (uint32_t)(s->p - s->start) - t->start;
	t->end = (uint32_t)s->j->nt;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits at p: the code unit, or -1. */
static long
u4(const char *p, const char *end)
{
	long v = 0;
	int i, d;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((d = hexval((unsigned char)p[i])) < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* The length of the UTF-8 sequence at p, or 0 when it is not valid. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* An escape after the backslash at s->p; s->p is left on its last byte. */
static int
escape(struct scan *s)
{
	long u, lo;

	if (++s->p >= s->end)
		return fail(s, "unterminated string");
	switch (*s->p) {
	case '"': case '\\': case '/': case 'b': case 'f':
	case 'n': case 'r': case 't':
		return 0;
	case 'u':
		if ((u = u4(s->p + 1, s->end)) < 0)
			return fail(s, "bad \\u escape");
		s->p += 4;
		if (u >= 0xdc00 && u <= 0xdfff)
			return fail(s, "bad \\u escape");
		if (u >= 0xd800 && u <= 0xdbff) {
			if (s->end - s->p < 7 || s->p[1] != '\\' ||
			    s->p[2] != 'u' ||
			    (lo = u4(s->p + 3, s->end)) < 0xdc00 || lo > 0xdfff)
				return fail(s, "bad \\u escape");
			s->p += 6;
		}
		return 0;
	default:
		return fail(s, "bad escape in a string");
	}
}

static int
string(struct scan *s)
{
	int i = push(s, WP_JSTRING);
	size_t n;

	s->p++;			/* the opening quote */
	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p;

		if (c == '"') {
			s->p++;
			done(s, i);
			return 0;
		}
		if (c < 0x20)
			return fail(s, "control character in a string");
		if (c == '\\') {
			s->j->t[i].esc = 1;
			if (escape(s) == -1)
				return -1;
			s->p++;
		} else if (c < 0x80)
			s->p++;
		else if ((n = utf8_len((const unsigned char *)s->p,
		    (const unsigned char *)s->end)) == 0)
			return fail(s, "invalid UTF-8 in a string");
		else
			s->p += n;
	}
	return fail(s, "unterminated string");
}

static int
digits(struct scan *s)
{
	const char *q = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > q ? 0 : -1;
}

static int
number(struct scan *s)
{
	int i = push(s, WP_JNUMBER);

	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (digits(s) == -1)
		return fail(s, "bad number");
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (digits(s) == -1)
			return fail(s, "bad number");
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s) == -1)
			return fail(s, "bad number");
	}
	done(s, i);
	return 0;
}

static int
word(struct scan *s, const char *w, enum wp_jtype type)
{
	size_t n = strlen(w);
	int i;

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return fail(s, "expected a value");
	i = push(s, type);
	s->p += n;
	done(s, i);
	return 0;
}

static int
same_key(const struct wp_json *j, int a, int b)
{
	const struct wp_jtok *x = &j->t[a], *y = &j->t[b];
	char *da, *db;
	int eq;

	if (!x->esc && !y->esc)
		return x->len == y->len &&
		    memcmp(j->text + x->start, j->text + y->start, x->len) == 0;
	da = wp_json_strdup(j, a);
	db = wp_json_strdup(j, b);
	eq = strcmp(da, db) == 0;
	free(da);
	free(db);
	return eq;
}

/* Whether the name at token k repeats one of object o's earlier names. */
static int
duplicate(const struct wp_json *j, int o, int k)
{
	int i;

	for (i = o + 1; i < k; i = (int)j->t[i + 1].end)
		if (same_key(j, i, k))
			return 1;
	return 0;
}

/*
 * After the opening bracket, and after each member or element: 1 at the
 * closing bracket (the container is done), 0 where another one follows.
 */
static int
more(struct scan *s, int tok, char close, int first)
{
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		done(s, tok);
		return 1;
	}
	if (first)
		return 0;
	if (s->p >= s->end)
		return fail(s, "truncated");
	if (*s->p != ',')
		return fail(s, close == '}' ? "expected ',' or '}'" :
		    "expected ',' or ']'");
	s->p++;
	return 0;
}

static int
members(struct scan *s)
{
	int o = push(s, WP_JOBJECT), k, rc;

	s->p++;			/* { */
	for (rc = more(s, o, '}', 1); rc == 0; rc = more(s, o, '}', 0)) {
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p != '"')
			return fail(s, "expected a quoted member name");
		k = (int)s->j->nt;
		if (string(s) == -1)
			return -1;
		if (duplicate(s->j, o, k)) {
			s->p -= s->j->t[k].len;
			return fail(s, "duplicate member name");
		}
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p != ':')
			return fail(s, "expected ':'");
		s->p++;
		ws(s);
		if (value(s) == -1)
			return -1;
	}
	return rc == 1 ? 0 : -1;
}

static int
elements(struct scan *s)
{
	int a = push(s, WP_JARRAY), rc;

	s->p++;			/* [ */
	for (rc = more(s, a, ']', 1); rc == 0; rc = more(s, a, ']', 0)) {
		ws(s);
		if (value(s) == -1)
			return -1;
	}
	return rc == 1 ? 0 : -1;
}

static int
value(struct scan *s)
{
	int rc;

	if (s->p >= s->end)
		return fail(s, "truncated");
	switch (*s->p) {
	case '{':
	case '[':
		if (++s->depth > WP_JSON_MAXDEPTH)
			return fail(s, "nested too deep");
		rc = *s->p == '{' ? members(s) : elements(s);
		s->depth--;
		return rc;
	case '"':
		return string(s);
	case 't':
		return word(s, "true", WP_JTRUE);
	case 'f':
		return word(s, "false", WP_JFALSE);
	case 'n':
		return word(s, "null", WP_JNULL);
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return number(s);
		return fail(s, "expected a value");
	}
}

int
wp_json_parse(struct wp_json *j, const char *text, size_t len)
{
	struct scan s;

	memset(&s, 0, sizeof s);
	s.j = j;
	s.p = s.start = text;
	s.end = text + len;
	j->text = text;
	j->len = len;
	j->nt = 0;
	j->err = NULL;
	j->col = 0;
	ws(&s);
	if (len > UINT32_MAX)
		s.err = "line too long";
	else if (s.p >= s.end)
		s.err = "empty line";
	else if (*s.p != '{') {
		if (value(&s) == 0)
			s.err = "not a JSON object";
	} else if (value(&s) == 0) {
		ws(&s);
		if (s.p < s.end)
			s.err = "text after the JSON object";
	}
	if (s.err != NULL) {
		j->err = s.err;
		j->col = (size_t)(s.p - s.start) + 1;
		j->nt = 0;
		return -1;
	}
	return 0;
}

void
wp_json_free(struct wp_json *j)
{
	free(j->t);
	memset(j, 0, sizeof *j);
}

/* ---- reading ---- */

int
wp_json_key_is(const struct wp_json *j, int v, const char *key, size_t n)
{
	const struct wp_jtok *k = &j->t[v - 1];
	char buf[256];
	int len;

	if (!k->esc)
		return k->len == n + 2 &&
		    memcmp(j->text + k->start + 1, key, n) == 0;
	len = wp_json_str(j, v - 1, buf, sizeof buf);
	return len >= 0 && (size_t)len == n && memcmp(buf, key, n) == 0;
}

int
wp_json_get(const struct wp_json *j, int obj, const char *key)
{
	size_t n = strlen(key);
	int i;

	if (obj < 0 || j->t[obj].type != WP_JOBJECT)
		return -1;
	for (i = obj + 1; i < (int)j->t[obj].end; i = (int)j->t[i + 1].end)
		if (wp_json_key_is(j, i + 1, key, n))
			return i + 1;
	return -1;
}

int
wp_json_first(const struct wp_json *j, int v)
{
	if (v < 0 || (j->t[v].type != WP_JOBJECT && j->t[v].type != WP_JARRAY) ||
	    j->t[v].end == (uint32_t)v + 1)
		return -1;
	return j->t[v].type == WP_JOBJECT ? v + 2 : v + 1;
}

int
wp_json_next(const struct wp_json *j, int parent, int v)
{
	int n = (int)j->t[v].end;

	if (n >= (int)j->t[parent].end)
		return -1;
	return j->t[parent].type == WP_JOBJECT ? n + 1 : n;
}

size_t
wp_json_count(const struct wp_json *j, int v)
{
	size_t n = 0;
	int i;

	for (i = wp_json_first(j, v); i >= 0; i = wp_json_next(j, v, i))
		n++;
	return n;
}

int
wp_json_is(const struct wp_json *j, int v, enum wp_jtype type)
{
	return v >= 0 && j->t[v].type == type;
}

int
wp_json_int(const struct wp_json *j, int v, int64_t *out)
{
	const char *p;
	uint64_t x = 0, lim;
	size_t i = 0, n;
	int neg = 0;

	if (!wp_json_is(j, v, WP_JNUMBER))
		return -1;
	p = j->text + j->t[v].start;
	n = j->t[v].len;
	if (p[0] == '-') {
		neg = 1;
		i = 1;
	}
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;	/* a fraction or an exponent */
		if (x > (lim - (uint64_t)(p[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int
wp_json_hex(const struct wp_json *j, int v, uint64_t *out)
{
	if (!wp_json_is(j, v, WP_JSTRING) || j->t[v].esc)
		return -1;
	return wp_parse_hexn(j->text + j->t[v].start + 1, j->t[v].len - 2,
	    out);
}

int
wp_json_shex(const struct wp_json *j, int v, int64_t *out)
{
	const char *p;
	uint64_t x;
	size_t n;
	int neg;

	if (!wp_json_is(j, v, WP_JSTRING) || j->t[v].esc)
		return -1;
	p = j->text + j->t[v].start + 1;
	n = j->t[v].len - 2;
	neg = n > 0 && p[0] == '-';
	if (wp_parse_hexn(p + neg, n - (size_t)neg, &x) == -1 ||
	    x > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -1;
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int
wp_json_bool(const struct wp_json *j, int v, int *out)
{
	if (v < 0 || (j->t[v].type != WP_JTRUE && j->t[v].type != WP_JFALSE))
		return -1;
	*out = j->t[v].type == WP_JTRUE;
	return 0;
}

static size_t
put_utf8(char *o, long c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* Decodes the (valid) string text p[0..n) into o, which holds n bytes. */
static size_t
unescape(const char *p, size_t n, char *o)
{
	size_t i = 0, k = 0;
	long c, lo;

	while (i < n) {
		if (p[i] != '\\') {
			o[k++] = p[i++];
			continue;
		}
		switch (p[++i]) {
		case 'b': o[k++] = '\b'; break;
		case 'f': o[k++] = '\f'; break;
		case 'n': o[k++] = '\n'; break;
		case 'r': o[k++] = '\r'; break;
		case 't': o[k++] = '\t'; break;
		case 'u':
			c = u4(p + i + 1, p + n);
			i += 4;
			if (c >= 0xd800 && c <= 0xdbff) {
				lo = u4(p + i + 3, p + n);
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i += 6;
			}
			k += put_utf8(o + k, c);
			break;
		default: o[k++] = p[i]; break;
		}
		i++;
	}
	return k;
}

int
wp_json_str(const struct wp_json *j, int v, char *buf, size_t sz)
{
	const char *p;
	size_t n, k;
	char *tmp;

	if (!wp_json_is(j, v, WP_JSTRING) || sz == 0)
		return -1;
	p = j->text + j->t[v].start + 1;
	n = j->t[v].len - 2;
	if (!j->t[v].esc) {
		if (n >= sz || memchr(p, '\0', n) != NULL)
			return -1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return (int)n;
	}
	tmp = wp_xmalloc(n + 1);
	k = unescape(p, n, tmp);
	if (k >= sz || memchr(tmp, '\0', k) != NULL) {
		free(tmp);
		return -1;
	}
	memcpy(buf, tmp, k);
	buf[k] = '\0';
	free(tmp);
	return (int)k;
}

char *
wp_json_strdup(const struct wp_json *j, int v)
{
	size_t n;
	char *s;

	if (!wp_json_is(j, v, WP_JSTRING))
		return NULL;
	n = j->t[v].len - 2;
	s = wp_xmalloc(n + 1);
	n = unescape(j->text + j->t[v].start + 1, n, s);
	s[n] = '\0';
	return s;
}

int
wp_json_streq(const struct wp_json *j, int v, const char *s)
{
	size_t n = strlen(s);
	char *d;
	int eq;

	if (!wp_json_is(j, v, WP_JSTRING))
		return 0;
	if (!j->t[v].esc)
		return j->t[v].len == n + 2 &&
		    memcmp(j->text + j->t[v].start + 1, s, n) == 0;
	d = wp_json_strdup(j, v);
	eq = strcmp(d, s) == 0;
	free(d);
	return eq;
}

const char *
wp_json_raw(const struct wp_json *j, int v, size_t *len)
{
	*len = j->t[v].len;
	return j->text + j->t[v].start;
}

/* ---- writing ---- */

static void
grow(struct wp_jw *w, size_t n)
{
	if (w->len + n + 1 > w->cap) {
		while (w->len + n + 1 > w->cap)
			w->cap = w->cap ? w->cap * 2 : 1024;
		w->buf = wp_xrealloc(w->buf, w->cap);
	}
}

void
wp_jw_append(struct wp_jw *w, const char *text, size_t n)
{
	grow(w, n);
	memcpy(w->buf + w->len, text, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void
put(struct wp_jw *w, char c)
{
	grow(w, 1);
	w->buf[w->len++] = c;
	w->buf[w->len] = '\0';
}

void
wp_jw_reset(struct wp_jw *w)
{
	w->len = 0;
	w->depth = 0;
	w->more = w->arr = 0;
	if (w->buf != NULL)
		w->buf[0] = '\0';
}

void
wp_jw_resume(struct wp_jw *w)
{
	wp_jw_reset(w);
	w->depth = 1;
	w->more = 1ULL << 1;
}

void
wp_jw_free(struct wp_jw *w)
{
	free(w->buf);
	memset(w, 0, sizeof *w);
}

/* The comma and the key before a value. */
static void
key(struct wp_jw *w, const char *k)
{
	uint64_t bit = 1ULL << (w->depth & 63);

	if (w->more & bit)
		put(w, ',');
	w->more |= bit;
	if (k != NULL) {
		size_t n = strlen(k);

		grow(w, n + 3);
		w->buf[w->len++] = '"';
		memcpy(w->buf + w->len, k, n);
		w->len += n;
		w->buf[w->len++] = '"';
		w->buf[w->len++] = ':';
		w->buf[w->len] = '\0';
	}
}

static void
open_(struct wp_jw *w, const char *k, char c, int is_arr)
{
	uint64_t bit;

	if (w->depth > 0)
		key(w, k);
	put(w, c);
	w->depth++;
	bit = 1ULL << (w->depth & 63);
	w->more &= ~bit;
	if (is_arr)
		w->arr |= bit;
	else
		w->arr &= ~bit;
}

void
wp_jw_obj(struct wp_jw *w, const char *k)
{
	open_(w, k, '{', 0);
}

void
wp_jw_arr(struct wp_jw *w, const char *k)
{
	open_(w, k, '[', 1);
}

void
wp_jw_end(struct wp_jw *w)
{
	put(w, (w->arr >> (w->depth & 63)) & 1 ? ']' : '}');
	w->depth--;
}

void
wp_jw_strn(struct wp_jw *w, const char *k, const char *s, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t l;

	key(w, k);
	grow(w, n + 2);
	w->buf[w->len++] = '"';
	while (p < end) {
		if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
			grow(w, 2);
			w->buf[w->len++] = (char)*p++;
		} else if (*p == '"' || *p == '\\') {
			grow(w, 3);
			w->buf[w->len++] = '\\';
			w->buf[w->len++] = (char)*p++;
		} else if (*p < 0x20) {
			grow(w, 7);
			memcpy(w->buf + w->len, "\\u00", 4);
			w->buf[w->len + 4] = hexd[*p >> 4];
			w->buf[w->len + 5] = hexd[*p & 15];
			w->len += 6;
			p++;
		} else if ((l = utf8_len(p, end)) > 0) {
			grow(w, l + 1);
			memcpy(w->buf + w->len, p, l);
			w->len += l;
			p += l;
		} else {
			grow(w, 7);
			memcpy(w->buf + w->len, "\\ufffd", 6);
			w->len += 6;
			p++;
		}
	}
	w->buf[w->len++] = '"';
	w->buf[w->len] = '\0';
}

void
wp_jw_str(struct wp_jw *w, const char *k, const char *s)
{
	if (s == NULL)
		wp_jw_null(w, k);
	else
		wp_jw_strn(w, k, s, strlen(s));
}

/* "0x" and the hex digits of v into p; returns the length. */
static size_t
fmt_hex(char *p, uint64_t v)
{
	static const char hexd[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0, i;

	do
		tmp[n++] = hexd[v & 15];
	while ((v >>= 4) != 0);
	p[0] = '0';
	p[1] = 'x';
	for (i = 0; i < n; i++)
		p[2 + i] = tmp[n - 1 - i];
	return n + 2;
}

void
wp_jw_hex(struct wp_jw *w, const char *k, uint64_t v)
{
	key(w, k);
	grow(w, 21);
	w->buf[w->len++] = '"';
	w->len += fmt_hex(w->buf + w->len, v);
	w->buf[w->len++] = '"';
	w->buf[w->len] = '\0';
}

void
wp_jw_shex(struct wp_jw *w, const char *k, int64_t v)
{
	key(w, k);
	grow(w, 22);
	w->buf[w->len++] = '"';
	if (v < 0)
		w->buf[w->len++] = '-';
	w->len += fmt_hex(w->buf + w->len, v < 0 ? 0 - (uint64_t)v :
	    (uint64_t)v);
	w->buf[w->len++] = '"';
	w->buf[w->len] = '\0';
}

static void
put_u(struct wp_jw *w, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	grow(w, n);
	while (n > 0)
		w->buf[w->len++] = tmp[--n];
	w->buf[w->len] = '\0';
}

void
wp_jw_uint(struct wp_jw *w, const char *k, uint64_t v)
{
	key(w, k);
	put_u(w, v);
}

void
wp_jw_int(struct wp_jw *w, const char *k, int64_t v)
{
	key(w, k);
	if (v < 0) {
		put(w, '-');
		put_u(w, 0 - (uint64_t)v);
	} else
		put_u(w, (uint64_t)v);
}

void
wp_jw_bool(struct wp_jw *w, const char *k, int v)
{
	key(w, k);
	wp_jw_append(w, v ? "true" : "false", v ? 4 : 5);
}

void
wp_jw_null(struct wp_jw *w, const char *k)
{
	key(w, k);
	wp_jw_append(w, "null", 4);
}

void
wp_jw_bytes(struct wp_jw *w, const char *k, const unsigned char *b, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	size_t i;

	key(w, k);
	grow(w, 2 * n + 2);
	w->buf[w->len++] = '"';
	for (i = 0; i < n; i++) {
		w->buf[w->len++] = hexd[b[i] >> 4];
		w->buf[w->len++] = hexd[b[i] & 15];
	}
	w->buf[w->len++] = '"';
	w->buf[w->len] = '\0';
}

void
wp_jw_raw(struct wp_jw *w, const char *k, const char *text, size_t n)
{
	key(w, k);
	wp_jw_append(w, text, n);
}
