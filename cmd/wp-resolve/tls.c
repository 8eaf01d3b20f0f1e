/*
 * Thread-local variables: where one thread's copy lies, found as glibc's
 * own debugger interface finds it (libthread_db, td_thr_tlsbase), from
 * the layout glibc describes in the _thread_db_* symbols it exports.
 *
 * A thread's pointer (its fs base; tpidr_el0 on AArch64) leads to its
 * thread descriptor, which holds the dynamic thread vector (DTV):
 * entry m is the thread's block of the module with TLS id m (its link
 * map's l_tls_modid), or a mark that it is not allocated yet.  Modules loaded with dlopen get their ids and a
 * generation (in the dynamic linker's slotinfo list) when loaded; each
 * thread's DTV catches up, and its block is allocated, at the thread's
 * first access.  A DTV older than the module's generation has not seen
 * the module: its entry m may be stale, or past its end.  A module in
 * static TLS sits at a fixed offset from every thread's pointer.
 */
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"
#include "proc.h"
#include "tls.h"

/* A glibc layout descriptor: a field's size in bits, count, offset. */
struct desc {
	uint32_t	 bits, nelem, off;
};

/* What the TLS lookup needs of glibc's layout. */
struct glibc {
	struct desc	 dtvp;		/* pthread: the DTV */
	struct desc	 dtv;		/* the DTV's entries */
	struct desc	 counter;	/* of entry 0: its generation */
	struct desc	 pointer;	/* of entry m: the block */
	struct desc	 modid, tlsoff;	/* link_map */
	struct desc	 slotlist;	/* rtld_global: the slotinfo list */
	struct desc	 len, next, slotinfo;	/* a list's chunk */
	struct desc	 gen, map;	/* a slotinfo */
	uint64_t	 rtld_global;
	uint64_t	 descr_size;	/* struct pthread's */
};

/* l_tls_offset: none, or dynamic TLS only */
#define NO_TLS_OFFSET			0
#define FORCED_DYNAMIC_TLS_OFFSET	UINT64_MAX
/* the mark of a DTV entry not allocated yet is odd */
#define DTV_UNALLOCATED(p)		(((p) & 1) != 0)
#define MAX_MODID			(1u << 20)

/*
 * Where a thread's pointer is, per machine, and how glibc lays TLS out
 * from it.  x86-64 (TLS_TCB_AT_TP): the fs base is the thread
 * descriptor, static TLS blocks lie below it.  AArch64 (TLS_DTV_AT_TP):
 * tpidr_el0 points past the descriptor (struct pthread), at the TCB,
 * and static TLS blocks lie above it (l_tls_offset counts the TCB).
 */
#if defined(__aarch64__)
#include <sys/uio.h>

static int
tp_regs(pid_t tid, uint64_t *tp)
{
	struct iovec iov = { tp, sizeof *tp };

	return ptrace(PTRACE_GETREGSET, tid, NT_ARM_TLS, &iov) == -1 ? -1 : 0;
}
#define DESCR_BELOW_TP			1
#define STATIC_BLOCK(tp, off)		((tp) + (off))
#else
static int
tp_regs(pid_t tid, uint64_t *tp)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) == -1)
		return -1;
	*tp = regs.fs_base;
	return 0;
}
#define DESCR_BELOW_TP			0
#define STATIC_BLOCK(tp, off)		((tp) - (off))
#endif

/* The thread's pointer, read with ptrace for a moment. */
static int
thread_pointer(pid_t tid, uint64_t *tp, char *err, size_t errsz)
{
	int status, rc = -1;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0) == -1) {
		snprintf(err, errsz, "--tid %d: cannot attach: %s", (int)tid,
		    strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0 &&
	    waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status) &&
	    tp_regs(tid, tp) == 0)
		rc = 0;
	else
		snprintf(err, errsz, "--tid %d: cannot read its registers: %s",
		    (int)tid, strerror(errno));
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return rc;
}

static int
read_u64(struct view *v, uint64_t addr, uint64_t *val)
{
	return wp_proc_read(v->memfd, addr, val, sizeof *val);
}

