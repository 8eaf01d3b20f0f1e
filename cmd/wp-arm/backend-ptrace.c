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
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend-ptrace.h"
#include "hmap.h"
#include "proc.h"
#include "syscalls.h"
#include "util.h"
#include "unwind.h"
#include "watch.h"
#include "x86.h"

static volatile sig_atomic_t ticked;

static void
on_tick(int sig)
{
	(void)sig;
	ticked = 1;
}

static void
to_regs(const struct user_regs_struct *u, struct wp_x86_regs *r)
{
	r->v[WP_RAX] = u->rax; r->v[WP_RBX] = u->rbx; r->v[WP_RCX] = u->rcx;
	r->v[WP_RDX] = u->rdx; r->v[WP_RSI] = u->rsi; r->v[WP_RDI] = u->rdi;
	r->v[WP_RBP] = u->rbp; r->v[WP_RSP] = u->rsp; r->v[WP_RIP] = u->rip;
	r->v[WP_RFLAGS] = u->eflags; r->v[WP_R8] = u->r8; r->v[WP_R9] = u->r9;
	r->v[WP_R10] = u->r10; r->v[WP_R11] = u->r11; r->v[WP_R12] = u->r12;
	r->v[WP_R13] = u->r13; r->v[WP_R14] = u->r14; r->v[WP_R15] = u->r15;
	r->v[WP_FS_BASE] = u->fs_base; r->v[WP_GS_BASE] = u->gs_base;
	r->have = (1u << WP_NREGS) - 1;
}

/* --callchain: the stopped thread's callers into h. */
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
 * kind.  The instruction that ran is its writer unless the kernel wrote
 * (a signal frame) or nothing explains the change.
 */
