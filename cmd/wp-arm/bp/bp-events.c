/*
 * Breakpoint events on every thread, for the perf and the bpf backends
 * (bp-events.h): an event per target, thread and CPU (threads created
 * later inherit them), each CPU's events writing into one mmap ring.
 * The rings carry the perf backend's samples, handed to it, and the
 * threads' comings and goings, written as thread records (bp-records.c).
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "bp-events.h"
#include "perf.h"
#include "proc.h"
#include "regs.h"
#include "util.h"
#include "vocab.h"
#include "watch.h"

#define SCAN_NS		50000000ULL	/* how often threads are looked for */
#define RING_PAGES	64		/* each CPU's ring, by default */
#define RING_PAGES_HITS	128		/* sampling every hit: perf record's */
#define RING_PAGES_MAX	512		/* with --regs, where mlock lets us */

/* What the rings said, for the observation. */
static struct bpev_obs *
obs(struct watch *w)
{
	return w->obs;
}

struct bpev_id {
	uint64_t	id;
	int		target;
};

static int
cmp_id(const void *a, const void *b)
{
	const struct bpev_id *x = a, *y = b;

	return WP_ORDER(x->id, y->id);
}

int
bpev_target_of(struct bpev *ev, uint64_t id)
{
	struct bpev_id key = { id, 0 }, *e;

	if (!ev->sorted) {
		qsort(ev->ids, ev->nids, sizeof *ev->ids, cmp_id);
		ev->sorted = 1;
	}
	e = bsearch(&key, ev->ids, ev->nids, sizeof *ev->ids, cmp_id);
	return e ? e->target : -1;
}

int
bpev_chain_cap(const struct watch *w)
{
	size_t n = w->callchain_depth + 3;

	return n < WP_KERNEL_MAXSTACK ? (int)n : WP_KERNEL_MAXSTACK;
}

/* The breakpoint of entry ti, as every event of it is opened. */
static void
bp_of(const struct watch *w, const struct bpev *ev, size_t ti,
    struct perf_bp *bp)
{
	memset(bp, 0, sizeof *bp);
	bp->addr = w->t[ti].addr;
	bp->len = w->t[ti].len;
	bp->rw = w->t[ti].rw;
	/* what the samples carry: the bpf backend's events carry none */
	bp->regs = ev->lay.regs;
	bp->disabled = !w->t[ti].armed;
	/* a pointer's sample: the reader re-arms its chain at once */
	bp->wake = w->t[ti].chain >= 0 &&
	    (size_t)w->t[ti].level < w->chains[w->t[ti].chain].noffs;
	if (ev->lay.chain)
		bp->chain = bpev_chain_cap(w);
	if (ev->lay.stack)
		bp->stack = w->callchain_stack;
}

void
bpev_move(struct bpev *ev, struct watch *w, size_t ti)
{
	struct perf_bp bp;
	size_t i;

	bp_of(w, ev, ti, &bp);
	for (i = 0; i < ev->nfds; i++)
		if (ev->fdt[i] == (int)ti && perf_modify_bp(ev->fds[i],
		    &bp) == -1)
			w->modify_errors++;
}

static void
add_fd(struct bpev *ev, int fd, int target)
{
	uint64_t id;

	if (ev->nfds == ev->capfds) {
		ev->capfds = ev->capfds ? ev->capfds * 2 : 64;
		ev->fds = wp_xrealloc(ev->fds, ev->capfds * sizeof *ev->fds);
		ev->fdt = wp_xrealloc(ev->fdt, ev->capfds * sizeof *ev->fdt);
	}
	ev->fdt[ev->nfds] = target;
	ev->fds[ev->nfds++] = fd;
	if (perf_id(fd, &id) == 0) {
		if (ev->nids == ev->capids) {
			ev->capids = ev->capids ? ev->capids * 2 : 64;
			ev->ids = wp_xrealloc(ev->ids, ev->capids *
			    sizeof *ev->ids);
		}
		ev->ids[ev->nids].id = id;
		ev->ids[ev->nids++].target = target;
		ev->sorted = 0;
	}
}

/*
 * Maps the CPU's ring on its first event, else redirects into it.  A
 * ring of the default size that the system will not lock is halved,
 * down to RING_PAGES.
 */
static int
attach(struct watch *w, struct bpev *ev, int fd, int c, int target,
    struct wp_error *e)
{
	int err;

