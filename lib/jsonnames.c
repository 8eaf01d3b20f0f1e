/*
 * Duplicate member names in an object, found as the parser (json.c)
 * meets each: fingerprints of the first names, a map of them past
 * that.
 */
#include <sys/auxv.h>

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "json.h"
#include "json-int.h"
#include "util.h"

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



static inline uint32_t
fingerprint(const char *text, const struct wp_jtok *t)
{
	const unsigned char *p = (const unsigned char *)text + t->start + 1;
	uint32_t n = t->len - 2;

	if (n == 0)
		return 0;
	return (n & 0xff) | (uint32_t)p[0] << 8 | (uint32_t)p[n / 2] << 16 |
	    (uint32_t)p[n - 1] << 24;
}

void
wp_jnames_free(struct wp_jnames *nm)
{
	if (nm->slow)
		wp_hmap_free(&nm->map);
}

/* 64 bits of the n bytes at p, from seed. */
static uint64_t
bytes_hash(const char *p, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ n * 0x9e3779b97f4a7c15ULL, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

/*
 * Adds name token k of object o to the table: 1 when it is a duplicate.
 * Names are equal as decoded (same_key); two names whose 128 bits of
 * hash agree are compared, and where they differ the long way decides.
 * The hashes are seeded from the kernel's random bytes for the process,
 * so that a stream cannot be made of names that collide.
 */
static int
name_hashed(const struct wp_json *j, struct wp_jnames *nm, int o, int k)
{
	static const uint64_t fixed[2] = {
		0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL
	};
	static uint64_t seed[2];
	static int seeded;
	const void *r;
	const struct wp_jtok *t = &j->t[k];
	const char *p = j->text + t->start + 1;
	char *d = NULL;
	size_t n = t->len - 2;
	uint64_t a, b;
	int *v, isnew;

	if (t->esc) {
		d = wp_json_strdup(j, k);
		p = d;
		n = strlen(d);
	}
	if (!seeded) {
		/* 16 bytes, not always aligned */
		r = (const void *)getauxval(AT_RANDOM);
		memcpy(seed, r != NULL ? r : fixed, sizeof seed);
		seeded = 1;
	}
	a = bytes_hash(p, n, seed[0]);
	b = bytes_hash(p, n, seed[1]);
	free(d);
	v = wp_hmap_put(&nm->map, a, b, &isnew);
	if (isnew) {
		*v = k;
		return 0;
	}
	return same_key(j, *v, k) || duplicate(j, o, k);
}

/* Adds name token k of object o: 1 when it is a duplicate. */
int
wp_jname_seen(const struct wp_json *j, struct wp_jnames *nm, int o, int k)
{
	const struct wp_jtok *t = &j->t[k], *u;
	uint64_t bit;
	uint32_t fp;
	int i;

	if (!nm->slow && (t->esc || nm->n == NFP)) {
		nm->slow = 1;
		wp_hmap_init(&nm->map, sizeof(int));
		/* the names so far, each checked already */
		for (i = o + 1; i < k; i = (int)j->t[i + 1].end)
			(void)name_hashed(j, nm, o, i);
	}
	if (nm->slow)
		return name_hashed(j, nm, o, k);
	fp = fingerprint(j->text, t);
	bit = 1ULL << ((fp * 0x9e3779b1u) >> 26);
	for (i = 0; (nm->bloom & bit) && i < nm->n; i++) {
		if (nm->fp[i] != fp)
			continue;
		u = &j->t[nm->tok[i]];
		if (u->len == t->len && wp_same_bytes(j->text + u->start,
		    j->text + t->start, t->len))
			return 1;
	}
	nm->bloom |= bit;
	nm->fp[nm->n] = fp;
	nm->tok[nm->n++] = k;
	return 0;
}
