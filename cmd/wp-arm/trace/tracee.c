/*
 * The ptrace engine: a thread table of a seized process, its stops
 * waited for and classified, threads resumed, held, and detached.
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "tracee.h"
#include "util.h"
#include "x86.h"

#define HOLD_MS		200	/* a thread held stops within this */
#define DETACH_MS	1000

/* PTRACE_GET_SYSCALL_INFO's answer (linux/ptrace.h, which glibc's
   sys/ptrace.h cannot be included with) */
struct sc_info {
	uint8_t		 op;
	uint8_t		 pad[3];
	uint32_t	 arch;
	uint64_t	 ip, sp;
	union {
		struct {
			uint64_t nr, args[6];
		} entry;
		struct {
			int64_t	 rval;
			uint8_t	 is_error;
		} exit;
		struct {
			uint64_t nr, args[6];
			uint32_t ret_data;
		} seccomp;
	} u;
};
#define SC_INFO_ENTRY	1
#define SC_INFO_EXIT	2

static pid_t
wait_tid(pid_t tid, int *status)
{
	pid_t r;

	while ((r = waitpid(tid, status, __WALL)) == -1 && errno == EINTR)
		;
	return r;
}

/*
 * Waits up to ms milliseconds for tid's next stop: tid, 0 when it has
 * not stopped (a vfork parent waits for its child where no interrupt
 * reaches it), or -1.
 */
static pid_t
wait_stop(pid_t tid, int *status, int ms)
{
	struct timespec tick = { 0, 100000 };
	pid_t r;
	int k;

	for (k = 0; k < ms * 10; k++) {
		if ((r = waitpid(tid, status, __WALL | WNOHANG)) != 0 &&
		    !(r == -1 && errno == EINTR))
			return r;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* The process thread tid belongs to (Tgid of its status), or tid. */
static pid_t
tgid_of(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	int tgid = (int)tid;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return tid;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return (pid_t)tgid;
}

/* What the stop of status is, into t. */
static void
classify(struct tr_thread *t, int status)
{
	struct sc_info si;
	int sig, ev, k;

	t->status = status;
	t->stopped_at = wp_now_ns();
	t->listening = 0;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		t->state = TR_GONE;
		t->stop = TR_EXITED;
		return;
	}
	t->state = TR_STOPPED;
	sig = WSTOPSIG(status);
	ev = (unsigned)status >> 16;
	if (sig == (SIGTRAP | 0x80)) {
		memset(&si, 0, sizeof si);
		if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof si, &si) > 0 &&
		    si.op == SC_INFO_EXIT) {
			t->stop = TR_SC_EXIT;
			t->rval = si.u.exit.rval;
			return;
		}
		t->stop = TR_SC_ENTRY;
		t->nr = (long)si.u.entry.nr;
		for (k = 0; k < 6; k++)
			t->args[k] = si.u.entry.args[k];
		return;
	}
	if (ev == PTRACE_EVENT_STOP) {
		t->stop = sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU ? TR_GROUP : TR_START;
		t->sig = sig;
		return;
	}
	if (ev != 0) {
		t->stop = TR_EVENT;
		t->event = ev;
		t->msg = 0;
		ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &t->msg);
		return;
	}
	t->stop = TR_SIGNAL;
	t->sig = sig;
}


void
tr_init(struct tracee *tr, pid_t pid)
{
	memset(tr, 0, sizeof *tr);
	tr->pid = pid;
	tr->memfd = -1;
}

void
tr_close(struct tracee *tr)
{
	size_t i;

	for (i = 0; i < tr->n; i++) {
		free(tr->t[i]->user);
		free(tr->t[i]);
	}
	free(tr->t);
	wp_close_fd(&tr->memfd);
	tr->t = NULL;
	tr->n = tr->cap = 0;
}

struct tr_thread *
tr_find(struct tracee *tr, pid_t tid)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i]->tid == tid && tr->t[i]->state != TR_GONE)
			return tr->t[i];
	return NULL;
}

struct tr_thread *
tr_add(struct tracee *tr, pid_t tid, pid_t tgid)
{
	struct tr_thread *t;
	size_t cap = tr->cap ? tr->cap * 2 : 16;

	/* the table stays whole if memory runs out (traced.c detaches) */
	if (tr->n == tr->cap) {
		tr->t = wp_xrealloc(tr->t, cap * sizeof *tr->t);
		tr->cap = cap;
	}
	t = wp_xcalloc(1, sizeof *t);
	tr->t[tr->n++] = t;
	t->tid = tid;
	t->tgid = tgid;
	t->state = TR_RUNNING;
	t->how = tr->opts & PTRACE_O_TRACESYSGOOD ? TR_SYSCALL : TR_CONT;
	return t;
}

