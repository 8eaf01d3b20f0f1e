/*
 * Call chains of a thread stopped under ptrace, unwound with libdw
 * (DWARF CFI, so frame pointers are not needed).  One Dwfl per watched
 * process, its modules reported again when a frame falls outside them
 * (a library loaded since).
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "dwunwind.h"
#include "unwind.h"
#include "util.h"

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static int
report(struct unwinder *u)
{
	dwfl_report_begin(u->dwfl);
	if (dwfl_linux_proc_report(u->dwfl, u->pid) != 0 ||
	    dwfl_report_end(u->dwfl, NULL, NULL) != 0)
		return -1;
	return 0;
}

int
unwind_open(struct unwinder *u, pid_t pid)
{
	memset(u, 0, sizeof *u);
	u->pid = pid;
	if ((u->dwfl = dwfl_begin(&callbacks)) == NULL)
		return -1;
	if (report(u) == -1 ||
	    dwfl_linux_proc_attach(u->dwfl, pid, true) != 0) {
		u->why = dwfl_errmsg(-1);
		dwfl_end(u->dwfl);
		u->dwfl = NULL;
		return -1;
	}
	return 0;
}

void
unwind_close(struct unwinder *u)
{
	if (u->dwfl != NULL)
		dwfl_end(u->dwfl);
	u->dwfl = NULL;
}

const char *
unwind_thread(struct unwinder *u, pid_t tid, uint64_t *ips, size_t max,
    size_t *n)
{
	const char *status;
	int again, unknown;

	*n = 0;
	if (u->dwfl == NULL)
		return u->why ? u->why : "no unwinder";
	for (again = 0; again < 2; again++) {
		status = wp_dw_frames(u->dwfl, tid, ips, max, n, &unknown);
		/* a library loaded since: report the modules again */
		if (!unknown || again || report(u) == -1)
			break;
	}
	return status;
}
