/*
 * The stops of the ptrace backend's threads, taken from the ptrace
 * engine (tracee.c): a step's trap, the entry and exit of a system call
 * run with PTRACE_SYSCALL, clones followed, forked children let go, the
 * target's own signals kept for delivery with the next resume.
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptrace.h"
#include "traced.h"
#include "tracee.h"
#include "util.h"
#include "watch.h"

struct pthr *
pt_thread(struct tr_thread *t)
{
	struct pthr *p;

	if (t->user == NULL) {
		p = t->user = wp_xcalloc(1, sizeof *p);
		p->tid = t->tid;
		p->state = P_NEW;
		/* a new thread starts with its creator's mask: glibc's
		   pthread_create blocks every signal over the clone */
		p->freerun = pt_trap_blocked(t->tid);
	}
	return t->user;
}

int
pt_alive(struct watch *w)
{
	struct ptrace_state *s = w->state;
	size_t i;

	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i]->user != NULL && s->tr.t[i]->state != TR_GONE &&
		    pt_of(s->tr.t[i])->state != P_GONE)
			return 1;
	return 0;
}

/* The call thread p entered when it ran free: its number and arguments. */
static void
entered(struct pthr *p)
{
	struct user_regs_struct u;
	uint64_t a[6];
	long nr;

	if (tr_getregs(p->tid, &u) == -1)
		return;
	nr = tr_entry_call(&u, a);
	pt_set_call(p, nr, a);
	p->insn_ip = tr_pc(&u) - tr_sc_len;
}

/*
 * Stopped child t, which shared the memory, is let go as it execs (its
 * memory its own from then on): its writes were counted to here.
 */
static void
child_gone(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = t->user;

	if (s->cs_thread == t)
		s->cs_thread = NULL;
	tr_detach(&s->tr, t, 0);
	p->state = P_GONE;
	traced_child_gone(w, p->tid);
}

/*
 * An entry or exit stop of thread t's system call: on to its exit, or
 * what the call changed (the kernel wrote it).
 */
static int
on_syscall(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = t->user;

	if (p->state == P_SYSENTER) {
		if (p->sc_nr == -1)
			entered(p);
		if (traced_setid_exec(w, s->tr.memfd, p->tid, p->sc_nr,
		    p->sc_args)) {
			if (p->child) {
				/* a vfork child: it alone, the watch goes on */
				w->stop_detail = NULL;
				child_gone(w, s, t);
				return 0;
			}
			s->exec_seen = 1;	/* stopped: the watch ends */
			p->state = P_READY;
			return 1;
		}
		p->state = P_SYSCALL;
		if (tr_resume(&s->tr, t, TR_SYSCALL, 0) == -1)
			p->state = P_GONE;
		return 0;
	}
	pt_after_step(w, s, p, 1);
	if (p->sc_nr == SYS_rseq)
		pt_rseq_area(p);
	if (p->freerun || p->sc_nr == SYS_rt_sigprocmask ||
	    p->sc_nr == SYS_rt_sigreturn)
		p->freerun = pt_trap_blocked(p->tid);
	p->state = P_READY;
	return 1;
}

/*
 * Thread t's step stopped for a SIGTRAP: the step's own (its trap, or
 * the entry of a handler), or one of the target's own (kill(2), an
 * int3), delivered with the next resume.  Its instruction ran if the IP
 * moved (the trap of the step is then merged into it: one SIGTRAP is
 * pending at most).
 */
static int
on_trap(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = t->user;
	struct user_regs_struct u;

	if (tr_own_trap(t)) {
		/* a handler's entry: its mask may block SIGTRAP */
		if (p->sigstep)
			p->freerun = pt_trap_blocked(p->tid);
		pt_after_step(w, s, p, 0);
		pt_ran_on(w, p);
		p->state = P_READY;
		return 1;
	}
	if (tr_getregs(p->tid, &u) == 0 && tr_pc(&u) != p->insn_ip)
		pt_after_step(w, s, p, 0);
	p->sig = SIGTRAP;
	p->sigstep = 0;
	p->state = P_READY;
	return 1;
}

/*
 * A clone of thread t: the new thread is followed.  A vfork (or a child
 * sharing the memory otherwise): the child is stepped as a thread until
 * it execs or exits, its stores the target's.  A fork: the child process
 * is not followed (its writes are to memory of its own), only counted,
 * and let go.  t runs on to the exit of its call.
 */
static int
on_event(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = t->user;
	struct tr_thread *c;
	pid_t child = (pid_t)t->msg;

	switch (t->event) {
	case PTRACE_EVENT_CLONE:
		if ((c = tr_find(&s->tr, child)) == NULL)
			c = tr_add(&s->tr, child, s->tr.pid);
		pt_thread(c);
		traced_started(w, child, t->tid);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (!traced_shares_vm(s->tr.pid, child, t->event)) {
			tr_let_go(&s->tr, child);
			traced_forked(w, child, t->tid);
			break;
		}
		if ((c = tr_find(&s->tr, child)) == NULL)
			c = tr_add(&s->tr, child, child);
		pt_thread(c)->child = 1;
		traced_started(w, child, t->tid);
		break;
	case PTRACE_EVENT_EXEC:
		if (p->child) {
			child_gone(w, s, t);
			return 0;
		}
		s->exec_seen = 1;
		p->state = P_READY;
		return 1;
	case PTRACE_EVENT_EXIT:
		tr_resume(&s->tr, t, TR_CONT, 0);
		p->state = P_NEW;
		return 0;
	default:
		p->state = P_READY;
		return 1;
	}
	if (tr_resume(&s->tr, t, TR_SYSCALL, 0) == -1)
		p->state = P_GONE;
	return 0;
}

