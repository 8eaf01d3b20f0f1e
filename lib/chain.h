/*
 * chain: walking a --follow pointer chain through a process's memory,
 * the one walker wp-resolve (when it resolves) and wp-arm (when a
 * pointer is written) share.
 *
 * A chain [[SLOT]+o0]+o1 reads the pointer at SLOT, adds o0, reads the
 * pointer there, adds o1: the leaf.  Pointers are 8 bytes and must be
 * aligned to 8; the leaf must be aligned to its length.
 */
#ifndef WP_CHAIN_H
#define WP_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct wp_walk {
	/* addr[i] for i < noffs is pointer i, addr[noffs] the leaf */
	uint64_t	 addr[WP_CHAIN_MAXDEPTH + 1];
	uint64_t	 value[WP_CHAIN_MAXDEPTH];	/* pointers read */
	size_t		 nread;		/* pointers read (a null one too) */
	size_t		 at;		/* where it stopped: noffs when bound */
	const char	*binding;	/* bound, null_pointer, unmapped,
					   misaligned; exited when the
					   process's memory is gone */
};

/*
 * Walks the chain in the memory of the process whose /proc/PID/mem is
 * open as memfd.  Addresses up to w->addr[w->at] are set.
 */
void	 wp_chain_walk(int memfd, uint64_t slot, const int64_t *offs,
	    size_t noffs, size_t leaflen, struct wp_walk *w);
/* Whether entry k of a walked chain can be watched now. */
int	 wp_chain_armed(const struct wp_walk *w, size_t k);

#endif
