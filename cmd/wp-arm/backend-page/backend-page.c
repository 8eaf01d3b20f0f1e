/*
 * The page backend: write permission is taken away from the pages that
 * hold the watched ranges (mprotect run in the target, tracee.c), and
 * each write to them stops its thread with SIGSEGV, at the writing
 * instruction itself.  A store that reaches a watched range is a hit,
 * its writer exact; one elsewhere on the page is a neighbour's, counted.
 * Either is then made: emulated (a plain store wp understands, written
 * through /proc/PID/mem) or stepped (the page made writable for that one
 * instruction, every other thread held).  With -a rw a page gets no
 * access at all, and a load from a watched range is a hit too (a read),
 * stepped.  System calls that may write
 * the pages get them back for the call (a kernel write, reported as the
 * call's), and so does the delivery of a caught signal (its frame).
 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "page.h"
#include "traced.h"
#include "util.h"

/*
 * The bytes of each target now, every thread held: what a kernel write
 * is measured from, and the values at arming.
 */
static int
read_targets(struct watch *w, struct page_state *s, struct wp_error *e)
{
	size_t i;

	traced_bytes(w, &s->last, &s->buf);
	for (i = 0; i < w->nt; i++)
		if (pread(s->tr.memfd, s->last[i], (size_t)w->t[i].len,
		    (off_t)w->t[i].addr) != w->t[i].len)
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: cannot "
			    "read 0x%" PRIx64 ": %s", w->t[i].id, w->t[i].addr,
			    strerror(errno));
	traced_initial(w, s->last);
	return 0;
}

static void
release_state(struct watch *w, struct page_state *s)
{
	size_t i;

	unwind_close(&s->uw);
	near_close(&s->near);
	traced_bytes_free(w, s->last, s->buf);
	for (i = 0; i < s->npg; i++)
		free(s->pg[i]);
	free(s->pg);
	tr_close(&s->tr);
	free(s);
	w->state = NULL;
}

/* Entry ti moved: its bytes there now, and the pages to sync. */
static void
page_rearm(struct watch *w, size_t ti)
{
	struct page_state *s = w->state;
	struct wtarget *t = &w->t[ti];

	if (s->last != NULL && t->armed && pread(s->tr.memfd, s->last[ti],
	    (size_t)t->len, (off_t)t->addr) != t->len)
		memset(s->last[ti], 0, (size_t)t->len);
	s->moved = 1;
}

/*
 * What the process is given back before the detach: a fault of ours
 * still pending is not delivered (its instruction runs again, on a
 * writable page), and from stopped thread t (NULL: none) each page its
 * own protection, each rseq area registered again.
 */
static void
give_back(struct page_state *s, struct tr_thread *t)
{
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		/* a fault raised as the hold stopped it, still pending */
		tr_take_signal(s->tr.t[i], SIGSEGV);
		if (s->tr.t[i]->state == TR_STOPPED &&
		    s->tr.t[i]->stop == TR_SIGNAL &&
		    s->tr.t[i]->sig == SIGSEGV &&
		    page_fault_ours(s, s->tr.t[i], NULL, NULL)) {
			page_segv_keep(s, s->tr.t[i]);
			s->tr.t[i]->sig = 0;
		}
	}
	if (t != NULL) {
		page_restore(s, t);
		page_rseq_restore(s);
	}
}

/*
 * wp-arm is to end on a failure (out of memory): every thread held,
 * the process given back from one stopped already (nothing allocated
 * here: no wait for new threads, the injections need no memory).
 */
static void
page_fatal(void *arg)
{
	struct page_state *s = arg;

	tr_hold(&s->tr, NULL);
	/* after an exec the memory is another program's */
	give_back(s, s->exec_seen && !s->exec_next ? NULL :
	    page_injectable(s));
}

static int
arm_stopped(struct watch *w, struct page_state *s, struct wp_error *e)
{
	if (traced_attach(w, &s->tr, e) == -1)
		return -1;
	traced_on_fatal(page_fatal, s);
	follow_update(w, s->tr.memfd);
	page_collect(w, s);
	if (page_check(w, s, ": use --backend ptrace", e) == -1 ||
	    read_targets(w, s, e) == -1 ||
	    page_protect(w, s, e) == -1)
		return -1;
	return 0;
}

/* The backend's state, in w->state; the targets not in chains armed. */
static struct page_state *
new_state(struct watch *w)
{
	struct page_state *s = wp_xcalloc(1, sizeof *s);
	size_t i;

	w->state = s;
	tr_init(&s->tr, w->pid);
	near_init(&s->near, 0, NULL);
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0)
			w->t[i].armed = 1;
	return s;
}

static int
page_arm(struct watch *w, struct wp_error *e)
{
	struct page_state *s = new_state(w);
	size_t i;

	if (!w->tracer_cpu_free) {
		near_init(&s->near, 1, &obs(w)->tracer_moves);
		obs(w)->tracer_follows = s->near.on;
	}
	if (traced_open(w, &s->tr, 1, e) == -1)
		goto fail;
	if (arm_stopped(w, s, e) == -1) {
		traced_detach(&s->tr);
		goto fail;
	}
	s->t0 = s->win_t = wp_now_ns();
	/* the stops found at the seize stay queued for the loop */
	for (i = 0; i < s->tr.n; i++)
		if (!s->tr.t[i]->queued)
			page_resume(w, s, s->tr.t[i], 0);
	traced_armed(w, s->tr.n);
	return 0;
fail:
	release_state(w, s);
	return -1;
}

