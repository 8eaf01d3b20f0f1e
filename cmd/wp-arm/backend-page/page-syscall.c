/*
 * The page backend's system calls: a call that may write the guarded
 * pages runs with them given back and its writes found after (a window;
 * a caught signal's frame is one too), and the target's own mprotect,
 * munmap, mremap, madvise and brk on them are honoured.
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <err.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <string.h>
#include <unistd.h>

#include "page.h"
#include "proc.h"
#include "syscalls.h"
#include "traced.h"
#include "util.h"

#define FRAME_MAX	16384	/* a signal frame's reach: XSAVE with AMX */

/* Whether futex op writes [lo, hi): the PI and WAKE_OP ones do. */
static int
futex_writes(const uint64_t a[6], uint64_t lo, uint64_t hi)
{
	int op = (int)a[1] & FUTEX_CMD_MASK;

	switch (op) {
	case FUTEX_WAKE_OP:
		return a[4] < hi && lo < a[4] + 4;
	case FUTEX_LOCK_PI:
	case FUTEX_UNLOCK_PI:
	case FUTEX_TRYLOCK_PI:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_CMP_REQUEUE_PI:
	case 13:	/* FUTEX_LOCK_PI2 */
		return (a[0] < hi && lo < a[0] + 4) ||
		    (a[4] < hi && lo < a[4] + 4);
	}
	return 0;
}

/*
 * Whether system call nr changes the mappings: its addresses are the
 * mappings', not memory it reads or writes.
 */
static int
maps_call(long nr)
{
	return nr == SYS_mprotect || nr == SYS_munmap || nr == SYS_mremap ||
	    nr == SYS_mmap || nr == SYS_brk || nr == SYS_madvise;
}

/*
 * Whether system call nr may write [lo, hi): as syscalls.c knows it; a
 * call it does not know, when an argument points into the range.
 */
static int
may_write(int memfd, long nr, const uint64_t a[6], uint64_t lo, uint64_t hi)
{
	int k;

	if (nr == SYS_futex)
		return futex_writes(a, lo, hi);
	switch (syscall_writes(memfd, nr, a, lo, hi)) {
	case SC_YES:
		return 1;
	case SC_NO:
		return 0;
	}
	for (k = 0; k < 6; k++)
		if (a[k] >= lo && a[k] < hi)
			return 1;
	return 0;
}

/* Calls that reach user memory only where their arguments point. */
static const long direct[] = {
	SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_openat, SYS_close,
	SYS_futex, SYS_nanosleep, SYS_clock_nanosleep, SYS_clock_gettime,
	SYS_clock_getres, SYS_gettimeofday, SYS_getpid, SYS_gettid,
	SYS_getppid, SYS_sched_yield, SYS_exit, SYS_exit_group,
	SYS_rt_sigprocmask, SYS_rt_sigaction, SYS_sigaltstack, SYS_lseek,
	SYS_fstat, SYS_newfstatat, SYS_getrandom, SYS_kill, SYS_tgkill,
	SYS_tkill, SYS_getcpu, SYS_wait4, SYS_pipe2, SYS_dup, SYS_dup3,
	SYS_recvfrom, SYS_sendto, SYS_faccessat, SYS_getuid, SYS_geteuid,
	SYS_getgid, SYS_getegid, SYS_uname, SYS_set_tid_address, SYS_times,
	SYS_getrusage, SYS_prlimit64, SYS_getdents64, SYS_clone, SYS_rseq,
	SYS_sched_getaffinity, SYS_sched_setaffinity, SYS_fcntl,
	SYS_set_robust_list, SYS_membarrier, SYS_getcwd, SYS_chdir, SYS_statx,
	SYS_epoll_ctl, SYS_epoll_pwait, SYS_eventfd2, SYS_socket, SYS_connect,
	SYS_bind, SYS_accept, SYS_accept4, SYS_listen, SYS_shutdown,
	SYS_getsockopt, SYS_setsockopt, SYS_getsockname, SYS_getpeername,
	SYS_ppoll,
	/* its clone_args, at the argument (not their set_tid array) */
	SYS_clone3,
#ifdef SYS_open
	/* x86-64's calls from before the generic table (arm64 has only
	   their *at and p* forms) */
	SYS_open, SYS_poll, SYS_stat, SYS_lstat, SYS_epoll_wait, SYS_pipe,
	SYS_dup2, SYS_access, SYS_pause, SYS_alarm, SYS_readlink, SYS_unlink,
	SYS_mkdir, SYS_arch_prctl, SYS_select,
#endif
};

