/*
 * The threads of the ptrace backend: seized (PTRACE_SEIZE, following
 * clones; forked children are let go), each stepped one instruction at
 * a time (a system call is run to its exit instead, so that one that
 * blocks holds up no other thread), their stops taken, and at the end
 * detached each as it was, no SIGTRAP of a step left pending.
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend-ptrace.h"
#include "proc.h"
#include "util.h"
#include "watch.h"

static struct pthr *
pfind(struct ptrace_state *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->tid == tid && s->t[i]->state != P_GONE)
			return s->t[i];
	return NULL;
}

static struct pthr *
padd(struct ptrace_state *s, pid_t tid)
{
	struct pthr *p;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->t = wp_xrealloc(s->t, s->cap * sizeof *s->t);
	}
	p = s->t[s->n++] = wp_xcalloc(1, sizeof *p);
	p->tid = tid;
	p->state = P_NEW;
	return p;
}

static int
get_regs(struct pthr *p)
{
	if (ptrace(PTRACE_GETREGS, p->tid, 0, &p->pre) == -1)
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
	pt_decode(s, p->pre.rip, p);
	if (p->known == K_IP && (p->iflags & s->need)) {
		ip = p->pre.rip;
		if (get_regs(p) == -1)
			return -1;
		if (p->pre.rip != ip)	/* see ran_on */
			pt_decode(s, p->pre.rip, p);
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
static void
ran_on(struct watch *w, struct pthr *p)
{
	if (p->steady && p->next != 0 && pt_ctr(w)->steps % RECHECK != 0) {
		p->pre.rip = p->next;
		p->known = K_IP;
	}
	p->trapped = 1;
}

int
pt_in_syscall(struct ptrace_state *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->state == P_SYSCALL)
			return 1;
	return 0;
}

/* A thread starting or exiting: the kernel may write for it meanwhile. */
int
pt_unsettled(struct ptrace_state *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->state == P_NEW)
			return 1;
	return 0;
}

/* A system call interrupted by a stop is restarted on the way out. */
static int
restart_pending(const struct user_regs_struct *u)
{
	long rax = (long)u->rax;

	return (long long)u->orig_rax >= 0 && rax >= -516 && rax <= -512;
}

/*
 * Whether thread tid has a handler for sig (SigCgt of its status): a
 * step that delivers it then stops at the handler's first instruction.
 */
static int
catches(pid_t pid, pid_t tid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid,
	    (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return 1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
}

/*
 * Whether thread tid blocks SIGTRAP and has a handler for it (SigBlk and
 * SigCgt of its status): then a step's trap would reset the handler to
 * the default (the kernel does so for a trap it must deliver while it is
 * blocked), and the next SIGTRAP would kill the process.
 */
static int
trap_blocked(pid_t tid)
{
	char path[64], line[256];
	unsigned long long blk = 0, cgt = 0, m;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "SigBlk: %llx", &m) == 1)
			blk = m;
		else if (sscanf(line, "SigCgt: %llx", &m) == 1)
			cgt = m;
	fclose(f);
	return (blk & cgt) >> (SIGTRAP - 1) & 1;
}

/*
 * Thread p blocks SIGTRAP (it runs a SIGTRAP handler): it is not
 * stepped but run up to its next system call, where the watched bytes
 * are compared (its writes meanwhile are changes, not an instruction's),
 * and stepped again once SIGTRAP is unblocked.
 */
static int
free_run(struct watch *w, struct pthr *p, int sig)
{
	if (w->lost_unknown == NULL)
		w->lost_unknown = "a thread ran unstepped while it blocked "
		    "SIGTRAP (its SIGTRAP handler): its writes were seen only "
		    "as changes";
	p->sc_nr = -1;		/* which call: see on_status */
	if (sig != 0)
		pt_ctr(w)->signals_passed++;
	if (ptrace(PTRACE_SYSCALL, p->tid, 0, (void *)(long)sig) == -1)
		return -1;
	pt_ctr(w)->steps++;
	p->state = P_SYSENTER;
	return 0;
}

/* The call thread p entered when it ran free: its number and arguments. */
static void
entered(struct pthr *p)
{
	struct user_regs_struct u;

	if (ptrace(PTRACE_GETREGS, p->tid, 0, &u) == -1)
		return;
	p->sc_nr = (long)u.orig_rax;
	p->insn_ip = u.rip - 2;
	p->sc_args[0] = u.rdi;
	p->sc_args[1] = u.rsi;
	p->sc_args[2] = u.rdx;
	p->sc_args[3] = u.r10;
	p->sc_args[4] = u.r8;
	p->sc_args[5] = u.r9;
}

