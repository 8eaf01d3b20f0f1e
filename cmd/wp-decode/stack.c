/*
 * The callers of a hit from the user stack wp-arm copied (--callchain
 * dwarf), unwound with libdw over the session's modules and their call
 * frame information, from the registers sampled at the trap: what perf
 * report does for perf record --call-graph dwarf.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dwfl.h"
#include "dwunwind.h"
#include "util.h"

/* The DWARF number of each register (x86-regs.h). */
#define DWARF_NO(N, name, field, perf, dwarf)	dwarf,
static const int dwarf_no[WP_NREGS] = { WP_X86_REGS(DWARF_NO) };

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct ustack *u = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct ustack *u = arg;

	(void)dwfl;
	*thread_argp = u;
	return tid == u->tid;
}

/* A word of the copied stack; anything else is not known. */
static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct ustack *u = arg;
	uint64_t sp = u->regs.v[WP_RSP];

	(void)dwfl;
	if (addr < sp || addr - sp > u->nstack || u->nstack - (addr - sp) < 8) {
		u->short_read = 1;
		return false;
	}
	memcpy(result, u->stack + (addr - sp), 8);
	return true;
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct ustack *u = arg;
	Dwarf_Word r[WP_X86_NDWARF];
	size_t i;

	for (i = 0; i < WP_NREGS; i++)
		if (dwarf_no[i] < WP_X86_NDWARF)
			r[dwarf_no[i]] = u->regs.v[i];
	if (!dwfl_thread_state_registers(thread, 0, WP_X86_NDWARF, r))
		return false;
	dwfl_thread_state_register_pc(thread, u->regs.v[WP_RIP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The session's Dwfl, every module that can be read in it, attached to
 * the hit being unwound. */
static int
attach(struct ustack *u, struct image *im)
{
	size_t i, n = 0;

	for (i = 0; i < im->nmods; i++)
		if (image_module(im, (int)i) != NULL)
			n++;
	if (n == 0 || im->dwfl == NULL) {
		u->why = "no module of the session could be read";
		return -1;
	}
	if (!dwfl_attach_state(im->dwfl->dwfl, NULL, im->session.pid > 0 ? im->session.pid : 1,
	    &thread_callbacks, u)) {
		u->why = dwfl_errmsg(-1);
		return -1;
	}
	return 0;
}

void
ustack_clear(struct ustack *u)
{
	free(u->buf);
	memset(u, 0, sizeof *u);
}

const char *
ustack_unwind(struct ustack *u, struct image *im, const struct wp_hit_in *h,
    const struct wp_x86_regs *regs, uint64_t *ips, size_t max, size_t *n)
{
	static const uint32_t need = 1u << WP_RSP | 1u << WP_RIP;
	const char *status;
	ssize_t len;
	int unknown;

	*n = 0;
	if ((len = wp_rec_hit_stack(h, &u->buf, &u->cap)) < 0)
		return "user_stack is not a hex string";
	if ((regs->have & need) != need)
		return "no stack pointer and ip sampled to start from";
	if (u->state == 0)
		u->state = attach(u, im) == 0 ? 1 : -1;
	if (u->state == -1)
		return u->why;
	u->tid = h->has_tid && h->tid > 0 ? h->tid : 1;
	u->regs = *regs;
	u->stack = u->buf;
	u->nstack = (size_t)len;
	u->short_read = 0;
	status = wp_dw_frames(im->dwfl, u->tid, ips, max, n, &unknown);
	if (u->short_read && strcmp(status, "truncated") != 0)
		return "the stack copy ended (--callchain dwarf,bytes copies "
		    "more)";
	return status;
}
