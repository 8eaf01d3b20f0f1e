/*
 * The page backend: write permission is taken away from the pages that
 * hold the watched ranges (mprotect run in the target, tracee.c), and
 * each write to them stops its thread with SIGSEGV, at the writing
 * instruction itself.  A store that reaches a watched range is a hit,
 * its writer exact; one elsewhere on the page is a neighbour's, counted.
 * Either is then made: emulated (a plain store wp understands, written
 * through /proc/PID/mem) or stepped (the page made writable for that one
 * instruction, every other thread held).  With -a rw a page gets no
 * access at all, and a load from a watched range is a hit too (a read),
 * stepped.  System calls that may write
 * the pages get them back for the call (a kernel write, reported as the
 * call's), and so does the delivery of a caught signal (its frame).
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page.h"
#include "proc.h"
#include "syscalls.h"
#include "traced.h"
#include "tracee.h"
#include "unwind.h"
#include "util.h"
#include "watch.h"
#include "x86.h"

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

/* Page addr's entry, added (nothing known of it yet) when new. */
static struct ppage *
page_add(struct page_state *s, uint64_t addr)
{
	struct ppage *p;
	size_t k;

	if ((p = page_find(s, addr)) != NULL)
		return p;
	p = wp_xcalloc(1, sizeof *p);
	p->addr = addr & ~(PAGE_SZ - 1);
	s->pg = wp_xrealloc(s->pg, (s->npg + 1) * sizeof *s->pg);
	/* kept sorted: an insertion, pages are few */
	for (k = s->npg++; k > 0 && s->pg[k - 1]->addr > p->addr; k--)
		s->pg[k] = s->pg[k - 1];
	s->pg[k] = p;
	return p;
}

/* The pages the armed ranges lie on are needed, the others not. */
static void
collect_pages(struct watch *w, struct page_state *s)
{
	uint64_t a, end;
	size_t i;

	struct ppage *p;

	for (i = 0; i < s->npg; i++)
		s->pg[i]->needed = s->pg[i]->rw = 0;
	for (i = 0; i < w->nt; i++) {
		if (!w->t[i].armed)
			continue;
		end = w->t[i].addr + (uint64_t)w->t[i].len;
		for (a = w->t[i].addr & ~(PAGE_SZ - 1); a < end; a += PAGE_SZ) {
			p = page_add(s, a);
			p->needed = 1;
			p->rw |= w->t[i].rw;
		}
	}
	obs(w)->pages = s->npg;
}

int
page_prot_of(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) |
	    (perms[1] == 'w' ? PROT_WRITE : 0) |
	    (perms[2] == 'x' ? PROT_EXEC : 0);
}

/* The target entry whose range holds addr, for messages. */
static int
target_at(struct watch *w, uint64_t page)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].addr < page + PAGE_SZ &&
		    page < w->t[i].addr + (uint64_t)w->t[i].len)
			return w->t[i].id;
	return -1;
}

/*
 * A seized thread whose stack pointer is on page p or the page below
 * it (its pushes and calls will fault at every turn), or 0.
 */
static pid_t
stack_of(struct page_state *s, const struct ppage *p)
{
	struct user_regs_struct u;
	size_t i;

	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i]->state == TR_STOPPED &&
		    ptrace(PTRACE_GETREGS, s->tr.t[i]->tid, 0, &u) == 0 &&
		    u.rsp - 128 < p->addr + PAGE_SZ && p->addr <= u.rsp + PAGE_SZ)
			return s->tr.t[i]->tid;
	return 0;
}

/*
 * Page p's own protection, from maps; a page that cannot be watched
 * this way is refused with the reason (and advice).  0, or -1.
 */
static int
check_page(struct watch *w, struct page_state *s, struct ppage *p,
    const struct wp_maps *maps, const char *advice, struct wp_error *e)
{
	const struct wp_map *m;
	pid_t tid;
	int rc = 0;

	if ((m = wp_proc_maps_find(maps, p->addr)) == NULL)
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is not mapped", target_at(w, p->addr),
		    p->addr);
	else if (m->perms[3] == 's')
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is shared memory (%s): another process "
		    "could write it unseen, and its protection is not "
		    "this process's alone%s", target_at(w, p->addr),
		    p->addr, m->path ? m->path : "MAP_SHARED", advice);
	else if (m->perms[1] != 'w')
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is not writable (%s): nothing writes "
		    "it as it is", target_at(w, p->addr), p->addr,
		    m->perms);
	else if (p->rw && m->perms[2] == 'x')
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is executable (%s): -a rw takes every "
		    "access away from the page, its code's fetches too%s",
		    target_at(w, p->addr), p->addr, m->perms, advice);
	else if ((tid = page_rseq_park(s, p)) != 0)
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " holds the rseq area of thread %d, "
		    "which the kernel writes as it schedules the thread "
		    "(and kills it when it cannot)%s",
		    target_at(w, p->addr), p->addr, (int)tid, advice);
	else if ((tid = stack_of(s, p)) != 0 && *advice != '\0')
		warnx("target %d: page 0x%" PRIx64 " is on the stack of "
		    "thread %d: each push and call there faults and is "
		    "stepped, and its system calls' writes there give the "
		    "page back: the watch will be slow",
		    target_at(w, p->addr), p->addr, (int)tid);
	if (rc == 0) {
		p->own = page_prot_of(m->perms);
		p->known = 1;
	}
	return rc;
}

