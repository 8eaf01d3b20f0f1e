/*
 * The one JSON parser of the record stream: a validating parser that
 * lays a line out as tokens without copying it (reading the tokens is
 * jsonget.c, finding duplicate names jsonnames.c, the writer jsonw.c,
 * the byte tricks json-bytes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json-bytes.h"
#include "json-int.h"
#include "util.h"

struct scan {
	struct wp_json	*j;
	const char	*p, *end, *start;
	const char	*err;
	int		 depth;
	int		 line;		/* a newline ends the text */
};

const unsigned char wp_json_cls[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1,
	1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

static int value(struct scan *);

static inline void
ws(struct scan *s)
{
	/* records have no blanks between their tokens */
	if (s->p < s->end && (unsigned char)*s->p > ' ')
		return;
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\r' || (*s->p == '\n' && !s->line)))
		s->p++;
}

static int
fail(struct scan *s, const char *why)
{
	if (s->err == NULL)
		s->err = why;
	return -1;
}

static void
reserve(struct wp_json *j, size_t n)
{
	if (n <= j->cap)
		return;
	if (j->cap == 0)
		j->cap = 64;
	while (j->cap < n)
		j->cap *= 2;
	j->t = wp_xrealloc(j->t, j->cap * sizeof *j->t);
}

static inline int
push(struct scan *s, enum wp_jtype type)
{
	struct wp_json *j = s->j;
	struct wp_jtok *t;

	if (__builtin_expect(j->nt == j->cap, 0))
		reserve(j, j->nt + 1);
	t = &j->t[j->nt];
	t->start = (uint32_t)(s->p - s->start);
	t->len = 0;
	t->type = (uint8_t)type;
	t->esc = 0;
	t->fits = 0;
	t->kinds = 0;
	return (int)j->nt++;
}

static inline void
done(struct scan *s, int i)
{
	struct wp_jtok *t = &s->j->t[i];

	t->len = (uint32_t)(s->p - s->start) - t->start;
	t->end = (uint32_t)s->j->nt;
}

size_t
wp_utf8_len(const unsigned char *p, const unsigned char *end)
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
	const unsigned char *p, *end = (const unsigned char *)s->end;
	uint64_t m;
	size_t n;

	s->p++;			/* the opening quote */
#ifdef __SSE2__
	if (end - (const unsigned char *)s->p >= 32) {
		int k, hex;

		if ((k = short_string((const unsigned char *)s->p, &hex)) >= 0) {
			s->p += k + 1;
			done(s, i);
			s->j->t[i].fits = (uint8_t)hex;
			return 0;
		}
	}
#endif
	while (s->p < s->end) {
		unsigned char c;

		/* the bytes that stand for themselves, at once */
		p = (const unsigned char *)s->p;
		if (WP_JSON_SWAR) {
			while (end - p >= 8 && (m = special(load8(p))) == 0)
				p += 8;
			if (end - p >= 8)
				p += __builtin_ctzll(m) / 8;
		}
		for (; p < end && (wp_json_cls[*p] & WP_JSON_PLAIN); p++)
			;
		s->p = (const char *)p;
		if (s->p >= s->end)
			break;
		c = (unsigned char)*s->p;
		if (c == '"') {
			s->p++;
			done(s, i);
			if (!s->j->t[i].esc)
				s->j->t[i].fits = (uint8_t)is_hex(s->start,
				    s->end, &s->j->t[i]);
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
		else if ((n = wp_utf8_len((const unsigned char *)s->p,
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

/* The integer of the n bytes at p (digits, a minus first): 0, or -1. */
static int
integer(const char *p, size_t n, int64_t *out)
{
	uint64_t x = 0, lim;
	size_t i = 0;
	int neg = 0;

	if (n > 0 && p[0] == '-') {
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

static int
number(struct scan *s)
{
	int i = push(s, WP_JNUMBER), frac = 0;
	const char *d;
	int64_t x;

	if (*s->p == '-')
		s->p++;
	d = s->p;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (digits(s) == -1)
		return fail(s, "bad number");
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		frac = 1;
		if (digits(s) == -1)
			return fail(s, "bad number");
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		frac = 1;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s) == -1)
			return fail(s, "bad number");
	}
	done(s, i);
	/* 18 digits fit, more may */
	s->j->t[i].fits = !frac && (s->p - d <= 18 || integer(s->start +
	    s->j->t[i].start, s->j->t[i].len, &x) == 0);
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

/* What value t adds to its container's kinds. */
static inline uint8_t
kind(const struct wp_jtok *t)
{
	return (uint8_t)(1u << t->type | (t->type == WP_JSTRING && !t->fits ?
	    WP_JKIND_NOTHEX : 0));
}

/* Adds name token k of the top object to the filter of its names. */
static inline void
top_name(struct wp_json *j, int k)
{
	const struct wp_jtok *t = &j->t[k];
	uint32_t h;

	if (t->esc) {
		j->keys = ~0ULL;	/* found the long way */
		return;
	}
	h = name_hash(j->text + t->start + 1, t->len - 2);
	if (!(j->keyown & (1ULL << (h & 63)))) {
		j->keyown |= 1ULL << (h & 63);
		j->keyat[h & 63] = (uint32_t)k;
	}
	j->keys |= name_bits(h);
}

/*
 * After the opening bracket, and after each member or element: 1 at the
 * closing bracket (the container is done), 0 where another one follows.
 */
static inline int
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

/* A string at s->p (its opening quote): its token, or -1. */
static inline int
str_tok(struct scan *s)
{
	struct wp_json *j = s->j;
	int k = (int)j->nt;
#ifdef __SSE2__
	struct wp_jtok *t;
	int n, hex;

	if (s->end - s->p >= 33 && (n = short_string((const unsigned char *)
	    s->p + 1, &hex)) >= 0) {
		if (__builtin_expect(j->nt == j->cap, 0))
			reserve(j, j->nt + 1);
		t = &j->t[k];
		t->start = (uint32_t)(s->p - s->start);
		t->len = (uint32_t)n + 2;
		t->end = (uint32_t)k + 1;
		t->type = WP_JSTRING;
		t->esc = 0;
		t->fits = (uint8_t)hex;
		t->kinds = 0;
		j->nt++;
		s->p += n + 2;
		return k;
	}
#endif
	return string(s) == -1 ? -1 : k;
}

static int
members_of(struct scan *s, struct wp_jnames *names)
{
	int o = push(s, WP_JOBJECT), k, rc;
	unsigned kinds = 0;

	s->p++;			/* { */
	for (rc = more(s, o, '}', 1); rc == 0; rc = more(s, o, '}', 0)) {
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p != '"')
			return fail(s, "expected a quoted member name");
		if ((k = str_tok(s)) == -1)
			return -1;
		if (wp_jname_seen(s->j, names, o, k)) {
			s->p -= s->j->t[k].len;
			return fail(s, "duplicate member name");
		}
		if (o == 0)
			top_name(s->j, k);
		if (s->p < s->end && *s->p == ':')
			s->p++;		/* no blanks: most records */
		else {
			ws(s);
			if (s->p >= s->end)
				return fail(s, "truncated");
			if (*s->p != ':')
				return fail(s, "expected ':'");
			s->p++;
		}
		if (s->p < s->end && *s->p != '"')
			ws(s);
		if (s->p < s->end && *s->p == '"') {
			if ((k = str_tok(s)) == -1)
				return -1;
			kinds |= s->j->t[k].fits ? 1u << WP_JSTRING :
			    1u << WP_JSTRING | WP_JKIND_NOTHEX;
		} else {
			k = (int)s->j->nt;
			if (value(s) == -1)
				return -1;
			kinds |= kind(&s->j->t[k]);
		}
	}
	s->j->t[o].kinds = (uint8_t)kinds;
	return rc == 1 ? 0 : -1;
}

static int
members(struct scan *s)
{
	struct wp_jnames nm;
	int rc;

	nm.n = 0;
	nm.slow = 0;
	nm.bloom = 0;
	rc = members_of(s, &nm);
	wp_jnames_free(&nm);
	return rc;
}

static int
elements(struct scan *s)
{
	int a = push(s, WP_JARRAY), e, rc;

	s->p++;			/* [ */
	for (rc = more(s, a, ']', 1); rc == 0; rc = more(s, a, ']', 0)) {
		ws(s);
		e = (int)s->j->nt;
		if (value(s) == -1)
			return -1;
		s->j->t[a].kinds |= kind(&s->j->t[e]);
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

/*
 * A scan of the n bytes of text into j (line: a newline ends it), past
 * the blanks it starts with.
 */
static void
scan_init(struct scan *s, struct wp_json *j, const char *text, size_t n,
    int line)
{
	memset(s, 0, sizeof *s);
	s->j = j;
	s->line = line;
	s->p = s->start = text;
	s->end = text + n;
	j->text = text;
	j->nt = 0;
	j->keys = j->keyown = 0;
	j->err = NULL;
	j->col = 0;
	ws(s);
}

int
wp_json_parse(struct wp_json *j, const char *text, size_t len)
{
	struct scan s;

	scan_init(&s, j, text, len, 0);
	j->len = len;
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

int
wp_json_parse_line(struct wp_json *j, const char *text, size_t avail,
    size_t *len)
{
	struct scan s;

	if (avail > UINT32_MAX)
		return -1;
	scan_init(&s, j, text, avail, 1);
	if (s.p < s.end && *s.p == '{' && value(&s) == 0) {
		ws(&s);
		if (s.p < s.end && *s.p == '\n') {
			*len = j->len = (size_t)(s.p - s.start);
			return 0;
		}
	}
	j->nt = 0;
	j->err = NULL;
	return -1;
}

void
wp_json_free(struct wp_json *j)
{
	free(j->t);
	memset(j, 0, sizeof *j);
}
