/*
 * --if, --stop and --last in wp-arm, at each write the tracer reports:
 * the condition, and a tally of every write per (entry, thread,
 * writer), written at the end so that the report has the matched and
 * the total count of each writer while only the matching writes are hit
 * records; the first match stopped at (stop.c says the rest); each
 * entry's last writes, written when the process ends.
 */
#include <sys/syscall.h>

#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cond.h"
#include "dwfl.h"
#include "filter.h"
#include "hmap.h"
#include "proc.h"
#include "vocab.h"
#include "watch.h"

/* A writer's writes to one entry by one thread. */
struct ftally {
	size_t		 ti;
	pid_t		 tid;
	uint64_t	 ip;		/* the latest trap IP */
	int		 has_writer_ip;
	uint64_t	 writer_ip;
	unsigned	 flags;		/* of its first write: no writer */
	uint64_t	 hits, matched, unchanged;
	uint64_t	 first, last;
};

/* A thread's name, read once. */
struct fcomm {
	int		 known;
	char		 comm[64];
};

struct filter {
	struct wp_cond	*cond;
	const char	*where;		/* the armed record's */
	int		 sampled;	/* writes are samples read later
					   (perf, bpf): known by their trap IP */
	int		 kernel;	/* bpf: the program evaluates --if,
					   tallies, and stops the writer */
	struct csample	*cs;		/* their values; NULL: not needed */
	struct wp_hmap	 tallies;	/* (ti, tid), writer -> ftally */
	struct wp_hmap	 comms;		/* tid -> fcomm */
	/* each entry's value before the next write */
	int		*has_prev;
	uint64_t	*prev;
	uint64_t	*novalue;	/* writes a value test was false for,
					   their value not known */
	uint64_t	*wide;		/* ... of a store wider than 8 bytes
					   into a struct or buffer */
	/* --stop, and the write stopped at */
	int		 stop;		/* STOP_* */
	int		 stopped;
	struct wp_stopped_at at;	/* at.core: core's */
	uint64_t	 resumed;	/* SIGCONTs after pending hits' stops */
	char		*core;		/* written by gcore; NULL: none */
	/* --last: a ring of each entry's last writes, and how many */
	size_t		 last;
	struct wp_last_write_rec *ring;	/* nt * last, as written */
	uint64_t	*nring;
	/* --callchain: each kept write's chain and status, beside it */
	size_t		 depth;		/* 0: none asked */
	uint64_t	*chains;	/* nt * last * depth */
	char		(*status)[80];	/* nt * last */
};

const char *const cond_where_names[CW_N] = {
	NULL, "kernel", "wp-arm", "tracer"
};

/* Why the filter cannot be used here (e set), or -1. */
static int
refuse(const struct watch *w, const struct wp_cond *cond, int stop,
    struct wp_error *e)
{
	const char *opt = cond != NULL ? "--if" : stop != STOP_NONE ?
	    "--stop" : "--last";
	struct wp_cond_op ops[WP_COND_KERNEL_OPS];

	if (w->backend->cond_where == CW_NONE)
		return wp_error_set(e, WP_EXIT_ERROR, "%s: the bpf, perf, page "
		    "and ptrace backends evaluate it (not %s, yet)", opt,
		    BK_NAME(w->backend));
	if (cond != NULL && w->backend->cond_where == CW_KERNEL &&
	    wp_cond_compile(cond, 8, ops, WP_COND_KERNEL_OPS) == 0)
		return wp_error_set(e, WP_EXIT_ERROR, "--if: more than %d tests "
		    "and operators, which %s evaluates in the kernel (the perf "
		    "and page backends take any)", WP_COND_KERNEL_OPS,
		    BK_NAME(w->backend));
	if (stop == STOP_CORE && stop_gcore_path() == NULL)
		return wp_error_set(e, WP_EXIT_ERROR, "--stop=core: gcore (of "
		    "gdb) is not installed: --stop leaves the process stopped "
		    "for a debugger instead");
	return 0;
}

/*
 * Binds cond's writer names in w's process, and for a backend that
 * knows writes by their trap IPs alone (sampled) their trap IPs: 0, or
 * -1 with e set.
 */