/*
 * A stop of thread t after seize or clone, an interrupt, or a
 * group-stop: the process stopped (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU)
 * stays stopped, and its end (SIGCONT) comes as another stop
 * (PTRACE_LISTEN); any other is a stop to step on from.
 */
static int
group_stop(struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = t->user;

	if (t->stop == TR_GROUP && tr_resume(&s->tr, t, TR_CONT, 0) == 0) {
		p->state = P_LISTEN;
		return 0;
	}
	p->state = P_READY;
	return 1;
}

int
pt_on_stop(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = pt_thread(t);
	int was_syscall = p->state == P_SYSCALL;

	if (t->stop == TR_EXITED) {
		p->state = P_GONE;
		if (p->child)	/* its status is its parent's to see */
			traced_child_gone(w, p->tid);
		else
			traced_exited(w, p->tid, t->status);
		return 0;
	}
	if (p->state == P_NEW && t->stop != TR_EVENT)
		pt_rseq_area(p);
	p->known = K_NONE;
	p->trapped = 0;
	switch (t->stop) {
	case TR_SC_ENTRY:
	case TR_SC_EXIT:
		return on_syscall(w, s, t);
	case TR_EVENT:
		return on_event(w, s, t);
	case TR_START:
	case TR_GROUP:
		if (was_syscall)
			pt_after_step(w, s, p, 1);
		return group_stop(s, t);
	case TR_SIGNAL:
		if (t->sig == SIGTRAP && p->state == P_STEP)
			return on_trap(w, s, t);
		break;
	default:
		return 0;
	}
	/* a signal for the thread: deliver it with the next resume */
	if (!(t->sig == SIGTRAP && p->state == P_READY))
		p->sig = t->sig;
	if (was_syscall)
		pt_after_step(w, s, p, 1);
	p->state = P_READY;
	return 1;
}

/*
 * A stop tr_wait took: of a thread known or new; a thread of another
 * process not known by its parent's event (on_event) is a forked child's:
 * it is let go.
 */
static void
take(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	if (t->user == NULL && t->tgid != s->tr.pid) {
		tr_detach(&s->tr, t, 0);
		return;
	}
	pt_on_stop(w, s, t);
}

/*
 * Takes the first stop of every thread seized (an interrupt, or the
 * group-stop of a stopped process), those cloned meanwhile too: then no
 * thread of the target runs, and what its memory holds is the watch's
 * start.
 */
void
pt_stop_all(struct watch *w, struct ptrace_state *s)
{
	struct tr_thread *t;
	size_t i;
	int none;

	for (i = 0; i < s->tr.n; i++) {
		t = s->tr.t[i];
		pt_thread(t);
		if (t->state == TR_STOPPED && !t->queued)
			pt_on_stop(w, s, t);
	}
	while (pt_unsettled(s)) {
		if ((t = tr_wait(&s->tr, 1, &none)) != NULL)
			take(w, s, t);
		else if (none)
			break;
	}
}

void
pt_collect(struct watch *w, struct ptrace_state *s)
{
	struct tr_thread *t;
	int none;

	while ((t = tr_wait(&s->tr, 0, &none)) != NULL)
		take(w, s, t);
}

void
pt_wait_any(struct watch *w, struct ptrace_state *s)
{
	struct tr_thread *t;
	uint64_t t0;
	int none, starting;
	size_t i;

	/* the target's own waiting, not its threads' attach */
	starting = pt_unsettled(s);
	t0 = wp_now_ns();
	t = tr_wait(&s->tr, 1, &none);
	if (!starting)
		pt_ctr(w)->blocked_ns += wp_now_ns() - t0;
	if (t != NULL)
		take(w, s, t);
	else if (none)
		for (i = 0; i < s->tr.n; i++) {
			s->tr.t[i]->state = TR_GONE;
			if (s->tr.t[i]->user != NULL)
				pt_of(s->tr.t[i])->state = P_GONE;
		}
}

/* Forgets the threads that are gone, so that a churn costs nothing. */
void
pt_prune(struct ptrace_state *s)
{
	struct tr_thread *t;
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		t = s->tr.t[i];
		if (t->user != NULL && t->state == TR_GONE &&
		    pt_of(t)->state == P_GONE) {
			if (s->cs_thread == t)
				s->cs_thread = NULL;
			free(t->user);
			t->user = NULL;
		}
	}
	tr_prune(&s->tr);
	if (s->rr >= s->tr.n)
		s->rr = 0;
}
