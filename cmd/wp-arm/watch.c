/*
 * The watch every backend runs in: the loop and its stop conditions
 * (the signals that end it: signals.c), the one place max events cuts
 * (watch_hit) and ends a watch (not one whose backend tallies),
 * and the thread table.  The backend is reached through its struct
 * backend only; a supervisor (guard.c) through supervisor_note.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cond.h"
#include "filter.h"
#include "proc.h"
#include "record.h"
#include "util.h"
#include "vocab.h"
#include "watch.h"

#define TICK_NS		50000000ULL	/* how often the loop looks up */
/* how often the records held for a regular file go out, whatever
   --interval is (0 included): a reader of the file sees each hit
   within this, not at the end */
#define FLUSH_NS	1000000000ULL

/* A reader that went away shows as an error on our end of the pipe. */
static int
stdout_closed(void)
{
	struct pollfd pf = { STDOUT_FILENO, 0, 0 };

	return poll(&pf, 1, 0) == 1 && (pf.revents & (POLLERR | POLLHUP));
}

/* Sets w->stop_reason when the watch is to stop now. */
static void
check_stop(struct watch *w, uint64_t deadline)
{
	if (w->stop_reason != NULL && !w->output_closed && !w->truncated)
		return;
	if (w->output_closed || stdout_closed()) {
		w->output_closed = 1;
		w->stop_reason = wp_stop_names[WP_STOP_OUTPUT_CLOSED];
	} else if (w->truncated && !(w->backend->caps & BK_TALLIES))
		w->stop_reason = wp_stop_names[WP_STOP_MAX_EVENTS];
	else if (watch_signalled()) {
		w->stop_reason = wp_stop_names[WP_STOP_SIGNAL];
		w->stop_detail = watch_signame(watch_signalled());
	} else if (wp_now_ns() >= deadline)
		w->stop_reason = wp_stop_names[WP_STOP_DURATION];
}

/* A count record per watched entry: written and counted so far. */
static void
emit_counts(struct watch *w)
{
	struct wp_count_rec c;
	size_t i;

	for (i = 0; i < w->nt; i++) {
		if (!w->t[i].counted_known)
			continue;
		memset(&c, 0, sizeof c);
		watch_role(w, i, &c.role, &c.level);
		c.target = w->t[i].id;
		c.counted = w->t[i].counted;
		c.sampled = w->t[i].hits;
		c.time_ns = watch_time(w, wp_now_ns());
		if (emit_count(w, &c) == -1)
			return;
	}
	emit_flush(w);
}

/* A seeded record per thread armed at the start: what it is called. */
static void
emit_seeded(struct watch *w)
{
	struct wp_thread_rec tr;
	size_t i;

	for (i = 0; i < w->nthr; i++) {
		if (w->thr[i].state != THR_SEEDED)
			continue;
		memset(&tr, 0, sizeof tr);
		tr.event = "seeded";
		tr.tid = w->thr[i].tid;
		tr.has_time = 1;
		tr.time_ns = watch_time(w, wp_now_ns());
		if (emit_thread(w, &tr) == -1)
			return;
	}
}

int
watch_use(struct watch *w, const struct backend *b, struct wp_error *e)
{
	free(w->obs);
	w->obs = wp_xcalloc(1, b->obs_size > 0 ? b->obs_size : 1);
	w->backend = b;
	if (b->open != NULL && b->open(w, e) == -1) {
		w->backend = NULL;
		return -1;
	}
	return 0;
}

void
watch_read_initial(struct watch *w)
{
	unsigned char b[8];
	size_t i;
	int fd;

	if ((fd = wp_proc_mem_open(w->pid)) == -1)
		return;
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && !w->t[i].has_initial &&
		    w->t[i].len <= 8 && wp_proc_read(fd, w->t[i].addr, b,
		    (size_t)w->t[i].len) == 0) {
			w->t[i].has_initial = 1;
			w->t[i].initial = wp_le64(b, (size_t)w->t[i].len);
		}
	close(fd);
}

