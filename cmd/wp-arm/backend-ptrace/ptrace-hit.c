/*
 * What a step of the ptrace backend wrote: the instruction's decoded
 * store (or load, with -a rw) compared with the watched ranges, the
 * watched bytes read where they may have changed, and what changed
 * without a store told apart (a signal frame, a system call's buffer,
 * another process): each a hit.
 */
#include <sys/ptrace.h>
#include <sys/user.h>

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "ptrace.h"
#include "syscalls.h"
#include "traced.h"
#include "tracee.h"
#include "unwind.h"
#include "util.h"
#include "watch.h"
#include "x86.h"

static void
callers(struct watch *w, struct ptrace_state *s, struct pthr *p,
    struct wp_hit_rec *h)
{
	if (!s->uw_tried) {
		s->uw_tried = 1;
		unwind_open(&s->uw, w->pid);
	}
	h->chain_status = unwind_thread(&s->uw, p->tid, s->chain,
	    w->callchain_depth, &h->nchain);
	h->chain = s->chain;
}

/*
 * A hit of thread p on entry ti, with the bytes after it; flags say what
 * kind; its write [lo, hi) (none: lo == hi).  The instruction that ran
 * is its writer unless the kernel wrote (a signal frame) or nothing
 * explains the change.
 */
static void
report_hit(struct watch *w, struct ptrace_state *s, struct pthr *p, size_t ti,
    const unsigned char *now, unsigned flags, uint64_t lo, uint64_t hi)
{
	struct user_regs_struct u;
	struct wp_x86_regs regs;
	struct wp_hit_rec h;
	int have_u;

	have_u = tr_getregs(p->tid, &u) == 0;
	memset(&h, 0, sizeof h);
	h.pid = w->pid;
	h.tid = p->tid;
	h.cpu = -1;
	h.time_ns = watch_time(w, wp_now_ns());
	h.ip = have_u ? tr_pc(&u) : 0;
	h.exact = 1;
	h.has_writer_ip = !(flags & (WP_HIT_KERNEL | WP_HIT_UNEXPLAINED));
	h.writer_ip = p->insn_ip;
	h.bytes = now;
	h.nbytes = (size_t)w->t[ti].len;
	watch_store(&h, &w->t[ti], lo, hi, now);
	/* the target's bytes before this step's write: not copied yet */
	if (h.store_len > 0)
		h.store_prev = s->last[ti] + (h.store_addr - w->t[ti].addr);
	h.flags = flags;
	h.signal = flags & WP_HIT_KERNEL ? p->sigstep : 0;
	if (w->regs && have_u) {
		tr_regs(&u, &regs);
		h.regs = &regs;
	}
	if (w->callchain)
		callers(w, s, p, &h);
	watch_hit(w, ti, &h);
}

/*
 * A pointer of chain ci was written: read the chain again; the entries
 * after the pointer move (ptrace_rearm).  Exact: the writer is stopped,
 * and no other thread runs meanwhile: the leaf moves before anything
 * runs.
 */
static void
rebind(struct watch *w, struct ptrace_state *s, size_t ci)
{
	if (follow_rebind(w, s->tr.memfd, ci))
		follow_record(w, ci, 0, 1, 0);
}

/* Entry ti moved: what it holds now is its last seen value. */

static int
overlaps(uint64_t lo, uint64_t hi, const struct wtarget *t)
{
	return lo < t->addr + (uint64_t)t->len && t->addr < hi;
}

/*
 * Whether the kernel certainly wrote entry t for thread p's step,
 * changed or not: 0, or the hit's flags (a signal frame, the buffer of
 * a system call that succeeded).
 */
static unsigned
kernel_wrote(struct ptrace_state *s, struct pthr *p, const struct wtarget *t,
    const struct traced_frame *f, int was_syscall)
{
	struct user_regs_struct u;
	uint64_t hi = t->addr + (uint64_t)t->len;

	if (p->sigstep && traced_frame_wrote(f, t->addr, hi, NULL))
		return WP_HIT_KERNEL;
	if (was_syscall && syscall_writes(s->tr.memfd, p->sc_nr, p->sc_args,
	    t->addr, hi) == SC_YES && tr_getregs(p->tid,
	    &u) == 0 && syscall_wrote(s->tr.memfd, p->sc_nr, p->sc_args,
	    (int64_t)tr_ret(&u), t->addr, hi, NULL))
		return WP_HIT_SYSCALL;
	return 0;
}

