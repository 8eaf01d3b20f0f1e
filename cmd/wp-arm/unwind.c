/*
 * Call chains of a thread stopped under ptrace, unwound with libdw
 * (DWARF CFI, so frame pointers are not needed).  One Dwfl per watched
 * process, its modules reported again when a frame falls outside them
 * (a library loaded since).
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "unwind.h"
#include "util.h"

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

struct walk {
	uint64_t	*ips;
	size_t		 max, n;
	int		 frame;
	const char	*status;
	Dwfl		*dwfl;
	int		 unknown;	/* a pc in no reported module */
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

static int
frame_cb(Dwfl_Frame *f, void *arg)
{
	struct walk *wk = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(f, &pc, &act)) {
		wk->status = dwfl_errmsg(-1);
		return DWARF_CB_ABORT;
	}
	if (dwfl_addrmodule(wk->dwfl, act ? pc : pc - 1) == NULL)
		wk->unknown = 1;
	if (wk->frame++ == 0)
		return DWARF_CB_OK;	/* the writer's own frame */
	if (wk->n == wk->max) {
		wk->status = "truncated";
		return DWARF_CB_ABORT;
	}
	wk->ips[wk->n++] = pc;
	return DWARF_CB_OK;
}

const char *
unwind_thread(struct unwinder *u, pid_t tid, uint64_t *ips, size_t max,
    size_t *n)
{
	struct walk wk;
	int again;

	for (again = 0; again < 2; again++) {
		memset(&wk, 0, sizeof wk);
		wk.ips = ips;
		wk.max = max;
		wk.dwfl = u->dwfl;
		if (u->dwfl == NULL) {
			*n = 0;
			return u->why ? u->why : "no unwinder";
		}
		if (dwfl_getthread_frames(u->dwfl, tid, frame_cb, &wk) == 0)
			wk.status = "complete";
		else if (wk.status == NULL)
			/* the outermost frame has no caller to find */
			wk.status = wk.n > 0 ? "complete" : dwfl_errmsg(-1);
		if (!wk.unknown || again || report(u) == -1)
			break;
	}
	*n = wk.n;
	return wk.status;
}
