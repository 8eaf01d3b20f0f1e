/*
 * Breakpoint events on every thread, for the perf and the bpf backends:
 * an event per target, thread and CPU (threads created later inherit
 * them), each CPU's events writing into one mmap ring.  The perf
 * backend samples every hit into the rings; the bpf backend runs its
 * program on every hit instead (bpf.c), and the rings carry only the
 * threads' comings and goings.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf.h"
#include "hold.h"
#include "perf.h"
#include "proc.h"
#include "stream.h"
#include "util.h"
#include "watch.h"

#define SCAN_NS		50000000ULL	/* how often threads are looked for */
#define RING_PAGES	64		/* each CPU's ring, by default */
#define RING_PAGES_MAX	512		/* with --regs, where mlock lets us */

struct evid {
	uint64_t	id;
	int		target;
};

struct perf_state {
	int			 ncpu;
	struct perf_ring	*rings;		/* one per CPU */
	int			*fds;
	int			*fdt;		/* target entry of each fd, -1 */
	size_t			 nfds, capfds;
	struct evid		*ids;		/* event id -> target entry */
	size_t			 nids, capids;
	int			 sorted;
	int			 pidfd;
	int			 memfd;		/* with follow chains */
	unsigned char		*dirty;		/* per chain: a pointer moved */
	struct bpfw_pointer	*written;	/* per chain: the bpf program's
						   view of that pointer write */
	struct bpfw		*bpf;		/* backend_bpf's program */
	struct hold		*hold;		/* --follow-mode stop */
	int			 exec_seen;
	int			 ring_auto;	/* ring_pages not asked for */
	int			 scan;
	uint64_t		 next_scan;
	struct perf_layout	 lay;		/* what samples carry */
	struct pollfd		*pfd;
};

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

/*
 * Entries of the kernel's call chains: the context marker, the trap IP,
 * the callers asked for and one more, to tell a longer chain; within
 * kernel.perf_event_max_stack's default.
 */
static int
chain_cap(const struct watch *w)
{
	size_t n = w->callchain_depth + 3;

	return n < 127 ? (int)n : 127;
}

/* The breakpoint of entry ti, as every event of it is opened. */
static void
bp_of(const struct watch *w, const struct perf_state *s, size_t ti,
    struct perf_bp *bp)
{
	memset(bp, 0, sizeof *bp);
	bp->addr = w->t[ti].addr;
	bp->len = w->t[ti].len;
	bp->rw = w->t[ti].rw;
	bp->regs = w->regs;
	bp->disabled = !w->t[ti].armed;
	if (s->bpf == NULL && s->lay.chain)
		bp->chain = chain_cap(w);
	if (s->bpf == NULL && s->lay.stack)
		bp->stack = w->callchain_stack;
}

static int
on_sample(struct watch *w, struct perf_state *s, const struct perf_rec *r)
{
	struct wp_hit_rec h;
	struct wp_x86_regs regs;
	uint64_t chain[WATCH_MAXCHAIN];
	int ti;

	if ((pid_t)r->pid != w->pid) {
		w->excluded_other++;
		return 0;
	}
	if ((ti = target_of(s, r->id)) < 0) {
		w->ambiguous++;
		return 0;
	}
	perf_sample_hit(r, &h, &regs);
	if (s->lay.chain) {
		h.chain_status = perf_chain_callers(r->chain, r->nchain,
		    (size_t)chain_cap(w), r->ip, chain, w->callchain_depth,
		    &h.nchain);
		h.chain = chain;
	}
	if (s->lay.stack && r->stack != NULL) {
		h.stack = r->stack;
		h.nstack = r->nstack;
	}
	h.time_ns = watch_time(w, r->time);
	if (w->truncated)
		return 0;
	if (watch_hit(w, (size_t)ti, &h) == -1)
		return -1;
	if (h.role == WP_ROLE_POINTER)
		s->dirty[w->t[ti].chain] = 1;
	return 0;
}

