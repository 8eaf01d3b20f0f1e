/* The one hash table: open addressing, linear probing. */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "util.h"

static size_t
hash(uint64_t a, uint64_t b, size_t cap)
{
	return (size_t)(((a ^ (b * 0x9E3779B97F4A7C15ULL)) *
	    0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static void
alloc(struct wp_hmap *m, size_t cap)
{
	m->cap = cap;
	m->n = 0;
	m->keys = wp_xcalloc(cap, 2 * sizeof *m->keys);
	m->used = wp_xcalloc(cap, 1);
	m->vals = wp_xcalloc(cap, m->vsize);
}

void
wp_hmap_init(struct wp_hmap *m, size_t vsize)
{
	m->vsize = vsize;
	alloc(m, 16);
}

void
wp_hmap_free(struct wp_hmap *m)
{
	free(m->keys);
	free(m->used);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

void
wp_hmap_clear(struct wp_hmap *m)
{
	memset(m->used, 0, m->cap);
	memset(m->vals, 0, m->cap * m->vsize);
	m->n = 0;
}

static size_t
find(const struct wp_hmap *m, uint64_t a, uint64_t b)
{
	size_t h = hash(a, b, m->cap);

	while (m->used[h] && (m->keys[2 * h] != a || m->keys[2 * h + 1] != b))
		h = (h + 1) & (m->cap - 1);
	return h;
}

void *
wp_hmap_get(const struct wp_hmap *m, uint64_t a, uint64_t b)
{
	size_t h = find(m, a, b);

	return m->used[h] ? m->vals + h * m->vsize : NULL;
}

static void
grow(struct wp_hmap *m)
{
	struct wp_hmap old = *m;
	size_t i, h;

	alloc(m, old.cap * 2);
	for (i = 0; i < old.cap; i++) {
		if (!old.used[i])
			continue;
		h = find(m, old.keys[2 * i], old.keys[2 * i + 1]);
		m->used[h] = 1;
		m->keys[2 * h] = old.keys[2 * i];
		m->keys[2 * h + 1] = old.keys[2 * i + 1];
		memcpy(m->vals + h * m->vsize, old.vals + i * m->vsize, m->vsize);
		m->n++;
	}
	wp_hmap_free(&old);
}

void *
wp_hmap_put(struct wp_hmap *m, uint64_t a, uint64_t b, int *isnew)
{
	size_t h;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	h = find(m, a, b);
	*isnew = !m->used[h];
	if (*isnew) {
		m->used[h] = 1;
		m->keys[2 * h] = a;
		m->keys[2 * h + 1] = b;
		m->n++;
	}
	return m->vals + h * m->vsize;
}

void *
wp_hmap_slot(const struct wp_hmap *m, size_t i)
{
	return m->used[i] ? m->vals + i * m->vsize : NULL;
}