/*
 * Resumes thread p for one instruction.  A system call is run with
 * PTRACE_SYSCALL instead (entry and exit stops, no single-step trap), so
 * that a call that blocks does not hold up the other threads.
 */
static int
resume_step(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	int sig = p->sig, restart;

	if (fetch(s, p) == -1)
		return -1;
	p->insn_ip = p->pre.rip;
	p->steady = p->trapped;
	p->sig = 0;
	/* after a step's trap no call is pending: what is known will do */
	restart = p->known == K_ALL && restart_pending(&p->pre);
	/*
	 * A signal the thread does not catch runs no instruction of its
	 * own: a step over a system call would then run the call, and
	 * never end while it blocks.  The call is run as any other.
	 */
	if (p->freerun && !p->insn.is_syscall && !restart)
		return free_run(w, p, sig);
	if ((p->insn.is_syscall || restart) && (sig == 0 ||
	    !catches(w->pid, p->tid, sig))) {
		/* the call and its arguments; a restarted one sits behind */
		p->sc_nr = restart ? (long)p->pre.orig_rax : (long)p->pre.rax;
		if (restart)
			p->insn_ip -= 2;	/* syscall is 0f 05 */
		p->sc_args[0] = p->pre.rdi;
		p->sc_args[1] = p->pre.rsi;
		p->sc_args[2] = p->pre.rdx;
		p->sc_args[3] = p->pre.r10;
		p->sc_args[4] = p->pre.r8;
		p->sc_args[5] = p->pre.r9;
		if (sig != 0)
			pt_ctr(w)->signals_passed++;
		if (ptrace(PTRACE_SYSCALL, p->tid, 0, (void *)(long)sig) == -1)
			return -1;
		pt_ctr(w)->steps++;
		p->state = P_SYSENTER;
		return 0;
	}
	if (sig != 0) {
		/*
		 * With a handler, the step stops on its entry before the
		 * instruction runs: what changes, the kernel wrote.
		 */
		pt_ctr(w)->signals_passed++;
		p->sigstep = sig;
	}
	if (ptrace(PTRACE_SINGLESTEP, p->tid, 0, (void *)(long)sig) == -1)
		return -1;
	pt_ctr(w)->steps++;
	p->state = P_STEP;
	return 0;
}

static void
on_clone(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	struct wp_thread_rec tr;
	unsigned long msg;

	if (ptrace(PTRACE_GETEVENTMSG, p->tid, 0, &msg) == 0) {
		if (pfind(s, (pid_t)msg) == NULL)
			padd(s, (pid_t)msg);
		watch_thread(w, (pid_t)msg, THR_INHERITED);
		memset(&tr, 0, sizeof tr);
		tr.event = "start";
		tr.tid = (pid_t)msg;
		tr.by_tid = p->tid;
		tr.coverage = "inherited";
		tr.has_time = 1;
		tr.time_ns = watch_time(w, wp_now_ns());
		emit_thread(w, &tr);
	}
	/* on to the exit of the clone call */
	if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
		p->state = P_GONE;
}

/*
 * A forked child, traced since its fork: let go at its first stop,
 * which comes at once (unless take_status took it first, and let it go).
 */
static void
let_go(pid_t child)
{
	int status;
	pid_t r;

	while ((r = waitpid(child, &status, __WALL)) == -1 && errno == EINTR)
		;
	if (r == child && WIFSTOPPED(status))
		ptrace(PTRACE_DETACH, child, 0, 0);
}

/*
 * A fork or vfork of thread p: the child process is not followed (its
 * writes are to memory of its own, or, after vfork, before its exec),
 * only counted.
 */
static void
on_fork(struct watch *w, struct pthr *p)
{
	struct wp_thread_rec tr;
	unsigned long msg;

	if (ptrace(PTRACE_GETEVENTMSG, p->tid, 0, &msg) == 0) {
		let_go((pid_t)msg);
		w->other_processes++;
		memset(&tr, 0, sizeof tr);
		tr.event = "fork_process";
		tr.pid = (pid_t)msg;
		tr.by_tid = p->tid;
		tr.has_time = 1;
		tr.time_ns = watch_time(w, wp_now_ns());
		emit_thread(w, &tr);
	}
	if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
		p->state = P_GONE;
}