static int
on_fork(struct watch *w, const struct perf_rec *r)
{
	struct wp_thread_rec tr;
	struct thread *t;

	memset(&tr, 0, sizeof tr);
	tr.has_time = 1;
	tr.time_ns = watch_time(w, r->time);
	if ((pid_t)r->pid != w->pid) {
		if ((pid_t)r->ppid != w->pid || r->pid != r->tid)
			return 0;
		w->other_processes++;
		tr.event = "fork_process";
		tr.pid = (pid_t)r->pid;
		tr.by_tid = (pid_t)r->ptid;
		return watch_thread_record(w, &tr);
	}
	t = watch_thread_find(w, (pid_t)r->tid);
	if (t != NULL && t->state != THR_PENDING)
		return 0;
	t = watch_thread(w, (pid_t)r->tid, THR_INHERITED);
	t->state = THR_INHERITED;
	tr.event = "start";
	tr.tid = (pid_t)r->tid;
	tr.by_tid = (pid_t)r->ptid;
	tr.coverage = "inherited";
	return watch_thread_record(w, &tr);
}

static int
on_exit_(struct watch *w, const struct perf_rec *r)
{
	struct wp_thread_rec tr;
	struct thread *t;

	if ((pid_t)r->pid != w->pid ||
	    (t = watch_thread_find(w, (pid_t)r->tid)) == NULL || t->exited)
		return 0;
	t->exited = 1;
	memset(&tr, 0, sizeof tr);
	tr.event = "exit";
	tr.tid = (pid_t)r->tid;
	tr.has_time = 1;
	tr.time_ns = watch_time(w, r->time);
	return watch_thread_record(w, &tr);
}

static int
on_record(const struct perf_rec *r, void *arg)
{
	struct watch *w = arg;
	struct perf_state *s = w->state;

	switch (r->kind) {
	case RING_SAMPLE:
		return on_sample(w, s, r);
	case RING_FORK:
		return on_fork(w, r);
	case RING_EXIT:
		return on_exit_(w, r);
	case RING_LOST:
		w->lost += r->lost;
		w->lost_records++;
		wp_rec_lost(&w->jw, r->lost, (int)r->cpu,
		    watch_time(w, r->time));
		return watch_emit(w);
	case RING_EXEC:
		if ((pid_t)r->pid == w->pid)
			s->exec_seen = 1;
		return 0;
	case RING_BAD:
		w->unparsed++;
		return 0;
	case RING_OTHER:
		return 0;
	}
	return 0;
}

/* Whether the leaf moved by chain ci's latest change kept its value. */
static int
missed(struct watch *w, struct perf_state *s, size_t ci)
{
	const struct chain *c = &w->chains[ci];
	const struct bpfw_pointer *p = &s->written[ci];
	unsigned char b[8];

	if (!p->has_leaf || c->leaf == 0 || p->leaf_addr != c->leaf ||
	    c->len > 8 || wp_proc_read(s->memfd, c->leaf, b, (size_t)c->len))
		return -1;
	return wp_le64(b, (size_t)c->len) != (p->leaf_value &
	    (c->len == 8 ? ~0ULL : (1ULL << (8 * c->len)) - 1));
}

/*
 * After a pointer of a chain was written: read the chain again, and move
 * the breakpoints of the entries after it on every thread (and the
 * threads that inherited them), arming or disarming them.
 */
static void
rebind_chain(struct watch *w, struct perf_state *s, size_t ci)
{
	struct chain *c = &w->chains[ci];
	struct wtarget old[WP_CHAIN_MAXDEPTH + 1], *t;
	struct perf_bp bp;
	size_t k, i;

	memcpy(old, &w->t[c->base], (c->noffs + 1) * sizeof *old);
	if (!follow_walk(w, s->memfd, ci))
		return;
	for (k = 0; k <= c->noffs; k++) {
		t = &w->t[c->base + k];
		if (t->addr == old[k].addr && t->armed == old[k].armed)
			continue;
		bp_of(w, s, c->base + k, &bp);
		if (s->bpf != NULL)
			bpfw_conf(s->bpf, w, c->base + k);
		for (i = 0; i < s->nfds; i++)
			if (s->fdt[i] == (int)(c->base + k) &&
			    perf_modify_bp(s->fds[i], &bp) == -1)
				w->modify_errors++;
	}
	if (s->written[ci].time_ns == 0)
		follow_record(w, ci, -1, 0, -1);
	else
		follow_record(w, ci, (int64_t)(wp_now_ns() -
		    s->written[ci].time_ns), s->hold != NULL, missed(w, s, ci));
	memset(&s->written[ci], 0, sizeof s->written[ci]);
}

