/*
 * What the backends that trace share above the ptrace engine.
 */
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <linux/kcmp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "traced.h"
#include "tracee.h"
#include "util.h"
#include "vocab.h"
#include "watch.h"

static volatile sig_atomic_t ticked;
static struct tracee *live;	/* attached: let go before a fatal exit */
static void (*undo)(void *);	/* and what is undone before, with: */
static void *undo_arg;

static void
on_tick(int sig)
{
	(void)sig;
	ticked = 1;
}

void
traced_tick(long usec)
{
	struct itimerval it;
	struct sigaction sa;

	if (usec > 0) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_tick;
		sigaction(SIGALRM, &sa, NULL);
	}
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = usec;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

int
traced_ticked(int clear)
{
	int was = ticked;

	if (clear)
		ticked = 0;
	return was;
}

void
traced_run(struct watch *w, const int *exec_seen,
    int (*alive)(struct watch *), void (*round)(struct watch *))
{
	sigset_t blocked;

	sigprocmask(SIG_SETMASK, &w->waitmask, &blocked);
	while (!ticked && !watch_stopping(w)) {
		if (*exec_seen || !alive(w)) {
			w->stop_reason = wp_stop_names[*exec_seen ?
			    WP_STOP_EXEC : WP_STOP_EXITED];
			break;
		}
		round(w);
	}
	ticked = 0;
	sigprocmask(SIG_SETMASK, &blocked, NULL);
}

/* A thread record of event for tid (or pid, a process), by thread by. */
static void
thread_rec(struct watch *w, const char *event, pid_t tid, pid_t pid,
    pid_t by, int err)
{
	struct wp_thread_rec tr;

	memset(&tr, 0, sizeof tr);
	tr.event = event;
	tr.tid = tid;
	tr.pid = pid;
	tr.by_tid = by;
	tr.err = err;
	if (strcmp(event, "start") == 0)
		tr.coverage = "inherited";
	tr.has_time = 1;
	tr.time_ns = watch_time(w, wp_now_ns());
	emit_thread(w, &tr);
}

void
traced_started(struct watch *w, pid_t tid, pid_t by)
{
	watch_thread(w, tid, THR_INHERITED);
	thread_rec(w, "start", tid, 0, by, 0);
}

void
traced_exited(struct watch *w, pid_t tid, int status)
{
	struct thread *t = watch_thread(w, tid, THR_SEEDED);

	watch_exited(w, tid, status);
	if (t->exited)
		return;
	t->exited = 1;
	thread_rec(w, "exit", tid, 0, 0, 0);
}

void
traced_forked(struct watch *w, pid_t pid, pid_t by)
{
	w->other_processes++;
	thread_rec(w, "fork_process", 0, pid, by, 0);
}

int
traced_shares_vm(pid_t target, pid_t pid, int event)
{
	long r;

	/* without kcmp(2) (CONFIG_KCMP), what the event says */
	if ((r = syscall(SYS_kcmp, target, pid, KCMP_VM, 0, 0)) == -1)
		return event == PTRACE_EVENT_VFORK;
	return r == 0;
}

void
traced_child_gone(struct watch *w, pid_t pid)
{
	struct thread *t = watch_thread(w, pid, THR_INHERITED);

	if (t->exited)
		return;
	t->exited = 1;
	thread_rec(w, "exit", pid, 0, 0, 0);
}

