/*
 * The page backend's state, under every other page-*.c file: its pages
 * (found, given back for a while and taken again, each mprotect run in
 * a stopped thread), its threads' own state and time, whether a SIGSEGV
 * is a fault of ours, and a hit leaving as a record.
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page.h"
#include "proc.h"
#include "traced.h"
#include "util.h"

struct ppage *
page_find(struct page_state *s, uint64_t addr)
{
	size_t lo = 0, hi = s->npg, mid;

	addr &= ~(PAGE_SZ - 1);
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->pg[mid]->addr == addr)
			return s->pg[mid];
		if (s->pg[mid]->addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* mprotect of page p to prot, run in stopped thread t: 0, or -1. */
int
page_mprotect(struct page_state *s, struct tr_thread *t, struct ppage *p,
    int prot)
{
	if (tr_inject(&s->tr, t, SYS_mprotect, p->addr, PAGE_SZ,
	    (uint64_t)prot) != 0)
		return -1;
	p->prot = prot;
	p->guarded = (prot & PROT_WRITE) == 0 && (p->own & PROT_WRITE);
	return 0;
}

/* Gives page p back for a while (nested: counted). */
int
page_open(struct page_state *s, struct tr_thread *t, struct ppage *p)
{
	if (p->open++ > 0 || !p->guarded)
		return 0;
	return page_mprotect(s, t, p, p->own);
}

/* Takes it again when the last one that opened it is done. */
void
page_close(struct page_state *s, struct tr_thread *t, struct ppage *p)
{
	if (p->open > 0 && --p->open > 0)
		return;
	if (!p->gone && p->needed && (p->own & PROT_WRITE) &&
	    p->prot != page_guard_prot(p))
		page_mprotect(s, t, p, page_guard_prot(p));
}

/* Resumes t as the watch runs it; the time wp held it is counted. */
void
page_resume(struct watch *w, struct page_state *s, struct tr_thread *t,
    int sig)
{
	struct pthr *pt;
	uint64_t now;

	if (t->state != TR_STOPPED)
		return;
	pt = pthr_of(t);
	now = wp_now_ns();
	if (t->stop != TR_GROUP)
		obs(w)->stopped_ns += now - (pt->since ? pt->since :
		    t->stopped_at);
	pt->since = 0;
	pt->sc_from = t->stop == TR_SC_ENTRY ? now : 0;
	tr_resume(&s->tr, t, TR_SYSCALL, sig);
}

int
page_prot_of(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) |
	    (perms[1] == 'w' ? PROT_WRITE : 0) |
	    (perms[2] == 'x' ? PROT_EXEC : 0);
}

/*
 * A thread of the process, or of a child sharing its memory (vfork),
 * stopped where a call can be injected: the child is the only one while
 * its parent waits in vfork, where no interrupt stops it.  A thread
 * stopped at its vfork event is none: run to the exit of its call, it
 * would wait there for the child, which may be held.
 */
struct tr_thread *
page_injectable(struct page_state *s)
{
	struct tr_thread *t, *entry = NULL, *in_call = NULL;
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		t = s->tr.t[i];
		if (t->state != TR_STOPPED || t->stop == TR_GROUP ||
		    (t->tgid != s->tr.pid &&
		    !traced_shares_vm(s->tr.pid, t->tgid, 0)))
			continue;
		if (t->stop == TR_SC_ENTRY)
			entry = t;
		else if (t->stop == TR_EVENT)
			in_call = t->event == PTRACE_EVENT_CLONE ||
			    t->event == PTRACE_EVENT_FORK ? t : in_call;
		else
			return t;
	}
	if (entry != NULL && tr_leave_entry(&s->tr, entry) == 0)
		return entry;
	/*
	 * Stopped inside its clone or fork, the call's result not set yet
	 * (a call injected there would take its place): run to its exit.
	 */
	if (in_call != NULL &&
	    ptrace(PTRACE_SYSCALL, in_call->tid, 0, 0) == 0 &&
	    tr_take(in_call) == 0 && in_call->stop == TR_SC_EXIT)
		return in_call;
	return NULL;
}