/*
 * Whether system call nr may read page p, which -a rw left without any
 * access (the kernel's read would fail with EFAULT): an argument that
 * points into it, or any call not known to reach user memory only
 * where its arguments point (an iovec, a message header, a signal
 * frame that rt_sigreturn reads back).
 */
static int
may_read(long nr, const uint64_t a[6], const struct ppage *p)
{
	size_t i;
	int k;

	if (maps_call(nr))
		return 0;
	for (k = 0; k < 6; k++)
		if (a[k] >= p->addr && a[k] < p->addr + PAGE_SZ)
			return 1;
	for (i = 0; i < sizeof direct / sizeof direct[0]; i++)
		if (direct[i] == nr)
			return 0;
	return 1;
}

static int
others_run(struct page_state *s, struct tr_thread *t)
{
	size_t i;

	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i] != t && s->tr.t[i]->state != TR_GONE)
			return 1;
	return 0;
}

/*
 * The entry of a system call: the pages it may write are given back
 * (the call is turned into getpid, mprotect runs at its exit, and the
 * call runs again); the call's re-entry then passes.
 */
void
page_sc_entry(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct pthr *pt = pthr_of(t);
	struct ppage *p;
	size_t i;

	if (traced_setid_exec(w, s->tr.memfd, t->tid, t->nr, t->args)) {
		if (t->tgid != s->tr.pid) {
			/* a vfork child: it alone, the watch goes on */
			w->stop_detail = NULL;
			tr_detach(&s->tr, t, 0);
			traced_child_gone(w, t->tid);
			return;
		}
		s->exec_seen = s->exec_next = 1;  /* stopped: the watch ends */
		return;
	}
	if (t->rewind) {
		t->rewind = 0;
		if (pt->nwin > 0) {
			page_resume(w, s, t, 0);
			return;
		}
	}
	pt->nr = t->nr;
	memcpy(pt->args, t->args, sizeof pt->args);
	page_segv_call(s, t, 0);
	pt->maps = maps_call(t->nr);
	s->maps_gen += pt->maps;	/* and at its exit */
	for (i = 0; i < s->npg; i++) {
		p = s->pg[i];
		if (p->gone || !(p->guarded || p->open) ||
		    !(may_write(s->tr.memfd, t->nr, t->args, p->addr,
		    p->addr + PAGE_SZ) ||
		    (p->rw && may_read(t->nr, t->args, p))))
			continue;
		if (pt->nwin == 0 && tr_leave_entry(&s->tr, t) == -1)
			return;
		if (page_open(s, t, p) == -1)
			continue;
		pt->win = wp_xrealloc(pt->win, (pt->nwin + 1) *
		    sizeof *pt->win);
		pt->win[pt->nwin++] = p;
	}
	if (pt->nwin > 0) {
		obs(w)->windows++;
		if ((pt->others = others_run(s, t)) != 0)
			obs(w)->windows_shared++;
	}
	page_resume(w, s, t, 0);
}

/* Page p is let go: the watch, and each target on it, say so. */
static void
drop_page(struct watch *w, const struct ppage *p)
{
	size_t ti;

	obs(w)->pages_dropped++;
	for (ti = 0; ti < w->nt; ti++)
		if (page_overlaps(p->addr, p->addr + PAGE_SZ, &w->t[ti]))
			w->t[ti].pages_dropped++;
}