static int
resolve(struct watch *w, struct wp_cond *cond, int sampled,
    struct wp_error *e)
{
	struct wp_dwfl *d;
	int fd, rc;

	if ((d = wp_dwfl_open_pid(w->pid, e)) == NULL ||
	    wp_cond_resolve(cond, d, e) == -1) {
		wp_dwfl_close(d);
		return -1;
	}
	wp_dwfl_close(d);
	if (!sampled)
		return 0;
	if ((fd = wp_proc_mem_open(w->pid)) == -1)
		return wp_error_set(e, WP_EXIT_PROCESS, "--if: pid %d: cannot "
		    "read its code: %s", (int)w->pid, strerror(errno));
	rc = wp_cond_resolve_traps(cond, fd, e);
	close(fd);
	return rc;
}

/* Whether --if is asked of entry ti's writes: not of a pointer's. */
static int
filtered(const struct watch *w, size_t ti)
{
	int role, level;

	watch_role(w, ti, &role, &level);
	return role != WP_ROLE_POINTER;
}

int
filter_open(struct watch *w, const struct filter_opts *o,
    struct wp_error *e)
{
	struct wp_cond *cond = o->cond;
	struct filter *f;
	/* a site's tracer stops at the execution itself */
	int sampled = !(w->backend->caps & (BK_EXACT | BK_SITES));
	size_t i;

	if (refuse(w, cond, o->stop, e) == -1 || (cond != NULL &&
	    (wp_cond_uses(cond) & WP_COND_WRITER) &&
	    resolve(w, cond, sampled, e) == -1)) {
		wp_cond_free(cond);
		return -1;
	}
	f = wp_xcalloc(1, sizeof *f);
	f->cond = cond;
	f->sampled = sampled;
	f->kernel = w->backend->cond_where == CW_KERNEL;
	/* a sample's value is the stored register's, or an immediate (the
	   bpf program keeps the last writes with their values itself; its
	   matches carry the registers, for wp-decode's written value, as
	   memory at the trap may hold a later write) */
	if (sampled) {
		f->cs = csample_open(w->pid);
		if ((w->last > 0 && !f->kernel) || (cond != NULL &&
		    (f->kernel || (wp_cond_uses(cond) & WP_COND_VALUE))))
			w->regs = 1;
	}
	f->stop = o->stop;
	f->last = w->last;
	f->ring = wp_xcalloc(w->nt * f->last + 1, sizeof *f->ring);
	f->nring = wp_xcalloc(w->nt + 1, sizeof *f->nring);
	if (f->last > 0 && w->callchain != CC_NONE) {
		f->depth = w->callchain_depth;
		f->chains = wp_xcalloc(w->nt * f->last * f->depth + 1,
		    sizeof *f->chains);
		f->status = wp_xcalloc(w->nt * f->last + 1, sizeof *f->status);
	}
	f->where = cond_where_names[w->backend->cond_where];
	wp_hmap_init(&f->tallies, sizeof(struct ftally));
	wp_hmap_init(&f->comms, sizeof(struct fcomm));
	f->has_prev = wp_xcalloc(w->nt + 1, sizeof *f->has_prev);
	f->prev = wp_xcalloc(w->nt + 1, sizeof *f->prev);
	f->novalue = wp_xcalloc(w->nt + 1, sizeof *f->novalue);
	f->wide = wp_xcalloc(w->nt + 1, sizeof *f->wide);
	w->filter = f;
	/* with a condition, the tallies hold every write it is asked of */
	for (i = 0; i < w->nt && cond != NULL && !f->kernel; i++)
		if (filtered(w, i))
			w->t[i].tallied_known = 1;
	return 0;
}

void
filter_armed(struct watch *w)
{
	size_t i;

	if (w->filter == NULL)
		return;
	if (w->filter->cond != NULL) {
		w->armed.condition = wp_cond_text(w->filter->cond);
		w->armed.condition_where = w->filter->where;
	}
	/* a chain's leaf: its value where the chain led (filter_moved) */
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0) {
			w->filter->has_prev[i] = w->t[i].has_initial;
			w->filter->prev[i] = w->t[i].initial;
		}
}

