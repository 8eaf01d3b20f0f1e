/*
 * hwbp: the x86-64 debug-register rules, in one place: four slots
 * (DR0..DR3), each watching 1, 2, 4 or 8 bytes at an address aligned to
 * that length.  wp-resolve checks them before a watch and wp-arm before
 * it arms perf breakpoints.
 */
#ifndef WP_HWBP_H
#define WP_HWBP_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"	/* WP_HWBP_SLOTS */

/* Whether one debug register can watch len bytes. */
int	 wp_hwbp_len_ok(size_t len);
/* Whether addr is aligned to len, as a debug register needs. */
int	 wp_hwbp_aligned(uint64_t addr, size_t len);
/*
 * Splits [addr, addr + len) into naturally aligned pieces of 8, 4, 2 or
 * 1 bytes, the widest first: returns how many it takes, and writes the
 * first max of their lengths into plen (which may be NULL when max is 0).
 */
size_t	 wp_hwbp_split(uint64_t addr, size_t len, size_t *plen, size_t max);
/* Slots a watch takes: one per target, one per pointer and leaf. */
size_t	 wp_hwbp_follow_slots(size_t noffs);

#endif