/*
 * A PTRACE_EVENT_STOP of thread p with signal sig: the process stopped
 * (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU: a group-stop) stays stopped, and
 * its end (SIGCONT) comes as another stop (PTRACE_LISTEN); any other is
 * a stop to step on from.  Returns 1 when p is ready.
 */
static int
group_stop(struct pthr *p, int sig)
{
	if ((sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU) && ptrace(PTRACE_LISTEN, p->tid, 0, 0) == 0) {
		p->state = P_LISTEN;
		return 0;
	}
	p->state = P_READY;
	return 1;
}

/*
 * Whether the SIGTRAP thread tid stopped with is the target's own: sent
 * by kill(2), tgkill(2), raise(3), sigqueue(3) (si_code SI_USER, SI_TKILL,
 * SI_QUEUE: 0 or less), or by the kernel for an int3 (SI_KERNEL), not the
 * trap of a step (TRAP_TRACE) or of a step into a handler (the stop
 * ptrace_notify makes, si_code SIGTRAP).
 */
static int
targets_trap(pid_t tid)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == -1)
		return 0;
	return si.si_signo == SIGTRAP && (si.si_code <= 0 ||
	    si.si_code == SI_KERNEL);
}

/*
 * Thread p's step stopped for a SIGTRAP of the target's own, delivered
 * with the next resume.  Its instruction ran if the IP moved (the trap
 * of the step is then merged into it: one SIGTRAP is pending at most).
 */
static int
own_trap(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	struct user_regs_struct u;

	if (ptrace(PTRACE_GETREGS, p->tid, 0, &u) == 0 && u.rip != p->insn_ip)
		s->after_step(w, s, p, 0);
	p->sig = SIGTRAP;
	p->sigstep = 0;
	p->state = P_READY;
	return 1;
}

/* Handles one wait status of thread p; returns 1 when p stopped ready. */
static int
on_status(struct watch *w, struct ptrace_state *s, struct pthr *p,
    int status)
{
	int was_syscall = p->state == P_SYSCALL, ev, sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		p->state = P_GONE;
		watch_thread(w, p->tid, THR_SEEDED)->exited = 1;
		watch_exited(w, p->tid, status);
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	p->known = K_NONE;
	p->trapped = 0;
	sig = WSTOPSIG(status);
	ev = status >> 16;
	if (sig == (SIGTRAP | 0x80)) {
		if (p->state == P_SYSENTER) {
			if (p->sc_nr == -1)
				entered(p);
			p->state = P_SYSCALL;
			if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
				p->state = P_GONE;
			return 0;
		}
		/* the exit of the call: what changed, the kernel wrote */
		s->after_step(w, s, p, 1);
		if (p->freerun || p->sc_nr == SYS_rt_sigprocmask ||
		    p->sc_nr == SYS_rt_sigreturn)
			p->freerun = trap_blocked(p->tid);
		p->state = P_READY;
		return 1;
	}
	if (sig == SIGTRAP && ev == 0 && p->state == P_STEP &&
	    targets_trap(p->tid))
		return own_trap(w, s, p);
	if (sig == SIGTRAP && ev == 0 && p->state == P_STEP) {
		/* a handler's entry: its mask may block SIGTRAP */
		if (p->sigstep)
			p->freerun = trap_blocked(p->tid);
		s->after_step(w, s, p, 0);
		ran_on(w, p);
		p->state = P_READY;
		return 1;
	}
	switch (ev) {
	case PTRACE_EVENT_CLONE:
		on_clone(w, s, p);
		return 0;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		on_fork(w, p);
		return 0;
	case PTRACE_EVENT_EXEC:
		s->exec_seen = 1;
		p->state = P_READY;
		return 1;
	case PTRACE_EVENT_EXIT:
		ptrace(PTRACE_CONT, p->tid, 0, 0);
		p->state = P_NEW;
		return 0;
	case PTRACE_EVENT_STOP:
		/* first stop after seize or clone, an interrupt, a group-stop */
		if (was_syscall)
			s->after_step(w, s, p, 1);
		return group_stop(p, sig);
	}
	/* a signal for the thread: deliver it with the next resume */
	if (!(sig == SIGTRAP && p->state == P_READY))
		p->sig = sig;
	if (was_syscall)
		s->after_step(w, s, p, 1);
	p->state = P_READY;
	return 1;
}

static int take_status(struct watch *, struct ptrace_state *, pid_t, int);