void
filter_moved(struct watch *w, size_t ti, int memfd)
{
	const struct wtarget *t = &w->t[ti];
	unsigned char b[8];

	if (w->filter == NULL)
		return;
	w->filter->has_prev[ti] = t->armed && t->len <= 8 &&
	    wp_proc_read(memfd, t->addr, b, (size_t)t->len) == 0;
	w->filter->prev[ti] = w->filter->has_prev[ti] ?
	    wp_le64(b, (size_t)t->len) : 0;
}

/* The name of thread tid, read once; NULL when it cannot be. */
static const char *
comm_of(struct watch *w, pid_t tid)
{
	struct fcomm *c;
	int isnew;

	c = wp_hmap_put(&w->filter->comms, (uint64_t)tid, 0, &isnew);
	if (isnew)
		c->known = wp_proc_comm(w->pid, tid, c->comm, sizeof c->comm) == 0;
	return c->known ? c->comm : NULL;
}

/* Counts write h with value v (when has_v) in its writer's tally. */
static void
tally(struct watch *w, size_t ti, const struct wp_hit_rec *h, int has_v,
    uint64_t v, int matched)
{
	struct filter *f = w->filter;
	struct ftally *y;
	uint64_t k2;
	int isnew;

	/* a sample's writer is its trap IP's, decoded later */
	k2 = h->has_writer_ip ? h->writer_ip : (1ULL << 63) |
	    (f->sampled ? h->ip : h->flags);
	y = wp_hmap_put(&f->tallies, (uint64_t)ti << 32 | (uint32_t)h->tid,
	    k2, &isnew);
	if (isnew) {
		y->ti = ti;
		y->tid = h->tid;
		y->has_writer_ip = h->has_writer_ip;
		y->writer_ip = h->writer_ip;
		y->flags = h->has_writer_ip ? 0 : h->flags;
		y->first = v;
	}
	y->ip = h->ip;
	y->hits++;
	y->matched += matched;
	y->unchanged += has_v && f->has_prev[ti] && f->prev[ti] == v;
	y->last = v;
	w->t[ti].tallied++;
}

/*
 * The first matching write: its thread, stopped by the tracer after it,
 * gets a SIGSTOP that it takes once detached, before it runs another
 * instruction, so that the whole process stops there; the watch ends.
 * A sample's thread has run on since: it stops where it is now, unless
 * the program stopped it at the write (by_program).
 */
static void
stop_at(struct watch *w, const struct wp_hit_rec *h, int by_program)
{
	struct filter *f = w->filter;

	f->stopped = 1;
	f->at.tid = h->tid;
	f->at.has_writer = h->has_writer_ip;
	f->at.writer_ip = h->writer_ip;
	f->at.ip = h->ip;
	if (f->sampled && csample_writer(f->cs, h->ip, &f->at.writer_ip) == 0)
		f->at.has_writer = 1;
	f->at.late = f->sampled && !by_program;
	if (f->at.late)
		f->at.late_us = (uint64_t)(watch_time(w, wp_now_ns()) -
		    h->time_ns) / 1000;
	/* a sample's thread may have ended since: the process stops */
	if (by_program)
		;	/* the program sent it SIGSTOP at the write */
	else if (f->sampled)
		kill(w->pid, SIGSTOP);
	else
		syscall(SYS_tgkill, w->pid, h->tid, SIGSTOP);
	w->stop_reason = wp_stop_names[WP_STOP_MATCH];
}

void
filter_keep(struct watch *w, size_t ti, const struct wp_hit_rec *h,
    int has_value, uint64_t value)
{
	struct filter *f = w->filter;
	struct wp_last_write_rec *r;
	size_t k;

	if (f == NULL || f->last == 0)
		return;
	k = ti * f->last + f->nring[ti]++ % f->last;
	r = &f->ring[k];
	*r = (struct wp_last_write_rec){ .target = w->t[ti].id,
	    .tid = h->tid, .time_ns = h->time_ns, .ip = h->ip,
	    .has_writer_ip = h->has_writer_ip, .writer_ip = h->writer_ip,
	    .flags = h->has_writer_ip ? 0 : h->flags,
	    .has_value = has_value, .value = value };
	/* its chain, where the write has one: copied beside the ring */
	if (f->depth == 0 || h->chain_status == NULL)
		return;
	r->nchain = h->nchain < f->depth ? h->nchain : f->depth;
	r->chain = &f->chains[k * f->depth];
	memcpy(&f->chains[k * f->depth], h->chain, r->nchain * sizeof *r->chain);
	snprintf(f->status[k], sizeof f->status[k], "%s", h->chain_status);
	r->chain_status = f->status[k];
}