/* check_page of every page needed and not known yet. */
static int
check_pages(struct watch *w, struct page_state *s, const char *advice,
    struct wp_error *e)
{
	struct wp_maps maps;
	size_t i;
	int rc = 0;

	if (wp_proc_maps(w->pid, &maps) == -1)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: maps: %s",
		    (int)w->pid, strerror(errno));
	for (i = 0; i < s->npg && rc == 0; i++)
		if (s->pg[i]->needed && !s->pg[i]->known && !s->pg[i]->gone)
			rc = check_page(w, s, s->pg[i], &maps, advice, e);
	wp_proc_maps_free(&maps);
	return rc;
}

/* A thread of the process stopped where a call can be injected. */
struct tr_thread *
page_injectable(struct page_state *s)
{
	struct tr_thread *t, *entry = NULL, *in_call = NULL;
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		t = s->tr.t[i];
		if (t->tgid != s->tr.pid || t->state != TR_STOPPED ||
		    t->stop == TR_GROUP)
			continue;
		if (t->stop == TR_SC_ENTRY)
			entry = t;
		else if (t->stop == TR_EVENT)
			in_call = t->event == PTRACE_EVENT_CLONE ||
			    t->event == PTRACE_EVENT_FORK ||
			    t->event == PTRACE_EVENT_VFORK ? t : in_call;
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

/* The bytes of each target now: what a kernel write is measured from. */
static int
read_targets(struct watch *w, struct page_state *s, struct wp_error *e)
{
	size_t i;

	traced_bytes(w, &s->last, &s->buf);
	for (i = 0; i < w->nt; i++)
		if (pread(s->tr.memfd, s->last[i], (size_t)w->t[i].len,
		    (off_t)w->t[i].addr) != w->t[i].len)
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: cannot "
			    "read 0x%" PRIx64 ": %s", w->t[i].id, w->t[i].addr,
			    strerror(errno));
	return 0;
}

static void
release_state(struct watch *w, struct page_state *s)
{
	size_t i;

	unwind_close(&s->uw);
	traced_bytes_free(w, s->last, s->buf);
	for (i = 0; i < s->npg; i++)
		free(s->pg[i]);
	free(s->pg);
	tr_close(&s->tr);
	free(s);
	w->state = NULL;
}

/* Whether every thread of the process is in group-stop (SIGSTOP). */
static int
group_stopped(const struct page_state *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->tr.n; i++) {
		if (s->tr.t[i]->tgid != s->tr.pid ||
		    s->tr.t[i]->state == TR_GONE)
			continue;
		if (s->tr.t[i]->state != TR_STOPPED ||
		    s->tr.t[i]->stop != TR_GROUP)
			return 0;
		n++;
	}
	return n > 0;
}

/* Takes write permission away from every page. */
static int
protect_all(struct watch *w, struct page_state *s, struct wp_error *e)
{
	struct tr_thread *t;
	size_t i;

	if ((t = page_injectable(s)) == NULL && group_stopped(s)) {
		/* mprotect cannot run without running the thread */
		warnx("pid %d is stopped (SIGSTOP): its pages are protected "
		    "when it is continued", (int)w->pid);
		s->arm_pending = 1;
		return 0;
	}
	if (t == NULL)
		return wp_error_set(e, WP_EXIT_ERROR, "pid %d: no thread "
		    "stopped where mprotect can run", (int)w->pid);
	for (i = 0; i < s->npg; i++)
		if (s->pg[i]->needed && page_mprotect(s, t, s->pg[i],
		    page_guard_prot(s->pg[i])) == -1) {
			page_restore(s, t);
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: "
			    "mprotect of page 0x%" PRIx64 " in the process "
			    "failed", target_at(w, s->pg[i]->addr),
			    s->pg[i]->addr);
		}
	return 0;
}