/*
 * Whether page protection can watch every target: the options it
 * refuses, the pages' mappings, the threads' rseq areas (the process is
 * seized for a moment).  Named by the user, arming says why not, with
 * advice.
 */
static int
page_fits(struct watch *w, int chosen, struct wp_error *e)
{
	struct page_state *s;
	int rc = 0;

	if (chosen)
		return 1;
	s = new_state(w);
	s->probe = 1;
	if (tr_open(&s->tr, w->pid, 1, e) == 0 &&
	    tr_seize_all(&s->tr, 0, 1, NULL, NULL) > 0) {
		page_collect(w, s);
		rc = page_check(w, s, "", e);
		tr_detach_all(&s->tr);
	}
	release_state(w, s);
	return rc == 0;
}

/* Whether a thread of the process is still traced. */
static int
page_alive(struct watch *w)
{
	return tr_alive(&((struct page_state *)w->state)->tr);
}

/* Takes the next stop, and re-arms where a pointer moved. */
static void
page_round(struct watch *w)
{
	struct page_state *s = w->state;
	struct tr_thread *t;
	int none;

	near_waiting(&s->near);
	if ((t = tr_wait(&s->tr, 1, &none)) != NULL) {
		if (t->state == TR_STOPPED)
			near_stopped(&s->near, t->tgid, t->tid);
		page_event(w, s, t);
		/* a pointer the kernel wrote */
		page_follow(w, s);
	} else if (none)
		for (size_t i = 0; i < s->tr.n; i++)
			s->tr.t[i]->state = TR_GONE;
}

static void
page_run(struct watch *w, uint64_t until)
{
	struct page_state *s = w->state;

	(void)until;		/* the 50 ms tick returns here */
	/* the records of a tick go out together, not a write(2) each */
	emit_hold();
	page_unexplained(w, s);
	page_window(w, s, 0);
	tr_prune(&s->tr);
	traced_run(w, &s->exec_seen, page_alive, page_round);
	emit_release(w);
}

/*
 * A thread to restore the pages from: one of those held, else the first
 * of the process to stop (each has an interrupt pending), queued.
 */
static struct tr_thread *
stopped_one(struct page_state *s)
{
	struct tr_thread *t;
	int none, k;

	for (k = 0; k < 100; k++) {
		if ((t = page_injectable(s)) != NULL)
			return t;
		if ((t = tr_wait(&s->tr, 1, &none)) == NULL) {
			if (none)
				return NULL;
			continue;
		}
		if (t->state == TR_STOPPED)
			t->queued = 1;
	}
	return NULL;
}

/*
 * Holds every thread, gives each page its own protection back, and
 * detaches; a fault of ours still pending is not delivered (its
 * instruction runs again, on a writable page).
 */
static void
page_disarm(struct watch *w)
{
	struct page_state *s = w->state;
	struct tr_thread *t;
	size_t i;

	traced_tick(0);
	tr_hold(&s->tr, NULL);
	page_window(w, s, 1);
	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i]->tgid == s->tr.pid &&
		    s->tr.t[i]->state == TR_STOPPED)
			page_thread_time(w, s->tr.t[i]);
	/* still stopped since the arming: nothing was protected */
	t = (s->exec_seen && !s->exec_next) || !tr_alive(&s->tr) ||
	    s->arm_pending ? NULL : stopped_one(s);
	page_unexplained(w, s);
	give_back(s, t);
	if (!s->exec_seen || s->exec_next)
		traced_read_latest(w, s->tr.memfd);
	obs(w)->stopped_ns += s->tr.stopped_ns;
	obs(w)->watched_ns = wp_now_ns() - s->t0;
	s->tr.keep_stopped = filter_holds(w);
	traced_detach(&s->tr);
	traced_count(w);
	release_state(w, s);
}

/* The counters (here, or the supervisor's copy). */
static void
page_observe(struct watch *w, struct wp_observation *o)
{
	o->page = obs(w);
	traced_unexplained(w, obs(w)->unexplained);
	w->obs_pages_dropped = 1;
	/* a page given back to a call while other threads ran */
	if (obs(w)->windows_shared > 0)
		w->obs_partial |= 1u << WP_PARTIAL_PAGE_WINDOWS_SHARED;
	/* a page let go mid-watch: its accesses since are not seen */
	if (obs(w)->pages_dropped > 0)
		w->obs_partial |= 1u << WP_PARTIAL_PAGES_DROPPED;
	/* an io_uring or AIO context: its reads into the pages failed */
	if (obs(w)->async_io > 0)
		w->obs_partial |= 1u << WP_PARTIAL_ASYNC_IO;
	/* every thread is held from the pointer's store to the re-arm */
	o->follow_mode = "stop-all";
}

const struct backend backend_page = {
	.id = WP_BK_PAGE,
	.caps = BK_EXACT | BK_TRACES | BK_ANYWIDTH | BK_NEAR,
	.chosen = "the page-protection backend (writes to the watched pages "
	    "fault and stop the target a moment each: a hot neighbour on "
	    "them slows it, and its own timeouts may fire)",
	.fits = page_fits, .cond_where = CW_TRACER, .orphan_signal = SIGSEGV,
	.callchain = "cfi", .obs_size = sizeof(struct wp_obs_page),
	.arm = page_arm, .run = page_run, .count = traced_count,
	.rearm = page_rearm,
	.disarm = page_disarm, .observe = page_observe
};