static void
on_pointer(struct watch *w, const struct bpfw_pointer *p)
{
	struct perf_state *s = w->state;
	int ci = w->t[p->slot].chain;

	s->dirty[ci] = 1;
	s->written[ci] = *p;
	if (s->hold != NULL)
		hold_pointer(s->hold, p->tid);
}

static void
drain_all(struct watch *w, struct perf_state *s)
{
	size_t ci;
	int c;

	/* the records of the rings go out together, once they are read */
	wp_stream_hold();
	for (c = 0; c < s->ncpu; c++)
		if (s->rings[c].base != NULL)
			perf_drain(&s->rings[c], &s->lay, on_record, w);
	if (wp_stream_release() == -1)
		w->output_closed = 1;
	if (s->bpf != NULL)
		bpfw_drain(s->bpf, w, on_pointer);
	for (ci = 0; ci < w->nchains; ci++)
		if (s->dirty[ci]) {
			s->dirty[ci] = 0;
			rebind_chain(w, s, ci);
		}
	if (s->hold != NULL)
		hold_release(s->hold);
}

/* For hold_service: a pointer's sample that came after the last drain. */
static void
drain_cb(void *arg)
{
	struct watch *w = arg;

	drain_all(w, w->state);
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
	if (perf_id(fd, &id) == 0) {
		if (s->nids == s->capids) {
			s->capids = s->capids ? s->capids * 2 : 64;
			s->ids = wp_xrealloc(s->ids, s->capids * sizeof *s->ids);
		}
		s->ids[s->nids].id = id;
		s->ids[s->nids++].target = target;
		s->sorted = 0;
	}
}

/*
 * Maps the CPU's ring on its first event, else redirects into it.  A
 * ring of the default size that the system will not lock is halved,
 * down to RING_PAGES.
 */
static int
attach(struct watch *w, struct perf_state *s, int fd, int c, int target,
    struct wp_error *e)
{
	int err;

