/*
 * A backend that traces (BK_TRACES: ptrace, page) does so from a child
 * process, and this one supervises it.  A single-stepped
 * thread carries the trap flag, and if its tracer dies of SIGKILL the
 * kernel lets it go with the flag set: the process is killed by SIGTRAP
 * at its next instruction (or, with pages left protected, by SIGSEGV at
 * its next write there: b->orphan_signal).  wp-arm itself (the pid a user, a shell's job
 * control, timeout(1) or a service manager signals) only waits: the
 * signals it gets are passed on, and if it is killed the kernel sends the
 * child SIGTERM (PR_SET_PDEATHSIG), which detaches as for any signal.
 * The child has a process group of its own, so that a signal to the
 * group (kill -9 -PGID, timeout -s KILL) does not reach it either, and
 * a name of its own (wp-trace) for those who kill by name.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "util.h"
#include "watch.h"

/*
 * What the parent reports if the child is killed: the target table, the
 * chains (hits, counts) and the backend's counters (w->obs) live in
 * memory both share, and the child notes the time base here at every
 * tick.  One supervisor a process: the child's side is kept here.
 */
struct guard_page {
	uint64_t		 t0;
	int			 started;
	size_t			 tsize, csize, osize;	/* of the shared */
	char			 failed[128];	/* why the child ends: let go */
};

static struct guard_page *guard;	/* shared with the other side */
static pid_t guard_parent;		/* in the child: wp-arm */

static volatile sig_atomic_t pending[NSIG];
static volatile sig_atomic_t any;

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		return;		/* wakes the wait */
	pending[sig] = 1;
	any = 1;
}

/* Passes on to the child every signal that came since the last call. */
static void
forward(pid_t child)
{
	int s;

	any = 0;
	for (s = 1; s < NSIG; s++)
		if (pending[s]) {
			pending[s] = 0;
			kill(child, s);
		}
}

/*
 * A record the child was writing when it was killed is ended, so that
 * the observation is a line of its own (readers report the half one).
 * Only a regular file can be read back.
 */
