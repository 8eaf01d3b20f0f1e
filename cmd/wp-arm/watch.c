#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"
#include "proc.h"
#include "record.h"
#include "util.h"
#include "watch.h"

struct evid {
	uint64_t	id;
	int		target;
};

struct perf_state {
	struct wp_watch		*w;
	int			 ncpu;
	struct wp_perf_ring	*rings;		/* one per CPU */
	int			*fds;
	int			*fdt;		/* target entry of each fd, -1 */
	size_t			 nfds, capfds;
	int			 memfd;
	unsigned char		*dirty;		/* per chain: a pointer moved */
	struct evid		*ids;
	size_t			 nids, capids;
	int			 sorted;
	uint64_t		 t0;
	int			 exec_seen;
	int			 stop;		/* max events reached */
	int			 scan;
};

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

static struct wp_thread *
thread_find(struct wp_watch *w, pid_t tid)
{
	size_t i;

	for (i = 0; i < w->nthr; i++)
		if (w->thr[i].tid == tid)
			return &w->thr[i];
	return NULL;
}

/* The thread's entry, added in state st when it is new. */
struct wp_thread *
wp_watch_thread(struct wp_watch *w, pid_t tid, enum wp_thread_state st)
{
	struct wp_thread *t;

	if ((t = thread_find(w, tid)) != NULL)
		return t;
	w->thr = wp_xrealloc(w->thr, (w->nthr + 1) * sizeof *w->thr);
	t = &w->thr[w->nthr++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->state = st;
	return t;
}

static size_t
count_state(const struct wp_watch *w, enum wp_thread_state st)
{
	size_t i, n = 0;

	for (i = 0; i < w->nthr; i++)
		n += w->thr[i].state == st;
	return n;
}

static size_t
count_exited(const struct wp_watch *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->nthr; i++)
		n += w->thr[i].exited || w->thr[i].state == WP_THR_EXITED;
	return n;
}

