/*
 * --follow-mode stop: wp-arm traces the target's threads, which run on
 * (PTRACE_SEIZE), and the bpf program signals a thread that writes a
 * pointer of a follow chain; the thread stops before its next
 * instruction, and is let go once the leaf is re-armed, the signal
 * suppressed.  Everything else passes as if untraced: the target's own
 * signals are delivered as they came, group-stops are kept
 * (PTRACE_LISTEN), new threads are followed.  With stop-all every
 * thread is stopped for the re-arm.
 */
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hold.h"
#include "proc.h"

enum hstate { H_RUN, H_STOPPED, H_LISTEN, H_GONE };

struct hthr {
	pid_t		 tid;
	enum hstate	 state;
	int		 expect;	/* our signals on their way to it */
	int		 pending;	/* a signal of its own to deliver */
	int		 interrupted;	/* stopped by us, for stop-all */
};

struct hold {
	int		 sig;
	int		 all;
	int		 sfd;		/* SIGCHLD, as a descriptor */
	sigset_t	 mask;		/* before SIGCHLD was blocked */
	struct hthr	**t;		/* entries never move */
	size_t		 n, cap;
	uint64_t	 held, passed;
};

static struct hthr *
find(struct hold *h, pid_t tid)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->t[i]->tid == tid && h->t[i]->state != H_GONE)
			return h->t[i];
	return NULL;
}

static struct hthr *
add(struct hold *h, pid_t tid, enum hstate st)
{
	struct hthr *t;

	if ((t = find(h, tid)) != NULL)
		return t;
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;	/* of pointers */
		h->t = wp_xrealloc(h->t, h->cap * sizeof *h->t);
	}
	t = h->t[h->n++] = wp_xcalloc(1, sizeof *t);
	t->tid = tid;
	t->state = st;
	return t;
}

/* Bit sig of the mask named key in /proc/PID/status. */
static int
status_bit(pid_t pid, const char *key, int sig)
{
	char path[64], line[256];
	unsigned long long m;
	size_t n = strlen(key);
	FILE *f;
	int bit = 0;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':' &&
		    sscanf(line + n + 1, "%llx", &m) == 1)
			bit = (m >> (sig - 1)) & 1;
	fclose(f);
	return bit;
}

/* An ignored-by-default signal the target does not catch itself. */
static int
pick_signal(pid_t pid)
{
	if (!status_bit(pid, "SigCgt", SIGURG))
		return SIGURG;
	if (!status_bit(pid, "SigCgt", SIGWINCH))
		return SIGWINCH;
	return 0;
}

/*
 * Detaches every thread: a running or listening one is stopped first; a
 * signal of its own that stop brought is delivered with the detach.
 */
static void
undo(struct hold *h)
{
	struct hthr *t;
	size_t i;
	int st, sig;

	for (i = 0; i < h->n; i++) {
		t = h->t[i];
		sig = 0;
		if (t->state == H_RUN || t->state == H_LISTEN) {
			if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == -1 ||
			    waitpid(t->tid, &st, __WALL) != t->tid ||
			    !WIFSTOPPED(st)) {
				t->state = H_GONE;
				continue;
			}
			if ((st >> 16) == 0)
				sig = WSTOPSIG(st);
		} else if (t->state == H_GONE)
			continue;
		if (sig == h->sig && t->expect > 0)
			sig = 0;
		ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)sig);
		t->state = H_GONE;
	}
}

static int
seize_all(struct hold *h, pid_t pid, struct wp_error *e)
{
	char tracer[96];
	pid_t *tids, tid;
	size_t n, i;
	int again = 1, rounds = 0, err;

	while (again && rounds++ < 100) {
		again = 0;
		if (wp_proc_tasks(pid, &tids, &n) == -1)
			return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: %s",
			    (int)pid, strerror(errno));
		for (i = 0; i < n; i++) {
			if (find(h, tids[i]) != NULL)
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0,
			    (void *)(long)PTRACE_O_TRACECLONE) == 0) {
				add(h, tids[i], H_RUN);
				again = 1;
				continue;
			}
			if ((err = errno) == ESRCH)
				continue;
			tid = tids[i];
			free(tids);
			wp_proc_tracer(tid, tracer, sizeof tracer);
			if (tracer[0] != '\0')
				return wp_error_set(e, WP_EXIT_ERROR, "cannot "
				    "trace pid %d to hold a pointer's writer: "
				    "it is traced by %s", (int)pid, tracer);
			return wp_error_set(e, WP_EXIT_ERROR, "cannot trace "
			    "pid %d to hold a pointer's writer: %s (see "
			    "kernel.yama.ptrace_scope)", (int)pid,
			    strerror(err));
		}
		free(tids);
	}
	return 0;
}

