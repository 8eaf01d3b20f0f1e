/*
 * unwind: the call chain of a thread stopped by the ptrace backend.
 */
#ifndef WPARM_UNWIND_H
#define WPARM_UNWIND_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "dwfl.h"

struct unwinder {
	pid_t		 pid;
	struct wp_dwfl	*dw;		/* its modules, threads attached */
	char		*why;		/* why it could not be opened */
};

/* Prepares unwinding pid, whose threads this process traces: 0, or -1
 * (unwind_thread then says why). */
int	 unwind_open(struct unwinder *u, pid_t pid);
void	 unwind_close(struct unwinder *u);
/*
 * The return addresses of the callers of thread tid's current frame
 * (which is stopped), innermost first, at most max into ips; *n set.
 * Returns "complete", "truncated" (more than max), "outside_code" (a
 * return address outside the executable mappings, and those after it,
 * left out: kchain_code_only), or why it stopped (a libdw message); the
 * string is static or libdw's.
 */
const char *unwind_thread(struct unwinder *u, pid_t tid, uint64_t *ips,
	    size_t max, size_t *n);

#endif