void
page_arm_late(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct wp_error e = { 0, "" };

	s->arm_pending = 0;
	tr_hold(&s->tr, t);
	if (protect_all(w, s, &e) == -1) {
		warnx("%s: not watched", e.msg);
		w->modify_errors++;
	}
	tr_release(&s->tr);
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
 * After a chain moved, with t stopped and the other threads held: the
 * pages the armed ranges need now are guarded, those none needs any
 * more given their own protection back.  A page that cannot be watched
 * leaves its range unwatched: said once, and the counts are a lower
 * bound (follow_rearm_failed).
 */
static void
page_sync(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct wp_error e = { 0, "" };
	struct wp_maps maps;
	struct ppage *p;
	size_t i;

	collect_pages(w, s);
	if (wp_proc_maps(w->pid, &maps) == -1)
		return;
	for (i = 0; i < s->npg; i++) {
		p = s->pg[i];
		if (p->gone || p->open > 0 || (p->needed == p->guarded &&
		    (!p->needed || p->prot == page_guard_prot(p))))
			continue;
		if (!p->needed) {
			page_mprotect(s, t, p, p->own);
			continue;
		}
		if (!p->known && check_page(w, s, p, &maps, "", &e) == -1) {
			warnx("%s: not watched there", e.msg);
			p->gone = 1;
			w->modify_errors++;
			continue;
		}
		if (page_mprotect(s, t, p, page_guard_prot(p)) == -1)
			w->modify_errors++;
	}
	wp_proc_maps_free(&maps);
}

void
page_follow(struct watch *w, struct page_state *s)
{
	struct tr_thread *t;
	int *changed, hold = !s->holding, any = 0;
	size_t ci;

	for (ci = 0; ci < w->nchains; ci++)
		any |= w->chains[ci].dirty;
	if (!any)
		return;
	if (hold)
		tr_hold(&s->tr, NULL);
	changed = wp_xcalloc(w->nchains, sizeof *changed);
	for (ci = 0; ci < w->nchains; ci++)
		changed[ci] = follow_dirty(w, ci) &&
		    follow_rebind(w, s->tr.memfd, ci);
	if (s->moved && (t = page_injectable(s)) != NULL)
		page_sync(w, s, t);
	s->moved = 0;
	for (ci = 0; ci < w->nchains; ci++)
		if (changed[ci])
			follow_record(w, ci, 0, 1, 0);
	free(changed);
	if (hold)
		tr_release(&s->tr);
}

/* Entry ti moved: its bytes there now, and the pages to sync. */
static void
page_rearm(struct watch *w, size_t ti)
{
	struct page_state *s = w->state;
	struct wtarget *t = &w->t[ti];

	if (s->last != NULL && t->armed && pread(s->tr.memfd, s->last[ti],
	    (size_t)t->len, (off_t)t->addr) != t->len)
		memset(s->last[ti], 0, (size_t)t->len);
	s->moved = 1;
}

/*
 * What the process is given back before the detach: a fault of ours
 * still pending is not delivered (its instruction runs again, on a
 * writable page), and from stopped thread t (NULL: none) each page its
 * own protection, each rseq area registered again.
 */
static void
give_back(struct page_state *s, struct tr_thread *t)
{
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		/* a fault raised as the hold stopped it, still pending */
		tr_take_signal(s->tr.t[i], SIGSEGV);
		if (s->tr.t[i]->state == TR_STOPPED &&
		    s->tr.t[i]->stop == TR_SIGNAL &&
		    s->tr.t[i]->sig == SIGSEGV &&
		    page_fault_ours(s, s->tr.t[i], NULL, NULL))
			s->tr.t[i]->sig = 0;
	}
	if (t != NULL) {
		page_restore(s, t);
		page_rseq_restore(s);
	}
}

/*
 * wp-arm is to end on a failure (out of memory): every thread held,
 * the process given back from one stopped already (nothing allocated
 * here: no wait for new threads, the injections need no memory).
 */
static void
page_fatal(void *arg)
{
	struct page_state *s = arg;

	tr_hold(&s->tr, NULL);
	/* after an exec the memory is another program's */
	give_back(s, s->exec_seen && !s->exec_next ? NULL :
	    page_injectable(s));
}

static int
arm_stopped(struct watch *w, struct page_state *s, struct wp_error *e)
{
	if (traced_attach(w, &s->tr, e) == -1)
		return -1;
	traced_on_fatal(page_fatal, s);
	follow_update(w, s->tr.memfd);
	collect_pages(w, s);
	if (check_pages(w, s, ": use --backend ptrace", e) == -1 ||
	    read_targets(w, s, e) == -1 ||
	    protect_all(w, s, e) == -1)
		return -1;
	return 0;
}