void
tr_prune(struct tracee *tr)
{
	size_t i, k;

	for (i = k = 0; i < tr->n; i++)
		if (tr->t[i]->state == TR_GONE && !tr->t[i]->queued &&
		    tr->t[i]->user == NULL)
			free(tr->t[i]);
		else
			tr->t[k++] = tr->t[i];
	tr->n = k;
}

int
tr_alive(const struct tracee *tr)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i]->tgid == tr->pid && (tr->t[i]->state != TR_GONE ||
		    tr->t[i]->queued))
			return 1;
	return 0;
}

size_t
tr_seize_all(struct tracee *tr, long opts, int stop,
    void (*failed)(void *arg, pid_t tid, int err), void *arg)
{
	struct tr_thread *t;
	pid_t *tids;
	size_t n, i, seized = 0;
	int again = 1, rounds = 0, status;

	tr->opts = opts;
	/* threads may be created while seizing: repeat until none is new */
	while (again && rounds++ < 100) {
		again = 0;
		if (wp_proc_tasks(tr->pid, &tids, &n) == -1) {
			tr->tasks_err = errno;
			break;
		}
		tr->tasks_err = 0;
		for (i = 0; i < n; i++) {
			if (tr_find(tr, tids[i]) != NULL)
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0, (void *)opts) == -1) {
				if (errno != ESRCH && failed != NULL)
					failed(arg, tids[i], errno);
				continue;
			}
			if (stop)
				ptrace(PTRACE_INTERRUPT, tids[i], 0, 0);
			tr_add(tr, tids[i], tr->pid);
			seized++;
			again = 1;
		}
		free(tids);
	}
	for (i = 0; i < tr->n && stop; i++) {
		t = tr->t[i];
		if (t->state != TR_RUNNING)
			continue;
		if (wait_tid(t->tid, &status) != t->tid) {
			t->state = TR_GONE;
			t->stop = TR_EXITED;
			continue;
		}
		classify(t, status);
		/* anything but the interrupt's stop is the caller's to see */
		t->queued = t->stop != TR_START;
	}
	return seized;
}

/*
 * Stop t, as tr_wait returns it: where it is a clone, fork or vfork
 * event, the new thread's or child's first stop, kept back for it, is
 * queued after it.  A child whose stop is still to come is added now:
 * that stop is then of a child announced (the caller adds a thread).
 */
static struct tr_thread *
announce(struct tracee *tr, struct tr_thread *t)
{
	struct tr_thread *c;

	if (t->state != TR_STOPPED || t->stop != TR_EVENT ||
	    (t->event != PTRACE_EVENT_CLONE && t->event != PTRACE_EVENT_FORK &&
	    t->event != PTRACE_EVENT_VFORK))
		return t;
	if ((c = tr_find(tr, (pid_t)t->msg)) != NULL && c->unannounced) {
		c->unannounced = 0;
		c->queued = 1;
	} else if (c == NULL && t->event != PTRACE_EVENT_CLONE)
		tr_add(tr, (pid_t)t->msg, (pid_t)t->msg);
	return t;
}

struct tr_thread *
tr_wait(struct tracee *tr, int block, int *none)
{
	struct tr_thread *t;
	size_t i;
	int status;
	pid_t tid;

	*none = 0;
	for (i = 0; i < tr->n; i++)
		if (tr->t[i]->queued) {
			tr->t[i]->queued = 0;
			return announce(tr, tr->t[i]);
		}
	do {
		tid = waitpid(-1, &status, __WALL | (block ? 0 : WNOHANG));
		if (tid == 0)
			return NULL;
		if (tid == -1) {
			if (errno == ECHILD)
				*none = 1;
			return NULL;
		}
		if ((t = tr_find(tr, tid)) == NULL) {
			if (!WIFSTOPPED(status))
				return NULL;
			t = tr_add(tr, tid, tgid_of(tid));
			/*
			 * A thread's first stop can come before its
			 * creator's clone event, a child's before its
			 * parent's fork or vfork event: it waits for it, so
			 * that the thread starts before it is seen to run,
			 * and a vfork child, which shares the memory, is
			 * known for one before it runs.
			 */
			t->unannounced = 1;
		}
		classify(t, status);
	} while (t->unannounced && t->state == TR_STOPPED);
	return announce(tr, t);
}

int
tr_resume(struct tracee *tr, struct tr_thread *t, enum tr_resume how, int sig)
{
	static const int req[] = { PTRACE_CONT, PTRACE_SYSCALL,
	    PTRACE_SINGLESTEP };
	long r;

	(void)tr;
	if (t->state != TR_STOPPED)
		return t->state == TR_GONE ? -1 : 0;
	t->how = how;
	t->held = 0;
	if ((t->listening = t->stop == TR_GROUP) != 0)
		r = ptrace(PTRACE_LISTEN, t->tid, 0, 0);
	else
		r = ptrace(req[how], t->tid, 0, (void *)(long)sig);
	if (r == -1 && errno == ESRCH) {
		/* killed meanwhile: its exit is still to be waited for */
		t->state = TR_RUNNING;
		return -1;
	}
	t->state = TR_RUNNING;
	t->stop = TR_NONE;
	t->resumes += !t->listening;
	return 0;
}

