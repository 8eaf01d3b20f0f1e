/*
 * --follow-mode stop: wp-arm traces the target's threads, which run on
 * (PTRACE_SEIZE), and the bpf program signals a thread that writes a
 * pointer of a follow chain; the thread stops before its next
 * instruction, and is let go once the leaf is re-armed, the signal
 * suppressed.  Everything else passes as if untraced: the target's own
 * signals are delivered as they came, group-stops are kept
 * (PTRACE_LISTEN), new threads are followed.  With stop-all every
 * thread is stopped for the re-arm.  The threads are the ptrace
 * engine's (tracee.c).
 */
#include <sys/ptrace.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hold.h"
#include "proc.h"
#include "tracee.h"

struct hold {
	struct tracee	 tr;		/* stop_sig: the signal the bpf
					   program sends */
	int		 all;
	int		 sfd;		/* SIGCHLD, as a descriptor */
	sigset_t	 mask;		/* before SIGCHLD was blocked */
	uint64_t	 held, passed;
};

/* An ignored-by-default signal the target does not catch itself. */
static int
pick_signal(pid_t pid)
{
	if (!tr_catches(pid, SIGURG))
		return SIGURG;
	if (!tr_catches(pid, SIGWINCH))
		return SIGWINCH;
	return 0;
}

/* The first thread that could not be seized. */
struct refused {
	pid_t	 tid;
	int	 err;
};

static void
refused(void *arg, pid_t tid, int err)
{
	struct refused *r = arg;

	if (r->err == 0) {
		r->tid = tid;
		r->err = err;
	}
}

static int
seize_all(struct hold *h, pid_t pid, struct wp_error *e)
{
	struct refused r = { 0, 0 };
	char tracer[96];

	if (tr_seize_all(&h->tr, PTRACE_O_TRACECLONE, 0, refused, &r) == 0 &&
	    r.err == 0)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: %s",
		    (int)pid, strerror(ESRCH));
	if (r.err == 0)
		return 0;
	wp_proc_tracer(r.tid, tracer, sizeof tracer);
	if (tracer[0] != '\0')
		return wp_error_set(e, WP_EXIT_ERROR, "cannot trace pid %d to "
		    "hold a pointer's writer: it is traced by %s", (int)pid,
		    tracer);
	return wp_error_set(e, WP_EXIT_ERROR, "cannot trace pid %d to hold a "
	    "pointer's writer: %s%s%s%s", (int)pid, strerror(r.err),
	    r.err == EPERM ? " (" : "",
	    r.err == EPERM ? wp_proc_trace_denied() : "",
	    r.err == EPERM ? ")" : "");
}

struct hold *
hold_open(pid_t pid, int all, struct wp_error *e)
{
	struct hold *h = wp_xcalloc(1, sizeof *h);
	sigset_t chld;

	h->all = all;
	tr_init(&h->tr, pid);
	if ((h->tr.stop_sig = pick_signal(pid)) == 0) {
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
	return h->tr.stop_sig;
}

/*
 * Our signal stopped t: its pointer's sample is read first (drain, when
 * not read yet), and the signal is suppressed once the leaf is re-armed.
 * Returns the signal to deliver.
 */
static int
our_signal(struct hold *h, struct tr_thread *t, void (*drain)(void *),
    void *arg)
{
	if (t->expect == 0 && drain != NULL)
		drain(arg);
	if (t->expect == 0)
		return t->sig;
	t->expect--;
	h->held++;
	return 0;
}

/*
 * A ptrace-stop of t, taken: a new thread followed, a group-stop kept,
 * the target's own signal passed on, ours suppressed.
 */
static void
on_stop(struct hold *h, struct tr_thread *t, void (*drain)(void *),
    void *arg)
{
	int sig = 0;

	switch (t->stop) {
	case TR_EVENT:
		if (t->event == PTRACE_EVENT_CLONE &&
		    tr_find(&h->tr, (pid_t)t->msg) == NULL)
			tr_add(&h->tr, (pid_t)t->msg, h->tr.pid);
		break;
	case TR_SIGNAL:
		sig = t->sig == h->tr.stop_sig ?
		    our_signal(h, t, drain, arg) : t->sig;
		if (sig != 0)
			h->passed++;
		break;
	case TR_EXITED:
		return;
	default:
		break;		/* a group-stop listens (tr_resume) */
	}
	tr_resume(&h->tr, t, TR_CONT, sig);
}

void
hold_service(struct hold *h, void (*drain)(void *), void *arg)
{
	struct signalfd_siginfo si;
	struct tr_thread *t;
	int none;

	while (read(h->sfd, &si, sizeof si) > 0)
		;
	tr_prune(&h->tr);
	while ((t = tr_wait(&h->tr, 0, &none)) != NULL)
		on_stop(h, t, drain, arg);
}

void
hold_pointer(struct hold *h, pid_t tid)
{
	struct tr_thread *t;

	if ((t = tr_find(&h->tr, tid)) == NULL)
		t = tr_add(&h->tr, tid, h->tr.pid);
	t->expect++;
	if (h->all)
		tr_hold(&h->tr, t);
}

void
hold_release(struct hold *h)
{
	tr_release(&h->tr);
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
	if (h == NULL)
		return;
	tr_detach_all(&h->tr);
	wp_close_fd(&h->sfd);
	sigprocmask(SIG_SETMASK, &h->mask, NULL);
	tr_close(&h->tr);
	free(h);
}