/* A page whose mapping the process changed: watched still, or gone. */
static void
remap_page(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct ppage *p, const struct wp_map *m)
{
	int own;

	if (m == NULL || m->perms[3] == 's') {
		p->gone = 1;
		p->guarded = 0;
		drop_page(w, p);
		warnx("page 0x%" PRIx64 " was %s by the process: writes to it "
		    "are no longer watched", p->addr, m == NULL ? "unmapped" :
		    "remapped shared");
		return;
	}
	own = page_prot_of(m->perms);
	p->own = own;
	p->guarded = 0;
	if (p->rw && (!(own & PROT_WRITE) || (own & PROT_EXEC))) {
		/* its faults would be the process's own: not watched */
		p->gone = 1;
		drop_page(w, p);
		warnx("page 0x%" PRIx64 " was made %s by the process: -a rw "
		    "no longer watches it", p->addr, own & PROT_EXEC ?
		    "executable" : "unwritable");
		return;
	}
	if ((own & PROT_WRITE) && p->open == 0 && p->needed)
		page_mprotect(s, t, p, page_guard_prot(p));
}

/*
 * After a call that may change the mappings: each page's state; the
 * protection of those in [lo, hi), which the call set, is the target's.
 */
static void
remap(struct watch *w, struct page_state *s, struct tr_thread *t,
    uint64_t lo, uint64_t hi)
{
	const struct wp_map *m;
	struct wp_maps maps;
	struct ppage *p;
	size_t i;

	if (wp_proc_maps(w->pid, &maps) == -1)
		return;
	for (i = 0; i < s->npg; i++) {
		p = s->pg[i];
		m = wp_proc_maps_find(&maps, p->addr);
		if (p->gone || (m != NULL && m->perms[3] != 's' &&
		    !(p->addr < hi && lo < p->addr + PAGE_SZ)))
			continue;
		remap_page(w, s, t, p, m);
	}
	wp_proc_maps_free(&maps);
}

/* The range whose protection call nr (args a, result rv) set. */
static void
set_range(long nr, const uint64_t a[6], int64_t rv, uint64_t *lo,
    uint64_t *hi)
{
	*lo = *hi = 0;
	if (nr == SYS_mprotect) {
		*lo = a[0];
		*hi = a[0] + a[1];
	} else if ((nr == SYS_mmap || nr == SYS_mremap) && rv >= 0) {
		*lo = (uint64_t)rv;
		*hi = (uint64_t)rv + (nr == SYS_mmap ? a[1] : a[2]);
	}
}

int
page_call_writes(int memfd, const struct pthr *pt, int64_t ret, uint64_t lo,
    uint64_t hi)
{
	if (pt->nr == SYS_futex)
		return futex_writes(pt->args, lo, hi);
	switch (syscall_writes(memfd, pt->nr, pt->args, lo, hi)) {
	case SC_NO:
		return 0;
	case SC_UNKNOWN:
		/* its window: an argument points somewhere on the page (at
		   a struct that may hold the range) */
		return 1;
	}
	return syscall_wrote(memfd, pt->nr, pt->args, ret, lo, hi, NULL) ? 2 :
	    1;
}

/*
 * What the kernel's write that ends window pt does to target wt (u: the
 * thread's registers now): as page_call_writes for a system call; a
 * signal's frame f (at its handler's entry) certainly wrote it where it
 * reaches its frame's fixed part, and may have up to the frame's top
 * (f not known: within FRAME_MAX above the stack pointer).
 */
static int
kernel_reach(struct page_state *s, const struct pthr *pt, unsigned flags,
    const struct user_regs_struct *u, const struct traced_frame *f,
    const struct wtarget *wt)
{
	uint64_t lo = wt->addr, hi = wt->addr + (uint64_t)wt->len;

	if (flags & WP_HIT_SYSCALL)
		return page_call_writes(s->tr.memfd, pt, (int64_t)tr_ret(u), lo,
		    hi);
	if (traced_frame_wrote(f, lo, hi, NULL))
		return 2;
	if (f->known)
		return lo < f->hi && f->lo < hi;
	return lo < tr_sp(u) + FRAME_MAX && tr_sp(u) < hi;
}

/*
 * The kernel's write on target ti (its bytes now in s->buf), into
 * s->el_lo, s->el_hi: what its system call certainly wrote there (u:
 * the thread's registers at its exit), or its signal frame f, else
 * where the bytes changed.
 */
