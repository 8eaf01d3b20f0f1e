/*
 * What each stop means to the page backend: a write fault on a guarded
 * page, or with -a rw a read fault too (a hit or a neighbour's access,
 * emulated or stepped), a system
 * call that may write the pages (a window), a signal (delivered; its
 * frame may be written on a page: a window too), threads and processes
 * coming and going.
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <err.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page.h"
#include "proc.h"
#include "syscalls.h"
#include "traced.h"
#include "util.h"
#include "watch.h"
#include "x86.h"

#define FRAME_MAX	16384	/* a signal frame's reach: XSAVE with AMX */

/*
 * Thread tid's user CPU time in ns, or -1: the kernel's time for its
 * faults, wp's doing, is system time.
 */
static int64_t
cpu_ns(pid_t tid)
{
	uint64_t ns;

	return wp_proc_utime_ns(tid, &ns) == 0 ? (int64_t)ns : -1;
}

static int64_t
runq_ns(pid_t tid, uint64_t *runs)
{
	uint64_t ns;

	*runs = 0;
	return wp_proc_runq_ns(tid, &ns, runs) == 0 ? (int64_t)ns : -1;
}

/*
 * Of thread t's wait for a CPU since pt began, what is its own: every
 * resume from a stop of the watch (a fault, a step, a call) makes it
 * wait for a CPU once, as it would not unwatched; its waits are taken
 * as alike, and only the share of the times it was given a CPU that
 * were not such resumes is its own.
 */
static uint64_t
own_runq(const struct pthr *pt, const struct tr_thread *t, int64_t runq,
    uint64_t runs)
{
	uint64_t n, ours;

	if (pt->runq0 < 0 || runq < pt->runq0 || runs <= pt->runs0)
		return 0;
	n = runs - pt->runs0;
	ours = t->resumes - pt->resumes0;
	if (ours >= n)
		return 0;
	return (uint64_t)((double)(runq - pt->runq0) * (double)(n - ours) /
	    (double)n);
}

struct pthr *
pthr_of(struct tr_thread *t)
{
	struct pthr *pt;

	if (t->user == NULL) {
		pt = t->user = wp_xcalloc(1, sizeof(struct pthr));
		pt->t0 = wp_now_ns();
		pt->cpu0 = cpu_ns(t->tid);
		pt->runq0 = runq_ns(t->tid, &pt->runs0);
		pt->resumes0 = t->resumes;
	}
	return t->user;
}

void
page_thread_time(struct watch *w, struct tr_thread *t)
{
	struct pthr *pt = pthr_of(t);
	uint64_t now = wp_now_ns(), own, runs;
	int64_t cpu = cpu_ns(t->tid), runq = runq_ns(t->tid, &runs);

	if (pt->timed)
		return;
	pt->timed = 1;
	obs(w)->stops += t->resumes - pt->resumes0;
	if (pt->cpu0 < 0 || cpu < pt->cpu0)
		return;
	if (pt->sc_from != 0)
		pt->sc_ns += now - pt->sc_from;
	own = (uint64_t)(cpu - pt->cpu0) + pt->sc_ns;
	/* a wait for a CPU is the machine's, but for those the watch made */
	own += own_runq(pt, t, runq, runs);
	if (own < now - pt->t0 && obs(w)->delay_ns < now - pt->t0 - own)
		obs(w)->delay_ns = now - pt->t0 - own;
}

static void
pthr_free(struct tr_thread *t)
{
	struct pthr *pt = t->user;

	if (pt != NULL)
		free(pt->win);
	free(pt);
	t->user = NULL;
}

int
page_fault_ours(struct page_state *s, struct tr_thread *t, struct ppage **pp,
    uint64_t *addr)
{
	siginfo_t si;
	struct ppage *p;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == -1 ||
	    si.si_signo != SIGSEGV || si.si_code != SEGV_ACCERR ||
	    (p = page_find(s, (uint64_t)(uintptr_t)si.si_addr)) == NULL ||
	    (!p->guarded && p->open == 0) || p->gone ||
	    !(p->own & PROT_WRITE))
		return 0;
	if (pp != NULL)
		*pp = p;
	if (addr != NULL)
		*addr = (uint64_t)(uintptr_t)si.si_addr;
	return 1;
}

/* --callchain: the stopped thread's callers into h. */
static void
callers(struct watch *w, struct page_state *s, pid_t tid,
    struct wp_hit_rec *h)
{
	if (!s->uw_tried) {
		s->uw_tried = 1;
		unwind_open(&s->uw, w->pid);
	}
	h->chain_status = unwind_thread(&s->uw, tid, s->chain,
	    w->callchain_depth, &h->nchain);
	h->chain = s->chain;
}

/*
 * A hit on entry ti by thread tid: flags 0 with the writer at writer_ip,
 * or the kernel's (a system call at writer_ip, or a signal's frame).
 */
