/*
 * dwunwind: one walk of a thread's frames with libdw, for wp-arm's
 * ptrace backend (a stopped thread) and wp-decode (a copied stack), over
 * the modules and debug files of their one wp_dwfl.
 */
#ifndef WP_DWUNWIND_H
#define WP_DWUNWIND_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "dwfl.h"

/*
 * The return addresses of the callers of thread tid's current frame in
 * d (its Dwfl's thread state attached), innermost first, at most max
 * into ips; *n set, and *unknown when a frame's pc lay in no module d
 * has.  Returns "complete", "truncated" (more than max), or
 * why unwinding stopped (libdw's message, valid until its next call).
 */
const char *wp_dw_frames(struct wp_dwfl *d, pid_t tid, uint64_t *ips,
	    size_t max, size_t *n, int *unknown);

#endif