/*
 * What a change of entry t's bytes that no decoded store explains is,
 * for thread p after its step: a kernel write (a signal frame that
 * reaches it), its system call's write, unexplained (another process,
 * through shared memory), or (-1) to be told by the system call another
 * thread is in.
 */
static int
change_kind(struct ptrace_state *s, struct pthr *p, const struct wtarget *t,
    const struct traced_frame *f, int was_syscall)
{
	if (p->sigstep && f->known && overlaps(f->lo, f->hi, t))
		return WP_HIT_KERNEL;
	if (was_syscall)
		switch (syscall_writes(s->tr.memfd, p->sc_nr, p->sc_args,
		    t->addr, t->addr + (uint64_t)t->len)) {
		case SC_YES:
			return WP_HIT_SYSCALL;
		case SC_UNKNOWN:
			return WP_HIT_SYSCALL | WP_HIT_UNVERIFIED;
		default:
			return WP_HIT_UNEXPLAINED;
		}
	return pt_in_syscall(s) ? -1 : WP_HIT_UNEXPLAINED;
}

/*
 * The mask bits of thread p's masked store (bit i: element i written),
 * from its XSAVE area: 0, or -1 when they cannot be read.
 */
static int
mask_bits(struct pthr *p, uint64_t *bits)
{
	const uint8_t *xs;
	size_t len;

	if ((xs = tr_xstate(p->tid, &len)) == NULL)
		return -1;
	return wp_x86_xsave_mask(&p->insn, xs, len, bits);
}

/* What thread p's step did to entry t, the bytes aside. */
struct stepped {
	int		 stored;	/* a decoded store, at [slo, shi) */
	uint64_t	 slo, shi;
	int		 masked;	/* its mask bits: 1 read, -1 unreadable */
	uint64_t	 bits;
	int		 anywhere;	/* a store wp cannot place */
};

/*
 * Whether step d wrote entry t: 1, 0, or -1 when it may have (its
 * bytes are not known: a store wp does not model, an unreadable mask).
 */
static int
wrote(struct pthr *p, const struct stepped *d, const struct wtarget *t)
{
	uint64_t hi = t->addr + (uint64_t)t->len;

	if (d->anywhere)
		return -1;
	if (!d->stored || !overlaps(d->slo, d->shi, t))
		return 0;
	if (p->insn.unmodeled || d->masked == -1)
		return -1;
	if (d->masked == 1)
		return wp_x86_masked_writes(&p->insn, d->slo, d->bits, t->addr,
		    hi);
	return 1;
}

static void
step_of(struct pthr *p, const struct wp_x86_regs *r, struct stepped *d)
{
	memset(d, 0, sizeof *d);
	if (p->sigstep)
		return;
	d->stored = tr_store_range(&p->insn, p->have == (1u << WP_NREGS) - 1 ?
	    &p->pre : NULL, r, &d->slo, &d->shi) == 0 &&
	    tr_store_held(p->tid, &p->insn);
	d->anywhere = !d->stored && p->insn.writes && p->insn.unmodeled;
	if (d->stored && p->insn.mask != WP_X86_MASK_NONE &&
	    !p->insn.unmodeled)
		d->masked = mask_bits(p, &d->bits) == 0 ? 1 : -1;
}

/*
 * Whether thread p's step ran the instruction decoded at its IP: not
 * when it stopped elsewhere than after it (the kernel moved the thread
 * first: to the abort IP of a restartable sequence, see ptrace-rseq.c).
 * Its IP is then read at the next step.
 */
static int
ran(struct pthr *p)
{
	struct user_regs_struct u;

	if (p->next == 0 || tr_getregs(p->tid, &u) == -1 ||
	    tr_pc(&u) == p->next)
		return 1;
	p->steady = 0;
	return 0;
}

/*
 * Where a write of flags kind on entry t that no instruction made
 * landed: what thread p's system call certainly wrote there, else
 * where its bytes (s->buf now, s->last before) changed.
 */
static void
kernel_span(struct ptrace_state *s, struct pthr *p, const struct wtarget *t,
    size_t ti, unsigned kind, uint64_t span[2])
{
	struct user_regs_struct u;

	if (!(kind & WP_HIT_SYSCALL) || tr_getregs(p->tid,
	    &u) == -1 || !syscall_wrote(s->tr.memfd, p->sc_nr, p->sc_args,
	    (int64_t)tr_ret(&u), t->addr, t->addr + (uint64_t)t->len, span))
		watch_changed(s->last[ti], s->buf, (size_t)t->len, t->addr,
		    span);
}