int
traced_setid_exec(struct watch *w, int memfd, pid_t tid, long nr,
    const uint64_t args[6])
{
	static char detail[2 * PATH_MAX + 160];
	char path[PATH_MAX], full[PATH_MAX + 64], name[PATH_MAX + 32];
	const char *why;
	struct stat st;
	ssize_t n;
	int at = nr == SYS_execveat, fd = (int)args[0];

	if ((nr != SYS_execve && !at) || (n = pread(memfd, path,
	    sizeof path - 1, (off_t)args[at])) <= 0)
		return 0;
	path[n] = '\0';
	snprintf(name, sizeof name, "%s", path);
	if (at && path[0] == '\0' && (args[4] & AT_EMPTY_PATH)) {
		/* fexecve: the file open at fd, named as the process has it */
		snprintf(full, sizeof full, "/proc/%d/fd/%d", (int)tid, fd);
		if ((n = readlink(full, path, sizeof path - 1)) == -1)
			n = 0;
		path[n] = '\0';
		snprintf(name, sizeof name, "%s (fd %d)", path, fd);
	} else if (strncmp(path, "/proc/self/", 11) == 0)
		/* the process's own, not wp-arm's */
		snprintf(full, sizeof full, "/proc/%d/%s", (int)tid, path + 11);
	else if (strncmp(path, "/proc/thread-self/", 18) == 0)
		snprintf(full, sizeof full, "/proc/%d/%s", (int)tid, path + 18);
	else if (path[0] == '/')
		snprintf(full, sizeof full, "/proc/%d/root%s", (int)tid, path);
	else if (at && fd != AT_FDCWD)
		snprintf(full, sizeof full, "/proc/%d/fd/%d/%s", (int)tid, fd,
		    path);
	else
		snprintf(full, sizeof full, "/proc/%d/cwd/%s", (int)tid, path);
	if (stat(full, &st) == -1 || !S_ISREG(st.st_mode))
		return 0;
	if ((st.st_mode & S_ISUID) ||
	    (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		why = "set-user-ID or set-group-ID";
	else if (getxattr(full, "security.capability", NULL, 0) > 0)
		why = "with file capabilities (security.capability)";
	else
		return 0;
	snprintf(detail, sizeof detail, "thread %d execs %s, %s: let go "
	    "before, as a traced exec runs without its privileges", (int)tid,
	    name, why);
	w->stop_detail = detail;
	return 1;
}

static void
seize_failed(void *arg, pid_t tid, int err)
{
	struct watch *w = arg;
	struct thread *t = watch_thread(w, tid, THR_FAILED);

	t->state = THR_FAILED;
	t->err = err;
	thread_rec(w, "arm_failed", tid, 0, 0, err);
}

int
traced_open(struct watch *w, struct tracee *tr, int inject,
    struct wp_error *e)
{
	unsigned long long st;

	errno = 0;
	if (wp_proc_starttime(w->pid, &st) == -1 && errno != ENOENT &&
	    errno != ESRCH)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: cannot read "
		    "/proc/%d/stat: %s", (int)w->pid, (int)w->pid, errno ?
		    strerror(errno) : "not what the kernel writes there");
	if (!wp_proc_alive(w->pid, w->start_time))
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: the process "
		    "has exited or its pid was reused", (int)w->pid);
	return tr_open(tr, w->pid, inject, e);
}

/*
 * wp-arm is to end on a failure (out of memory) while it traces: every
 * thread is let go first, as at a disarm, no trap flag left set.
 */
static void
on_fatal(const char *why)
{
	if (live != NULL) {
		if (undo != NULL)
			undo(undo_arg);
		tr_detach_all(live);
	}
	live = NULL;
	guard_failed(why);
}

void
traced_on_fatal(void (*fn)(void *arg), void *arg)
{
	undo = fn;
	undo_arg = arg;
}

void
traced_detach(struct tracee *tr)
{
	if (live == tr) {
		live = NULL;
		undo = NULL;
	}
	tr_detach_all(tr);
}

int
traced_attach(struct watch *w, struct tracee *tr, struct wp_error *e)
{
	char tracer[128];
	size_t i;

	live = tr;
	wp_on_fatal(on_fatal);
	if (tr_seize_all(tr, TRACED_OPTS, 1, seize_failed, w) == 0) {
		live = NULL;
		if (tr->tasks_err != 0 && tr->tasks_err != ENOENT)
			return wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot "
			    "attach: cannot list its threads (/proc/%d/task): "
			    "%s", (int)w->pid, (int)w->pid,
			    strerror(tr->tasks_err));
		wp_proc_tracer(w->pid, tracer, sizeof tracer);
		if (tracer[0] != '\0')
			return wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot "
			    "attach: it is traced by %s (a debugger: one tracer "
			    "at a time)", (int)w->pid, tracer);
		return wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot attach: "
		    "%s", (int)w->pid, w->nthr ? strerror(w->thr[0].err) :
		    "no thread");
	}
	for (i = 0; i < tr->n; i++)
		watch_thread(w, tr->t[i]->tid, THR_SEEDED);
	return 0;
}