	if (ev->rings[c].base == NULL) {
		while (perf_ring_map(&ev->rings[c], fd, c, w->ring_pages) ==
		    -1 && ev->ring_auto && w->ring_pages > RING_PAGES &&
		    (errno == EPERM || errno == ENOMEM))
			w->ring_pages /= 2;
		if (ev->rings[c].base == NULL) {
			err = errno;
			wp_error_set(e, WP_EXIT_ERROR, "cannot map a perf ring of "
			    "%zu pages on CPU %d: %s (lower --ring-pages, or raise "
			    "kernel.perf_event_mlock_kb)", w->ring_pages, c,
			    strerror(err));
			close(fd);
			return err;
		}
	} else if (perf_set_output(fd, ev->rings[c].fd) == -1) {
		err = errno;
		close(fd);
		return err;
	}
	add_fd(ev, fd, target);
	return 0;
}

/*
 * Arms every target on thread tid, one event per CPU, each redirected
 * into that CPU's ring, and a task event per CPU for fork, exit and
 * exec records.  Returns 0, or an errno.
 */
static int
arm_thread(struct watch *w, struct bpev *ev, pid_t tid, struct wp_error *e)
{
	struct perf_bp bp;
	size_t ti;
	int c, fd, err;

	for (c = 0; c < ev->ncpu; c++) {
		if ((fd = perf_open_task(tid, c, w->ring_pages *
		    (size_t)sysconf(_SC_PAGESIZE))) == -1) {
			if (errno == ENODEV && c > 0)
				continue;	/* an offline CPU */
			return errno;
		}
		if ((err = attach(w, ev, fd, c, -1, e)) != 0)
			return err;
		for (ti = 0; ti < w->nt; ti++) {
			bp_of(w, ev, ti, &bp);
			if ((fd = perf_open_bp(&bp, tid, c, 1)) == -1)
				return errno;
			if ((err = attach(w, ev, fd, c, (int)ti, e)) != 0)
				return err;
			if (ev->ops->opened != NULL &&
			    (err = ev->ops->opened(w, fd, ti)) != 0)
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
arm_late(struct watch *w, struct bpev *ev, struct thread *t)
{
	struct wp_thread_rec tr;
	struct wp_error e = { 0, "" };
	int err;

	memset(&tr, 0, sizeof tr);
	tr.tid = t->tid;
	tr.has_time = 1;
	tr.time_ns = watch_time(w, wp_now_ns());
	if ((err = arm_thread(w, ev, t->tid, &e)) == 0) {
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
	emit_thread(w, &tr);
}

/* Finds threads that no event covers yet; arms those seen twice. */
static void
rescan(struct watch *w, struct bpev *ev)
{
	struct thread *t;
	pid_t *tids;
	size_t n, i;

	ev->scan++;
	ev->next_scan = wp_now_ns() + SCAN_NS;
	if (wp_proc_tasks(w->pid, &tids, &n) == -1)
		return;
	for (i = 0; i < n; i++) {
		t = watch_thread_find(w, tids[i]);
		if (t == NULL) {
			t = watch_thread(w, tids[i], THR_PENDING);
			t->scan = ev->scan;
		} else if (t->state == THR_PENDING && t->scan != ev->scan &&
		    !ev->forks_queued)
			arm_late(w, ev, t);
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

void
bpev_close(struct bpev *ev)
{
	size_t i;
	int c;

	for (c = 0; c < ev->ncpu && ev->rings != NULL; c++)
		perf_ring_unmap(&ev->rings[c]);
	for (i = 0; i < ev->nfds; i++)
		close(ev->fds[i]);
	wp_close_fd(&ev->pidfd);
	wp_close_fd(&ev->piddir);
	wp_close_fd(&ev->memfd);
	free(ev->rings);
	free(ev->fds);
	free(ev->fdt);
	free(ev->ids);
	free(ev->pfd);
	free(ev->exits);
	memset(ev, 0, sizeof *ev);
	ev->pidfd = ev->piddir = ev->memfd = -1;
}

/*
 * The most debug-register slots others' breakpoints take on a watched
 * thread (the first few): what wp's entries and the free slots leave.
 */
static int
others_on(const struct watch *w)
{
	size_t i, asked = 0;
	int nfree, most = 0, n;

	for (i = 0; i < w->nthr && asked < 8; i++) {
		if (w->thr[i].exited || (w->thr[i].state != THR_SEEDED &&
		    w->thr[i].state != THR_INHERITED &&
		    w->thr[i].state != THR_DYNAMIC))
			continue;
		asked++;
		if ((nfree = perf_bp_free(w->thr[i].tid)) == -1)
			continue;
		n = tr_watch_slots() - nfree - (int)w->nt;
		if (n > most)
			most = n;
	}
	return most;
}

/* Where a second breakpoint on an address goes quiet: others' said. */
static void
others_at_arming(struct watch *w)
{
	struct bpev_obs *o = obs(w);

	if (!perf_shared_quiet() || (o->others = others_on(w)) == 0)
		return;
	warnx("%d debug register%s of the watched threads held by another "
	    "watch or debugger, and here a second breakpoint on an address "
	    "another one watches does not fire (an emulator's limit): if it "
	    "watches these bytes, this watch may count nothing", o->others,
	    o->others == 1 ? "" : "s");
}

void
bpev_quiet(struct watch *w)
{
	struct bpev_obs *o = obs(w);
	size_t i, nzero = 0;

	if (!perf_shared_quiet())
		return;
	for (i = 0; i < w->nt; i++)
		nzero += w->t[i].armed && w->t[i].counted_known &&
		    w->t[i].counted == 0;
	if (nzero == 0 || (o->others == 0 && others_on(w) == 0))
		return;
	for (i = 0; i < w->nt; i++)
		if (w->t[i].armed && w->t[i].counted_known &&
		    w->t[i].counted == 0) {
			w->t[i].counted_known = 0;
			o->quiet++;
		}
}

/* Arms every thread there is, and those created meanwhile. */
int
bpev_arm(struct bpev *ev, struct watch *w, struct wp_error *e)
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
		if ((err = arm_thread(w, ev, tids[i], e)) == 0)
			watch_thread(w, tids[i], THR_SEEDED);
		else if (err == ESRCH)
			watch_thread(w, tids[i], THR_EXITED);
		else {
			tid = tids[i];
			free(tids);
			return arm_error(tid, err, e);
		}
		ev->ops->drain(w);	/* fork records of threads created
					   meanwhile */
	}
	free(tids);
	if (watch_count_threads(w, THR_SEEDED) == 0)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: no thread "
		    "could be armed (the process is exiting)", (int)w->pid);
	rescan(w, ev);
	others_at_arming(w);
	w->armed.threads = watch_count_threads(w, THR_SEEDED);
	w->armed.cpus = ev->ncpu;
	w->armed.events = (long)ev->nfds;
	w->armed.ring_pages = (long)w->ring_pages;
	return 0;
}

/*
 * The ring of each CPU, unless --ring-pages says: RING_PAGES where the
 * events sample no hit (the bpf backend's task records); where they
 * sample every hit, as many as kernel.perf_event_mlock_kb lets every
 * CPU lock (a page of it for the ring's header), up to RING_PAGES_HITS
 * (perf record's default), or RING_PAGES_MAX when samples carry the
 * registers (200 bytes, not 48); as root, that most.
 */
static size_t
ring_pages(const struct bpev *ev)
{
	long pg = sysconf(_SC_PAGESIZE), kb;
	size_t n = RING_PAGES, lim, most;

	if (!ev->lay.samples)
		return n;
	/* with --callchain dwarf, --regs too */
	most = ev->lay.regs ? RING_PAGES_MAX : RING_PAGES_HITS;
	if (geteuid() == 0)
		return most;
	if (wp_proc_sysctl("kernel/perf_event_mlock_kb", &kb) == -1)
		kb = 0;
	lim = kb > 0 && pg > 0 ? (size_t)kb * 1024 / (size_t)pg : 0;
	while (n * 2 + 1 <= lim && n * 2 <= most)
		n *= 2;
	return n;
}

int
bpev_open(struct bpev *ev, struct watch *w, const struct bpev_ops *ops,
    const struct perf_layout *lay, struct wp_error *e)
{
	memset(ev, 0, sizeof *ev);
	ev->ops = ops;
	ev->lay = *lay;
	ev->pidfd = ev->memfd = -1;
	ev->piddir = wp_proc_dir(w->pid);
	if (w->ring_pages == 0) {
		w->ring_pages = ring_pages(ev);
		ev->ring_auto = 1;
	}
	if (w->callchain != CC_NONE)
		w->armed.callchain = w->callchain == CC_DWARF ? "dwarf" : "fp";
	raise_nofile();
	ev->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ev->ncpu < 1)
		ev->ncpu = 1;
	ev->rings = wp_xcalloc((size_t)ev->ncpu, sizeof *ev->rings);
	/* the rings, the backend's, the target, the output */
	ev->pfd = wp_xcalloc((size_t)ev->ncpu + 4, sizeof *ev->pfd);
	if ((ev->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0)) == -1 ||
	    !wp_proc_alive(w->pid, w->start_time)) {
		wp_error_set(e, WP_EXIT_PROCESS, "pid %d: the process has "
		    "exited or its pid was reused", (int)w->pid);
		bpev_close(ev);
		return -1;
	}
	if (w->nchains > 0 && (ev->memfd = wp_proc_mem_open(w->pid)) == -1) {
		wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot read its memory "
		    "to follow pointers: %s", (int)w->pid, strerror(errno));
		bpev_close(ev);
		return -1;
	}
	follow_update(w, ev->memfd);
	return 0;
}

