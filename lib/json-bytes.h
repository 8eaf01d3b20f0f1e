/*
 * The byte tricks of the JSON parser (json.c): whole words of a string
 * looked at at once, eight bytes (SWAR) or sixteen (SSE2).
 */
#ifndef WP_JSON_BYTES_H
#define WP_JSON_BYTES_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json.h"
#include "json-int.h"

/*
 * Eight bytes at a time (SWAR): a word's bytes as one uint64_t, its
 * first byte lowest.  special() sets the high bit of each byte that
 * does not stand for itself in a string (a control character, a quote,
 * a backslash, and any byte of a UTF-8 sequence); of those, the lowest
 * is exact.  hex8() says whether all eight bytes are hex digits.
 */
#define ONES	0x0101010101010101ULL
#define HIGH	0x8080808080808080ULL


static inline uint64_t
load8(const unsigned char *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof x);
	return x;
}

static inline uint64_t
special(uint64_t x)
{
	uint64_t q = x ^ (ONES * '"'), b = x ^ (ONES * '\\');

	return (((x - ONES * 0x20) & ~x) | ((q - ONES) & ~q) |
	    ((b - ONES) & ~b) | x) & HIGH;
}

static inline int
hex8(uint64_t x)
{
	uint64_t y = x | ONES * 0x20;	/* A-F as a-f */
	uint64_t d = (y + ONES * (0x80 - '0')) & ~(y + ONES * (0x7f - '9'));
	uint64_t l = (y + ONES * (0x80 - 'a')) & ~(y + ONES * (0x7f - 'f'));

	/* no byte of a string is below 0x20: none maps into 0-9 */
	return (x & HIGH) == 0 && ((d | l) & HIGH) == HIGH;
}

/*
 * Whether the string token t (unescaped) is "0x" and 1 to 16 hex
 * digits; end is the end of the text.
 */
static inline int
is_hex(const char *text, const char *end, const struct wp_jtok *t)
{
	const unsigned char *p = (const unsigned char *)text + t->start + 1;
	size_t n = t->len - 2, i;
	uint64_t x, keep;

	if (n < 3 || n > 18 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return 0;
	p += 2;
	n -= 2;
	if (WP_JSON_SWAR && (const unsigned char *)end - p >= 16) {
		for (i = 0; i + 8 <= n; i += 8)
			if (!hex8(load8(p + i)))
				return 0;
		if (i == n)
			return 1;
		/* the bytes after the digits count as '0' */
		keep = ~0ULL >> (64 - 8 * (n - i));
		x = load8(p + i);
		return hex8((x & keep) | (ONES * '0' & ~keep));
	}
	for (i = 0; i < n; i++)
		if (!(wp_json_cls[p[i]] & WP_JSON_HEX))
			return 0;
	return 1;
}

#ifdef __SSE2__
/*
 * The 16 bytes at p: a bit for each that does not stand for itself in
 * a string (control characters and bytes from 0x80 on are below 0x20,
 * signed).
 */
static inline unsigned
special16(const unsigned char *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
	    _mm_cmplt_epi8(x, _mm_set1_epi8(0x20))));
}

/* The 16 bytes at p (none a control character): a bit per hex digit. */
static inline unsigned
hex16(const unsigned char *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i y = _mm_or_si128(x, _mm_set1_epi8(0x20));	/* A-F as a-f */

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8('0' - 1)),
	    _mm_cmplt_epi8(y, _mm_set1_epi8('9' + 1))),
	    _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8('a' - 1)),
	    _mm_cmplt_epi8(y, _mm_set1_epi8('f' + 1)))));
}

/*
 * A string of at most 31 bytes that stand for themselves, at p (after
 * its opening quote), 32 bytes of text there: its length, or -1.  Most
 * strings of the records are such names and hex numbers; *hex says
 * whether it is "0x" and 1 to 16 hex digits.
 */
static inline int
short_string(const unsigned char *p, int *hex)
{
	unsigned m, want;
	int n;

	if ((m = special16(p)) == 0 && (m = special16(p + 16) << 16) == 0)
		return -1;
	if (p[n = __builtin_ctz(m)] != '"')
		return -1;
	*hex = 0;
	if (n >= 3 && n <= 18 && p[0] == '0' && (p[1] | 0x20) == 'x') {
		/* the digits after the 0x, of the 16 bytes from p + 2 */
		want = (1u << (n - 2)) - 1;
		*hex = (hex16(p + 2) & want) == want;
	}
	return n;
}
#endif

#endif
