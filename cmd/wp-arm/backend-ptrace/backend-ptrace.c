/*
 * The ptrace backend: every thread is single-stepped, and before each
 * step the instruction at its IP is decoded (lib/x86) to see whether it
 * stores to a watched range.  Exact, and slow: one stop per instruction.
 * A step costs a PTRACE_SINGLESTEP and a wait, and little else: the
 * registers are read where what the instruction does depends on them (a
 * jump that is not direct, an access through a register, a system call),
 * and the watched bytes where something may have changed them (a store
 * that may reach them, a system call, a signal).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptrace.h"
#include "filter.h"
#include "proc.h"
#include "traced.h"
#include "tracee.h"
#include "util.h"
#include "unwind.h"
#include "watch.h"

/* Entry ti moved: what it holds now is its last seen value. */
static void
ptrace_rearm(struct watch *w, size_t ti)
{
	struct ptrace_state *s = w->state;
	struct wtarget *t = &w->t[ti];

	if (t->armed && pread(s->tr.memfd, s->last[ti], (size_t)t->len,
	    (off_t)t->addr) != t->len)
		t->armed = 0;
}

static void
release(struct watch *w, struct ptrace_state *s)
{
	unwind_close(&s->uw);
	traced_bytes_free(w, s->last, s->buf);
	tr_close(&s->tr);
	free(s->ic);
	free(s);
	w->state = NULL;
}

/*
 * The bytes of each plain target now, every thread stopped: what a
 * change is measured from.
 */
static int
read_targets(struct watch *w, struct ptrace_state *s, struct wp_error *e)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && pread(s->tr.memfd, s->last[i],
		    (size_t)w->t[i].len, (off_t)w->t[i].addr) != w->t[i].len)
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: cannot "
			    "read 0x%" PRIx64 ": %s", w->t[i].id, w->t[i].addr,
			    strerror(errno));
	traced_initial(w, s->last);
	s->based = 1;
	return 0;
}

/* Seizes and stops every thread, and reads where the watch begins. */
static int
arm_stopped(struct watch *w, struct ptrace_state *s, struct wp_error *e)
{
	size_t i;

	if (traced_attach(w, &s->tr, e) == -1)
		return -1;
	traced_on_fatal(pt_rseq_unhide, s);
	pt_stop_all(w, s);
	if (read_targets(w, s, e) == -1) {
		traced_detach(&s->tr);
		return -1;
	}
	follow_update(w, s->tr.memfd);
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain >= 0)
			ptrace_rearm(w, i);	/* what they hold now */
	return 0;
}

static int
ptrace_arm(struct watch *w, struct wp_error *e)
{
	struct ptrace_state *s;
	size_t i;

	w->state = s = wp_xcalloc(1, sizeof *s);
	tr_init(&s->tr, w->pid);
	s->ic = wp_xcalloc((size_t)1 << ICACHE_BITS, sizeof *s->ic);
	s->need = I_REGS_W;
	for (i = 0; i < w->nt; i++)
		if (w->t[i].rw)
			s->need |= I_REGS_R;
	traced_bytes(w, &s->last, &s->buf);
	if (traced_open(w, &s->tr, 0, e) == -1 || arm_stopped(w, s, e) == -1)
		goto fail;
	traced_armed(w, s->tr.n);
	s->step_t0 = wp_now_ns();
	return 0;
fail:
	release(w, s);
	return -1;
}

/* Steps the next thread ready, or takes the stops that come. */
static void
ptrace_round(struct watch *w)
{
	struct ptrace_state *s = w->state;
	struct tr_thread *t;

	if ((t = pt_next_ready(s)) != NULL) {
		if (pt_step(w, s, t))
			pt_on_stop(w, s, t);
	} else {
		pt_collect(w, s);
		if (pt_next_ready(s) == NULL)
			pt_wait_any(w, s);
	}
}

/* Steps the threads until the next tick, a signal, or the end. */
static void
ptrace_run(struct watch *w, uint64_t until)
{
	struct ptrace_state *s = w->state;

	(void)until;		/* the 50 ms tick returns here */
	pt_prune(s);
	pt_collect(w, s);
	traced_run(w, &s->exec_seen, pt_alive, ptrace_round);
}

/*
 * Holds every thread (a blocked call is interrupted), reads where the
 * watch ends, and detaches each as it was: no SIGTRAP of a step is left
 * pending, a signal it was stopped to take is delivered.
 */
static void
ptrace_disarm(struct watch *w)
{
	struct ptrace_state *s = w->state;
	uint64_t ns = wp_now_ns() - s->step_t0;

	traced_tick(0);
	pt_ctr(w)->steps_per_second = ns ? pt_ctr(w)->steps * 1000000000 / ns : 0;
	tr_hold(&s->tr, NULL);
	traced_read_latest(w, s->tr.memfd);
	pt_rseq_unhide(s);
	s->tr.keep_stopped = filter_holds(w);
	traced_detach(&s->tr);
	traced_count(w);
	release(w, s);
}

/*
 * This CPU's clock rate, as a chain of dependent additions measures it
 * (each waits for the one before: one a cycle on every x86-64 and
 * arm64 core: regs.h): the
 * instructions per second of code that runs one instruction a cycle,
 * what the native run time of the single-stepped instructions is
 * estimated by.  Of five runs of 2^20 additions (a millisecond or less
 * each) after one to warm up, the fastest is kept: a run that was
 * preempted is slower, never faster.
 */
static uint64_t
native_rate(void)
{
	uint64_t t0, ns, best = UINT64_MAX, x = 0;
	int k;

	for (k = 0; k < 6; k++) {
		t0 = wp_now_ns();
		x = tr_add_chain(x, 1 << 14);
		ns = wp_now_ns() - t0;
		if (k > 0 && ns < best)
			best = ns;
	}
	return best > 0 && best != UINT64_MAX ?
	    (64ULL << 14) * 1000000000 / best : 0;
}

/* The counters (here, or the supervisor's copy), and chains: stepped. */
static void
ptrace_observe(struct watch *w, struct wp_observation *o)
{
	pt_ctr(w)->native_ips = native_rate();
	traced_unexplained(w, pt_ctr(w)->unexplained);
	o->ptrace = pt_ctr(w);
	o->follow_mode = "step";
	/* stores it cannot model: their count is a lower bound */
	w->obs_lower_bound |= pt_ctr(w)->unmodeled > 0;
}

const struct backend backend_ptrace = {
	.id = WP_BK_PTRACE,
	.caps = BK_EXACT | BK_TRACES | BK_ANYWIDTH,
	.chosen = "single-step (the ptrace backend: exact, but slow)",
	.cond_where = CW_TRACER, .orphan_signal = SIGTRAP,
	.callchain = "cfi",
	.obs_size = sizeof(struct wp_obs_ptrace), .arm = ptrace_arm,
	.run = ptrace_run, .count = traced_count, .rearm = ptrace_rearm,
	.disarm = ptrace_disarm, .observe = ptrace_observe
};
