/*
 * The rseq areas on watched pages (page_rseq_park, page_rseq_restore).
 * The kernel writes a thread's rseq area as it schedules the thread,
 * and kills the thread when it cannot: so on a protected page the area
 * is unregistered for the watch, in its thread (rseq(2) with
 * RSEQ_FLAG_UNREGISTER, injected), and registered again at the end.
 * Unregistered, its cpu_id reads -1 (RSEQ_CPU_ID_UNINITIALIZED), and
 * glibc asks the kernel instead; a restartable sequence under way then
 * is not restarted, which glibc, which has none, does not mind.
 * A store that faults inside its thread's active critical section
 * (page_rseq_fault) is not made: the thread was preempted there and
 * others may have run since, so the section is aborted as the kernel
 * would, and its retry stepped alone, as one unit; a system call on the
 * way is made with the others let go, and the retry taken up again at
 * its exit.
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "page.h"

#define RSEQ_UNREGISTER		1
/* a retry's steps from its abort IP (or a fault made) to its next
   fault, at first; doubled for the thread's next retry each time they
   run out, up to RSEQ_STEPS_MAX */
#define RSEQ_STEPS		100000
#define RSEQ_STEPS_MAX		(RSEQ_STEPS << 6)

/*
 * Stopped thread t's rseq area (0: none), asked of the kernel once and
 * kept until t's next rseq(2) call (its own, or one injected here).
 */
static uint64_t
area_of(struct tr_thread *t)
{
	struct pthr *pt = pthr_of(t);
	struct tr_rseq rc;

	if (!pt->rseq_known) {
		pt->rseq_area = tr_rseq(t->tid, &rc) == 0 ? rc.area : 0;
		pt->rseq_known = 1;
	}
	return pt->rseq_area;
}

void
page_rseq_forget(struct tr_thread *t)
{
	pthr_of(t)->rseq_known = 0;
}

/*
 * rseq(area, len, flags, sig) run in stopped thread t, its registers
 * as they were after: 0, or -1.
 */
static int
rseq_call(struct page_state *s, struct tr_thread *t, uint64_t area,
    uint32_t len, int flags, uint32_t sig)
{
	const uint64_t a[4] = { area, len, (uint64_t)flags, sig };
	long rv;

	if (t->state != TR_STOPPED || t->stop == TR_GROUP ||
	    (t->stop == TR_SC_ENTRY && tr_leave_entry(&s->tr, t) == -1))
		return -1;
	rv = tr_inject4(&s->tr, t, SYS_rseq, a);
	page_rseq_forget(t);
	return rv == 0 ? 0 : -1;
}

pid_t
page_rseq_park(struct page_state *s, const struct ppage *p)
{
	struct tr_rseq rc;
	struct tr_thread *t;
	struct pthr *pt;
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		t = s->tr.t[i];
		if (t->state != TR_STOPPED || t->tgid != s->tr.pid ||
		    tr_rseq(t->tid, &rc) == -1 || rc.area == 0 ||
		    rc.area >= p->addr + PAGE_SZ || p->addr >= rc.area + rc.len)
			continue;
		if (s->probe)
			continue;
		if (rseq_call(s, t, rc.area, rc.len, RSEQ_UNREGISTER,
		    rc.sig) == -1)
			return t->tid;
		pt = pthr_of(t);
		pt->rseq = rc.area;
		pt->rseq_len = rc.len;
		pt->rseq_sig = rc.sig;
	}
	return 0;
}

void
page_rseq_restore(struct page_state *s)
{
	struct pthr *pt;
	size_t i;

	for (i = 0; i < s->tr.n; i++) {
		pt = s->tr.t[i]->user;
		if (pt == NULL || pt->rseq == 0)
			continue;
		if (rseq_call(s, s->tr.t[i], pt->rseq, pt->rseq_len, 0,
		    pt->rseq_sig) == 0)
			pt->rseq = 0;
	}
}

/* Whether ip lies in section cs. */
static int
inside(const struct tr_rseq_cs *cs, uint64_t ip)
{
	return cs->ptr != 0 && ip - cs->start < cs->end - cs->start;
}

/* Whether the instruction at ip makes a system call. */
static int
at_syscall(int memfd, uint64_t ip)
{
	unsigned char b[4];

	if (pread(memfd, b, tr_sc_len, (off_t)ip) != (ssize_t)tr_sc_len)
		return 0;
	return tr_enters_kernel(b);
}

/*
 * Steps t, alone, from its abort IP: 0 at a fault on a guarded page
 * (before the section is entered again, or inside it), 1 when it
 * stopped otherwise, left the section, ran too long, or is at a system
 * call (not made: the others run while it is, and the retry is taken
 * up again at its exit, page_rseq_call).
 */