void
page_emit(struct watch *w, struct page_state *s, size_t ti, pid_t tid,
    uint64_t ip, uint64_t writer_ip, unsigned flags, int sig,
    const struct wp_x86_regs *regs)
{
	struct wp_hit_rec h;
	int wide = w->t[ti].len > HIT_BYTES_MAX;
	uint64_t a = w->t[ti].addr, len = (uint64_t)w->t[ti].len;

	/* a store that covered the target: its bytes are what it stored */
	if (s->st != NULL && s->st_lo <= a && a + len <= s->st_hi)
		memcpy(s->buf, s->st + (a - s->st_lo), (size_t)len);
	else if (wide && s->el_lo < s->el_hi) {
		/* only the element changed: read it alone, into last */
		uint64_t lo = s->el_lo > a ? s->el_lo : a;
		uint64_t hi = s->el_hi < a + len ? s->el_hi : a + len;

		if (lo < hi && pread(s->tr.memfd, s->last[ti] + (lo - a),
		    (size_t)(hi - lo), (off_t)lo) != (ssize_t)(hi - lo))
			return;
	} else if (pread(s->tr.memfd, s->buf, (size_t)len, (off_t)a) !=
	    (ssize_t)len)
		return;
	if (!wide || s->el_lo == s->el_hi)
		memcpy(s->last[ti], s->buf, (size_t)w->t[ti].len);
	memset(&h, 0, sizeof h);
	h.pid = w->pid;
	h.tid = tid;
	h.cpu = -1;
	h.time_ns = watch_time(w, wp_now_ns());
	h.ip = ip;
	h.exact = 1;
	h.has_writer_ip = !(flags & WP_HIT_KERNEL);
	h.writer_ip = writer_ip;
	h.bytes = wide ? NULL : s->buf;
	h.nbytes = wide ? 0 : (size_t)w->t[ti].len;
	h.flags = flags;
	h.signal = flags & WP_HIT_KERNEL ? sig : 0;
	h.regs = w->regs ? regs : NULL;
	if (w->callchain)
		callers(w, s, tid, &h);
	watch_hit(w, ti, &h);
}

/*
 * What the kernel's write that ends window pt does to target wt (u: the
 * thread's registers now): as page_call_writes for a system call; a
 * signal's frame may reach it when it lies within FRAME_MAX above the
 * stack pointer, where the frame begins.
 */
static int
kernel_reach(struct page_state *s, const struct pthr *pt, unsigned flags,
    const struct user_regs_struct *u, const struct wtarget *wt)
{
	uint64_t lo = wt->addr, hi = wt->addr + (uint64_t)wt->len;

	if (flags & WP_HIT_SYSCALL)
		return page_call_writes(s->tr.memfd, pt, (int64_t)u->rax, lo,
		    hi);
	return lo < u->rsp + FRAME_MAX && u->rsp < hi;
}

void
page_kernel_writes(struct watch *w, struct page_state *s, struct tr_thread *t,
    const struct pthr *pt, unsigned flags, int sig)
{
	struct user_regs_struct u;
	size_t ti, k;
	int on, reach;

	if (ptrace(PTRACE_GETREGS, t->tid, 0, &u) == -1)
		memset(&u, 0, sizeof u);
	for (ti = 0; ti < w->nt; ti++) {
		for (k = on = 0; k < pt->nwin && !on; k++)
			on = page_overlaps(pt->win[k]->addr, pt->win[k]->addr +
			    PAGE_SZ, &w->t[ti]);
		if (!on || (reach = kernel_reach(s, pt, flags, &u,
		    &w->t[ti])) == 0 ||
		    pread(s->tr.memfd, s->buf, (size_t)w->t[ti].len,
		    (off_t)w->t[ti].addr) != w->t[ti].len ||
		    (memcmp(s->buf, s->last[ti], (size_t)w->t[ti].len) == 0 &&
		    reach < 2))
			continue;
		obs(w)->kernel_writes++;
		/* the syscall instruction: two bytes before the IP */
		page_emit(w, s, ti, t->tid, u.rip, u.rip - 2, flags, sig, NULL);
	}
}

/*
 * A signal the thread catches: its frame may go on a guarded page (an
 * alternate stack), so every page is given back while the kernel
 * writes it, the others held; the step stops at the handler.
 */