static void
end_line(void)
{
	struct stat st;
	off_t at;
	char c = '\n';
	int fd;

	if (fstat(STDOUT_FILENO, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (at = lseek(STDOUT_FILENO, 0, SEEK_CUR)) <= 0)
		return;
	/* standard output is opened for writing only */
	if ((fd = open("/proc/self/fd/1", O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if (pread(fd, &c, 1, at - 1) != 1)
		c = '\n';
	close(fd);
	if (c != '\n' && write(STDOUT_FILENO, "\n", 1) != 1)
		return;
}

/*
 * The parent: waits for the child, passing signals on, and exits as it
 * did.  The signals are blocked but while it sleeps.
 */
static void
supervise(struct watch *w, pid_t child, const sigset_t *sleepmask)
{
	char why[256], killer[32];
	int status;
	pid_t r;

	for (;;) {
		if (any)
			forward(child);
		if ((r = waitpid(child, &status, WNOHANG)) == child)
			break;
		if (r == -1 && errno != EINTR)
			err(WP_EXIT_ERROR, "waitpid");
		sigsuspend(sleepmask);
	}
	if (WIFEXITED(status) && guard->failed[0] == '\0')
		_exit(WEXITSTATUS(status));
	/*
	 * The child was killed (SIGKILL, or a fault), or failed and let the
	 * process go: what it wrote is in the stream, the rest is lost; the
	 * observation says so.
	 */
	snprintf(killer, sizeof killer, "%s", WIFEXITED(status) ? "" :
	    watch_signame(WTERMSIG(status)));
	if (WIFEXITED(status))
		snprintf(why, sizeof why, "the tracing process %d failed (%s): "
		    "it let the process go first, the watch ended there, and "
		    "the hits it had not written are lost", (int)child,
		    guard->failed);
	else
		snprintf(why, sizeof why, "the tracing process %d was killed "
		    "by %s: the watch ended there, the hits it had not written "
		    "are lost, and the process was likely killed by %s",
		    (int)child, killer,
		    watch_signame(w->backend->orphan_signal));
	warnx("%s", why);
	end_line();
	if (guard->started) {
		w->t0 = guard->t0;
		w->elapsed_ms = (wp_now_ns() - w->t0) / 1000000;
	}
	w->lost_unknown = WIFEXITED(status) ? "the tracing process failed" :
	    "the tracing process was killed";
	observation_write(w, why);
	_exit(WP_EXIT_ERROR);
}

/* A copy of the n bytes at *p in memory shared across fork; frees *p. */
static int
share(void **p, size_t n)
{
	void *m;

	if (n == 0)
		n = 1;
	if ((m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return -1;
	if (*p != NULL)
		memcpy(m, *p, n);
	free(*p);
	*p = m;
	return 0;
}

static int
share_all(struct watch *w)
{
	struct guard_page *g;
	size_t ts = w->nt * sizeof *w->t, cs = w->nchains * sizeof *w->chains;
	size_t os = w->backend->obs_size;

	if ((g = mmap(NULL, sizeof *g, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return -1;
	memset(g, 0, sizeof *g);
	g->tsize = ts ? ts : 1;
	g->csize = cs ? cs : 1;
	g->osize = os ? os : 1;
	if (share((void **)&w->t, ts) == -1 ||
	    share((void **)&w->chains, cs) == -1 ||
	    share(&w->obs, os) == -1)
		err(WP_EXIT_ERROR, "mmap");	/* w->t may be gone */
	guard = g;
	return 0;
}

/*
 * In the child, after every run: the time base, once it is set; and a
 * signal that came before the watch caught them, raised again.
 */
static void
note(struct watch *w)
{
	int s;

	/* a signal that came before the watch caught them */
	for (s = 1; any && s < NSIG; s++)
		if (pending[s]) {
			pending[s] = 0;
			raise(s);
		}
	any = 0;
	guard->t0 = w->t0;
	guard->started = 1;
}

void
guard_stopped(struct watch *w)
{
	static char buf[64];

	if (guard_parent == 0 || w->stop_reason == NULL ||
	    strcmp(w->stop_reason, "signal") != 0 ||
	    getppid() == guard_parent)
		return;
	snprintf(buf, sizeof buf, "%s: wp-arm (pid %d) was killed",
	    w->stop_detail, (int)guard_parent);
	w->stop_detail = buf;
}

void
guard_failed(const char *why)
{
	if (guard != NULL && guard_parent != 0)
		snprintf(guard->failed, sizeof guard->failed, "%s", why);
}

void
guard_free(struct watch *w)
{
	if (guard == NULL)
		return;
	munmap(w->t, guard->tsize);
	munmap(w->chains, guard->csize);
	munmap(w->obs, guard->osize);
	munmap(guard, sizeof *guard);
	w->t = NULL;
	w->chains = NULL;
	w->obs = NULL;
	guard = NULL;
}

void
guard_fork(struct watch *w)
{
	struct sigaction sa;
	sigset_t stop, orig, sleepmask;
	pid_t parent = getpid(), child;
	int s;

	if (emit_flush(w) == -1)
		return;		/* the watch finds the output closed */
	if (share_all(w) == -1) {
		warn("mmap: tracing from wp-arm itself (a SIGKILL of it kills "
		    "the process)");
		return;
	}
	watch_stop_signals(&stop);
	sigaddset(&stop, SIGCHLD);
	sigprocmask(SIG_BLOCK, &stop, &orig);
	if ((child = fork()) == -1) {
		warn("fork: tracing from wp-arm itself (a SIGKILL of it kills "
		    "the process)");
		sigprocmask(SIG_SETMASK, &orig, NULL);
		return;
	}
	if (child == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != parent)
			_exit(WP_EXIT_ERROR);
		setpgid(0, 0);
		/* so that pkill -9 wp-arm, killall wp-arm spare it too */
		prctl(PR_SET_NAME, "wp-trace");
		guard_parent = parent;
		w->supervisor_note = note;
		/* one sent to the group before setpgid: kept for note */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		watch_stop_signals(&stop);
		for (s = 1; s < NSIG; s++)
			if (sigismember(&stop, s) == 1)
				sigaction(s, &sa, NULL);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		return;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	for (s = 1; s < NSIG; s++)
		if (sigismember(&stop, s) == 1)
			sigaction(s, &sa, NULL);
	/* the child's tick: sent to wp-arm, as harmless as to the child */
	signal(SIGALRM, SIG_IGN);
	sleepmask = orig;
	for (s = 1; s < NSIG; s++)
		if (sigismember(&stop, s) == 1)
			sigdelset(&sleepmask, s);
	supervise(w, child, &sleepmask);
}