static void
report_hit(struct watch *w, struct ptrace_state *s, struct pthr *p, size_t ti,
    const unsigned char *now, unsigned flags)
{
	struct user_regs_struct u;
	struct wp_x86_regs regs;
	struct wp_hit_rec h;
	int have_u;

	have_u = ptrace(PTRACE_GETREGS, p->tid, 0, &u) == 0;
	memset(&h, 0, sizeof h);
	h.pid = w->pid;
	h.tid = p->tid;
	h.cpu = -1;
	h.time_ns = watch_time(w, wp_now_ns());
	h.ip = have_u ? u.rip : 0;
	h.exact = 1;
	h.has_writer_ip = !(flags & (WP_HIT_KERNEL | WP_HIT_UNEXPLAINED));
	h.writer_ip = p->insn_ip;
	h.bytes = now;
	h.nbytes = (size_t)w->t[ti].len;
	h.flags = flags;
	h.signal = flags & WP_HIT_KERNEL ? p->sigstep : 0;
	if (w->regs && have_u) {
		to_regs(&u, &regs);
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
	if (follow_rebind(w, s->memfd, ci))
		follow_record(w, ci, 0, 1, 0);
}

/* Entry ti moved: what it holds now is its last seen value. */
static void
ptrace_rearm(struct watch *w, size_t ti)
{
	struct ptrace_state *s = w->state;
	struct wtarget *t = &w->t[ti];

	if (t->armed && pread(s->memfd, s->last[ti], (size_t)t->len,
	    (off_t)t->addr) != t->len)
		t->armed = 0;
}

static int
overlaps(uint64_t lo, uint64_t hi, const struct wtarget *t)
{
	return lo < t->addr + (uint64_t)t->len && t->addr < hi;
}

/*
 * The signal frame the kernel wrote for a handler thread p stops at the
 * entry of: [lo, hi), of which [lo, core) and [lo + 304, lo + 440) it
 * certainly wrote (x86-64's struct rt_sigframe: the return address, the
 * ucontext and the siginfo, but the 64 reserved bytes of the sigcontext
 * at 240); the rest up to hi (the saved FPU state and the alignment)
 * it may have.  hi: the top of the alternate stack when the handler
 * runs on it, having been interrupted elsewhere, else the interrupted
 * stack pointer less the red zone.  known 0: the registers or the frame
 * could not be read.
 */
struct frame {
	int		 known;
	uint64_t	 lo, core, hi;
};

#define FRAME_SIZE	440	/* struct rt_sigframe */

static void
signal_frame(struct ptrace_state *s, struct pthr *p, struct frame *f)
{
	struct user_regs_struct u;
	uint64_t hdr[22], sp, ss, ssz;

	memset(f, 0, sizeof *f);
	if (ptrace(PTRACE_GETREGS, p->tid, 0, &u) == -1 || pread(s->memfd,
	    hdr, sizeof hdr, (off_t)u.rsp) != (ssize_t)sizeof hdr)
		return;
	ss = hdr[3];		/* uc_stack.ss_sp, ss_size */
	ssz = hdr[5];
	sp = hdr[21];		/* uc_mcontext.rsp: the interrupted one */
	f->known = 1;
	f->lo = u.rsp;
	f->core = u.rsp + 240;
	if (u.rsp >= ss && u.rsp < ss + ssz && !(sp >= ss && sp < ss + ssz))
		f->hi = ss + ssz;
	else
		f->hi = sp - 128;
	if (f->hi < f->lo + FRAME_SIZE || f->hi - f->lo > (1 << 20))
		f->hi = f->lo + FRAME_SIZE;
}

/*
 * Whether the kernel certainly wrote entry t for thread p's step,
 * changed or not: 0, or the hit's flags (a signal frame, the buffer of
 * a system call that succeeded).
 */
static unsigned
kernel_wrote(struct ptrace_state *s, struct pthr *p, const struct wtarget *t,
    const struct frame *f, int was_syscall)
{
	struct user_regs_struct u;
	uint64_t hi = t->addr + (uint64_t)t->len;

	if (p->sigstep && f->known && (overlaps(f->lo, f->core, t) ||
	    overlaps(f->lo + 304, f->lo + FRAME_SIZE, t)))
		return WP_HIT_KERNEL;
	if (was_syscall && syscall_writes(s->memfd, p->sc_nr, p->sc_args,
	    t->addr, hi) == SC_YES && ptrace(PTRACE_GETREGS, p->tid, 0,
	    &u) == 0 && syscall_wrote(s->memfd, p->sc_nr, p->sc_args,
	    (int64_t)u.rax, t->addr, hi))
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
    const struct frame *f, int was_syscall)
{
	if (p->sigstep && f->known && overlaps(f->lo, f->hi, t))
		return WP_HIT_KERNEL;
	if (was_syscall)
		switch (syscall_writes(s->memfd, p->sc_nr, p->sc_args,
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
	static uint8_t xs[16384];
	struct iovec iov = { xs, sizeof xs };

	if (ptrace(PTRACE_GETREGSET, p->tid, (void *)NT_X86_XSTATE, &iov) == -1)
		return -1;
	return wp_x86_xsave_mask(&p->insn, xs, iov.iov_len, bits);
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
	d->stored = wp_x86_store_range(&p->insn, r, 0, &d->slo, &d->shi) == 0;
	d->anywhere = !d->stored && p->insn.writes && p->insn.unmodeled;
	if (d->stored && p->insn.mask != WP_X86_MASK_NONE &&
	    !p->insn.unmodeled)
		d->masked = mask_bits(p, &d->bits) == 0 ? 1 : -1;
}

/*
 * A write to entry ti that no instruction made: the kernel's for thread
 * p (counted whether or not the bytes changed), or a change nothing
 * explains.  0: none; -1: another thread's system call will tell.
 */
static int
other_write(struct watch *w, struct ptrace_state *s, struct pthr *p,
    size_t ti, const struct frame *f, int was_syscall, int changed)
{
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
	report_hit(w, s, p, ti, s->buf, (unsigned)kind);
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
 * shared memory).
 */
static void
after_step(struct watch *w, struct ptrace_state *s, struct pthr *p,
    int was_syscall)
{
	struct wp_x86_regs r;
	struct stepped d;
	struct wtarget *t;
	struct frame f;
	uint64_t lo, hi;
	size_t ti;
	int changed, look, store, load;

	if (!s->based)
		return;		/* before the start: see read_targets */
	to_regs(&p->pre, &r);
	r.have = p->have;
	step_of(p, &r, &d);
	look = was_syscall || p->sigstep || (!(p->iflags & I_QUIET) &&
	    !((p->iflags & I_EXACT) && d.stored)) ||
	    pt_ctr(w)->steps % RECHECK == 0 || pt_unsettled(s);
	f.known = 0;
	if (p->sigstep)
		signal_frame(s, p, &f);
	for (ti = 0; ti < w->nt; ti++) {
		t = &w->t[ti];
		if (!t->armed)
			continue;
		store = wrote(p, &d, t);
		load = store == 0 && !p->sigstep && t->rw &&
		    wp_x86_load_range(&p->insn, &r, &lo, &hi) == 0 &&
		    overlaps(lo, hi, t);
		if ((!look && !store && !load) || pread(s->memfd, s->buf,
		    (size_t)t->len, (off_t)t->addr) != t->len)
			continue;
		changed = memcmp(s->buf, s->last[ti], (size_t)t->len) != 0;
		if (store == 1)
			report_hit(w, s, p, ti, s->buf, 0);
		else if (store == -1 && changed)
			report_hit(w, s, p, ti, s->buf, WP_HIT_UNMODELED);
		else if (store == -1)
			pt_ctr(w)->unmodeled++;
		else if (load)
			report_hit(w, s, p, ti, s->buf, WP_HIT_READ);
		else if (other_write(w, s, p, ti, &f, was_syscall,
		    changed) == -1)
			continue;	/* that call will say */
		memcpy(s->last[ti], s->buf, (size_t)t->len);
		if (t->chain >= 0 && follow_dirty(w, (size_t)t->chain))
			rebind(w, s, (size_t)t->chain);
	}
	p->sigstep = 0;
}

static void
release(struct watch *w, struct ptrace_state *s)
{
	size_t i;

	unwind_close(&s->uw);
	for (i = 0; i < w->nt && s->last != NULL; i++)
		free(s->last[i]);
	for (i = 0; i < s->n; i++)
		free(s->t[i]);
	free(s->last);
	free(s->buf);
	free(s->t);
	wp_hmap_free(&s->ic);
	if (s->memfd != -1)
		close(s->memfd);
	free(s);
	w->state = NULL;
}

/* Room for the bytes of each target, and a buffer for the longest. */
static void
alloc_targets(struct watch *w, struct ptrace_state *s)
{
	size_t i, maxlen = 1;

	s->last = wp_xcalloc(w->nt, sizeof *s->last);
	for (i = 0; i < w->nt; i++) {
		s->last[i] = wp_xcalloc(1, (size_t)w->t[i].len);
		if (maxlen < (size_t)w->t[i].len)
			maxlen = (size_t)w->t[i].len;
	}
	s->buf = wp_xmalloc(maxlen);
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
		if (w->t[i].chain < 0 && pread(s->memfd, s->last[i],
		    (size_t)w->t[i].len, (off_t)w->t[i].addr) != w->t[i].len)
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: cannot "
			    "read 0x%" PRIx64 ": %s", w->t[i].id, w->t[i].addr,
			    strerror(errno));
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && w->t[i].len <= 8) {
			w->t[i].has_initial = 1;
			w->t[i].initial = wp_le64(s->last[i],
			    (size_t)w->t[i].len);
		}
	s->based = 1;
	return 0;
}

static void
set_tick(long usec)
{
	struct itimerval it;

	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = usec;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

static int
ptrace_arm(struct watch *w, struct wp_error *e)
{
	struct ptrace_state *s = wp_xcalloc(1, sizeof *s);
	struct sigaction sa;
	char tracer[128];
	size_t i;

	w->state = s;
	wp_hmap_init(&s->ic, sizeof(struct icached));
	s->after_step = after_step;
	s->need = I_REGS_W;
	for (i = 0; i < w->nt; i++)
		if (w->t[i].rw)
			s->need |= I_REGS_R;
	if (!wp_proc_alive(w->pid, w->start_time)) {
		s->memfd = -1;
		wp_error_set(e, WP_EXIT_PROCESS, "pid %d: the process has "
		    "exited or its pid was reused", (int)w->pid);
		goto fail;
	}
	if ((s->memfd = wp_proc_mem_open(w->pid)) == -1) {
		wp_error_set(e, WP_EXIT_PROCESS, "pid %d: %s", (int)w->pid,
		    strerror(errno));
		goto fail;
	}
	alloc_targets(w, s);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, NULL);
	pt_seize_all(w, s);
	if (s->n == 0) {
		wp_proc_tracer(w->pid, tracer, sizeof tracer);
		if (tracer[0] != '\0')
			wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot attach: "
			    "it is traced by %s (a debugger: one tracer at a "
			    "time)", (int)w->pid, tracer);
		else
			wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot attach: "
			    "%s", (int)w->pid, w->nthr ?
			    strerror(w->thr[0].err) : "no thread");
		goto fail;
	}
	pt_stop_all(w, s);
	if (read_targets(w, s, e) == -1) {
		pt_detach_all(w, s, NULL);
		goto fail;
	}
	for (i = 0; i < w->nchains; i++)
		follow_update(w, s->memfd, i);
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain >= 0)
			ptrace_rearm(w, i);	/* what they hold now */
	w->armed.threads = s->n;
	w->armed.cpus = -1;
	w->armed.events = -1;
	w->armed.ring_pages = -1;
	set_tick(50000);
	s->step_t0 = wp_now_ns();
	return 0;