void
traced_bytes(struct watch *w, unsigned char ***last, unsigned char **buf)
{
	size_t i, maxlen = 1;

	*last = wp_xcalloc(w->nt, sizeof **last);
	for (i = 0; i < w->nt; i++) {
		(*last)[i] = wp_xcalloc(1, (size_t)w->t[i].len);
		if (maxlen < (size_t)w->t[i].len)
			maxlen = (size_t)w->t[i].len;
	}
	*buf = wp_xmalloc(maxlen);
}

void
traced_bytes_free(struct watch *w, unsigned char **last, unsigned char *buf)
{
	size_t i;

	for (i = 0; i < w->nt && last != NULL; i++)
		free(last[i]);
	free(last);
	free(buf);
}

void
traced_armed(struct watch *w, size_t threads)
{
	w->armed.threads = threads;
	w->armed.cpus = -1;
	w->armed.events = -1;
	w->armed.ring_pages = -1;
	traced_tick(50000);
}

void
traced_count(struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nt; i++) {
		w->t[i].counted = w->t[i].hits + w->t[i].unwritten;
		w->t[i].counted_known = 1;
	}
}

void
traced_initial(struct watch *w, unsigned char *const *last)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && w->t[i].len <= 8) {
			w->t[i].has_initial = 1;
			w->t[i].initial = wp_le64(last[i], (size_t)w->t[i].len);
		}
}

void
traced_read_latest(struct watch *w, int memfd)
{
	unsigned char b[8];
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && w->t[i].len <= 8 && pread(memfd, b,
		    (size_t)w->t[i].len, (off_t)w->t[i].addr) == w->t[i].len) {
			w->t[i].has_latest = 1;
			w->t[i].latest = wp_le64(b, (size_t)w->t[i].len);
		}
}


void
traced_frame(int memfd, pid_t tid, struct traced_frame *f)
{
	const struct tr_frame_shape *fs = &tr_frame_shape;
	struct user_regs_struct u;
	uint64_t hdr[72], sp, ss, ssz, at;

	memset(f, 0, sizeof *f);
	if (tr_getregs(tid, &u) == -1 || pread(memfd, hdr,
	    (fs->sp + 1) * 8, (off_t)(at = tr_sp(&u))) !=
	    (ssize_t)(fs->sp + 1) * 8)
		return;
	ss = hdr[fs->ss_sp];	/* uc_stack.ss_sp, ss_size */
	ssz = hdr[fs->ss_size];
	sp = hdr[fs->sp];	/* the interrupted stack pointer */
	f->known = 1;
	f->lo = at;
	f->core = at + fs->core;
	if (at >= ss && at < ss + ssz && !(sp >= ss && sp < ss + ssz))
		f->hi = ss + ssz;
	else
		f->hi = sp - tr_red_zone;
	if (f->hi < f->lo + fs->size || f->hi - f->lo > (1 << 20))
		f->hi = f->lo + fs->size;
}

int
traced_frame_wrote(const struct traced_frame *f, uint64_t lo, uint64_t hi,
    uint64_t span[2])
{
	const struct tr_frame_shape *fs = &tr_frame_shape;
	const uint64_t part[2][2] = { { f->lo, f->core },
	    { f->lo + fs->gap, f->lo + fs->size } };
	uint64_t a, b;
	int k, n = 0;

	for (k = 0; k < 2 && f->known; k++) {
		a = lo > part[k][0] ? lo : part[k][0];
		b = hi < part[k][1] ? hi : part[k][1];
		if (a >= b)
			continue;
		if (span != NULL) {
			if (n == 0)
				span[0] = a;
			span[1] = b;
		}
		n = 1;
	}
	return n;
}

void
traced_unexplained(struct watch *w, uint64_t n)
{
	if (n > 0 && w->lost_unknown == NULL)
		w->lost_unknown = "changes no thread of the target made "
		    "(another process's writes) may each hide several writes";
}