struct hold *
hold_open(pid_t pid, int all, struct wp_error *e)
{
	struct hold *h = wp_xcalloc(1, sizeof *h);
	sigset_t chld;

	h->all = all;
	if ((h->sig = pick_signal(pid)) == 0) {
		wp_error_set(e, WP_EXIT_ERROR, "pid %d handles SIGURG and "
		    "SIGWINCH itself: no signal is free to hold a pointer's "
		    "writer", (int)pid);
		free(h);
		return NULL;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &h->mask);
	if ((h->sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC)) == -1 ||
	    seize_all(h, pid, e) == -1) {
		if (h->sfd == -1)
			wp_error_set(e, WP_EXIT_ERROR, "signalfd: %s",
			    strerror(errno));
		hold_close(h);
		return NULL;
	}
	return h;
}

int
hold_fd(const struct hold *h)
{
	return h->sfd;
}

int
hold_signal(const struct hold *h)
{
	return h->sig;
}

static void
resume(struct hthr *t, int sig)
{
	if (ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)sig) == 0)
		t->state = H_RUN;
	else
		t->state = H_GONE;
	t->interrupted = 0;
}

/* A ptrace-stop of t (status st); returns whether t stays stopped. */
static int
on_stop(struct hold *h, struct hthr *t, int st,
    void (*drain)(void *), void *arg)
{
	int sig = WSTOPSIG(st), ev = st >> 16;
	unsigned long msg;

	t->state = H_STOPPED;
	if (ev == PTRACE_EVENT_CLONE) {
		if (ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg) == 0)
			add(h, (pid_t)msg, H_RUN);
	} else if (ev == PTRACE_EVENT_STOP) {
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			/* a group-stop: kept until SIGCONT */
			if (ptrace(PTRACE_LISTEN, t->tid, 0, 0) == 0)
				t->state = H_LISTEN;
			return 1;
		}
		if (t->interrupted)
			return 1;	/* stop-all: let go after the re-arm */
	} else if (ev == 0 && sig == h->sig) {
		if (t->expect == 0 && drain != NULL)
			drain(arg);	/* its pointer's sample, not yet read */
		if (t->expect > 0) {
			t->expect--;
			h->held++;
			sig = 0;	/* ours: the leaf is re-armed */
		}
		if (sig == 0 && t->interrupted)
			return 1;
	}
	if (ev == 0 && sig != 0)
		h->passed++;
	resume(t, ev == 0 ? sig : 0);
	return 0;
}

void
hold_service(struct hold *h, void (*drain)(void *), void *arg)
{
	struct signalfd_siginfo si;
	struct hthr *t;
	pid_t tid;
	int st;

	while (read(h->sfd, &si, sizeof si) > 0)
		;
	while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0) {
		if ((t = find(h, tid)) == NULL)
			t = add(h, tid, H_RUN);
		if (WIFEXITED(st) || WIFSIGNALED(st))
			t->state = H_GONE;
		else if (WIFSTOPPED(st))
			on_stop(h, t, st, drain, arg);
	}
}

void
hold_pointer(struct hold *h, pid_t tid)
{
	struct hthr *t, *o;
	size_t i;
	pid_t got;
	int st;

	if ((t = find(h, tid)) == NULL)
		t = add(h, tid, H_RUN);
	t->expect++;
	if (!h->all)
		return;
	for (i = 0; i < h->n; i++) {
		o = h->t[i];
		if (o->state == H_RUN && o->tid != tid &&
		    ptrace(PTRACE_INTERRUPT, o->tid, 0, 0) == 0)
			o->interrupted = 1;
	}
	for (i = 0; i < h->n; i++) {
		o = h->t[i];
		while (o->interrupted && o->state == H_RUN) {
			if ((got = waitpid(o->tid, &st, __WALL)) != o->tid)
				o->state = H_GONE;
			else if (WIFEXITED(st) || WIFSIGNALED(st))
				o->state = H_GONE;
			else
				on_stop(h, o, st, NULL, NULL);
		}
	}
}

void
hold_release(struct hold *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->t[i]->interrupted && h->t[i]->state == H_STOPPED)
			resume(h->t[i], 0);
}

void
hold_counts(const struct hold *h, uint64_t *held, uint64_t *passed)
{
	*held = h->held;
	*passed = h->passed;
}

void
hold_close(struct hold *h)
{
	size_t i;

	if (h == NULL)
		return;
	undo(h);
	if (h->sfd != -1)
		close(h->sfd);
	sigprocmask(SIG_SETMASK, &h->mask, NULL);
	for (i = 0; i < h->n; i++)
		free(h->t[i]);
	free(h->t);
	free(h);
}