/*
 * What --if asks of write h on entry ti, after the value prev (when
 * has_prev), its value from its bytes or from a sample's registers (the
 * store's), the registers first when regs_first; 1: it matches.  On a
 * struct or a buffer (wider than 8 bytes) the value is what the store
 * wrote there (the page and ptrace backends know where and how much),
 * not the entry's first 8 bytes; a store of more than 8 has none.
 */
static int
eval_write(struct watch *w, size_t ti, const struct wp_hit_rec *h,
    int regs_first, int has_prev, uint64_t prev, struct wp_cond_write *cw)
{
	struct filter *f = w->filter;
	int has_bytes = h->bytes != NULL && h->nbytes > 0;
	int stored = w->t[ti].len > 8 && h->store_len > 0;
	int tests = f->cond != NULL && (wp_cond_uses(f->cond) & WP_COND_VALUE);

	memset(cw, 0, sizeof *cw);
	cw->has_prev = has_prev;
	cw->prev = prev;
	if (f->cs != NULL && (regs_first || (!has_bytes && !stored)) &&
	    csample_value(f->cs, &w->t[ti], h, &cw->value) == 0) {
		cw->has_value = 1;
		cw->width = (size_t)w->t[ti].len;
	} else if (stored && h->store_len <= 8) {
		cw->has_value = 1;
		cw->width = h->store_len;
		cw->value = wp_le64(h->store_bytes, cw->width);
		/* changed: from the bytes the store found there */
		cw->has_prev = h->store_prev != NULL;
		cw->prev = cw->has_prev ? wp_le64(h->store_prev, cw->width) : 0;
	} else if (stored)
		f->wide[ti] += tests;
	else if (has_bytes) {
		cw->has_value = 1;
		cw->width = h->nbytes < 8 ? h->nbytes : 8;
		cw->value = wp_le64(h->bytes, cw->width);
	}
	cw->has_trap = f->sampled;
	cw->trap_ip = h->ip;
	cw->has_writer = h->has_writer_ip;
	cw->writer_ip = h->writer_ip;
	cw->tid = h->tid;
	if (f->cond != NULL && (wp_cond_uses(f->cond) & WP_COND_THREAD))
		cw->comm = comm_of(w, h->tid);
	if (tests && !cw->has_value && !stored)
		f->novalue[ti]++;
	return f->cond == NULL || wp_cond_eval(f->cond, cw);
}

int
filter_hit(struct watch *w, size_t ti, const struct wp_hit_rec *h)
{
	struct filter *f = w->filter;
	struct wp_cond_write cw;
	int m;

	/* the program sent only matching writes, and tallied all */
	if (f->kernel)
		return 1;
	m = eval_write(w, ti, h, 0, f->has_prev[ti], f->prev[ti], &cw);
	if (w->t[ti].chain < 0)
		filter_keep(w, ti, h, cw.has_value, cw.value);
	/* a leaf's thread may be held by hold.c: only a tracer stops it */
	if (m && f->stop != STOP_NONE && !f->stopped &&
	    (w->t[ti].chain < 0 || !f->sampled))
		stop_at(w, h, 0);
	if (f->cond != NULL || !f->sampled)
		tally(w, ti, h, cw.has_value, cw.value, m);
	/* counted, not written: as after max events */
	if (!m)
		w->t[ti].unwritten++;
	f->has_prev[ti] = cw.has_value;
	f->prev[ti] = cw.value;
	return m;
}

int
filter_pending(struct watch *w, size_t ti, const struct wp_hit_rec *h,
    uint64_t prev, int stopped, int *has_value, uint64_t *value)
{
	struct filter *f = w->filter;
	struct wp_cond_write cw;
	int m;

	if (f == NULL || !f->kernel)
		return 0;
	m = eval_write(w, ti, h, 1, 1, prev, &cw);
	*has_value = cw.has_value;
	*value = cw.value;
	if (m && f->stop != STOP_NONE && !f->stopped && w->t[ti].chain < 0)
		stop_at(w, h, stopped);
	else if (stopped && !f->stopped) {
		/* memory matched, the store did not: let it run on */
		kill(w->pid, SIGCONT);
		f->resumed++;
	}
	return m;
}