fail:
	release(w, s);
	return -1;
}

/* Steps the threads until the next tick, a signal, or the end. */
static void
ptrace_run(struct watch *w, uint64_t until)
{
	struct ptrace_state *s = w->state;
	struct pthr *p;
	sigset_t blocked;

	(void)until;		/* the 50 ms tick returns here */
	sigprocmask(SIG_SETMASK, &w->waitmask, &blocked);
	pt_prune(s);
	pt_collect(w, s);
	while (!ticked && !watch_stopping(w)) {
		if (s->exec_seen) {
			w->stop_reason = "target_exec";
			break;
		}
		if (!pt_alive(s)) {
			w->stop_reason = "target_exited";
			break;
		}
		if ((p = pt_next_ready(s)) != NULL)
			pt_step(w, s, p);
		else {
			pt_collect(w, s);
			if ((p = pt_next_ready(s)) == NULL)
				pt_wait_any(w, s);
		}
	}
	ticked = 0;
	sigprocmask(SIG_SETMASK, &blocked, NULL);
}

/* Every write is seen: the count is what was written or cut off. */
static void
ptrace_count(struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nt; i++) {
		w->t[i].counted = w->t[i].hits + w->t[i].unwritten;
		w->t[i].counted_known = 1;
	}
}

/* Each target's value at the end, every thread stopped. */
static void
read_latest(struct watch *w, struct ptrace_state *s)
{
	unsigned char b[8];
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && w->t[i].len <= 8 && pread(s->memfd,
		    b, (size_t)w->t[i].len, (off_t)w->t[i].addr) ==
		    w->t[i].len) {
			w->t[i].has_latest = 1;
			w->t[i].latest = wp_le64(b, (size_t)w->t[i].len);
		}
}