	if (s->rings[c].base == NULL) {
		while (perf_ring_map(&s->rings[c], fd, c, w->ring_pages) == -1 &&
		    s->ring_auto && w->ring_pages > RING_PAGES &&
		    (errno == EPERM || errno == ENOMEM))
			w->ring_pages /= 2;
		if (s->rings[c].base == NULL) {
			err = errno;
			wp_error_set(e, WP_EXIT_ERROR, "cannot map a perf ring of "
			    "%zu pages on CPU %d: %s (lower --ring-pages, or raise "
			    "kernel.perf_event_mlock_kb)", w->ring_pages, c,
			    strerror(err));
			close(fd);
			return err;
		}
	} else if (perf_set_output(fd, s->rings[c].fd) == -1) {
		err = errno;
		close(fd);
		return err;
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
arm_thread(struct watch *w, struct perf_state *s, pid_t tid,
    struct wp_error *e)
{
	struct perf_bp bp;
	size_t ti;
	int c, fd, err;

	for (c = 0; c < s->ncpu; c++) {
		if ((fd = perf_open_task(tid, c)) == -1) {
			if (errno == ENODEV && c > 0)
				continue;	/* an offline CPU */
			return errno;
		}
		if ((err = attach(w, s, fd, c, -1, e)) != 0)
			return err;
		for (ti = 0; ti < w->nt; ti++) {
			bp_of(w, s, ti, &bp);
			if ((fd = perf_open_bp(&bp, tid, c, 1)) == -1)
				return errno;
			if ((err = attach(w, s, fd, c, (int)ti, e)) != 0)
				return err;
			if (s->bpf != NULL &&
			    (err = bpfw_attach(s->bpf, fd, ti)) != 0)
				return err;
		}
	}
	return 0;
}

static int
arm_error(pid_t tid, int err, struct wp_error *e)
{
	if (e->msg[0] != '\0')
		return -1;
	if (err == ENOSPC)
		return wp_error_set(e, WP_EXIT_ERROR, "thread %d: no free debug "
		    "register (ENOSPC): another debugger or a system-wide perf "
		    "session may hold the slots", (int)tid);
	if ((err == EACCES || err == EPERM) && geteuid() == 0)
		return wp_error_set(e, WP_EXIT_ERROR, "perf_event_open: %s "
		    "even to root (a seccomp filter, or a container without "
		    "CAP_PERFMON?)", strerror(err));
	if (err == EACCES || err == EPERM)
		return wp_error_set(e, WP_EXIT_ERROR, "perf_event_open: %s "
		    "(kernel.perf_event_paranoid is %d; run as root or with "
		    "CAP_PERFMON)", strerror(err), perf_paranoid());
	return wp_error_set(e, WP_EXIT_ERROR, "thread %d: perf_event_open: %s",
	    (int)tid, strerror(err));
}

/* Arms a thread found after the start: no fork record covered it. */
static void
arm_late(struct watch *w, struct perf_state *s, struct thread *t)
{
	struct wp_thread_rec tr;
	struct wp_error e = { 0, "" };
	int err;

	memset(&tr, 0, sizeof tr);
	tr.tid = t->tid;
	tr.has_time = 1;
	tr.time_ns = watch_time(w, wp_now_ns());
	if ((err = arm_thread(w, s, t->tid, &e)) == 0) {
		t->state = THR_DYNAMIC;
		tr.event = "start";
		tr.coverage = "attached_late";
	} else if (err == ESRCH) {
		t->state = THR_EXITED;
		return;
	} else {
		t->state = THR_FAILED;
		t->err = err;
		tr.event = "arm_failed";
		tr.err = err;
	}
	watch_thread_record(w, &tr);
}

/* Finds threads that no event covers yet; arms those seen twice. */
static void
rescan(struct watch *w, struct perf_state *s)
{
	struct thread *t;
	pid_t *tids;
	size_t n, i;

	s->scan++;
	s->next_scan = wp_now_ns() + SCAN_NS;
	if (wp_proc_tasks(w->pid, &tids, &n) == -1)
		return;
	for (i = 0; i < n; i++) {
		t = watch_thread_find(w, tids[i]);
		if (t == NULL) {
			t = watch_thread(w, tids[i], THR_PENDING);
			t->scan = s->scan;
		} else if (t->state == THR_PENDING && t->scan != s->scan)
			arm_late(w, s, t);
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

static void
release(struct perf_state *s)
{
	size_t i;
	int c;

	for (c = 0; c < s->ncpu; c++)
		perf_ring_unmap(&s->rings[c]);
	for (i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	if (s->pidfd != -1)
		close(s->pidfd);
	if (s->memfd != -1)
		close(s->memfd);
	free(s->rings);
	free(s->fds);
	free(s->fdt);
	free(s->ids);
	free(s->dirty);
	free(s->written);
	free(s->pfd);
	hold_close(s->hold);
	bpfw_close(s->bpf);
	free(s);
}

/*
 * --follow-mode: hold a pointer's writer (stop, stop-all), or not
 * (async).  Stopping needs the bpf program and the right to trace the
 * target; without them, async, and why.
 */
static void
follow_mode(struct watch *w, struct perf_state *s)
{
	struct wp_error e;
	const char *want = w->follow_mode;

	if (w->nchains == 0)
		return;
	if (want == NULL)
		want = s->bpf != NULL ? "stop" : "async";
	w->follow_mode = "async";
	if (strcmp(want, "async") == 0)
		return;
	if (s->bpf == NULL) {
		w->follow_reason = "holding a pointer's writer needs the bpf "
		    "backend";
	} else if ((s->hold = hold_open(w->pid, strcmp(want, "stop-all") == 0,
	    &e)) == NULL) {
		snprintf(w->follow_why, sizeof w->follow_why, "%s", e.msg);
		w->follow_reason = w->follow_why;
	} else {
		bpfw_stop_signal(s->bpf, w, hold_signal(s->hold));
		w->follow_mode = want;
		return;
	}
	warnx("%s: following pointers asynchronously (a write to the new "
	    "leaf before it is re-armed is missed)", w->follow_reason);
}

/* Arms every thread there is, and those created meanwhile. */
static int
arm_threads(struct watch *w, struct perf_state *s, struct wp_error *e)
{
	pid_t *tids, tid;
	size_t n, i;
	int err;

	if (wp_proc_tasks(w->pid, &tids, &n) == -1)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: %s",
		    (int)w->pid, strerror(errno));
	for (i = 0; i < n; i++) {
		if (watch_thread_find(w, tids[i]) != NULL)
			continue;	/* inherited while arming */
		if ((err = arm_thread(w, s, tids[i], e)) == 0)
			watch_thread(w, tids[i], THR_SEEDED);
		else if (err == ESRCH)
			watch_thread(w, tids[i], THR_EXITED);
		else {
			tid = tids[i];
			free(tids);
			return arm_error(tid, err, e);
		}
		drain_all(w, s);	/* fork records of threads created meanwhile */
	}
	free(tids);
	if (watch_count_threads(w, THR_SEEDED) == 0)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: no thread "
		    "could be armed (the process is exiting)", (int)w->pid);
	return 0;
}

/*
 * The ring of each CPU, unless --ring-pages says: RING_PAGES, and for
 * the perf backend with --regs (a sample of 200 bytes, not 48) as many
 * as kernel.perf_event_mlock_kb lets every CPU lock (a page of it for
 * the ring's header), or RING_PAGES_MAX where that limit is not ours
 * (root).
 */
static size_t
ring_pages(const struct watch *w, int bpf)
{
	long pg = sysconf(_SC_PAGESIZE), kb = 0;
	size_t n = RING_PAGES, lim;
	FILE *f;

	/* with --callchain dwarf, --regs too */
	if (bpf || !w->regs)
		return n;
	if (geteuid() == 0)
		return RING_PAGES_MAX;
	if ((f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re")) != NULL) {
		if (fscanf(f, "%ld", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	lim = kb > 0 && pg > 0 ? (size_t)kb * 1024 / (size_t)pg : 0;
	while (n * 2 + 1 <= lim && n * 2 <= RING_PAGES_MAX)
		n *= 2;
	return n;
}

static int
events_arm(struct watch *w, struct bpfw *bpf, struct wp_error *e)
{
	struct perf_state *s = wp_xcalloc(1, sizeof *s);
	size_t i;

	w->state = s;
	s->memfd = -1;
	s->bpf = bpf;
	if (bpf == NULL) {
		s->lay.regs = w->regs;
		s->lay.chain = w->callchain == CC_DEFAULT ||
		    w->callchain == CC_FP;
		s->lay.stack = w->callchain == CC_DWARF;
	}
	if (w->ring_pages == 0) {
		w->ring_pages = ring_pages(w, bpf != NULL);
		s->ring_auto = 1;
	}
	raise_nofile();
	s->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (s->ncpu < 1)
		s->ncpu = 1;
	s->rings = wp_xcalloc((size_t)s->ncpu, sizeof *s->rings);
	/* the rings, the samples, the stops, the target, the output */
	s->pfd = wp_xcalloc((size_t)s->ncpu + 4, sizeof *s->pfd);
	s->dirty = wp_xcalloc(w->nchains + 1, 1);
	s->written = wp_xcalloc(w->nchains + 1, sizeof *s->written);
	if ((s->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0)) == -1 ||
	    !wp_proc_alive(w->pid, w->start_time)) {
		wp_error_set(e, WP_EXIT_PROCESS, "pid %d: the process has "
		    "exited or its pid was reused", (int)w->pid);
		goto fail;
	}
	if (w->nchains > 0 && (s->memfd = wp_proc_mem_open(w->pid)) == -1) {
		wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot read its memory "
		    "to follow pointers: %s", (int)w->pid, strerror(errno));
		goto fail;
	}
	for (i = 0; i < w->nchains; i++)
		follow_update(w, s->memfd, i);
	for (i = 0; s->bpf != NULL && i < w->nt; i++)
		bpfw_conf(s->bpf, w, i);
	follow_mode(w, s);
	if (arm_threads(w, s, e) == -1)
		goto fail;
	rescan(w, s);
	w->armed.threads = watch_count_threads(w, THR_SEEDED);
	w->armed.cpus = s->ncpu;
	w->armed.events = (long)s->nfds;
	w->armed.ring_pages = (long)w->ring_pages;
	return 0;
fail:
	release(s);
	w->state = NULL;
	return -1;
}

static void
perf_run(struct watch *w, uint64_t until)
{
	struct perf_state *s = w->state;
	struct timespec ts;
	uint64_t now = wp_now_ns();
	size_t np = 0;
	int c;

	for (c = 0; c < s->ncpu; c++)
		if (s->rings[c].base != NULL) {
			s->pfd[np].fd = s->rings[c].fd;
			s->pfd[np++].events = POLLIN;
		}
	if (s->bpf != NULL && (s->pfd[np].fd = bpfw_fd(s->bpf)) != -1)
		s->pfd[np++].events = POLLIN;
	if (s->hold != NULL) {
		s->pfd[np].fd = hold_fd(s->hold);
		s->pfd[np++].events = POLLIN;
	}
	s->pfd[np].fd = s->pidfd;
	s->pfd[np++].events = POLLIN;
	s->pfd[np].fd = STDOUT_FILENO;
	s->pfd[np++].events = 0;
	ts.tv_sec = 0;
	ts.tv_nsec = until > now ? (long)(until - now) : 0;
	if (ppoll(s->pfd, np, &ts, &w->waitmask) == -1)
		memset(s->pfd, 0, np * sizeof *s->pfd);
	drain_all(w, s);
	if (s->hold != NULL)
		hold_service(s->hold, drain_cb, w);
	if (s->pfd[np - 1].revents & (POLLERR | POLLHUP))
		w->output_closed = 1;
	if (s->exec_seen)
		w->stop_reason = "target_exec";
	else if (s->pfd[np - 2].revents & POLLIN)
		w->stop_reason = "target_exited";
	if (wp_now_ns() >= s->next_scan)
		rescan(w, s);
}

/* The events' own counts: every write, sampled or not. */
static void
perf_count(struct watch *w)
{
	struct perf_state *s = w->state;
	uint64_t v, lost;
	size_t i;
	int ti;

	for (i = 0; i < w->nt; i++) {
		w->t[i].counted = 0;
		w->t[i].counted_known = 1;
	}
	for (i = 0; i < s->nfds; i++) {
		if ((ti = s->fdt[i]) < 0)
			continue;
		if (perf_read_count(s->fds[i], &v, &lost) == -1)
			w->t[ti].counted_known = 0;
		else
			w->t[ti].counted += v;
	}
}

static void
perf_disarm(struct watch *w)
{
	struct perf_state *s = w->state;
	size_t i;

	for (i = 0; i < s->nfds; i++)
		ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	drain_all(w, s);
	if (s->hold != NULL) {
		hold_service(s->hold, drain_cb, w);
		hold_counts(s->hold, &w->bpf.writers_held,
		    &w->bpf.signals_passed);
	}
	perf_count(w);
	if (s->bpf != NULL)
		bpfw_tallies(s->bpf, w);
	release(s);
	w->state = NULL;
	w->bpfw = NULL;		/* closed with the state */
}

static int
perf_arm(struct watch *w, struct wp_error *e)
{
	return events_arm(w, NULL, e);
}

const struct backend backend_perf = {
	"perf_breakpoint", perf_arm, perf_run, perf_count, perf_disarm
};

/* The bpf backend: the events, with the program wp-arm loaded. */
static int
bpf_arm(struct watch *w, struct wp_error *e)
{
	struct bpfw *b = w->bpfw;

	w->bpfw = NULL;		/* the state owns it now */
	return events_arm(w, b, e);
}

static void
bpf_count(struct watch *w)
{
	struct perf_state *s = w->state;

	perf_count(w);
	bpfw_tallies(s->bpf, w);
}

const struct backend backend_bpf = {
	"bpf_tally", bpf_arm, perf_run, bpf_count, perf_disarm
};