int
tr_take(struct tr_thread *t)
{
	int status;

	t->state = TR_RUNNING;
	t->resumes++;		/* resumed by the caller, to be taken here */
	if (wait_tid(t->tid, &status) != t->tid) {
		t->state = TR_GONE;
		t->stop = TR_EXITED;
		return -1;
	}
	classify(t, status);
	return t->state == TR_GONE ? -1 : 0;
}

int
tr_step(struct tracee *tr, struct tr_thread *t, int sig)
{
	(void)tr;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, (void *)(long)sig) == -1 ||
	    tr_take(t) == -1)
		return -1;
	return t->stop == TR_SIGNAL && t->sig == SIGTRAP ? 0 : 1;
}

void
tr_hold(struct tracee *tr, struct tr_thread *except)
{
	struct tr_thread *t;
	size_t i;
	int status;
	pid_t r;

	for (i = 0; i < tr->n; i++) {
		t = tr->t[i];
		/* a thread in group-stop runs nothing, and would run on */
		if (t == except || t->state != TR_RUNNING || t->listening)
			continue;
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
			t->held = 1;
	}
	for (i = 0; i < tr->n; i++) {
		t = tr->t[i];
		if (!t->held || t->state != TR_RUNNING)
			continue;
		if ((r = wait_stop(t->tid, &status, HOLD_MS)) == 0) {
			/*
			 * Not stopped yet (a vfork parent waits where no
			 * interrupt reaches it): the interrupt stays pending,
			 * so it stops before it runs an instruction of its
			 * own, and that stop comes to tr_wait.
			 */
			t->held = 0;
			continue;
		}
		if (r != t->tid) {
			t->state = TR_GONE;
			t->stop = TR_EXITED;
			t->held = 0;
			continue;
		}
		classify(t, status);
		if (t->stop != TR_START) {
			t->queued = 1;
			t->held = 0;
		}
	}
}

void
tr_release(struct tracee *tr)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i]->held && tr->t[i]->state == TR_STOPPED) {
			tr->stopped_ns += wp_now_ns() - tr->t[i]->stopped_at;
			tr_resume(tr, tr->t[i], tr->t[i]->how, 0);
		}
}


void
tr_detach(struct tracee *tr, struct tr_thread *t, int sig)
{
	(void)tr;
	if (t->state == TR_STOPPED)
		ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)sig);
	t->state = TR_GONE;
	t->queued = 0;
}

void
tr_let_go(struct tracee *tr, pid_t child)
{
	int status;

	if (tr_find(tr, child) == NULL && wait_tid(child, &status) ==
	    child && WIFSTOPPED(status))
		ptrace(PTRACE_DETACH, child, 0, 0);
}

/* PTRACE_GET_RSEQ_CONFIGURATION and its answer (linux/ptrace.h) */
#define GET_RSEQ_CONFIGURATION	0x420f
struct rseq_config {
	uint64_t	 ptr;
	uint32_t	 size, signature, flags, pad;
};

int
tr_rseq(pid_t tid, struct tr_rseq *rs)
{
	struct rseq_config rc;

	memset(&rc, 0, sizeof rc);
	memset(rs, 0, sizeof *rs);
	if (ptrace(GET_RSEQ_CONFIGURATION, tid, sizeof rc, &rc) <= 0)
		return -1;
	rs->area = rc.ptr;
	rs->len = rc.size ? rc.size : 32;	/* 0 before Linux 6.3 */
	rs->sig = rc.signature;
	return 0;
}

/* struct rseq_cs (linux/rseq.h) */
struct rseq_desc {
	uint32_t	 version, flags;
	uint64_t	 start_ip, post_commit_offset, abort_ip;
};

int
tr_rseq_cs(int memfd, uint64_t area, struct tr_rseq_cs *cs)
{
	struct rseq_desc d;
	uint64_t ptr;

	memset(cs, 0, sizeof *cs);
	if (area == 0 || pread(memfd, &ptr, sizeof ptr, (off_t)(area +
	    TR_RSEQ_CS_AT)) != sizeof ptr || ptr == 0 ||
	    pread(memfd, &d, sizeof d, (off_t)ptr) != sizeof d ||
	    d.version != 0 || d.post_commit_offset == 0 ||
	    d.start_ip + d.post_commit_offset < d.start_ip)
		return -1;
	cs->ptr = ptr;
	cs->start = d.start_ip;
	cs->end = d.start_ip + d.post_commit_offset;
	cs->abort_ip = d.abort_ip;
	return 0;
}