/* Entry ti's last writes, oldest first, as last_write records. */
static void
emit_last(struct watch *w, size_t ti, const char *end)
{
	struct filter *f = w->filter;
	struct wp_last_write_rec *r;
	uint64_t n = f->nring[ti], k, first;

	first = n > f->last ? n - f->last : 0;
	for (k = first; k < n; k++) {
		r = &f->ring[ti * f->last + k % f->last];
		r->seq = k - first;
		r->of = n - first;
		r->end = end;
		if (emit_last_write(w, r) == -1)
			return;
	}
}

/* With --last, when the process died or exited: every ring. */
static void
emit_rings(struct watch *w)
{
	char end[64];
	size_t i;

	if (w->filter->last == 0 || (w->died_signal == 0 &&
	    !w->has_exit_status && (w->stop_reason == NULL ||
	    strcmp(w->stop_reason, wp_stop_names[WP_STOP_EXITED]) != 0)))
		return;
	if (w->died_signal != 0)
		snprintf(end, sizeof end, "%s", watch_signame(w->died_signal));
	else if (w->has_exit_status)
		snprintf(end, sizeof end, "exit %d", w->exit_status);
	else	/* its parent reaped it first (perf, bpf) */
		snprintf(end, sizeof end, "exit");
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0)
			emit_last(w, i, end);
}

int
filter_died(const struct watch *w)
{
	return w->filter != NULL && w->filter->last > 0 && w->died_signal;
}

/* Say which targets' writes a value test could not see: 0 matched. */
static void
warn_novalue(const struct watch *w)
{
	const struct filter *f = w->filter;
	size_t i;

	for (i = 0; i < w->nt; i++) {
		if (f->wide[i] > 0)
			warnx("--if: target %d: %llu of its writes stored more "
			    "than 8 bytes each, and the value test was false "
			    "for them", w->t[i].id,
			    (unsigned long long)f->wide[i]);
		if (f->novalue[i] == 0)
			continue;
		if (!f->sampled && w->t[i].len > HIT_BYTES_MAX)
			warnx("--if: target %d is %d bytes, wider than %d: "
			    "its %llu writes had no value, and the value test "
			    "was false for them", w->t[i].id, w->t[i].len,
			    HIT_BYTES_MAX, (unsigned long long)f->novalue[i]);
		else
			warnx("--if: %llu writes to target %d had no known "
			    "value: the value test was false for them",
			    (unsigned long long)f->novalue[i], w->t[i].id);
	}
}

/*
 * With no --if, on a tracer: whether the output did not take some hits
 * (emit.c), whose writers the tallies then give: they hold every
 * write.
 */
static int
spilled(struct watch *w)
{
	size_t i;
	int any = 0;

	if (w->filter->sampled)
		return 0;
	for (i = 0; i < w->nt; i++)
		any |= w->t[i].undelivered > 0 && filtered(w, i);
	for (i = 0; i < w->nt && any; i++)
		if (filtered(w, i))
			w->t[i].tallied_known = 1;
	return any;
}

void
filter_emit(struct watch *w)
{
	struct wp_tally_rec r;
	struct ftally *y;
	size_t i;

	if (w->filter == NULL)
		return;
	emit_rings(w);
	if (w->filter->cond == NULL && !spilled(w))
		return;
	if (w->filter->cond != NULL)
		warn_novalue(w);
	for (i = 0; i < w->filter->tallies.cap; i++) {
		if ((y = wp_hmap_slot(&w->filter->tallies, i)) == NULL)
			continue;
		r = (struct wp_tally_rec){ .target = w->t[y->ti].id,
		    .tid = y->tid, .ip = y->ip, .hits = y->hits,
		    .first = y->first, .last = y->last,
		    .unchanged = y->unchanged,
		    .time_ns = watch_time(w, wp_now_ns()),
		    .has_writer_ip = y->has_writer_ip,
		    .writer_ip = y->writer_ip, .flags = y->flags,
		    .has_matched = w->filter->cond != NULL,
		    .matched = y->matched };
		watch_role(w, y->ti, &r.role, &r.level);
		if (emit_tally(w, &r) == -1)
			return;
	}
}