static void
deliver_caught(struct watch *w, struct page_state *s, struct tr_thread *t,
    int sig)
{
	struct ppage **win = wp_xcalloc(s->npg + 1, sizeof *win);
	struct pthr frame = { 0 };
	size_t i, n = 0;

	tr_hold(&s->tr, t);
	for (i = 0; i < s->npg; i++)
		if (s->pg[i]->guarded && !s->pg[i]->gone &&
		    page_open(s, t, s->pg[i]) == 0)
			win[n++] = s->pg[i];
	obs(w)->signals_passed++;
	if (tr_step(&s->tr, t, sig) != -1) {
		frame.win = win;
		frame.nwin = n;
		page_kernel_writes(w, s, t, &frame, WP_HIT_KERNEL, sig);
		if (t->stop != TR_SIGNAL || t->sig != SIGTRAP)
			t->queued = 1;
	}
	if (t->state != TR_STOPPED)
		t = page_injectable(s);
	for (i = 0; i < n && t != NULL; i++)
		page_close(s, t, win[i]);
	free(win);
	tr_release(&s->tr);
	if (t != NULL && !t->queued)
		page_resume(w, s, t, 0);
}

static void
on_signal(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct ppage *p;
	uint64_t addr;

	if (t->sig == SIGSEGV && page_fault_ours(s, t, &p, &addr)) {
		page_on_fault(w, s, t, p, addr);
		return;
	}
	if (tr_own_trap(t)) {
		/* a step's trap that came after another stop */
		page_resume(w, s, t, 0);
		return;
	}
	if (t->sig != SIGKILL && t->sig != SIGSTOP && s->npg > 0 &&
	    tr_catches(t->tid, t->sig)) {
		deliver_caught(w, s, t, t->sig);
		return;
	}
	obs(w)->signals_passed++;
	page_resume(w, s, t, t->sig);
}

/*
 * A process started by fork, vfork or clone: sharing the memory (vfork)
 * it is watched as a thread until it execs or exits; else it inherited
 * the guarded pages, which are given their protection back before it is
 * let go.
 */
static void
new_process(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	size_t i;

	pthr_of(t);
	if (syscall(SYS_kcmp, s->tr.pid, t->tgid, KCMP_VM, 0, 0) == 0) {
		page_resume(w, s, t, 0);
		return;
	}
	for (i = 0; i < s->npg; i++)
		if (s->pg[i]->guarded && !s->pg[i]->gone)
			tr_inject(&s->tr, t, SYS_mprotect, s->pg[i]->addr,
			    PAGE_SZ, (uint64_t)s->pg[i]->own);
	obs(w)->forks_restored++;
	tr_detach(&s->tr, t, 0);
}

static void
on_event(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	switch (t->event) {
	case PTRACE_EVENT_CLONE:
		if (t->tgid == s->tr.pid &&
		    wp_proc_exists((pid_t)t->msg) &&
		    tr_find(&s->tr, (pid_t)t->msg) == NULL)
			tr_add(&s->tr, (pid_t)t->msg, s->tr.pid);
		if (t->tgid == s->tr.pid)
			traced_started(w, (pid_t)t->msg, t->tid);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (t->tgid == s->tr.pid)
			traced_forked(w, (pid_t)t->msg, t->tid);
		break;
	case PTRACE_EVENT_EXIT:
		if (t->tgid == s->tr.pid)
			page_thread_time(w, t);
		break;
	case PTRACE_EVENT_EXEC:
		if (t->tgid == s->tr.pid) {
			s->exec_seen = 1;
			return;		/* stopped: the watch ends */
		}
		tr_detach(&s->tr, t, 0);	/* a vfork child's own now */
		return;
	}
	page_resume(w, s, t, 0);
}

/* The stops that go straight to their handler (TR_NONE to none). */
static void (*const on_stop[])(struct watch *, struct page_state *,
    struct tr_thread *) = {
	[TR_SC_ENTRY] = page_sc_entry,
	[TR_SC_EXIT] = page_sc_exit,
	[TR_EVENT] = on_event,
	[TR_SIGNAL] = on_signal,
};
#define NSTOPS	(sizeof on_stop / sizeof on_stop[0])

void
page_event(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	int fresh = t->user == NULL;

	/* the steps and calls injected while it is handled stop it anew */
	if (t->state == TR_STOPPED)
		pthr_of(t)->since = t->stopped_at;
	if (s->arm_pending && t->state == TR_STOPPED && t->tgid == s->tr.pid &&
	    t->stop != TR_GROUP && t->stop != TR_EXITED)
		page_arm_late(w, s, t);
	switch (t->stop) {
	case TR_EXITED:
		if (t->tgid == s->tr.pid) {
			watch_thread(w, t->tid, THR_SEEDED)->exited = 1;
			watch_exited(w, t->tid, t->status);
		}
		pthr_free(t);
		return;
	case TR_START:
		if (t->tgid != s->tr.pid && fresh) {
			new_process(w, s, t);
			return;
		}
		/* FALLTHROUGH */
	case TR_GROUP:
		page_resume(w, s, t, 0);
		return;
	default:
		if (t->stop < NSTOPS && on_stop[t->stop] != NULL)
			on_stop[t->stop](w, s, t);
		return;
	}
}