static void
ptrace_disarm(struct watch *w)
{
	struct ptrace_state *s = w->state;
	uint64_t ns = wp_now_ns() - s->step_t0;

	set_tick(0);
	pt_ctr(w)->steps_per_second = ns ? pt_ctr(w)->steps * 1000000000 / ns : 0;
	pt_detach_all(w, s, read_latest);
	ptrace_count(w);
	release(w, s);
}

/*
 * This CPU's clock rate, as a chain of dependent additions measures it
 * (each waits for the one before: one a cycle on every x86-64): the
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
	int i, k;

	for (k = 0; k < 6; k++) {
		t0 = wp_now_ns();
		for (i = 0; i < 1 << 14; i++)
			__asm__ volatile (".rept 64\n\taddq $1, %0\n\t.endr"
			    : "+r" (x));
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
	/* another process wrote: one change may hide several writes */
	if (pt_ctr(w)->unexplained > 0 && w->lost_unknown == NULL)
		w->lost_unknown = "changes no thread of the target made "
		    "(another process's writes) may each hide several writes";
	o->ptrace = pt_ctr(w);
	o->follow_mode = "step";
}

const struct backend backend_ptrace = {
	.name = "ptrace_singlestep", .traces = 1, .orphan_signal = SIGTRAP,
	.callchain = "cfi",
	.obs_size = sizeof(struct wp_obs_ptrace), .arm = ptrace_arm,
	.run = ptrace_run, .count = ptrace_count, .rearm = ptrace_rearm,
	.disarm = ptrace_disarm, .observe = ptrace_observe
};
