/* The frames of one thread, walked with libdw. */
#include <elfutils/libdwfl.h>
#include <string.h>

#include "dwunwind.h"

struct walk {
	Dwfl		*dwfl;
	uint64_t	*ips;
	size_t		 max, n;
	int		 frame;
	int		 unknown;
	const char	*status;
};

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
wp_dw_frames(struct wp_dwfl *d, pid_t tid, uint64_t *ips, size_t max,
    size_t *n, int *unknown)
{
	struct walk wk;

	memset(&wk, 0, sizeof wk);
	wk.dwfl = d->dwfl;
	wk.ips = ips;
	wk.max = max;
	if (dwfl_getthread_frames(d->dwfl, tid, frame_cb, &wk) == 0)
		wk.status = "complete";
	else if (wk.status == NULL)
		/* the outermost frame has no caller to find */
		wk.status = wk.n > 0 ? "complete" : dwfl_errmsg(-1);
	*n = wk.n;
	*unknown = wk.unknown;
	return wk.status;
}