void
filter_free(struct watch *w)
{
	struct filter *f = w->filter;

	if (f == NULL)
		return;
	wp_cond_free(f->cond);
	csample_close(f->cs);
	free(f->core);
	free(f->ring);
	free(f->nring);
	free(f->chains);
	free(f->status);
	wp_hmap_free(&f->tallies);
	wp_hmap_free(&f->comms);
	free(f->has_prev);
	free(f->prev);
	free(f->novalue);
	free(f->wide);
	free(f);
	w->filter = NULL;
}

int
filter_holds(const struct watch *w)
{
	const struct filter *f = w->filter;

	return f != NULL && f->stopped && !f->sampled;
}

int
filter_stops(const struct watch *w)
{
	const struct filter *f = w->filter;

	return f != NULL && f->stop != STOP_NONE && !f->stopped;
}

void
filter_site_stop(struct watch *w, pid_t tid, uint64_t site, int by_program)
{
	struct wp_hit_rec h;

	memset(&h, 0, sizeof h);
	h.tid = tid;
	h.ip = site;
	h.has_writer_ip = 1;
	h.writer_ip = site;
	stop_at(w, &h, by_program);
}

void
filter_stopped(struct watch *w)
{
	struct filter *f = w->filter;
	char state;
	int ended;

	if (f == NULL || !f->stopped)
		return;
	if (stop_wait(w->pid) == -1) {
		state = wp_proc_state(w->pid);
		ended = state == 0 || state == 'Z' || state == 'X';
		f->at.process = wp_left_names[ended ? WP_LEFT_ENDED :
		    WP_LEFT_RUNNING];
		warnx("--stop: process %d %s after the write (thread %d)%s",
		    (int)w->pid, ended ? "ended before it stopped" :
		    "did not stop", (int)f->at.tid, ended ? "" :
		    "; it runs on");
		return;
	}
	f->at.process = wp_left_names[WP_LEFT_STOPPED];
	if (f->stop == STOP_CORE)
		f->at.core = f->core = stop_core(w->pid);
	stop_say(w, f->at.tid, f->at.has_writer, f->at.writer_ip, f->at.ip,
	    f->core);
	if (f->at.late)
		fprintf(stderr, "wp-arm: %s: stopped %" PRIu64 " us after the "
		    "write, when wp-arm read its sample: the thread ran on "
		    "meanwhile, its registers are not the write's (%s)\n",
		    BK_NAME(w->backend), f->at.late_us, f->kernel ?
		    "a first hit of a writer not decoded yet, tested by "
		    "wp-arm; the program stops at the write from then on" :
		    "the bpf, page and ptrace backends stop at it");
}

struct csample *
filter_csample(const struct watch *w)
{
	return w->filter != NULL ? w->filter->cs : NULL;
}

void
filter_observe(const struct watch *w, struct wp_observation *o)
{
	const struct filter *f = w->filter;

	if (f != NULL && f->stopped)
		o->stopped = f->at;
}

size_t
filter_compiled(const struct watch *w, size_t ti, struct wp_cond_op *ops,
    size_t max, int *stop)
{
	const struct filter *f = w->filter;

	*stop = 0;
	if (f == NULL || !f->kernel || !filtered(w, ti))
		return 0;
	*stop = f->stop != STOP_NONE && w->t[ti].chain < 0;
	return f->cond == NULL ? 0 : wp_cond_compile(f->cond,
	    (size_t)w->t[ti].len, ops, max);
}

int
filter_matched(const struct watch *w)
{
	return w->filter != NULL && w->filter->kernel &&
	    w->filter->cond != NULL;
}

void
filter_kernel_stop(struct watch *w, const struct wp_hit_rec *h)
{
	struct filter *f = w->filter;

	/* a SIGCONT of a pending hit's may have let the writer run on */
	if (f != NULL && f->kernel && !f->stopped)
		stop_at(w, h, f->resumed == 0 || wp_proc_state(h->tid) == 'T');
}