static void
seize_failed(struct watch *w, pid_t tid, int err)
{
	struct wp_thread_rec tr;
	struct thread *t = watch_thread(w, tid, THR_FAILED);

	t->state = THR_FAILED;
	t->err = err;
	memset(&tr, 0, sizeof tr);
	tr.event = "arm_failed";
	tr.tid = tid;
	tr.err = err;
	tr.has_time = 1;
	tr.time_ns = watch_time(w, wp_now_ns());
	emit_thread(w, &tr);
}

void
pt_seize_all(struct watch *w, struct ptrace_state *s)
{
	pid_t *tids;
	size_t n, i;
	int again = 1, rounds = 0;
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
	    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
	    PTRACE_O_TRACESYSGOOD;

	/* threads may be created while seizing: repeat until none is new */
	while (again && rounds++ < 100) {
		again = 0;
		if (wp_proc_tasks(w->pid, &tids, &n) == -1)
			return;
		for (i = 0; i < n; i++) {
			if (pfind(s, tids[i]) != NULL)
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0, (void *)opts) == -1) {
				if (errno != ESRCH)
					seize_failed(w, tids[i], errno);
				continue;
			}
			ptrace(PTRACE_INTERRUPT, tids[i], 0, 0);
			padd(s, tids[i]);
			watch_thread(w, tids[i], THR_SEEDED);
			again = 1;
		}
		free(tids);
	}
}

/*
 * Waits for the first stop of every thread seized (an interrupt, or the
 * group-stop of a stopped process), those cloned meanwhile too: then no
 * thread of the target runs, and what its memory holds is the watch's
 * start.
 */
void
pt_stop_all(struct watch *w, struct ptrace_state *s)
{
	int status, starting = 1;
	pid_t tid;
	size_t i;

	while (starting) {
		starting = 0;
		for (i = 0; i < s->n; i++)
			starting |= s->t[i]->state == P_NEW;
		if (!starting)
			break;
		if ((tid = waitpid(-1, &status, __WALL)) > 0)
			take_status(w, s, tid, status);
		else if (errno == ECHILD)
			break;
	}
}

/* Whether SIGTRAP is pending for thread tid (SigPnd of its status). */
static int
trap_pending(pid_t tid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "SigPnd: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask >> (SIGTRAP - 1) & 1;
}

/*
 * A step that does not end within 100 ms (it should end at once): the
 * thread is interrupted, and the SIGTRAP its step may have left pending
 * is taken (PTRACE_CONT to its stop, which also clears the trap flag)
 * so that it cannot kill the process after the detach.
 */
static void
end_step(struct pthr *p)
{
	struct timespec ms = { 0, 1000000 };
	int status, i;
	pid_t tid;

	for (i = 0; i < 100; i++) {
		if ((tid = waitpid(p->tid, &status, __WALL | WNOHANG)) != 0)
			goto got;
		nanosleep(&ms, NULL);
	}
	ptrace(PTRACE_INTERRUPT, p->tid, 0, 0);
	while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
	    errno == EINTR)
		;
got:
	if (tid != p->tid || !WIFSTOPPED(status)) {
		p->state = P_GONE;
		return;
	}
	if ((status >> 16) == PTRACE_EVENT_STOP && trap_pending(p->tid) &&
	    ptrace(PTRACE_CONT, p->tid, 0, 0) == 0) {
		while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
		    errno == EINTR)
			;
		if (tid != p->tid || !WIFSTOPPED(status)) {
			p->state = P_GONE;
			return;
		}
	}
	if ((status >> 16) == PTRACE_EVENT_EXIT) {
		ptrace(PTRACE_DETACH, p->tid, 0, 0);
		p->state = P_GONE;
		return;
	}
	if ((status >> 16) == 0 && !(WSTOPSIG(status) & 0x80) &&
	    (WSTOPSIG(status) != SIGTRAP || targets_trap(p->tid)))
		p->sig = WSTOPSIG(status);
	p->state = P_READY;
}

/* Waits for thread p to stop (P_READY), or to be gone. */
static void
stop_one(struct pthr *p)
{
	int status;
	pid_t tid;

	if (p->state == P_STEP)
		end_step(p);
	while (p->state != P_READY && p->state != P_GONE) {
		tid = waitpid(p->tid, &status, __WALL);
		if (tid == -1) {
			if (errno == EINTR)
				continue;
			p->state = P_GONE;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			p->state = P_GONE;
			break;
		}
		if (WIFSTOPPED(status) && (status >> 16) == 0 &&
		    !(WSTOPSIG(status) & 0x80) && (WSTOPSIG(status) !=
		    SIGTRAP || targets_trap(p->tid)))
			p->sig = WSTOPSIG(status);
		else if (WIFSTOPPED(status) &&
		    (status >> 16) == PTRACE_EVENT_EXIT) {
			ptrace(PTRACE_DETACH, p->tid, 0, 0);
			p->state = P_GONE;
			break;
		}
		p->state = P_READY;
	}
}