int
watch_run(struct watch *w, struct wp_error *e)
{
	const struct backend *b = w->backend;
	sigset_t orig;
	uint64_t deadline, now, next_count, next_flush;

	w->stop_reason = NULL;
	watch_catch_signals(&orig);
	w->waitmask = orig;
	w->t0 = wp_now_ns();
	if (w->callchain != CC_NONE) {
		w->armed.callchain = b->callchain;	/* NULL: arm() says */
		w->armed.callchain_depth = w->callchain_depth;
	}
	if (b->arm(w, e) == -1) {
		sigprocmask(SIG_SETMASK, &orig, NULL);
		return -1;
	}
	watch_read_initial(w);
	filter_armed(w);
	/* a site's tallies are tested as wp-arm reads them (sites_match) */
	if (w->sites_if != NULL) {
		w->armed.condition = wp_cond_text(w->sites_if);
		w->armed.condition_where = "wp-arm";
	}
	emit_armed(w);
	emit_seeded(w);
	deadline = wp_now_ns() + w->duration_ms * 1000000;
	next_count = wp_now_ns() + w->interval_ms * 1000000;
	next_flush = wp_now_ns() + FLUSH_NS;
	for (;;) {
		check_stop(w, deadline);
		if (w->stop_reason != NULL)
			break;
		now = wp_now_ns();
		if (w->interval_ms > 0 && now >= next_count) {
			b->count(w);
			emit_counts(w);
			next_count = now + w->interval_ms * 1000000;
		}
		if (now >= next_flush) {
			emit_flush(w);
			next_flush = now + FLUSH_NS;
		}
		b->run(w, deadline - now < TICK_NS ? deadline : now + TICK_NS);
		if (w->supervisor_note != NULL)
			w->supervisor_note(w);
	}
	b->disarm(w);
	/* the signal that killed the process, where a tracer saw it */
	if (w->stop_reason != NULL && w->died_signal != 0 &&
	    strcmp(w->stop_reason, wp_stop_names[WP_STOP_EXITED]) == 0)
		w->stop_detail = watch_signame(w->died_signal);
	/* the watch's time: not the slow reader's the tallies wait for */
	w->elapsed_ms = (wp_now_ns() - w->t0) / 1000000;
	filter_emit(w);
	check_stop(w, deadline);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return 0;
}

void
watch_free(struct watch *w)
{
	free(w->thr);
	free(w->t);
	free(w->chains);
	free(w->sites);
	wp_cond_free(w->sites_if);
	free(w->obs);
	filter_free(w);
	wp_jw_free(&w->jw);
	w->thr = NULL;
	w->t = NULL;
	w->chains = NULL;
	w->sites = NULL;
	w->sites_if = NULL;
	w->obs = NULL;
}

int
watch_hit(struct watch *w, size_t ti, struct wp_hit_rec *h)
{
	struct wtarget *t = &w->t[ti];
	struct chain *c;
	int role, level;

	/*
	 * --if: a write that does not match is counted, not written; a
	 * pointer's always is, as it moves its chain's leaf
	 */
	watch_role(w, ti, &role, &level);
	if (w->filter != NULL && role != WP_ROLE_POINTER &&
	    !filter_hit(w, ti, h))
		return 0;
	/* a pointer's write still moves its chain's leaf: a backend that
	   tallies watches on past max events */
	if (w->truncated && (role != WP_ROLE_POINTER ||
	    !(w->backend->caps & BK_TALLIES))) {
		t->unwritten++;
		return 0;
	}
	h->target = t->id;
	h->role = WP_ROLE_NONE;
	if (t->chain >= 0) {
		c = &w->chains[t->chain];
		h->addr = t->addr;
		h->len = t->len;
		if ((size_t)t->level < c->noffs) {
			h->role = WP_ROLE_POINTER;
			h->level = t->level;
			c->ptr_hits++;
			c->dirty = 1;
		} else {
			h->role = WP_ROLE_LEAF;
			h->generation = c->generation;
			c->leaf_hits++;
		}
	}
	t->hits++;
	if (++w->accepted >= w->max_events)
		w->truncated = 1;
	return emit_hit(w, h);
}

void
watch_store(struct wp_hit_rec *h, const struct wtarget *t, uint64_t lo,
    uint64_t hi, const unsigned char *bytes)
{
	uint64_t end = t->addr + (uint64_t)t->len;

	lo = lo > t->addr ? lo : t->addr;
	hi = hi < end ? hi : end;
	h->store_len = 0;
	if (lo >= hi)
		return;
	h->store_addr = lo;
	h->store_len = (size_t)(hi - lo);
	h->store_bytes = bytes + (lo - t->addr);
}

void
watch_changed(const unsigned char *old, const unsigned char *now, size_t n,
    uint64_t addr, uint64_t span[2])
{
	size_t a = 0, b = n;

	while (a < n && old[a] == now[a])
		a++;
	while (b > a && old[b - 1] == now[b - 1])
		b--;
	span[0] = addr + a;
	span[1] = addr + b;
}

void
watch_exited(struct watch *w, pid_t tid, int status)
{
	(void)tid;
	if (WIFSIGNALED(status) && w->died_signal == 0)
		w->died_signal = WTERMSIG(status);
	else if (WIFEXITED(status) && !w->has_exit_status) {
		w->has_exit_status = 1;
		w->exit_status = WEXITSTATUS(status);
	}
}

struct thread *
watch_thread_find(struct watch *w, pid_t tid)
{
	return (struct thread *)wp_find_int(w->thr, w->nthr, sizeof *w->thr,
	    offsetof(struct thread, tid), tid);
}

struct thread *
watch_thread(struct watch *w, pid_t tid, enum thread_state st)
{
	struct thread *t;

	if ((t = watch_thread_find(w, tid)) != NULL)
		return t;
	w->thr = wp_xrealloc(w->thr, (w->nthr + 1) * sizeof *w->thr);
	t = &w->thr[w->nthr++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->state = st;
	return t;
}

size_t
watch_count_threads(const struct watch *w, enum thread_state st)
{
	size_t i, n = 0;

	for (i = 0; i < w->nthr; i++)
		n += w->thr[i].state == st;
	return n;
}
