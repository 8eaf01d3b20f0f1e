/*
 * The one JSON writer of the record stream: JSON text appended to a
 * growable buffer, always valid.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static void
grow_to(struct wp_jw *w, size_t n)
{
	while (w->len + n + 1 > w->cap)
		w->cap = w->cap ? w->cap * 2 : 1024;
	w->buf = wp_xrealloc(w->buf, w->cap);
}

static inline void
grow(struct wp_jw *w, size_t n)
{
	if (__builtin_expect(w->len + n + 1 > w->cap, 0))
		grow_to(w, n);
}

void
wp_jw_append(struct wp_jw *w, const char *text, size_t n)
{
	grow(w, n);
	memcpy(w->buf + w->len, text, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static inline void
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
	size_t n = k != NULL ? strlen(k) : 0;

	grow(w, n + 4);
	if (w->more & bit)
		w->buf[w->len++] = ',';
	w->more |= bit;
	if (k != NULL) {
		w->buf[w->len++] = '"';
		memcpy(w->buf + w->len, k, n);
		w->len += n;
		w->buf[w->len++] = '"';
		w->buf[w->len++] = ':';
	}
	w->buf[w->len] = '\0';
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
		const unsigned char *q;

		if (wp_json_cls[*p] & WP_JSON_PLAIN) {
			/* a run of bytes that stand for themselves */
			for (q = p + 1; q < end && (wp_json_cls[*q] & WP_JSON_PLAIN); q++)
				;
			grow(w, (size_t)(q - p) + 1);
			memcpy(w->buf + w->len, p, (size_t)(q - p));
			w->len += (size_t)(q - p);
			p = q;
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
		} else if ((l = wp_utf8_len(p, end)) > 0) {
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

/* The 8 hex digits of v, the first in the lowest byte. */
static inline uint64_t
hex8_of(uint32_t v)
{
	uint64_t x = v, letters;

	/* nibble i in byte i, then the highest in the lowest byte */
	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	x = __builtin_bswap64(x);
	/* 0-9 as '0'-'9', 10-15 as 'a'-'f' */
	letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	return x + 0x3030303030303030ULL + letters * ('a' - '0' - 10);
}

size_t
wp_fmt_hex(char *p, uint64_t v)
{
	size_t n = v == 0 ? 1 : (size_t)(67 - __builtin_clzll(v)) / 4;
	uint64_t hi, lo;

	if (!WP_JSON_SWAR) {
		static const char hexd[] = "0123456789abcdef";
		size_t i;

		for (i = n; i > 0; i--, v >>= 4)
			p[1 + i] = hexd[v & 15];
	} else if (n <= 8) {
		/* the leading zeros are the low bytes: shifted out */
		lo = hex8_of((uint32_t)v) >> 8 * (8 - n);
		memcpy(p + 2, &lo, 8);
	} else {
		hi = hex8_of((uint32_t)(v >> 32)) >> 8 * (16 - n);
		lo = hex8_of((uint32_t)v);
		memcpy(p + 2, &hi, 8);
		memcpy(p + 2 + n - 8, &lo, 8);
	}
	p[0] = '0';
	p[1] = 'x';
	return n + 2;
}

#define fmt_hex wp_fmt_hex

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
	/* two digits at a time */
	static const char dec2[201] =
	    "00010203040506070809101112131415161718192021222324252627282930313233"
	    "34353637383940414243444546474849505152535455565758596061626364656667"
	    "6869707172737475767778798081828384858687888990919293949596979899";
	char tmp[20], *q = tmp + sizeof tmp;
	size_t n;

	for (; v >= 100; v /= 100) {
		q -= 2;
		memcpy(q, dec2 + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, dec2 + 2 * v, 2);
	} else
		*--q = (char)('0' + v);
	n = (size_t)(tmp + sizeof tmp - q);
	grow(w, n);
	memcpy(w->buf + w->len, q, n);
	w->len += n;
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
wp_jw_objects(struct wp_jw *w, const char *key, const void *a, size_t n,
    size_t size, void (*members)(struct wp_jw *, const void *))
{
	size_t i;

	wp_jw_arr(w, key);
	for (i = 0; i < n; i++) {
		wp_jw_obj(w, NULL);
		members(w, (const char *)a + i * size);
		wp_jw_end(w);
	}
	wp_jw_end(w);
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

char *
wp_jw_raw_begin(struct wp_jw *w, const char *k, size_t n)
{
	key(w, k);
	grow(w, n);
	return w->buf + w->len;
}

void
wp_jw_raw_end(struct wp_jw *w, size_t n)
{
	w->len += n;
	w->buf[w->len] = '\0';
}

void
wp_jw_int_known(struct wp_jw *w, const char *key, long v)
{
	WP_JW_OR_NULL(wp_jw_int, w, key, v >= 0, v);
}

void
wp_jw_strs(struct wp_jw *w, const char *key, const char *const *s, size_t n)
{
	size_t i;

	wp_jw_arr(w, key);
	for (i = 0; i < n; i++)
		wp_jw_str(w, NULL, s[i]);
	wp_jw_end(w);
}