int
tr_rseq_cs_put(int memfd, uint64_t area, uint64_t v)
{
	return pwrite(memfd, &v, sizeof v, (off_t)(area + TR_RSEQ_CS_AT)) ==
	    sizeof v ? 0 : -1;
}

/* Whether sig is pending for thread tid (SigPnd of its status). */
static int
sig_pending(pid_t tid, int sig)
{
	return tr_sigmask(tid, "SigPnd") >> (sig - 1) & 1;
}

int
tr_trap_pending(pid_t tid)
{
	return sig_pending(tid, SIGTRAP);
}

int
tr_own_trap(struct tr_thread *t)
{
	siginfo_t si;

	/*
	 * The target's own is sent by kill(2), tgkill(2), raise(3),
	 * sigqueue(3) (si_code 0 or less) or by the kernel for an int3
	 * (SI_KERNEL); a step's is TRAP_TRACE (TRAP_BRKPT over a syscall),
	 * a step into a handler's the si_code SIGTRAP of ptrace_notify.
	 */
	return t->stop == TR_SIGNAL && t->sig == SIGTRAP &&
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 &&
	    si.si_signo == SIGTRAP && si.si_code > 0 &&
	    si.si_code != SI_KERNEL;
}

/*
 * A step's SIGTRAP still queued behind another stop (an interrupt came
 * first) would kill the process after the detach: it is taken here (the
 * target's own is delivered with the detach, see tr_own_trap).
 */
static void
take_pending(struct tr_thread *t, int sig)
{
	int status;

	if (t->stop == TR_SIGNAL || !sig_pending(t->tid, sig) ||
	    ptrace(PTRACE_CONT, t->tid, 0, 0) == -1)
		return;
	if (wait_stop(t->tid, &status, DETACH_MS) != t->tid) {
		t->state = TR_GONE;
		return;
	}
	classify(t, status);
}

void
tr_take_signal(struct tr_thread *t, int sig)
{
	if (t->state == TR_STOPPED && t->stop != TR_GROUP)
		take_pending(t, sig);
}

/*
 * Whether t's stop is a fault the kernel raised for its instruction
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE): not delivered, that instruction
 * raises it again when the thread runs on.
 */
static int
fault_stop(const struct tr_thread *t)
{
	siginfo_t si;

	return t->stop == TR_SIGNAL && (t->sig == SIGSEGV ||
	    t->sig == SIGBUS || t->sig == SIGILL || t->sig == SIGFPE) &&
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 &&
	    si.si_signo == t->sig && si.si_code > 0;
}

void
tr_detach_all(struct tracee *tr)
{
	struct tr_thread *t;
	size_t i;
	int status, sig, sent = 0;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i]->state == TR_RUNNING)
			ptrace(PTRACE_INTERRUPT, tr->t[i]->tid, 0, 0);
	for (i = 0; i < tr->n; i++) {
		t = tr->t[i];
		if (t->state == TR_RUNNING) {
			/* one that does not stop is let go as the tracer exits */
			if (wait_stop(t->tid, &status, DETACH_MS) != t->tid) {
				t->state = TR_GONE;
				continue;
			}
			classify(t, status);
		}
		if (t->state == TR_STOPPED)
			take_pending(t, SIGTRAP);
		if (t->state != TR_STOPPED)
			continue;
		sig = t->stop == TR_SIGNAL && !tr_own_trap(t) ? t->sig : 0;
		if (sig != 0 && sig == tr->stop_sig && t->expect > 0)
			sig = 0;
		if (tr->keep_stopped && fault_stop(t))
			sig = 0;
		if (tr->keep_stopped && !sent) {
			kill(tr->pid, SIGSTOP);
			sent = 1;
		}
		tr_detach(tr, t, sig);
	}
}

uint64_t
tr_sigmask(pid_t tid, const char *key)
{
	char path[64], buf[4096], *at, *nl;
	unsigned long long mask = 0;
	size_t n = strlen(key);
	ssize_t len;
	int fd;

	/* no stdio: this runs when memory has run out too (traced.c) */
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	len = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[len > 0 ? len : 0] = '\0';
	for (at = buf; at != NULL; at = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(at, '\n');
		if (strncmp(at, key, n) == 0 && at[n] == ':')
			return sscanf(at + n + 1, "%llx", &mask) == 1 ? mask : 0;
	}
	return 0;
}

int
tr_catches(pid_t tid, int sig)
{
	return sig >= 1 && sig <= 64 &&
	    (tr_sigmask(tid, "SigCgt") >> (sig - 1) & 1);
}
