/*
 * Call chains of a thread stopped under ptrace, unwound with libdw
 * (DWARF CFI, so frame pointers are not needed).  One wp_dwfl per watched
 * process, its modules reported again when a frame falls outside them
 * (a library loaded since).
 */
#include <stdlib.h>
#include <string.h>

#include "dwfl.h"
#include "dwunwind.h"
#include "kchain.h"
#include "unwind.h"
#include "util.h"

int
unwind_open(struct unwinder *u, pid_t pid)
{
	struct wp_error e;

	memset(u, 0, sizeof *u);
	u->pid = pid;
	if ((u->dw = wp_dwfl_open_pid(pid, &e)) == NULL) {
		u->why = wp_xstrdup(e.msg);
		return -1;
	}
	return 0;
}

void
unwind_close(struct unwinder *u)
{
	wp_dwfl_close(u->dw);
	u->dw = NULL;
	free(u->why);
	u->why = NULL;
}

const char *
unwind_thread(struct unwinder *u, pid_t tid, uint64_t *ips, size_t max,
    size_t *n)
{
	const char *status;
	int again, unknown;

	*n = 0;
	if (u->dw == NULL)
		return u->why ? u->why : "no unwinder";
	for (again = 0; again < 2; again++) {
		status = wp_dw_frames(u->dw, tid, ips, max, n, &unknown);
		/* a library loaded since: report the modules again */
		if (!unknown || again || wp_dwfl_refresh(u->dw) == -1)
			break;
	}
	/* where CFI is missing libdw walks frame pointers */
	return kchain_code_only(u->pid, ips, n, status);
}
