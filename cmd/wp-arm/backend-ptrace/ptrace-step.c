/*
 * A thread of the ptrace backend stepped one instruction at a time: the
 * instruction at its IP decoded first, with the registers it takes to
 * tell what it writes; a system call is run to its exit instead (with
 * PTRACE_SYSCALL, entry and exit stops), so that one that blocks holds
 * up no other thread.  The step only resumes: its stop is taken by
 * pt_on_stop (ptrace-stop.c).  Which threads are ready, in a call or
 * starting, is read here too.
 */
#include <sys/ptrace.h>
#include <sys/user.h>

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "ptrace.h"
#include "tracee.h"
#include "util.h"
#include "watch.h"

void
pt_set_call(struct pthr *p, long nr, const uint64_t a[6])
{
	p->sc_nr = nr;
	memcpy(p->sc_args, a, sizeof p->sc_args);
}

static int
get_regs(struct pthr *p)
{
	if (tr_getregs(p->tid, &p->pre) == -1)
		return -1;
	p->known = K_ALL;
	return 0;
}

/*
 * Decodes the instruction stopped thread p is at, with the registers it
 * takes to tell what it does: where its IP is known, only those of a
 * store, a load (with -a rw) or a system call are read.
 */
static int
fetch(struct ptrace_state *s, struct pthr *p)
{
	uint64_t ip;

	if (p->known == K_NONE && get_regs(p) == -1)
		return -1;
	pt_decode(s, tr_pc(&p->pre), p);
	if (p->known == K_IP && (p->iflags & s->need)) {
		ip = tr_pc(&p->pre);
		if (get_regs(p) == -1)
			return -1;
		if (tr_pc(&p->pre) != ip)	/* see pt_ran_on */
			pt_decode(s, tr_pc(&p->pre), p);
	}
	p->have = p->known == K_ALL ? (1u << WP_NREGS) - 1 : 1u << WP_RIP;
	return 0;
}

/*
 * Thread p's step trapped after an instruction whose successor does not
 * depend on registers: its IP is that one.  Not so if the step began at
 * another stop: a SIGTRAP the thread sent itself (in a system call) stops
 * it as a trap does, before its instruction ran.  A SIGTRAP sent by
 * another process in the microseconds of a step is taken for the trap,
 * as ever; the IP is then one instruction off until the registers are
 * next read: at a jump, a store, a system call, or within RECHECK steps.
 */
void
pt_ran_on(struct watch *w, struct pthr *p)
{
	if (p->steady && p->next != 0 && pt_ctr(w)->steps % RECHECK != 0) {
		tr_set_pc(&p->pre, p->next);
		p->known = K_IP;
	}
	p->trapped = 1;
}

/*
 * Whether thread tid blocks SIGTRAP and has a handler for it: then a
 * step's trap would reset the handler to the default (the kernel does so
 * for a trap it must deliver while it is blocked), and the next SIGTRAP
 * would kill the process.
 */
int
pt_trap_blocked(pid_t tid)
{
	return (tr_sigmask(tid, "SigBlk") & tr_sigmask(tid, "SigCgt")) >>
	    (SIGTRAP - 1) & 1;
}

/*
 * Resumes thread t up to its next system call with sig: free (blocking
 * SIGTRAP, see resume_step), or to run the call p->sc_nr.
 */
static int
to_syscall(struct watch *w, struct ptrace_state *s, struct tr_thread *t,
    int sig)
{
	struct pthr *p = pt_of(t);

	if (sig != 0)
		pt_ctr(w)->signals_passed++;
	pt_rseq_resume(s, t, 0);
	if (tr_resume(&s->tr, t, TR_SYSCALL, sig) == -1)
		return -1;
	pt_ctr(w)->steps++;
	p->state = P_SYSENTER;
	return 0;
}

/*
 * Steps thread t one instruction with sig: 1 when it stopped (its stop
 * for pt_on_stop), -1 when it could not be resumed.  With a handler, the
 * step stops on its entry before the instruction runs: what changes,
 * the kernel wrote.
 */
static int
single_step(struct watch *w, struct ptrace_state *s, struct tr_thread *t,
    int sig)
{
	struct pthr *p = pt_of(t);

	if (sig != 0) {
		pt_ctr(w)->signals_passed++;
		p->sigstep = sig;
	}
	if (pt_rseq_resume(s, t, sig == 0) == -1)
		p->steady = 0;		/* it may be moved: see pt_ran_on */
	p->state = P_STEP;
	if (tr_step(&s->tr, t, sig) == -1 && t->state == TR_STOPPED)
		return -1;	/* not resumed */
	pt_ctr(w)->steps++;
	return 1;	/* its stop: pt_on_stop */
}

/*
 * Runs thread t (at a load-exclusive, no signal to deliver) through the
 * exclusive sequence to its store st as one step, as gdb does: a
 * breakpoint at each of its ends, the thread let run to one (the other
 * threads are stopped or in the kernel meanwhile), the code put back.
 * Stopped after the store, the step is the store's: its registers there
 * place it (a store-exclusive writes back no register of its address)
 * and its status says whether it stored.  1 when it stopped (its stop
 * for pt_on_stop), -1 when it could not be resumed.
 */
