/*
 * A validating scanner for one JSON text, fast enough to run on every
 * record of a stream: it checks the grammar (RFC 8259) and notes where
 * the members of the top-level object are, without building anything.
 */
#include <string.h>

#include "json.h"

struct scan {
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
hexdig(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static int
string(struct scan *s)
{
	int i;

	s->p++;			/* the opening quote */
	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p;

		if (c == '"') {
			s->p++;
			return 0;
		}
		if (c < 0x20)
			return fail(s, "control character in a string");
		if (c == '\\') {
			if (++s->p >= s->end)
				break;
			switch (*s->p) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				break;
			case 'u':
				for (i = 1; i <= 4; i++)
					if (s->p + i >= s->end ||
					    !hexdig((unsigned char)s->p[i]))
						return fail(s, "bad \\u escape");
				s->p += 4;
				break;
			default:
				return fail(s, "bad escape in a string");
			}
		}
		s->p++;
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
	return 0;
}

static int
word(struct scan *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return fail(s, "expected a value");
	s->p += n;
	return 0;
}

static int
members(struct scan *s, struct wp_json_field *f, size_t *nf)
{
	const char *k;

	s->p++;			/* { */
	ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p != '"')
			return fail(s, "expected a quoted member name");
		k = s->p + 1;
		if (string(s) == -1)
			return -1;
		if (f != NULL && *nf < WP_JSON_MAXFIELDS) {
			f[*nf].key = k;
			f[*nf].klen = (size_t)(s->p - 1 - k);
		}
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p != ':')
			return fail(s, "expected ':'");
		s->p++;
		ws(s);
		k = s->p;
		if (value(s) == -1)
			return -1;
		if (f != NULL && *nf < WP_JSON_MAXFIELDS) {
			f[*nf].val = k;
			f[*nf].vlen = (size_t)(s->p - k);
			(*nf)++;
		}
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p == '}') {
			s->p++;
			return 0;
		}
		if (*s->p != ',')
			return fail(s, "expected ',' or '}'");
		s->p++;
	}
}

static int
elements(struct scan *s)
{
	s->p++;			/* [ */
	ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (;;) {
		ws(s);
		if (value(s) == -1)
			return -1;
		ws(s);
		if (s->p >= s->end)
			return fail(s, "truncated");
		if (*s->p == ']') {
			s->p++;
			return 0;
		}
		if (*s->p != ',')
			return fail(s, "expected ',' or ']'");
		s->p++;
	}
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
		if (++s->depth > 64)
			return fail(s, "nested too deep");
		rc = *s->p == '{' ? members(s, NULL, NULL) : elements(s);
		s->depth--;
		return rc;
	case '"':
		return string(s);
	case 't':
		return word(s, "true");
	case 'f':
		return word(s, "false");
	case 'n':
		return word(s, "null");
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return number(s);
		return fail(s, "expected a value");
	}
}

/*
 * Checks that text is one JSON object (surrounding blanks allowed) and
 * fills f with its members, up to WP_JSON_MAXFIELDS.  On error returns
 * -1 with *err and *col (1-based byte) set.
 */
int
wp_json_scan(const char *text, size_t len, struct wp_json_field *f,
    size_t *nf, const char **err, size_t *col)
{
	struct scan s;

	memset(&s, 0, sizeof s);
	s.p = s.start = text;
	s.end = text + len;
	*nf = 0;
	ws(&s);
	if (s.p >= s.end)
		s.err = "empty line";
	else if (*s.p != '{') {
		if (value(&s) == 0)
			s.err = "not a JSON object";
	} else if (members(&s, f, nf) == 0) {
		ws(&s);
		if (s.p < s.end)
			s.err = "text after the JSON object";
	}
	if (s.err != NULL) {
		*err = s.err;
		*col = (size_t)(s.p - s.start) + 1;
		return -1;
	}
	return 0;
}

const struct wp_json_field *
wp_json_find(const struct wp_json_field *f, size_t nf, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < nf; i++)
		if (f[i].klen == n && memcmp(f[i].key, key, n) == 0)
			return &f[i];
	return NULL;
}

/* A member of a (valid) object given as raw text. */
int
wp_json_member(const char *obj, size_t len, const char *key, const char **val,
    size_t *vlen)
{
	struct wp_json_field f[WP_JSON_MAXFIELDS];
	const struct wp_json_field *m;
	const char *err;
	size_t nf, col;

	if (len == 0 || obj[0] != '{' ||
	    wp_json_scan(obj, len, f, &nf, &err, &col) == -1 ||
	    (m = wp_json_find(f, nf, key)) == NULL)
		return -1;
	*val = m->val;
	*vlen = m->vlen;
	return 0;
}

/* "0x..." as raw JSON text. */
int
wp_json_hexval(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;
	int c;

	if (n < 5 || v[0] != '"' || v[1] != '0' || (v[2] != 'x' && v[2] != 'X') ||
	    v[n - 1] != '"' || n - 4 > 16)
		return -1;
	for (i = 3; i < n - 1; i++) {
		c = (unsigned char)v[i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return -1;
		x = x << 4 | (uint64_t)c;
	}
	*out = x;
	return 0;
}

int
wp_json_intval(const char *v, size_t n, int64_t *out)
{
	int64_t x = 0;
	size_t i = 0;
	int neg = 0;

	if (n > 0 && v[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n || n - i > 18)
		return -1;
	for (; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	*out = neg ? -x : x;
	return 0;
}