void
bpev_wait(struct bpev *ev, struct watch *w, uint64_t until, const int *fds,
    size_t n)
{
	struct timespec ts;
	uint64_t now = wp_now_ns();
	size_t np = 0, i;
	int c;

	for (c = 0; c < ev->ncpu && !ev->copied; c++)
		if (ev->rings[c].base != NULL) {
			ev->pfd[np].fd = ev->rings[c].fd;
			ev->pfd[np++].events = POLLIN;
		}
	for (i = 0; i < n && i < 2; i++) {
		ev->pfd[np].fd = fds[i];
		ev->pfd[np++].events = POLLIN;
	}
	ev->pfd[np].fd = ev->pidfd;
	ev->pfd[np++].events = POLLIN;
	ev->pfd[np].fd = STDOUT_FILENO;
	ev->pfd[np++].events = 0;
	ev->npfd = np;
	ts.tv_sec = 0;
	ts.tv_nsec = until > now ? (long)(until - now) : 0;
	if (ppoll(ev->pfd, np, &ts, &w->waitmask) == -1)
		memset(ev->pfd, 0, np * sizeof *ev->pfd);
}

void
bpev_settle(struct bpev *ev, struct watch *w)
{
	size_t np = ev->npfd;
	int status;

	if (ev->pfd[np - 1].revents & (POLLERR | POLLHUP))
		w->output_closed = 1;
	if (ev->exec_seen)
		w->stop_reason = wp_stop_names[WP_STOP_EXEC];
	else if (ev->pfd[np - 2].revents & POLLIN) {
		w->stop_reason = wp_stop_names[WP_STOP_EXITED];
		/* how, while its parent has not reaped it */
		if (ev->piddir != -1 &&
		    wp_proc_exit_status_at(ev->piddir, &status) == 0)
			watch_exited(w, w->pid, status);
	}
	if (wp_now_ns() >= ev->next_scan)
		rescan(w, ev);
}