/*
 * A write to entry ti that no instruction made: the kernel's for thread
 * p (counted whether or not the bytes changed), or a change nothing
 * explains.  0: none; -1: another thread's system call will tell.
 */
static int
other_write(struct watch *w, struct ptrace_state *s, struct pthr *p,
    size_t ti, const struct traced_frame *f, int was_syscall, int changed)
{
	uint64_t span[2];
	int kind;

	if ((kind = (int)kernel_wrote(s, p, &w->t[ti], f, was_syscall)) == 0) {
		if (!changed)
			return 0;
		if ((kind = change_kind(s, p, &w->t[ti], f, was_syscall)) == -1)
			return -1;
	}
	if (kind & WP_HIT_UNEXPLAINED)
		pt_ctr(w)->unexplained++;
	else
		pt_ctr(w)->kernel_writes++;
	kernel_span(s, p, &w->t[ti], ti, (unsigned)kind, span);
	report_hit(w, s, p, ti, s->buf, (unsigned)kind, span[0], span[1]);
	return 0;
}

/*
 * After thread p's step: a decoded store (or load, with rw) to a target
 * is a hit whether or not the bytes changed, and so is a write the
 * kernel certainly made (a system call's buffer, a signal frame); a
 * change nothing explains is still reported, flagged, and never as an
 * instruction's.  A store wp cannot place (xsave, a scatter, a mask it
 * cannot read) is a hit, flagged unmodeled, when the bytes changed; when
 * they did not, it may have written them unchanged, and the count is a
 * lower bound.  The bytes are read where they may have changed: after a
 * store to them, or one that may write more than its decoding says, a
 * system call or a signal, while a thread starts or exits (a change
 * while a thread is in a call is that call's to tell), and every RECHECK
 * steps for writers outside the threads (another process, through
 * shared memory).  A store is credited only if its step ran it (ran).
 */
void
pt_after_step(struct watch *w, struct ptrace_state *s, struct pthr *p,
    int was_syscall)
{
	struct wp_x86_regs r;
	struct stepped d;
	struct wtarget *t;
	struct traced_frame f;
	uint64_t lo, hi, span[2];
	size_t ti;
	int changed, look, store, load;

	if (!s->based)
		return;		/* before the start: see read_targets */
	tr_regs(&p->pre, &r);
	r.have = p->have;
	step_of(p, &r, &d);
	if (d.stored)
		pt_rseq_stored(s, p, d.slo, d.shi);
	look = was_syscall || p->sigstep || (!(p->iflags & I_QUIET) &&
	    !((p->iflags & I_EXACT) && d.stored)) ||
	    pt_ctr(w)->steps % RECHECK == 0 || pt_unsettled(s);
	f.known = 0;
	if (p->sigstep)
		traced_frame(s->tr.memfd, p->tid, &f);
	for (ti = 0; ti < w->nt; ti++) {
		t = &w->t[ti];
		if (!t->armed)
			continue;
		if ((store = wrote(p, &d, t)) != 0 && !ran(p))
			store = d.stored = d.anywhere = 0;
		load = store == 0 && !p->sigstep && t->rw &&
		    wp_x86_load_range(&p->insn, &r, &lo, &hi) == 0 &&
		    overlaps(lo, hi, t);
		if ((!look && !store && !load) || pread(s->tr.memfd, s->buf,
		    (size_t)t->len, (off_t)t->addr) != t->len)
			continue;
		changed = memcmp(s->buf, s->last[ti], (size_t)t->len) != 0;
		if (store == 1)
			report_hit(w, s, p, ti, s->buf, 0, d.slo, d.shi);
		else if (store == -1 && changed) {
			watch_changed(s->last[ti], s->buf, (size_t)t->len,
			    t->addr, span);
			report_hit(w, s, p, ti, s->buf, WP_HIT_UNMODELED,
			    span[0], span[1]);
		} else if (store == -1)
			pt_ctr(w)->unmodeled++;
		else if (load)
			report_hit(w, s, p, ti, s->buf, WP_HIT_READ, 0, 0);
		else if (other_write(w, s, p, ti, &f, was_syscall,
		    changed) == -1)
			continue;	/* that call will say */
		memcpy(s->last[ti], s->buf, (size_t)t->len);
		if (t->chain >= 0 && follow_dirty(w, (size_t)t->chain))
			rebind(w, s, (size_t)t->chain);
	}
	p->sigstep = 0;
}

