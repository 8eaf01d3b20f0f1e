/*
 * Out-of-line steps for the ptrace backend's site mode, as the kernel's
 * uprobes step: a scratch page mapped in the process (an mmap run in a
 * stopped thread), near the code, holds a copy of each site's
 * instruction, its rip-relative displacement made to reach the same
 * address from there, and after it a jmp back to the instruction after
 * the site.  A thread at a site's int3 steps the copy and goes on at
 * the next instruction, while the int3 stays and the other threads run:
 * none is held.  A thread ever left in the page (wp-arm killed mid-step)
 * runs the copy and the jmp back: the page is harmless, and is unmapped
 * at the end where a thread can run the munmap.
 */
#include <sys/mman.h>
#include <sys/syscall.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "ptrace-xol.h"
#include "tracee.h"
#include "util.h"

#define PAGE_SZ		4096
#define REACH		(1LL << 30)	/* a rel32's reach, with room */
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

/*
 * Where a page may go nearest to addr: just below a mapping (where mmap
 * puts them), not below the main thread's stack (its growth) nor in a
 * gap too small; 0 if none within reach.
 */
static uint64_t
place(pid_t pid, uint64_t addr)
{
	struct wp_maps m;
	uint64_t best = 0, top, lo, d, bestd = (uint64_t)REACH;
	size_t k;

	if (wp_proc_maps(pid, &m) == -1)
		return 0;
	for (k = 0; k < m.n; k++) {
		if (m.v[k].path != NULL && strcmp(m.v[k].path, "[stack]") == 0)
			continue;
		if (m.v[k].start < 0x10000 + PAGE_SZ)
			continue;
		top = m.v[k].start - PAGE_SZ;
		lo = k > 0 ? m.v[k - 1].end : 0x10000;
		if (lo > top)
			continue;
		d = top > addr ? top - addr : addr - top;
		if (d < bestd) {
			bestd = d;
			best = top;
		}
	}
	wp_proc_maps_free(&m);
	return best;
}

/* A stopped thread of the process, which can run a system call; NULL. */
static struct tr_thread *
stopped(struct tracee *tr)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i]->state == TR_STOPPED &&
		    tr->t[i]->tgid == tr->pid && tr->t[i]->stop != TR_SC_ENTRY)
			return tr->t[i];
	return NULL;
}

uint64_t
xol_map(struct tracee *tr, uint64_t near)
{
	struct tr_thread *t;
	uint64_t at, a[6];
	long rv;

	if ((t = stopped(tr)) == NULL || (at = place(tr->pid, near)) == 0)
		return 0;
	a[0] = at;
	a[1] = PAGE_SZ;
	a[2] = PROT_READ | PROT_EXEC;
	a[3] = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
	a[4] = (uint64_t)-1;
	a[5] = 0;
	rv = tr_inject6(tr, t, SYS_mmap, a);
	if (rv < 0 && rv > -4096)
		return 0;
	if ((uint64_t)rv != at) {
		/* an old kernel took the address as a hint only */
		tr_inject(tr, t, SYS_munmap, (uint64_t)rv, PAGE_SZ, 0);
		return 0;
	}
	return at;
}

void
xol_unmap(struct tracee *tr, uint64_t page)
{
	struct tr_thread *t;

	if (page != 0 && (t = stopped(tr)) != NULL)
		tr_inject(tr, t, SYS_munmap, page, PAGE_SZ, 0);
}

/* Whether in is a branch, whose next rip is not after it. */
static int
branch(const char *text)
{
	static const char *const skip[] = { "notrack ", "bnd ", NULL };
	size_t i;

	for (i = 0; skip[i] != NULL; i++)
		if (wp_prefix(text, skip[i]))
			text += strlen(skip[i]);
	return text[0] == 'j' || wp_prefix(text, "call") ||
	    wp_prefix(text, "lcall") || wp_prefix(text, "ret") ||
	    wp_prefix(text, "iret") || wp_prefix(text, "loop");
}

static int
reaches(uint64_t from, uint64_t to)
{
	int64_t d = (int64_t)(to - from);

	return d > -REACH && d < REACH;
}

static void
put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

uint64_t
xol_slot(int memfd, uint64_t page, size_t k, uint64_t addr,
    const uint8_t *code, const struct wp_x86_insn *in)
{
	uint8_t b[XOL_SLOT];
	uint64_t slot = page + k * XOL_SLOT;
	size_t n = (size_t)in->size, i, at = 0, found = 0;
	int32_t v;

	if (page == 0 || (k + 1) * XOL_SLOT > PAGE_SZ || n + 5 > XOL_SLOT ||
	    branch(in->text) || !reaches(slot, addr))
		return 0;
	memcpy(b, code, n);
	if (in->mem.rip_rel) {
		/* the displacement: the one place its 4 bytes are */
		for (i = 1; i + 4 <= n; i++) {
			memcpy(&v, code + i, 4);
			if (v == (int32_t)in->mem.disp) {
				at = i;
				found++;
			}
		}
		if (found != 1 || !reaches(slot, addr + (uint64_t)in->mem.disp))
			return 0;
		put32(b + at, (int32_t)(in->mem.disp + (int64_t)(addr - slot)));
	}
	/* jmp rel32 to the instruction after the site */
	b[n] = 0xe9;
	put32(b + n + 1, (int32_t)(int64_t)(addr + n - (slot + n + 5)));
	memset(b + n + 5, 0xcc, XOL_SLOT - n - 5);
	if (pwrite(memfd, b, XOL_SLOT, (off_t)slot) != XOL_SLOT)
		return 0;
	return slot;
}