void
page_restore(struct page_state *s, struct tr_thread *t)
{
	size_t i;

	for (i = 0; i < s->npg; i++)
		if (s->pg[i]->guarded && !s->pg[i]->gone)
			page_mprotect(s, t, s->pg[i], s->pg[i]->own);
}

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
		pt->win_at = pt->t0;
		pt->win_resumes = t->resumes;
	}
	return t->user;
}

static uint64_t
umax(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Thread t's own time since pt began (see page_thread_time), or -1. */
static int64_t
own_ns(struct pthr *pt, const struct tr_thread *t, uint64_t now)
{
	int64_t cpu = cpu_ns(t->tid), runq;
	uint64_t runs, sc = pt->sc_ns;

	if (pt->cpu0 < 0 || cpu < pt->cpu0)
		return -1;
	if (pt->sc_from != 0 && now > pt->sc_from)
		sc += now - pt->sc_from;
	runq = runq_ns(t->tid, &runs);
	return cpu - pt->cpu0 + (int64_t)sc + (int64_t)own_runq(pt, t, runq,
	    runs);
}

/*
 * How long t was delayed in its window, which now ends (0: unknown);
 * its stops in it added to *stops.
 */
static uint64_t
window_delay(struct pthr *pt, const struct tr_thread *t, uint64_t now,
    uint64_t *stops)
{
	int64_t own = own_ns(pt, t, now);
	uint64_t wall = now - pt->win_at, d = 0;

	*stops += t->resumes - pt->win_resumes;
	pt->win_resumes = t->resumes;
	if (own >= pt->win_own && (uint64_t)(own - pt->win_own) < wall)
		d = wall - (uint64_t)(own - pt->win_own);
	pt->win_at = now;
	pt->win_own = own;
	return own < 0 ? 0 : d;
}

void
page_window(struct watch *w, struct page_state *s, int last)
{
	struct wp_obs_page *o = obs(w);
	struct tr_thread *t;
	uint64_t now = wp_now_ns(), span = now - s->win_t, d = s->win_delay;
	uint64_t stops = s->win_stops;
	size_t i;

	if (span < (last ? 500000000ULL : 1000000000ULL))
		return;
	for (i = 0; i < s->tr.n; i++) {
		t = s->tr.t[i];
		if (t->tgid != s->tr.pid || t->state == TR_GONE ||
		    (t->user != NULL && pthr_of(t)->timed))
			continue;
		d = umax(d, window_delay(pthr_of(t), t, now, &stops));
	}
	if (d > span)
		d = span;
	/* the slowest: the least native run time a second */
	if (!o->has_worst || (double)d / (double)span >
	    (double)o->worst_delay_ns / (double)o->worst_span_ns) {
		o->has_worst = 1;
		o->worst_from_ns = s->win_t - s->t0;
		o->worst_span_ns = span;
		o->worst_delay_ns = d;
		o->worst_stops = stops;
	}
	s->win_t = now;
	s->win_delay = 0;
	s->win_stops = 0;
}

void
page_thread_time(struct watch *w, struct tr_thread *t)
{
	struct page_state *s = w->state;
	struct pthr *pt = pthr_of(t);
	uint64_t now = wp_now_ns(), own, runs;
	int64_t cpu = cpu_ns(t->tid), runq = runq_ns(t->tid, &runs);

	if (pt->timed)
		return;
	/* its part of the window it ends in */
	s->win_delay = umax(s->win_delay, window_delay(pt, t, now,
	    &s->win_stops));
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

void
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

void
page_segv_learn(struct page_state *s, struct tr_thread *t)
{
	if (!s->segv_known)
		s->segv_known = tr_sigaction(&s->tr, t, SIGSEGV, NULL,
		    &s->segv) == 0;
}

/* Whether the process's SIGSEGV action is known, and a handler. */
static int
segv_handled(const struct page_state *s)
{
	return s->segv_known &&
	    s->segv.handler != (uint64_t)(uintptr_t)SIG_DFL &&
	    s->segv.handler != (uint64_t)(uintptr_t)SIG_IGN;
}

/* Whether SIGSEGV is known not to be blocked in stopped thread t now. */
static int
segv_clear(struct tr_thread *t)
{
	uint64_t mask;

	return ptrace(PTRACE_GETSIGMASK, t->tid, sizeof mask, &mask) == 0 &&
	    !(mask & 1ULL << (SIGSEGV - 1));
}

/*
 * Whether system call nr takes a mask for its time in it: interrupted
 * (rv -EINTR, or a restart's), it leaves that mask to be put back on
 * its way out, after its exit's stop.
 */
static int
mask_call(long nr)
{
	return nr == SYS_rt_sigsuspend || nr == SYS_ppoll ||
	    nr == SYS_pselect6 || nr == SYS_epoll_pwait ||
	    nr == SYS_epoll_pwait2 || nr == SYS_io_pgetevents ||
	    nr == SYS_io_uring_enter;
}

void
page_segv_call(struct page_state *s, struct tr_thread *t, int exit)
{
	struct pthr *pt = pthr_of(t);

	if (exit) {
		if (pt->act_set && pt->nr == SYS_rt_sigaction &&
		    t->rval == 0) {
			s->segv = pt->act;
			s->segv_known = 1;
		}
		pt->act_set = 0;
		/* what it is known for only where a handler may be reset */
		if (!segv_handled(s))
			pt->segv_clear = 0;
		else if (pt->nr == SYS_rt_sigprocmask ||
		    pt->nr == SYS_rt_sigreturn || (mask_call(pt->nr) &&
		    t->rval != -EINTR && (t->rval < -516 || t->rval > -512)))
			pt->segv_clear = segv_clear(t);
		else if (mask_call(pt->nr))
			pt->segv_clear = 0;
		return;
	}
	/* read as it enters: its old action may go where the new one is */
	pt->act_set = t->tgid == s->tr.pid && t->nr == SYS_rt_sigaction &&
	    t->args[0] == SIGSEGV && t->args[1] != 0 &&
	    pread(s->tr.memfd, &pt->act, sizeof pt->act,
	    (off_t)t->args[1]) == sizeof pt->act;
}

void
page_segv_delivered(struct page_state *s, struct tr_thread *t)
{
	pthr_of(t)->segv_clear = 0;
	if (t->sig == SIGSEGV && (s->segv.flags & SA_RESETHAND))
		s->segv.handler = (uint64_t)(uintptr_t)SIG_DFL;
}

int
page_segv_keep(struct page_state *s, struct tr_thread *t)
{
	struct pthr *pt = pthr_of(t);
	uint64_t bit = 1ULL << (SIGSEGV - 1), mask;
	int caught;

	if (!s->segv_known || s->segv.handler == (uint64_t)(uintptr_t)SIG_DFL)
		return 0;	/* reset to what it is, if it was */
	caught = segv_handled(s);
	/* a handler is reset only where the signal was blocked */
	if (caught && pt->segv_clear)
		return 0;
	if (tr_sigmask(t->tid, caught ? "SigCgt" : "SigIgn") & bit) {
		pt->segv_clear = segv_clear(t);	/* as it was, then */
		return 0;
	}
	pt->segv_clear = 0;
	if (tr_sigaction(&s->tr, t, SIGSEGV, &s->segv, NULL) != 0)
		return -1;
	if (caught && ptrace(PTRACE_GETSIGMASK, t->tid, sizeof mask,
	    &mask) == 0)
		tr_set_mask(t, mask | bit);
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
 * The target's bytes after the write being handled into s->last[ti]
 * (and, whole, into s->buf), the write [lo, hi) (clipped to the
 * target: none, lo >= hi): a wide target's only there, where they
 * changed.  0, or -1 when they cannot be read.
 */
static int
page_bytes(struct watch *w, struct page_state *s, size_t ti, uint64_t lo,
    uint64_t hi)
{
	uint64_t a = w->t[ti].addr, len = (uint64_t)w->t[ti].len;

	/* a store that covered the target: its bytes are what it stored */
	if (s->st != NULL && s->st_lo <= a && a + len <= s->st_hi)
		memcpy(s->buf, s->st + (a - s->st_lo), (size_t)len);
	else if (len > HIT_BYTES_MAX && lo < hi) {
		if (s->st != NULL)
			memcpy(s->last[ti] + (lo - a), s->st + (lo - s->st_lo),
			    (size_t)(hi - lo));
		else if (pread(s->tr.memfd, s->last[ti] + (lo - a),
		    (size_t)(hi - lo), (off_t)lo) != (ssize_t)(hi - lo))
			return -1;
		return 0;
	} else if (pread(s->tr.memfd, s->buf, (size_t)len, (off_t)a) !=
	    (ssize_t)len)
		return -1;
	memcpy(s->last[ti], s->buf, (size_t)len);
	return 0;
}

/*
 * A hit on entry ti by thread tid: flags 0 with the writer at writer_ip,
 * or the kernel's (a system call at writer_ip, or a signal's frame).
 * The write is the store emulated (s->st), else [s->el_lo, s->el_hi).
 */
void
page_emit(struct watch *w, struct page_state *s, size_t ti, pid_t tid,
    uint64_t ip, uint64_t writer_ip, unsigned flags, int sig,
    const struct wp_x86_regs *regs)
{
	struct wp_hit_rec h;
	const struct wtarget *t = &w->t[ti];
	int wide = t->len > HIT_BYTES_MAX;
	unsigned char before[8];

	memset(&h, 0, sizeof h);
	watch_store(&h, t, s->st != NULL ? s->st_lo : s->el_lo,
	    s->st != NULL ? s->st_hi : s->el_hi, s->last[ti]);
	/* what the store's bytes were, before page_bytes takes the new */
	if (h.store_len > 0 && h.store_len <= sizeof before) {
		memcpy(before, s->last[ti] + (h.store_addr - t->addr),
		    h.store_len);
		h.store_prev = before;
	}
	if (page_bytes(w, s, ti, h.store_addr, h.store_addr +
	    h.store_len) == -1)
		return;
	h.pid = w->pid;
	h.tid = tid;
	h.cpu = -1;
	h.time_ns = watch_time(w, wp_now_ns());
	h.ip = ip;
	h.exact = 1;
	h.has_writer_ip = !(flags & (WP_HIT_KERNEL | WP_HIT_UNEXPLAINED));
	h.writer_ip = writer_ip;
	h.bytes = wide ? NULL : s->buf;
	h.nbytes = wide ? 0 : (size_t)t->len;
	h.flags = flags;
	h.signal = flags & WP_HIT_KERNEL ? sig : 0;
	h.regs = w->regs ? regs : NULL;
	if (w->callchain)
		callers(w, s, tid, &h);
	watch_hit(w, ti, &h);
}

/* Whether every page target t lies on is guarded, none given back. */
static int
guarded(struct page_state *s, const struct wtarget *t)
{
	struct ppage *p;
	uint64_t a;

	for (a = t->addr & ~(PAGE_SZ - 1); a < t->addr + (uint64_t)t->len;
	    a += PAGE_SZ)
		if ((p = page_find(s, a)) == NULL || !p->guarded ||
		    p->open > 0 || p->gone)
			return 0;
	return 1;
}

void
page_unexplained(struct watch *w, struct page_state *s)
{
	const struct wtarget *t;
	uint64_t span[2];
	size_t ti;

	if (s->exec_seen || s->arm_pending || s->last == NULL)
		return;
	for (ti = 0; ti < w->nt; ti++) {
		t = &w->t[ti];
		if (!t->armed || t->len > HIT_BYTES_MAX || !guarded(s, t) ||
		    pread(s->tr.memfd, s->buf, (size_t)t->len,
		    (off_t)t->addr) != t->len ||
		    memcmp(s->buf, s->last[ti], (size_t)t->len) == 0)
			continue;
		watch_changed(s->last[ti], s->buf, (size_t)t->len, t->addr,
		    span);
		s->el_lo = span[0];
		s->el_hi = span[1];
		obs(w)->unexplained++;
		page_emit(w, s, ti, w->pid, 0, 0, WP_HIT_UNEXPLAINED, 0, NULL);
	}
	s->el_lo = s->el_hi = 0;
}