/*
 * Stops every thread (a blocked syscall is interrupted), runs stopped
 * (NULL: none) while none runs, and detaches.
 */
void
pt_detach_all(struct watch *w, struct ptrace_state *s,
    void (*stopped)(struct watch *, struct ptrace_state *))
{
	struct pthr *p;
	size_t i;

	/*
	 * A thread in the middle of a step is not interrupted: its step
	 * ends at once with a SIGTRAP that must be taken here, and an
	 * interrupt would stop it first and leave that SIGTRAP pending, to
	 * kill the process after the detach.
	 */
	for (i = 0; i < s->n; i++) {
		p = s->t[i];
		if (p->state != P_READY && p->state != P_GONE &&
		    p->state != P_STEP)
			ptrace(PTRACE_INTERRUPT, p->tid, 0, 0);
	}
	for (i = 0; i < s->n; i++)
		stop_one(s->t[i]);
	if (stopped != NULL)
		stopped(w, s);
	for (i = 0; i < s->n; i++) {
		p = s->t[i];
		if (p->state == P_READY)
			ptrace(PTRACE_DETACH, p->tid, 0, (void *)(long)p->sig);
		p->state = P_GONE;
	}
}

int
pt_alive(struct ptrace_state *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->state != P_GONE)
			return 1;
	return 0;
}

static int
ours(struct watch *w, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)w->pid, (int)tid);
	return access(path, F_OK) == 0;
}

struct pthr *
pt_next_ready(struct ptrace_state *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		k = (s->rr + i) % s->n;
		if (s->t[k]->state == P_READY) {
			s->rr = k + 1;
			return s->t[k];
		}
	}
	return NULL;
}

/*
 * The stop status of tid, for a thread known or new; a stop of another
 * process is a forked child's first: it is let go.
 */
static int
take_status(struct watch *w, struct ptrace_state *s, pid_t tid, int status)
{
	struct pthr *p;

	if ((p = pfind(s, tid)) == NULL) {
		if (!WIFSTOPPED(status))
			return 0;
		if (!ours(w, tid)) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			return 0;
		}
		p = padd(s, tid);
	}
	return on_status(w, s, p, status);
}

/* Stops of threads not being stepped: new threads, returned calls. */
void
pt_collect(struct watch *w, struct ptrace_state *s)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
		take_status(w, s, tid, status);
}

/* Steps thread p one instruction and takes its stop. */
void
pt_step(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	int status;
	pid_t tid;

	if (resume_step(w, s, p) == -1) {
		p->state = P_GONE;
		return;
	}
	if (p->state != P_STEP)
		return;		/* a system call: step the others */
	while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
	    errno == EINTR && !watch_signalled())
		;
	if (tid == p->tid)
		on_status(w, s, p, status);
	else if (tid == -1 && errno == ECHILD)
		p->state = P_GONE;
}

/* Everyone is in a system call (or starting): waits for any. */
void
pt_wait_any(struct watch *w, struct ptrace_state *s)
{
	uint64_t t0;
	int status, starting = 0;
	pid_t tid;
	size_t i;

	/* the target's own waiting, not its threads' attach */
	for (i = 0; i < s->n; i++)
		starting |= s->t[i]->state == P_NEW;
	t0 = wp_now_ns();
	tid = waitpid(-1, &status, __WALL);
	if (!starting)
		pt_ctr(w)->blocked_ns += wp_now_ns() - t0;
	if (tid > 0)
		take_status(w, s, tid, status);
	else if (tid == -1 && errno == ECHILD)
		for (i = 0; i < s->n; i++)
			s->t[i]->state = P_GONE;
}

/* Forgets the threads that are gone, so that a churn costs nothing. */
void
pt_prune(struct ptrace_state *s)
{
	size_t i, k;

	for (i = k = 0; i < s->n; i++)
		if (s->t[i]->state == P_GONE)
			free(s->t[i]);
		else
			s->t[k++] = s->t[i];
	s->n = k;
	if (s->rr >= s->n)
		s->rr = 0;
}