/* The runtime address of a symbol of any module: 0, or -1. */
static int
symbol_addr(struct view *v, const char *name, uint64_t *addr)
{
	uint64_t val, size;
	size_t i;
	int tls;

	for (i = 0; i < v->nmods; i++)
		if (v->mods[i].elf != NULL &&
		    wp_elf_symbol(v->mods[i].elf, name, &val, &size, &tls) > 0 &&
		    !tls) {
			*addr = val + v->mods[i].bias;
			return 0;
		}
	return -1;
}

static int
desc_of(struct view *v, const char *name, struct desc *d)
{
	char sym[128];
	uint64_t addr;

	snprintf(sym, sizeof sym, "_thread_db_%s", name);
	if (symbol_addr(v, sym, &addr) == -1 ||
	    wp_proc_read(v->memfd, addr, d, sizeof *d) == -1)
		return -1;
	/* a field of 8, 32 or 64 bits, or an array of them */
	return d->bits == 8 || d->bits == 32 || d->bits % 64 == 0 ? 0 : -1;
}

/* sizeof (struct pthread), where the descriptor lies below the pointer */
static int
descr_size(struct view *v, uint64_t *size)
{
	uint64_t addr;
	uint32_t u32;

	*size = 0;
	if (!DESCR_BELOW_TP)
		return 0;
	if (symbol_addr(v, "_thread_db_sizeof_pthread", &addr) == -1 ||
	    wp_proc_read(v->memfd, addr, &u32, sizeof u32) == -1)
		return -1;
	*size = u32;
	return 0;
}

static int
glibc_layout(struct view *v, struct glibc *g)
{
	return desc_of(v, "pthread_dtvp", &g->dtvp) == -1 ||
	    desc_of(v, "dtv_dtv", &g->dtv) == -1 ||
	    desc_of(v, "dtv_t_counter", &g->counter) == -1 ||
	    desc_of(v, "dtv_t_pointer_val", &g->pointer) == -1 ||
	    desc_of(v, "link_map_l_tls_modid", &g->modid) == -1 ||
	    desc_of(v, "link_map_l_tls_offset", &g->tlsoff) == -1 ||
	    desc_of(v, "rtld_global__dl_tls_dtv_slotinfo_list",
	    &g->slotlist) == -1 ||
	    desc_of(v, "dtv_slotinfo_list_len", &g->len) == -1 ||
	    desc_of(v, "dtv_slotinfo_list_next", &g->next) == -1 ||
	    desc_of(v, "dtv_slotinfo_list_slotinfo", &g->slotinfo) == -1 ||
	    desc_of(v, "dtv_slotinfo_gen", &g->gen) == -1 ||
	    desc_of(v, "dtv_slotinfo_map", &g->map) == -1 ||
	    symbol_addr(v, "_rtld_global", &g->rtld_global) == -1 ||
	    descr_size(v, &g->descr_size) == -1 ? -1 : 0;
}

/* The address of element idx of the field d of the object at base. */
static uint64_t
field_addr(uint64_t base, const struct desc *d, uint64_t idx)
{
	return base + (uint64_t)(int64_t)(int32_t)d->off + d->bits / 8 * idx;
}

/* The value of field d (a scalar) of the object at base: 0, or -1. */
static int
field(struct view *v, uint64_t base, const struct desc *d, uint64_t *val)
{
	uint64_t a = field_addr(base, d, 0);
	uint32_t u32;
	uint8_t u8;

	switch (d->bits) {
	case 8:
		if (wp_proc_read(v->memfd, a, &u8, 1) == -1)
			return -1;
		*val = u8;
		return 0;
	case 32:
		if (wp_proc_read(v->memfd, a, &u32, 4) == -1)
			return -1;
		*val = u32;
		return 0;
	case 64:
		return read_u64(v, a, val);
	}
	return -1;
}

/* r_debug.r_map, from the main program's DT_DEBUG: the link map. */
static int
link_map(struct view *v, uint64_t *lm)
{
	uint64_t dyn, tag, val, rdebug = 0;
	size_t i;

	if (v->main->elf == NULL || wp_elf_dynamic(v->main->elf, &dyn) == -1)
		return -1;
	dyn += v->main->bias;
	for (i = 0; i < 4096; i++, dyn += 16) {
		if (read_u64(v, dyn, &tag) == -1 ||
		    read_u64(v, dyn + 8, &val) == -1 || tag == DT_NULL)
			break;
		if (tag == DT_DEBUG)
			rdebug = val;
	}
	if (rdebug == 0)
		return -1;
	return read_u64(v, rdebug + 8, lm);
}