static int
steps(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, struct ppage **pp, uint64_t *addr)
{
	struct pthr *pt = pthr_of(t);
	uint64_t n;
	int r;

	if (pt->rseq_steps == 0)
		pt->rseq_steps = RSEQ_STEPS;
	for (n = 0; n < pt->rseq_steps; n++) {
		if (at_syscall(s->tr.memfd, tr_pc(u))) {
			obs(w)->rseq_retry_calls++;
			pt->rseq_call = 1;
			return 1;
		}
		if ((r = tr_step(&s->tr, t, 0)) == -1 ||
		    tr_getregs(t->tid, u) == -1)
			return 1;
		if (r == 1) {
			if (t->stop == TR_SIGNAL && t->sig == SIGSEGV &&
			    page_fault_ours(s, t, pp, addr) &&
			    (s->rseq_cs.ptr == 0 ||
			    inside(&s->rseq_cs, tr_pc(u))))
				return 0;
			t->queued = 1;
			return 1;
		}
		if (s->rseq_cs.ptr != 0) {
			if (!inside(&s->rseq_cs, tr_pc(u)))
				return 1;	/* left it without a fault */
		} else if (tr_rseq_cs(s->tr.memfd, s->rseq_area,
		    &s->rseq_cs) == 0)
			tr_rseq_cs_put(s->tr.memfd, s->rseq_area, 0);
	}
	obs(w)->rseq_retries_cut++;
	if (pt->rseq_steps < RSEQ_STEPS_MAX)
		pt->rseq_steps *= 2;
	return 1;
}

/* steps, with the signals a step forces unblocked (tr_unblock_forced). */
static int
retry(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, struct ppage **pp, uint64_t *addr)
{
	uint64_t mask;
	int unmasked = tr_unblock_forced(t, &mask), r;

	r = steps(w, s, t, u, pp, addr);
	if (unmasked && t->state == TR_STOPPED)
		tr_set_mask(t, mask);
	return r;
}

/*
 * t's retry, from where it is (u), run with every other thread held
 * (area: its rseq area; its section not entered yet): as retry, 0, or
 * 1 when it is over (page_rseq_done).
 */
static int
alone(struct watch *w, struct page_state *s, struct tr_thread *t,
    uint64_t area, struct user_regs_struct *u, struct ppage **pp,
    uint64_t *addr)
{
	if (!s->holding) {
		tr_hold(&s->tr, t);
		s->holding = s->rseq_held = 1;
	}
	s->rseq_area = area;
	memset(&s->rseq_cs, 0, sizeof s->rseq_cs);
	if (retry(w, s, t, u, pp, addr) == 0)
		return 0;
	page_rseq_done(s, t);
	return 1;
}

int
page_rseq_fault(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, struct ppage **pp, uint64_t *addr)
{
	struct tr_rseq_cs cs;
	uint64_t area;

	if (s->rseq_area != 0 || (area = area_of(t)) == 0 ||
	    tr_rseq_cs(s->tr.memfd, area, &cs) == -1 ||
	    !inside(&cs, tr_pc(u)))
		return 0;
	tr_set_pc(u, cs.abort_ip);
	if (tr_setregs(t->tid, u) == -1)
		return 1;
	tr_rseq_cs_put(s->tr.memfd, area, 0);
	obs(w)->rseq_retries++;
	return alone(w, s, t, area, u, pp, addr);
}

int
page_rseq_call(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct ppage **pp, uint64_t *addr)
{
	struct pthr *pt = pthr_of(t);
	struct user_regs_struct u;
	uint64_t area;

	if (!pt->rseq_call)
		return 0;
	pt->rseq_call = 0;
	/* another thread's retry under way: it runs on its own */
	if (s->rseq_area != 0 || s->holding || t->state != TR_STOPPED ||
	    (area = area_of(t)) == 0 ||
	    tr_getregs(t->tid, &u) == -1)
		return 0;
	if (alone(w, s, t, area, &u, pp, addr) == 0)
		return 2;
	return t->queued;
}

void
page_rseq_done(struct page_state *s, struct tr_thread *t)
{
	struct user_regs_struct u;

	if (s->rseq_area == 0)
		return;
	if (t->state == TR_STOPPED &&
	    tr_getregs(t->tid, &u) == 0 &&
	    inside(&s->rseq_cs, tr_pc(&u)))
		tr_rseq_cs_put(s->tr.memfd, s->rseq_area, s->rseq_cs.ptr);
	s->rseq_area = 0;
	memset(&s->rseq_cs, 0, sizeof s->rseq_cs);
	if (s->rseq_held) {
		s->rseq_held = s->holding = 0;
		tr_release(&s->tr);
	}
}

int
page_rseq_more(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, struct ppage **pp, uint64_t *addr)
{
	if (s->rseq_area == 0)
		return 1;
	if ((s->rseq_cs.ptr == 0 || inside(&s->rseq_cs, tr_pc(u))) &&
	    !t->queued && t->state == TR_STOPPED &&
	    retry(w, s, t, u, pp, addr) == 0)
		return 0;
	page_rseq_done(s, t);
	return 1;
}
