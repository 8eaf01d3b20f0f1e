/*
 * json-int: what the parser (json.c) and the readers of its tokens
 * (jsonget.c) share inside lib: hex digits, a name's hash, and the
 * table that finds an object's duplicate names (jsonnames.c).
 */
#ifndef WP_JSON_INT_H
#define WP_JSON_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "json.h"

static inline int
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
static inline long
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

/*
 * A name's hash for wp_json's filter of the top object's names: two of
 * its 64 bits, the first (h & 63) also where keyat keeps the name.
 */
static inline uint32_t
name_hash(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	uint32_t h;

	if (n == 0)
		return 0;
	h = (uint32_t)n * 0x9e3779b1u ^ u[0] * 0x85ebca6bu ^
	    u[n - 1] * 0xc2b2ae35u ^ u[n / 2] * 0x27d4eb2fu;
	return h ^ h >> 15;
}

static inline uint64_t
name_bits(uint32_t h)
{
	return 1ULL << (h & 63) | 1ULL << (h >> 8 & 63);
}

/*
 * The names of one object so far, for finding a duplicate without
 * comparing every pair: a fingerprint per name (its length and three of
 * its bytes), compared in full only when the fingerprints are equal.
 * Names with escapes, and objects with more names, go to a hash table
 * of the names as decoded (map, allocated then, freed by names_free).
 */
#define NFP	32

struct wp_jnames {
	uint32_t	fp[NFP];
	int		tok[NFP];
	int		n;
	int		slow;
	uint64_t	bloom;		/* a bit per fingerprint seen */
	struct wp_hmap	map;		/* of the names, once slow */
};

/* Adds name token k of object o: 1 when it is a duplicate (jsonnames.c). */
int	 wp_jname_seen(const struct wp_json *j, struct wp_jnames *nm, int o,
	    int k);
void	 wp_jnames_free(struct wp_jnames *nm);

#endif