static void
kernel_span(struct watch *w, struct page_state *s, const struct pthr *pt,
    unsigned flags, const struct user_regs_struct *u,
    const struct traced_frame *f, size_t ti)
{
	const struct wtarget *wt = &w->t[ti];
	uint64_t span[2], hi = wt->addr + (uint64_t)wt->len;

	if ((flags & WP_HIT_SYSCALL) ? !syscall_wrote(s->tr.memfd, pt->nr,
	    pt->args, (int64_t)tr_ret(u), wt->addr, hi, span) :
	    !traced_frame_wrote(f, wt->addr, hi, span))
		watch_changed(s->last[ti], s->buf, (size_t)wt->len, wt->addr,
		    span);
	s->el_lo = span[0];
	s->el_hi = span[1];
}

void
page_kernel_writes(struct watch *w, struct page_state *s, struct tr_thread *t,
    const struct pthr *pt, unsigned flags, int sig)
{
	struct user_regs_struct u;
	struct traced_frame f = { 0, 0, 0, 0 };
	size_t ti, k;
	int on, reach;

	if (tr_getregs(t->tid, &u) == -1)
		memset(&u, 0, sizeof u);
	/* stopped at the handler: each frame a write where it certainly
	   lies, changed or not */
	else if (!(flags & WP_HIT_SYSCALL) && t->stop == TR_SIGNAL &&
	    t->sig == SIGTRAP)
		traced_frame(s->tr.memfd, t->tid, &f);
	for (ti = 0; ti < w->nt; ti++) {
		for (k = on = 0; k < pt->nwin && !on; k++)
			on = page_overlaps(pt->win[k]->addr, pt->win[k]->addr +
			    PAGE_SZ, &w->t[ti]);
		if (!on || (reach = kernel_reach(s, pt, flags, &u, &f,
		    &w->t[ti])) == 0 ||
		    pread(s->tr.memfd, s->buf, (size_t)w->t[ti].len,
		    (off_t)w->t[ti].addr) != w->t[ti].len ||
		    (memcmp(s->buf, s->last[ti], (size_t)w->t[ti].len) == 0 &&
		    reach < 2))
			continue;
		obs(w)->kernel_writes++;
		kernel_span(w, s, pt, flags, &u, &f, ti);
		memcpy(s->last[ti], s->buf, (size_t)w->t[ti].len);
		/* the syscall instruction: just before the IP */
		page_emit(w, s, ti, t->tid, tr_pc(&u), tr_pc(&u) - tr_sc_len,
		    flags, sig, NULL);
	}
	s->el_lo = s->el_hi = 0;
}

/*
 * The exit of a call: what it wrote, the mappings it changed read (a
 * page it mapped shared or unmapped is let go before its window, if it
 * had one, is closed: the closing protects only a page still watched),
 * and its window closed.
 */
void
page_sc_exit(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct pthr *pt = pthr_of(t);
	struct ppage *p;
	uint64_t lo, hi, addr;
	char what[96];
	size_t k;

	if (pt->sc_from != 0)
		pt->sc_ns += t->stopped_at - pt->sc_from;
	pt->sc_from = 0;
	if (pt->nr == SYS_rseq)
		page_rseq_forget(t);
	else if (pt->nr == SYS_io_uring_setup && (int64_t)t->rval >= 0) {
		snprintf(what, sizeof what, "an io_uring (fd %" PRId64 ", "
		    "made by thread %d)", (int64_t)t->rval, (int)t->tid);
		page_async_io(w, what);
	} else if (pt->nr == SYS_io_setup && t->rval == 0) {
		snprintf(what, sizeof what, "a Linux AIO context (made by "
		    "thread %d)", (int)t->tid);
		page_async_io(w, what);
	}
	page_segv_call(s, t, 1);
	if (pt->nwin > 0)
		page_kernel_writes(w, s, t, pt, WP_HIT_SYSCALL, 0);
	if (pt->maps) {
		pt->maps = 0;
		s->maps_gen++;
		set_range(pt->nr, pt->args, t->rval, &lo, &hi);
		remap(w, s, t, lo, hi);
	}
	for (k = 0; k < pt->nwin; k++)
		page_close(s, t, pt->win[k]);
	pt->nwin = 0;
	switch (page_rseq_call(w, s, t, &p, &addr)) {
	case 0:
		page_resume(w, s, t, 0);
		break;
	case 2:
		page_on_fault(w, s, t, p, addr);
		break;
	}
}
