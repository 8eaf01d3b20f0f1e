/*
 * Reading what the parser (json.c) laid out: an object's members, an
 * array's elements, and each value as a number, bytes, a boolean or a
 * string, unescaped.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json-int.h"
#include "util.h"

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
	const struct wp_jtok *k;
	size_t n = strlen(key);
	uint32_t h;
	int i;

	if (obj < 0 || j->t[obj].type != WP_JOBJECT)
		return -1;
	if (obj == 0 && j->keys != ~0ULL) {
		h = name_hash(key, n);
		/* a name there owns its first bit, or another one does */
		if ((j->keys & name_bits(h)) != name_bits(h) ||
		    !(j->keyown & (1ULL << (h & 63))))
			return -1;
		k = &j->t[i = (int)j->keyat[h & 63]];
		if (k->len == n + 2 && wp_same_bytes(j->text + k->start + 1, key,
		    n))
			return i + 1;
	}
	for (i = obj + 1; i < (int)j->t[obj].end; i = (int)j->t[i + 1].end) {
		k = &j->t[i];
		if (k->esc ? wp_json_key_is(j, i + 1, key, n) :
		    k->len == n + 2 &&
		    wp_same_bytes(j->text + k->start + 1, key, n))
			return i + 1;
	}
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
	uint64_t x = 0;
	size_t i = 0, n;

	/* the parser checked that it is an integer and fits */
	if (!wp_json_is(j, v, WP_JNUMBER) || !j->t[v].fits)
		return -1;
	p = j->text + j->t[v].start;
	n = j->t[v].len;
	if (p[0] == '-')
		i = 1;
	for (; i < n; i++)
		x = x * 10 + (uint64_t)(p[i] - '0');
	*out = p[0] == '-' ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int
wp_json_hex(const struct wp_json *j, int v, uint64_t *out)
{
	const unsigned char *p;
	uint64_t x = 0;
	size_t n, i;

	/* the parser checked the digits */
	if (v < 0 || j->t[v].type != WP_JSTRING || !j->t[v].fits)
		return -1;
	p = (const unsigned char *)j->text + j->t[v].start + 3;
	n = j->t[v].len - 4;
	for (i = 0; i < n; i++)
		x = x << 4 | (uint64_t)((p[i] & 0xf) + 9 * (p[i] >> 6));
	*out = x;
	return 0;
}

int
wp_json_bytes(const struct wp_json *j, int v, unsigned char *buf, size_t cap,
    size_t *n)
{
	const char *p;
	size_t len, i;
	int hi, lo;

	if (!wp_json_is(j, v, WP_JSTRING) || j->t[v].esc)
		return -1;
	p = j->text + j->t[v].start + 1;
	len = j->t[v].len - 2;
	if (len % 2 != 0 || len / 2 > cap)
		return -1;
	for (i = 0; i < len / 2; i++) {
		if ((hi = hexval((unsigned char)p[2 * i])) < 0 ||
		    (lo = hexval((unsigned char)p[2 * i + 1])) < 0)
			return -1;
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	*n = len / 2;
	return 0;
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
		/* the parser let no control character by: no NUL */
		if (n >= sz)
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