/* The backend's state, in w->state; the targets not in chains armed. */
static struct page_state *
new_state(struct watch *w)
{
	struct page_state *s = wp_xcalloc(1, sizeof *s);
	size_t i;

	w->state = s;
	tr_init(&s->tr, w->pid);
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0)
			w->t[i].armed = 1;
	return s;
}

static int
page_arm(struct watch *w, struct wp_error *e)
{
	struct page_state *s = new_state(w);
	size_t i;

	if (traced_open(w, &s->tr, 1, e) == -1)
		goto fail;
	if (arm_stopped(w, s, e) == -1) {
		traced_detach(&s->tr);
		goto fail;
	}
	s->t0 = wp_now_ns();
	/* the stops found at the seize stay queued for the loop */
	for (i = 0; i < s->tr.n; i++)
		if (!s->tr.t[i]->queued)
			page_resume(w, s, s->tr.t[i], 0);
	traced_armed(w, s->tr.n);
	return 0;
fail:
	release_state(w, s);
	return -1;
}

int
page_serves(struct watch *w, struct wp_error *e)
{
	struct page_state *s = new_state(w);
	int rc = 0;

	s->probe = 1;
	if (tr_open(&s->tr, w->pid, 1, e) == 0 &&
	    tr_seize_all(&s->tr, 0, 1, NULL, NULL) > 0) {
		collect_pages(w, s);
		rc = check_pages(w, s, "", e);
		tr_detach_all(&s->tr);
	}
	release_state(w, s);
	return rc;
}

/* Whether a thread of the process is still traced. */
static int
page_alive(struct watch *w)
{
	return tr_alive(&((struct page_state *)w->state)->tr);
}

/* Takes the next stop, and re-arms where a pointer moved. */
static void
page_round(struct watch *w)
{
	struct page_state *s = w->state;
	struct tr_thread *t;
	int none;

	if ((t = tr_wait(&s->tr, 1, &none)) != NULL) {
		page_event(w, s, t);
		/* a pointer the kernel wrote */
		page_follow(w, s);
	} else if (none)
		for (size_t i = 0; i < s->tr.n; i++)
			s->tr.t[i]->state = TR_GONE;
}

static void
page_run(struct watch *w, uint64_t until)
{
	struct page_state *s = w->state;

	(void)until;		/* the 50 ms tick returns here */
	/* the records of a tick go out together, not a write(2) each */
	emit_hold();
	tr_prune(&s->tr);
	traced_run(w, &s->exec_seen, page_alive, page_round);
	emit_release(w);
}

/*
 * A thread to restore the pages from: one of those held, else the first
 * of the process to stop (each has an interrupt pending), queued.
 */
static struct tr_thread *
stopped_one(struct page_state *s)
{
	struct tr_thread *t;
	int none, k;

	for (k = 0; k < 100; k++) {
		if ((t = page_injectable(s)) != NULL)
			return t;
		if ((t = tr_wait(&s->tr, 1, &none)) == NULL) {
			if (none)
				return NULL;
			continue;
		}
		if (t->state == TR_STOPPED)
			t->queued = 1;
	}
	return NULL;
}

/*
 * Holds every thread, gives each page its own protection back, and
 * detaches; a fault of ours still pending is not delivered (its
 * instruction runs again, on a writable page).
 */
static void
page_disarm(struct watch *w)
{
	struct page_state *s = w->state;
	struct tr_thread *t;
	size_t i;

	traced_tick(0);
	tr_hold(&s->tr, NULL);
	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i]->tgid == s->tr.pid &&
		    s->tr.t[i]->state == TR_STOPPED)
			page_thread_time(w, s->tr.t[i]);
	/* still stopped since the arming: nothing was protected */
	t = (s->exec_seen && !s->exec_next) || !tr_alive(&s->tr) ||
	    s->arm_pending ? NULL : stopped_one(s);
	give_back(s, t);
	obs(w)->stopped_ns += s->tr.stopped_ns;
	obs(w)->watched_ns = wp_now_ns() - s->t0;
	traced_detach(&s->tr);
	traced_count(w);
	release_state(w, s);
}

/* The counters (here, or the supervisor's copy). */
static void
page_observe(struct watch *w, struct wp_observation *o)
{
	o->page = obs(w);
	/* every thread is held from the pointer's store to the re-arm */
	o->follow_mode = "stop-all";
}

const struct backend backend_page = {
	.name = "page_protect", .traces = 1, .cond_where = "tracer", .orphan_signal = SIGSEGV,
	.callchain = "cfi", .obs_size = sizeof(struct wp_obs_page),
	.arm = page_arm, .run = page_run, .count = traced_count,
	.rearm = page_rearm,
	.disarm = page_disarm, .observe = page_observe
};