static int
run_exclusive(struct watch *w, struct ptrace_state *s, struct tr_thread *t,
    uint64_t st, const uint64_t *ends, int n)
{
	struct pthr *p = pt_of(t);
	uint8_t saved[TR_SEQ_ENDS][sizeof tr_brk.code];
	int i, k, rc = 1;

	for (k = 0; k < n; k++)
		if (pread(s->tr.memfd, saved[k], tr_brk.len,
		    (off_t)ends[k]) != (ssize_t)tr_brk.len ||
		    pwrite(s->tr.memfd, tr_brk.code, tr_brk.len,
		    (off_t)ends[k]) != (ssize_t)tr_brk.len)
			break;
	if (k == n) {
		p->state = P_STEP;
		if (ptrace(PTRACE_CONT, t->tid, 0, 0) == -1)
			rc = -1;
		else if (tr_take(t) == -1)
			rc = 1;		/* gone: its exit for pt_on_stop */
		pt_ctr(w)->steps++;
	} else
		rc = 0;
	/* a brk not taken back out is the watch's failure, never left */
	for (i = 0; i < k; i++)
		if (pwrite(s->tr.memfd, saved[i], tr_brk.len,
		    (off_t)ends[i]) != (ssize_t)tr_brk.len)
			rc = -1;
	if (rc != 1 || t->state != TR_STOPPED)
		return rc == 0 ? 0 : rc;
	if (tr_getregs(t->tid, &p->pre) == 0 && tr_pc(&p->pre) == st + 4) {
		pt_decode(s, st, p);
		p->insn_ip = st;
		p->have = (1u << WP_NREGS) - 1;
	}
	return 1;
}

/*
 * Resumes thread t for one instruction.  A system call is run with
 * PTRACE_SYSCALL instead (entry and exit stops, no single-step trap), so
 * that a call that blocks does not hold up the other threads.
 *
 * A thread that blocks SIGTRAP (it runs a SIGTRAP handler) is not
 * stepped but run up to its next system call, where the watched bytes
 * are compared (its writes meanwhile are changes, not an instruction's),
 * and stepped again once SIGTRAP is unblocked.
 */
static int
resume_step(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	struct pthr *p = pt_of(t);
	uint64_t a[6], st, ends[TR_SEQ_ENDS];
	long nr;
	int sig = p->sig, restart, n, rc;

	if (fetch(s, p) == -1)
		return -1;
	p->insn_ip = tr_pc(&p->pre);
	p->steady = p->trapped;
	p->sig = 0;
	/* after a step's trap no call is pending: what is known will do */
	restart = p->known == K_ALL && tr_restart_pending(p->tid, &p->pre);
	if (p->freerun && !p->insn.is_syscall && !restart) {
		if (w->lost_unknown == NULL)
			w->lost_unknown = "a thread ran unstepped while it "
			    "blocked SIGTRAP (its SIGTRAP handler): its writes "
			    "were seen only as changes";
		p->sc_nr = -1;		/* which call: see on_syscall */
		return to_syscall(w, s, t, sig);
	}
	/*
	 * A signal the thread does not catch runs no instruction of its
	 * own: a step over a system call would then run the call, and
	 * never end while it blocks.  The call is run as any other.
	 */
	if ((p->insn.is_syscall || restart) && (sig == 0 ||
	    !tr_catches(p->tid, sig))) {
		/* the call and its arguments; a restarted one sits behind */
		nr = tr_call_of(&p->pre, restart, a);
		pt_set_call(p, nr, a);
		if (restart)
			p->insn_ip -= tr_sc_len;
		return to_syscall(w, s, t, sig);
	}
	/* a load-exclusive: its sequence run as one (run_exclusive) */
	if (sig == 0 && p->cs == 0 && !p->insn.writes &&
	    tr_excl_seq(s->tr.memfd, p->insn_ip, &st, ends, &n) &&
	    (rc = run_exclusive(w, s, t, st, ends, n)) != 0)
		return rc;
	return single_step(w, s, t, sig);
}

/* The number of the process's threads in state st. */
static size_t
in_state(struct ptrace_state *s, enum pstate st)
{
	size_t i, n = 0;

	for (i = 0; i < s->tr.n; i++)
		n += s->tr.t[i]->user != NULL && pt_of(s->tr.t[i])->state == st;
	return n;
}

int
pt_in_syscall(struct ptrace_state *s)
{
	return in_state(s, P_SYSCALL) > 0;
}

/* A thread starting or exiting: the kernel may write for it meanwhile. */
int
pt_unsettled(struct ptrace_state *s)
{
	return in_state(s, P_NEW) > 0;
}

struct tr_thread *
pt_next_ready(struct ptrace_state *s)
{
	size_t i, k;

	/* a thread in a restartable sequence runs it alone */
	if (s->cs_thread != NULL && pt_of(s->cs_thread)->state == P_READY)
		return s->cs_thread;
	for (i = 0; i < s->tr.n; i++) {
		k = (s->rr + i) % s->tr.n;
		if (s->tr.t[k]->user != NULL &&
		    pt_of(s->tr.t[k])->state == P_READY) {
			s->rr = k + 1;
			return s->tr.t[k];
		}
	}
	return NULL;
}

int
pt_step(struct watch *w, struct ptrace_state *s, struct tr_thread *t)
{
	int rc;

	if ((rc = resume_step(w, s, t)) == -1)
		pt_of(t)->state = P_GONE;
	return rc == 1;
}
