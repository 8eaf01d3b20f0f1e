/*
 * hmap: the one hash table: open addressing from a key of two 64-bit
 * words to a fixed-size value stored in the table.
 */
#ifndef WP_HMAP_H
#define WP_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct wp_hmap {
	size_t		 cap;		/* slots, a power of two */
	size_t		 n;		/* used */
	size_t		 vsize;
	uint64_t	*keys;		/* two words per slot */
	unsigned char	*used;
	unsigned char	*vals;
};

void	 wp_hmap_init(struct wp_hmap *m, size_t vsize);
/* Frees the table; the values' own allocations are the caller's. */
void	 wp_hmap_free(struct wp_hmap *m);
/*
 * The value of (a, b), or NULL.  A value pointer is valid until the
 * next wp_hmap_put, which may move every value.
 */
void	*wp_hmap_get(const struct wp_hmap *m, uint64_t a, uint64_t b);
/* The value of (a, b), added zeroed (*isnew set) when absent. */
void	*wp_hmap_put(struct wp_hmap *m, uint64_t a, uint64_t b, int *isnew);
/* Iteration: slot i from 0 to m->cap, NULL for an empty one. */
void	*wp_hmap_slot(const struct wp_hmap *m, size_t i);
/* Empties the table, keeping its size. */
void	 wp_hmap_clear(struct wp_hmap *m);

#endif