void
bpev_count(struct bpev *ev, struct watch *w)
{
	uint64_t v, lost;
	size_t i;
	int ti;

	for (i = 0; i < w->nt; i++) {
		w->t[i].counted = 0;
		w->t[i].counted_known = 1;
	}
	for (i = 0; i < ev->nfds; i++) {
		if ((ti = ev->fdt[i]) < 0)
			continue;
		if (perf_read_count(ev->fds[i], &v, &lost) == -1)
			w->t[ti].counted_known = 0;
		else
			w->t[ti].counted += v;
	}
}

void
bpev_disable(struct bpev *ev)
{
	size_t i;

	for (i = 0; i < ev->nfds; i++)
		ioctl(ev->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void
bpev_unheld(struct watch *w, const char *reason)
{
	obs(w)->follow_reason = reason;
	warnx("%s: following pointers asynchronously (a write to the new "
	    "leaf before it is re-armed is missed)", reason);
}

void
bpev_observe(struct watch *w, struct wp_observation *o)
{
	const struct bpev_obs *ob = w->obs;

	if (ob->follow_mode != NULL)
		o->follow_mode = ob->follow_mode;
	o->follow_reason = ob->follow_reason;
	o->excluded = ob->excluded;
	o->ambiguous = ob->ambiguous;
	o->unparsed = ob->unparsed;
	o->lost = ob->lost;
	o->lost_records = ob->lost_records;
	o->breakpoints_quiet = ob->quiet;
	/* counted nothing where a shared breakpoint went quiet */
	if (ob->quiet > 0)
		w->obs_partial |= 1u << WP_PARTIAL_QUIET;
}