/*
 * m's entry in the link map, matched by its load bias (l_addr) and
 * dynamic section (l_ld): the names differ (/lib and /usr/lib, relative
 * paths).
 */
static int
map_of(struct view *v, const struct module *m, uint64_t *map)
{
	uint64_t lm, bias, ld, dyn;
	size_t k;

	if (m->elf == NULL || wp_elf_dynamic(m->elf, &dyn) == -1 ||
	    link_map(v, &lm) == -1)
		return -1;
	for (k = 0; lm != 0 && k < 4096; k++) {
		if (read_u64(v, lm, &bias) == -1 ||
		    read_u64(v, lm + 16, &ld) == -1)
			return -1;
		if (bias == m->bias && ld == dyn + m->bias) {
			*map = lm;
			return 0;
		}
		if (read_u64(v, lm + 24, &lm) == -1)
			return -1;
	}
	return -1;
}

/* The generation at which modid was given to map: 0, or -1. */
static int
module_gen(struct view *v, const struct glibc *g, uint64_t map,
    uint64_t modid, uint64_t *gen)
{
	uint64_t chunk, len, base = 0, slot, owner;
	size_t k;

	if (field(v, g->rtld_global, &g->slotlist, &chunk) == -1)
		return -1;
	for (k = 0; chunk != 0 && k < 4096; k++) {
		if (field(v, chunk, &g->len, &len) == -1)
			return -1;
		if (modid < base + len)
			break;
		base += len;
		if (field(v, chunk, &g->next, &chunk) == -1)
			return -1;
	}
	if (chunk == 0 || k == 4096)
		return -1;
	slot = field_addr(chunk, &g->slotinfo, modid - base);
	if (field(v, slot, &g->map, &owner) == -1 || owner != map)
		return -1;
	return field(v, slot, &g->gen, gen);
}

int
tls_address(struct view *v, const struct module *m, uint64_t off,
    pid_t tid, uint64_t *addr, char *err, size_t errsz)
{
	struct glibc g;
	uint64_t tp, map, modid, gen, dtv, dtvgen, block, tlsoff;

	if (!wp_proc_task_exists(v->pid, tid)) {
		snprintf(err, errsz, "--tid %d: no such thread of pid %d",
		    (int)tid, (int)v->pid);
		return -1;
	}
	if (thread_pointer(tid, &tp, err, errsz) == -1)
		return -1;
	if (map_of(v, m, &map) == -1) {
		snprintf(err, errsz, "%s is not in the dynamic linker's list "
		    "(a static program?)", m->path);
		return -1;
	}
	if (glibc_layout(v, &g) == -1) {
		snprintf(err, errsz, "no _thread_db_ symbols of glibc in pid "
		    "%d to find thread-local storage by (another C library?)",
		    (int)v->pid);
		return -1;
	}
	if (field(v, map, &g.modid, &modid) == -1 || modid == 0 ||
	    modid > MAX_MODID || module_gen(v, &g, map, modid, &gen) == -1) {
		snprintf(err, errsz, "%s has no TLS id in the dynamic linker's "
		    "list", m->path);
		return -1;
	}
	if (tp == 0 || field(v, tp - g.descr_size, &g.dtvp, &dtv) == -1 ||
	    field(v, field_addr(dtv, &g.dtv, 0), &g.counter, &dtvgen) == -1 ||
	    field(v, field_addr(dtv, &g.dtv, modid), &g.pointer, &block) == -1)
		block = 1;
	if (dtvgen < gen || block == 0 || DTV_UNALLOCATED(block)) {
		if (field(v, map, &g.tlsoff, &tlsoff) == -1 ||
		    tlsoff == NO_TLS_OFFSET ||
		    (tlsoff | (g.tlsoff.bits < 64 ? UINT64_MAX <<
		    g.tlsoff.bits : 0)) == FORCED_DYNAMIC_TLS_OFFSET) {
			snprintf(err, errsz, "thread %d has no copy of the "
			    "thread-local variables of %s yet (glibc makes it "
			    "at the thread's first use of one)", (int)tid,
			    m->path);
			return -1;
		}
		block = STATIC_BLOCK(tp, tlsoff);
	}
	*addr = block + off;
	return 0;
}
