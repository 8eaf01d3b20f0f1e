/*
 * What each stop means to the page backend, above the files that
 * handle them: a fault on a guarded page (page-fault.c), a system
 * call's entry and exit (page-syscall.c); here a signal delivered (a
 * caught one's frame may be written on a page: a window), threads and
 * processes coming and going.
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <linux/kcmp.h>
#include <err.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "page.h"
#include "proc.h"
#include "traced.h"
#include "util.h"

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
		switch (page_segv_keep(s, t)) {
		case 1:
			obs(w)->handlers_restored++;
			break;
		case -1:
			if (!s->segv_lost)
				warnx("pid %d: its SIGSEGV handler, reset by "
				    "the kernel at a fault of wp-arm's, could "
				    "not be put back", (int)w->pid);
			s->segv_lost = 1;
			break;
		}
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
		page_segv_delivered(s, t);
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
		/* a child sharing the memory is watched: see new_process */
		if (traced_shares_vm(s->tr.pid, (pid_t)t->msg, t->event))
			traced_started(w, (pid_t)t->msg, t->tid);
		else if (t->tgid == s->tr.pid)
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
		traced_child_gone(w, t->tid);
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
		if (t->tgid == s->tr.pid)
			traced_exited(w, t->tid, t->status);
		else if (!fresh)	/* a vfork child, watched to its end */
			traced_child_gone(w, t->tid);
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