static int
cmp_evid(const void *a, const void *b)
{
	const struct evid *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int
target_of(struct perf_state *s, uint64_t id)
{
	struct evid key = { id, 0 }, *e;

	if (!s->sorted) {
		qsort(s->ids, s->nids, sizeof *s->ids, cmp_evid);
		s->sorted = 1;
	}
	e = bsearch(&key, s->ids, s->nids, sizeof *s->ids, cmp_evid);
	return e ? e->target : -1;
}

static int
emit(struct perf_state *s, const char *buf, int n)
{
	if (s->w->output_closed)
		return -1;
	if (wp_record_write(buf, (size_t)n) == -1) {
		s->w->output_closed = 1;
		return -1;
	}
	return 0;
}

static int64_t
rel_ns(struct perf_state *s, uint64_t t)
{
	return (int64_t)(t - s->t0);
}

static int
on_record(const struct wp_perf_rec *r, void *arg)
{
	struct perf_state *s = arg;
	struct wp_watch *w = s->w;
	struct wp_thread *t;
	char buf[2048];
	int n, ti, i;

	switch (r->kind) {
	case WP_PERF_SAMPLE:
		if ((pid_t)r->pid != w->pid) {
			w->excluded_other++;
			return 0;
		}
		if ((ti = target_of(s, r->id)) < 0) {
			w->ambiguous++;
			return 0;
		}
		if (s->stop)
			return 0;
		w->t[ti].hits++;
		w->accepted++;
		n = snprintf(buf, sizeof buf, "{\"type\":\"hit\",\"target\":%d,"
		    "\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"time_ns\":%" PRId64
		    ",\"ip\":\"0x%" PRIx64 "\"", w->t[ti].id, r->pid, r->tid,
		    r->cpu, rel_ns(s, r->time), r->ip);
		n += wp_watch_hit_extra(w, (size_t)ti, buf + n, sizeof buf - (size_t)n);
		if (w->t[ti].chain >= 0) {
			struct wp_chain *c = &w->chains[w->t[ti].chain];

			if ((size_t)w->t[ti].level < c->noffs) {
				c->ptr_hits++;
				s->dirty[w->t[ti].chain] = 1;
			} else
				c->leaf_hits++;
		}
		if (r->nregs > 0) {
			n += snprintf(buf + n, sizeof buf - (size_t)n,
			    ",\"regs\":{");
			for (i = 0; i < r->nregs; i++)
				n += snprintf(buf + n, sizeof buf - (size_t)n,
				    "%s\"%s\":\"0x%" PRIx64 "\"", i ? "," : "",
				    wp_x86_reg_names[i], r->regs[i]);
			n += snprintf(buf + n, sizeof buf - (size_t)n, "}");
		}
		n += snprintf(buf + n, sizeof buf - (size_t)n, "}");
		if (w->accepted >= w->max_events) {
			s->stop = 1;
			w->truncated = 1;
		}
		return emit(s, buf, n);
	case WP_PERF_FORK:
		if ((pid_t)r->pid != w->pid) {
			if ((pid_t)r->ppid == w->pid && r->pid == r->tid) {
				w->other_processes++;
				n = snprintf(buf, sizeof buf, "{\"type\":\"thread\","
				    "\"event\":\"fork_process\",\"pid\":%u,"
				    "\"by_tid\":%u,\"time_ns\":%" PRId64 "}",
				    r->pid, r->ptid, rel_ns(s, r->time));
				return emit(s, buf, n);
			}
			return 0;
		}
		t = thread_find(w, (pid_t)r->tid);
		if (t != NULL && t->state != WP_THR_PENDING)
			return 0;
		t = wp_watch_thread(w, (pid_t)r->tid, WP_THR_INHERITED);
		t->state = WP_THR_INHERITED;
		n = snprintf(buf, sizeof buf, "{\"type\":\"thread\",\"event\":"
		    "\"start\",\"tid\":%u,\"by_tid\":%u,\"coverage\":"
		    "\"inherited\",\"time_ns\":%" PRId64 "}", r->tid, r->ptid,
		    rel_ns(s, r->time));
		return emit(s, buf, n);
	case WP_PERF_EXIT:
		if ((pid_t)r->pid != w->pid)
			return 0;
		if ((t = thread_find(w, (pid_t)r->tid)) == NULL || t->exited)
			return 0;
		t->exited = 1;
		n = snprintf(buf, sizeof buf, "{\"type\":\"thread\",\"event\":"
		    "\"exit\",\"tid\":%u,\"time_ns\":%" PRId64 "}", r->tid,
		    rel_ns(s, r->time));
		return emit(s, buf, n);
	case WP_PERF_LOST:
		w->lost += r->lost;
		w->lost_records++;
		n = snprintf(buf, sizeof buf, "{\"type\":\"lost\",\"count\":%"
		    PRIu64 ",\"cpu\":%u,\"time_ns\":%" PRId64 "}", r->lost,
		    r->cpu, rel_ns(s, r->time));
		return emit(s, buf, n);
	case WP_PERF_EXEC:
		if ((pid_t)r->pid == w->pid)
			s->exec_seen = 1;
		return 0;
	case WP_PERF_BAD:
		w->unparsed++;
		return 0;
	case WP_PERF_OTHER:
		return 0;
	}
	return 0;
}

/*
 * After a pointer of a chain was written: read the chain again, and move
 * the breakpoints of the entries after it on every thread (and the
 * threads that inherited them), arming or disarming them.
 */
static void
rebind_chains(struct perf_state *s)
{
	struct wp_watch *w = s->w;
	struct wp_watch_target old[WP_CHAIN_MAXDEPTH + 1], *t;
	struct wp_perf_bp bp;
	char buf[1024];
	size_t ci, k, i;
	int n;

	for (ci = 0; ci < w->nchains; ci++) {
		struct wp_chain *c = &w->chains[ci];

		if (!s->dirty[ci])
			continue;
		s->dirty[ci] = 0;
		memcpy(old, &w->t[c->base], (c->noffs + 1) * sizeof *old);
		n = wp_watch_chain_update(w, s->memfd, ci,
		    (int64_t)(wp_now_ns() - s->t0), buf, sizeof buf);
		if (n > 0 && emit(s, buf, n) == 0)
			wp_record_out_flush();	/* scripts may wait on it */
		for (k = 0; k <= c->noffs; k++) {
			t = &w->t[c->base + k];
			if (t->addr == old[k].addr && t->armed == old[k].armed)
				continue;
			bp.addr = t->addr;
			bp.len = t->len;
			bp.rw = t->rw;
			bp.regs = w->regs;
			bp.disabled = !t->armed;
			for (i = 0; i < s->nfds; i++)
				if (s->fdt[i] == (int)(c->base + k) &&
				    wp_perf_modify_bp(s->fds[i], &bp) == -1)
					w->modify_errors++;
		}
	}
}

static void
drain_all(struct perf_state *s)
{
	int c;

	for (c = 0; c < s->ncpu; c++)
		if (s->rings[c].base != NULL)
			wp_perf_drain(&s->rings[c], s->w->regs, on_record, s);
	if (s->w->nchains > 0)
		rebind_chains(s);
}

static void
add_fd(struct perf_state *s, int fd, int target)
{
	uint64_t id;

	if (s->nfds == s->capfds) {
		s->capfds = s->capfds ? s->capfds * 2 : 64;
		s->fds = wp_xrealloc(s->fds, s->capfds * sizeof *s->fds);
		s->fdt = wp_xrealloc(s->fdt, s->capfds * sizeof *s->fdt);
	}
	s->fdt[s->nfds] = target;
	s->fds[s->nfds++] = fd;
	if (wp_perf_id(fd, &id) == 0) {
		if (s->nids == s->capids) {
			s->capids = s->capids ? s->capids * 2 : 64;
			s->ids = wp_xrealloc(s->ids, s->capids * sizeof *s->ids);
		}
		s->ids[s->nids].id = id;
		s->ids[s->nids++].target = target;
		s->sorted = 0;
	}
}

static void
perm_error(struct wp_watch *w, int e)
{
	snprintf(w->error, sizeof w->error, "perf_event_open: %s "
	    "(kernel.perf_event_paranoid is %d; run as root or with "
	    "CAP_PERFMON)", strerror(e), wp_perf_paranoid());
}

/*
 * Arms every target on thread tid, one event per CPU, each redirected
 * into that CPU's ring.  Returns 0, or an errno.
 */
/* Maps the CPU's ring on its first event, else redirects into it. */
static int
attach(struct perf_state *s, int fd, int c, int target)
{
	struct wp_watch *w = s->w;
	int e;

	if (s->rings[c].base == NULL) {
		if (wp_perf_ring_map(&s->rings[c], fd, c, w->ring_pages) == -1) {
			e = errno;
			snprintf(w->error, sizeof w->error, "cannot map a perf "
			    "ring of %zu pages on CPU %d: %s (lower --ring-pages,"
			    " or raise kernel.perf_event_mlock_kb)",
			    w->ring_pages, c, strerror(e));
			close(fd);
			return e;
		}
	} else if (wp_perf_set_output(fd, s->rings[c].fd) == -1) {
		e = errno;
		close(fd);
		return e;
	}
	add_fd(s, fd, target);
	return 0;
}

/*
 * Arms every target on thread tid, one event per CPU, each redirected
 * into that CPU's ring, and a task event per CPU for fork, exit and
 * exec records.  Returns 0, or an errno.
 */
static int
arm_thread(struct perf_state *s, pid_t tid)
{
	struct wp_watch *w = s->w;
	struct wp_perf_bp bp;
	size_t ti;
	int c, fd, e;

	for (c = 0; c < s->ncpu; c++) {
		if ((fd = wp_perf_open_task(tid, c)) == -1) {
			if (errno == ENODEV && c > 0)
				continue;	/* an offline CPU */
			return errno;
		}
		if ((e = attach(s, fd, c, -1)) != 0)
			return e;
		for (ti = 0; ti < w->nt; ti++) {
			bp.addr = w->t[ti].addr;
			bp.len = w->t[ti].len;
			bp.rw = w->t[ti].rw;
			bp.regs = w->regs;
			bp.disabled = !w->t[ti].armed;
			if ((fd = wp_perf_open_bp(&bp, tid, c, 1)) == -1)
				return errno;
			if ((e = attach(s, fd, c, (int)ti)) != 0)
				return e;
		}
	}
	return 0;
}

static void
arm_error(struct wp_watch *w, pid_t tid, int e)
{
	if (w->error[0] != '\0')
		return;
	if (e == ENOSPC)
		snprintf(w->error, sizeof w->error, "thread %d: no free debug "
		    "register (ENOSPC): another debugger or a system-wide perf "
		    "session may hold the slots", (int)tid);
	else if (e == EACCES || e == EPERM)
		perm_error(w, e);
	else
		snprintf(w->error, sizeof w->error, "thread %d: "
		    "perf_event_open: %s", (int)tid, strerror(e));
}

/* Finds threads that no event covers yet; arms those seen twice. */
static void
rescan(struct perf_state *s)
{
	struct wp_watch *w = s->w;
	struct wp_thread *t;
	pid_t *tids;
	size_t n, i;
	char buf[256];
	int e, len;

	s->scan++;
	if (wp_proc_tasks(w->pid, &tids, &n) == -1)
		return;
	for (i = 0; i < n; i++) {
		t = thread_find(w, tids[i]);
		if (t == NULL) {
			t = wp_watch_thread(w, tids[i], WP_THR_PENDING);
			t->scan = s->scan;
			continue;
		}
		if (t->state != WP_THR_PENDING || t->scan == s->scan)
			continue;
		/* No fork record came for it: no event was inherited. */
		if ((e = arm_thread(s, t->tid)) == 0) {
			t->state = WP_THR_DYNAMIC;
			len = snprintf(buf, sizeof buf, "{\"type\":\"thread\","
			    "\"event\":\"start\",\"tid\":%d,\"by_tid\":null,"
			    "\"coverage\":\"attached_late\",\"time_ns\":%"
			    PRId64 "}", (int)t->tid,
			    (int64_t)(wp_now_ns() - s->t0));
		} else if (e == ESRCH) {
			t->state = WP_THR_EXITED;
			continue;
		} else {
			t->state = WP_THR_FAILED;
			t->err = e;
			len = snprintf(buf, sizeof buf, "{\"type\":\"thread\","
			    "\"event\":\"arm_failed\",\"tid\":%d,\"errno\":%d,"
			    "\"error\":\"%s\"}", (int)t->tid, e, strerror(e));
		}
		emit(s, buf, len);
	}
	free(tids);
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int
pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int
emit_armed(struct perf_state *s)
{
	char buf[512];
	int n;

	n = snprintf(buf, sizeof buf, "{\"type\":\"armed\",\"backend\":"
	    "\"perf_breakpoint\",\"pid\":%d,\"threads\":%zu,\"targets\":%zu,"
	    "\"cpus\":%d,\"events\":%zu,\"ring_pages\":%zu,\"regs\":%s,"
	    "\"clock\":\"CLOCK_MONOTONIC\",\"time_base_ns\":\"0x%" PRIx64
	    "\"}", (int)s->w->pid, count_state(s->w, WP_THR_SEEDED),
	    s->w->nt, s->ncpu, s->nfds, s->w->ring_pages,
	    s->w->regs ? "true" : "false", s->t0);
	if (emit(s, buf, n) == -1 || wp_record_out_flush() == -1) {
		s->w->output_closed = 1;
		return -1;
	}
	return 0;
}

/*
 * The perf backend: arms, streams hit records until a stop condition,
 * disarms.  Returns 0 when a watch ran (stop_reason says how it ended),
 * -1 with w->error set when nothing could be armed.
 */
int
wp_watch_perf(struct wp_watch *w)
{
	struct perf_state s;
	sigset_t block, orig;
	struct pollfd *pfd;
	struct timespec ts;
	uint64_t start, deadline, now, next_scan;
	unsigned long long st;
	pid_t *tids;
	size_t n, i, np;
	int c, e, pidfd, rc = 0;

	memset(&s, 0, sizeof s);
	s.w = w;
	s.memfd = -1;
	w->stop_reason = NULL;
	raise_nofile();
	s.ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (s.ncpu < 1)
		s.ncpu = 1;
	s.rings = wp_xcalloc((size_t)s.ncpu, sizeof *s.rings);

	wp_watch_catch_signals(on_signal, &block, &orig);

	if ((pidfd = pidfd_open(w->pid)) == -1 ||
	    wp_proc_starttime(w->pid, &st) == -1 || st != w->start_time) {
		snprintf(w->error, sizeof w->error, "pid %d: the process has "
		    "exited or its pid was reused", (int)w->pid);
		rc = -1;
		goto out;
	}
	s.t0 = wp_now_ns();
	s.dirty = wp_xcalloc(w->nchains + 1, 1);
	if (w->nchains > 0) {
		char buf[1024];
		int len;

		if ((s.memfd = wp_proc_mem_open(w->pid)) == -1) {
			snprintf(w->error, sizeof w->error, "pid %d: cannot "
			    "read its memory to follow pointers: %s", (int)w->pid,
			    strerror(errno));
			rc = -1;
			goto out;
		}
		for (i = 0; i < w->nchains; i++)
			if ((len = wp_watch_chain_update(w, s.memfd, i, 0, buf,
			    sizeof buf)) > 0)
				emit(&s, buf, len);
	}
	if (wp_proc_tasks(w->pid, &tids, &n) == -1) {
		snprintf(w->error, sizeof w->error, "pid %d: %s", (int)w->pid,
		    strerror(errno));
		rc = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (thread_find(w, tids[i]) != NULL)
			continue;	/* inherited while arming */
		if ((e = arm_thread(&s, tids[i])) == 0)
			wp_watch_thread(w, tids[i], WP_THR_SEEDED);
		else if (e == ESRCH)
			wp_watch_thread(w, tids[i], WP_THR_EXITED);
		else {
			arm_error(w, tids[i], e);
			free(tids);
			rc = -1;
			goto out;
		}
		/* fork records of threads created meanwhile */
		drain_all(&s);
	}
	free(tids);
	if (count_state(w, WP_THR_SEEDED) == 0) {
		snprintf(w->error, sizeof w->error, "pid %d: no thread could "
		    "be armed (the process is exiting)", (int)w->pid);
		rc = -1;
		goto out;
	}
	rescan(&s);
	if (emit_armed(&s) == -1) {
		w->stop_reason = "output_closed";
		goto stop;
	}

	start = wp_now_ns();
	deadline = start + w->duration_ms * 1000000;
	next_scan = start + 50000000;
	pfd = wp_xcalloc((size_t)s.ncpu + 2, sizeof *pfd);
	for (;;) {
		np = 0;
		for (c = 0; c < s.ncpu; c++)
			if (s.rings[c].base != NULL) {
				pfd[np].fd = s.rings[c].fd;
				pfd[np++].events = POLLIN;
			}
		pfd[np].fd = pidfd;
		pfd[np++].events = POLLIN;
		pfd[np].fd = STDOUT_FILENO;
		pfd[np++].events = 0;
		now = wp_now_ns();
		if (now >= deadline) {
			w->stop_reason = "duration";
			break;
		}
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(deadline - now < 50000000 ?
		    deadline - now : 50000000);
		ppoll(pfd, np, &ts, &orig);
		drain_all(&s);
		if (w->output_closed || (pfd[np - 1].revents & (POLLERR |
		    POLLHUP))) {
			w->output_closed = 1;
			w->stop_reason = "output_closed";
			break;
		}
		if (s.stop) {
			w->stop_reason = "max_events";
			break;
		}
		if (got_signal) {
			w->stop_reason = "signal";
			w->stop_detail = got_signal == SIGINT ? "SIGINT" :
			    got_signal == SIGTERM ? "SIGTERM" : "SIGHUP";
			break;
		}
		if (s.exec_seen) {
			w->stop_reason = "target_exec";
			break;
		}
		if (pfd[np - 2].revents & POLLIN) {
			w->stop_reason = "target_exited";
			break;
		}
		if ((now = wp_now_ns()) >= next_scan) {
			rescan(&s);
			next_scan = now + 50000000;
		}
	}
	free(pfd);
stop:
	for (i = 0; i < s.nfds; i++)
		ioctl(s.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	drain_all(&s);
	if (s.stop && strcmp(w->stop_reason, "duration") == 0)
		w->stop_reason = "max_events";
	w->elapsed_ms = (wp_now_ns() - s.t0) / 1000000;
out:
	for (c = 0; c < s.ncpu; c++)
		wp_perf_ring_unmap(&s.rings[c]);
	for (i = 0; i < s.nfds; i++)
		close(s.fds[i]);
	if (pidfd != -1)
		close(pidfd);
	free(s.rings);
	free(s.fds);
	free(s.fdt);
	free(s.ids);
	free(s.dirty);
	if (s.memfd != -1)
		close(s.memfd);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return rc;
}

/*
 * SIGINT, SIGTERM and SIGHUP end a watch: they are blocked (the caller
 * lets them in where it waits) and go to handler, without SA_RESTART so
 * that the wait returns.
 */
void
wp_watch_catch_signals(void (*handler)(int), sigset_t *block, sigset_t *orig)
{
	struct sigaction sa;

	sigemptyset(block);
	sigaddset(block, SIGINT);
	sigaddset(block, SIGTERM);
	sigaddset(block, SIGHUP);
	sigprocmask(SIG_BLOCK, block, orig);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static json_object *
jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *
jint(uint64_t v)
{
	return json_object_new_uint64(v);
}

json_object *
wp_watch_observation(struct wp_watch *w, const char *backend)
{
	json_object *o, *c, *a, *l, *tt;
	size_t i, dyn, pend, failed;
	int lower;

	dyn = count_state(w, WP_THR_DYNAMIC);
	pend = count_state(w, WP_THR_PENDING);
	failed = count_state(w, WP_THR_FAILED);
	o = json_object_new_object();
	json_object_object_add(o, "type", jstr("observation"));
	json_object_object_add(o, "backend", jstr(backend));
	json_object_object_add(o, "pid", json_object_new_int(w->pid));
	json_object_object_add(o, "duration_requested_ms", jint(w->duration_ms));
	json_object_object_add(o, "elapsed_ms", jint(w->elapsed_ms));
	json_object_object_add(o, "max_events", jint(w->max_events));
	json_object_object_add(o, "stop_reason", jstr(w->stop_reason));
	json_object_object_add(o, "stop_detail", jstr(w->stop_detail));
	json_object_object_add(o, "error", w->error[0] ? jstr(w->error) : NULL);
	json_object_object_add(o, "truncated_by_max_events",
	    json_object_new_boolean(w->truncated));
	json_object_object_add(o, "accepted_hits", jint(w->accepted));

	c = json_object_new_object();
	json_object_object_add(c, "seeded_tids",
	    jint(count_state(w, WP_THR_SEEDED)));
	json_object_object_add(c, "inherited_tids",
	    jint(count_state(w, WP_THR_INHERITED)));
	json_object_object_add(c, "dynamically_attached_tids", jint(dyn));
	json_object_object_add(c, "unattached_tids", jint(pend + failed));
	json_object_object_add(c, "exited_tids", jint(count_exited(w)));
	a = json_object_new_array();
	for (i = 0; i < w->nthr; i++) {
		json_object *f;

		if (w->thr[i].state != WP_THR_FAILED)
			continue;
		f = json_object_new_object();
		json_object_object_add(f, "tid",
		    json_object_new_int(w->thr[i].tid));
		json_object_object_add(f, "errno",
		    json_object_new_int(w->thr[i].err));
		json_object_object_add(f, "error",
		    jstr(strerror(w->thr[i].err)));
		json_object_array_add(a, f);
	}
	json_object_object_add(c, "failed_tids", a);
	json_object_object_add(c, "forked_processes", jint(w->other_processes));
	json_object_object_add(c, "excluded_other_process_events",
	    jint(w->excluded_other));
	json_object_object_add(c, "ambiguous_events", jint(w->ambiguous));
	json_object_object_add(c, "unparsed_records", jint(w->unparsed));
	a = json_object_new_array();
	if (dyn > 0)
		json_object_array_add(a, jstr("threads_attached_late"));
	if (pend > 0)
		json_object_array_add(a, jstr("threads_never_attached"));
	if (failed > 0)
		json_object_array_add(a, jstr("threads_failed_to_arm"));
	if (w->ambiguous > 0)
		json_object_array_add(a, jstr("events_of_unknown_origin"));
	if (w->unparsed > 0)
		json_object_array_add(a, jstr("malformed_perf_ring_records"));
	/* between a pointer write and the re-arm, the leaf is not watched */
	if (w->nchains > 0 && strcmp(backend, "perf_breakpoint") == 0)
		json_object_array_add(a, jstr("follow_rebind_window"));
	if (w->modify_errors > 0)
		json_object_array_add(a, jstr("follow_rearm_failed"));
	json_object_object_add(c, "partial_coverage",
	    json_object_new_boolean(json_object_array_length(a) > 0));
	json_object_object_add(c, "partial_coverage_reasons", a);
	json_object_object_add(o, "thread_coverage", c);

	l = json_object_new_object();
	if (w->output_closed && w->stop_reason != NULL) {
		json_object_object_add(l, "known", json_object_new_boolean(0));
		json_object_object_add(l, "reason",
		    jstr("output closed: hits after that were not written"));
	} else
		json_object_object_add(l, "known", json_object_new_boolean(1));
	json_object_object_add(l, "total", jint(w->lost));
	json_object_object_add(l, "lost_records", jint(w->lost_records));
	json_object_object_add(o, "lost_events", l);
	lower = w->lost > 0 || w->truncated || w->output_closed ||
	    json_object_get_boolean(json_object_object_get(c,
	    "partial_coverage"));
	json_object_object_add(o, "counts_are_lower_bound",
	    json_object_new_boolean(lower));

	a = json_object_new_array();
	for (i = 0; i < w->nt; i++) {
		if (w->t[i].chain >= 0)
			continue;
		tt = json_object_new_object();
		json_object_object_add(tt, "id", json_object_new_int(w->t[i].id));
		json_object_object_add(tt, "hits", jint(w->t[i].hits));
		json_object_array_add(a, tt);
	}
	json_object_object_add(o, "targets", a);
	a = json_object_new_array();
	for (i = 0; i < w->nchains; i++) {
		struct wp_chain *ch = &w->chains[i];

		tt = json_object_new_object();
		json_object_object_add(tt, "id", json_object_new_int(ch->id));
		json_object_object_add(tt, "generation", jint(ch->generation));
		json_object_object_add(tt, "binding", jstr(ch->binding));
		json_object_object_add(tt, "leaf_addr", ch->leaf ?
		    wp_json_hex(ch->leaf) : NULL);
		json_object_object_add(tt, "pointer_hits", jint(ch->ptr_hits));
		json_object_object_add(tt, "leaf_hits", jint(ch->leaf_hits));
		json_object_object_add(tt, "rebinds", jint(ch->rebinds));
		json_object_array_add(a, tt);
	}
	json_object_object_add(o, "follows", a);
	if (strcmp(backend, "ptrace_singlestep") == 0) {
		c = json_object_new_object();
		json_object_object_add(c, "steps", jint(w->steps));
		json_object_object_add(c, "steps_per_second", jint(
		    w->step_ns ? w->steps * 1000000000 / w->step_ns : 0));
		json_object_object_add(c, "unexplained_changes",
		    jint(w->unexplained));
		json_object_object_add(c, "kernel_writes", jint(w->syscall_writes));
		json_object_object_add(c, "signals_passed",
		    jint(w->signals_passed));
		json_object_object_add(o, "ptrace", c);
	}
	return o;
}

void
wp_watch_free(struct wp_watch *w)
{
	free(w->thr);
	free(w->t);
	free(w->chains);
	w->thr = NULL;
	w->t = NULL;
	w->chains = NULL;
}
