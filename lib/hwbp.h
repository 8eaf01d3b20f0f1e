/*
 * hwbp: the debug-register rules of the machine built for, in one place.
 * x86-64: four slots (DR0..DR3), each watching 1, 2, 4 or 8 bytes at an
 * address aligned to that length.  arm64: 2 to 16 watchpoint slots (how
 * many: the machine's, which wp-arm reads), each watching 1 to 8 bytes
 * within one aligned doubleword (its byte-select mask), at any address.
 * wp-resolve checks them before a watch and wp-arm before it arms perf
 * breakpoints.
 */
#ifndef WP_HWBP_H
#define WP_HWBP_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"	/* WP_HWBP_SLOTS */

/* Whether one debug register can watch len bytes. */
int	 wp_hwbp_len_ok(size_t len);
/*
 * Whether a debug register can watch len bytes at addr: aligned to len
 * (x86-64), or within one aligned doubleword (arm64).
 */
int	 wp_hwbp_aligned(uint64_t addr, size_t len);
/*
 * Splits [addr, addr + len) into pieces one debug register each watches
 * (x86-64: naturally aligned 8, 4, 2 or 1 bytes, the widest first; arm64:
 * the bytes of each doubleword): returns how many it takes, and writes the
 * first max of their lengths into plen (which may be NULL when max is 0).
 */
size_t	 wp_hwbp_split(uint64_t addr, size_t len, size_t *plen, size_t max);
/* Slots a watch takes: one per target, one per pointer and leaf. */
size_t	 wp_hwbp_follow_slots(size_t noffs);

#endif
