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
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hmap.h"
#include "proc.h"
#include "syscalls.h"
#include "util.h"
#include "unwind.h"
#include "watch.h"
#include "x86.h"

enum pstate {
	P_NEW,		/* seized or cloned; its first stop not yet seen */
	P_READY,	/* in a ptrace-stop, to be stepped */
	P_STEP,		/* single-stepping one instruction */
	P_SYSENTER,	/* resumed up to the entry of a system call */
	P_SYSCALL,	/* in a system call, up to its exit; may block */
	P_GONE
};

/* What pre holds of a thread stopped P_READY. */
enum pknown {
	K_NONE,		/* nothing: read the registers before the step */
	K_IP,		/* only the IP: its last step ran on to the next */
	K_ALL		/* every register, read at this stop */
};

struct pthr {
	pid_t			 tid;
	enum pstate		 state;
	int			 sig;		/* to deliver on the next resume */
	int			 sigstep;	/* the signal this step delivers */
	enum pknown		 known;
	int			 trapped;	/* its last stop: a step's trap */
	int			 steady;	/* this step began at one */
	uint32_t		 have;		/* registers known, as in
						   struct wp_x86_regs */
	struct user_regs_struct	 pre;
	struct wp_x86_insn	 insn;
	unsigned		 iflags;	/* I_* of insn */
	uint64_t		 next;		/* IP after insn, 0 unknown */
	uint64_t		 insn_ip;	/* where the instruction is */
	long			 sc_nr;		/* a system call: its number */
	uint64_t		 sc_args[6];
};

#define ICACHE_MAX	65536	/* decoded instructions kept */
#define RECHECK		64	/* steps between two reads of the registers
				   and of every target */

/* What an instruction takes to step, decided once per address. */
#define I_QUIET		0x1	/* writes no memory */
#define I_EXACT		0x2	/* writes no byte outside its decoded store */
#define I_REGS_W	0x4	/* its store or its call needs registers */
#define I_REGS_R	0x8	/* its load needs registers */

struct icached {
	struct wp_x86_insn	 insn;
	unsigned		 flags;
	uint64_t		 next;
};

struct ptrace_state {
	struct pthr		**t;		/* entries never move */
	size_t			 n, cap;
	int			 memfd;
	unsigned char		**last;		/* last seen bytes per target */
	unsigned char		*buf;
	struct wp_hmap		 ic;		/* rip -> struct icached */
	unsigned		 need;		/* I_REGS_*: with -a rw, loads */
	int			 exec_seen;
	size_t			 rr;
	uint64_t		 step_t0;
	struct unwinder		 uw;		/* --callchain */
	int			 uw_tried;
	uint64_t		 chain[WATCH_MAXCHAIN];
};

static volatile sig_atomic_t ticked;

/* The backend's counters, for the observation (w->obs). */
static struct wp_obs_ptrace *
ctr(struct watch *w)
{
	return w->obs;
}

static void
on_tick(int sig)
{
	(void)sig;
	ticked = 1;
}

static struct pthr *
pfind(struct ptrace_state *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->tid == tid && s->t[i]->state != P_GONE)
			return s->t[i];
	return NULL;
}

static struct pthr *
padd(struct ptrace_state *s, pid_t tid)
{
	struct pthr *p;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->t = wp_xrealloc(s->t, s->cap * sizeof *s->t);
	}
	p = s->t[s->n++] = wp_xcalloc(1, sizeof *p);
	p->tid = tid;
	p->state = P_NEW;
	return p;
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

/* The length of the prefix of s in list, or 0. */
static size_t
listed(const char *s, const char *const *list)
{
	size_t i, n;

	for (i = 0; list[i] != NULL; i++)
		if (strncmp(s, list[i], n = strlen(list[i])) == 0)
			return n;
	return 0;
}

static int
needs_regs(const struct wp_x86_mem *m)
{
	return m->base >= 0 || m->index >= 0 || m->seg != 0;
}

/*
 * The I_* flags of a decoded instruction, and where the instruction
 * after it is when that does not depend on registers (0: it does).
 */
static unsigned
iflags(const struct wp_x86_insn *in, uint64_t *next)
{
	static const char *const prefixes[] = { "lock ", "rep ", "repe ",
	    "repz ", "repne ", "repnz ", "notrack ", "bnd ", "xacquire ",
	    "xrelease ", "data16 ", NULL };
	/* jumps, calls, returns, traps and the ways into the kernel */
	static const char *const jumps[] = { "j", "ljmp", "call", "lcall",
	    "ret", "lret", "iret", "uiret", "loop", "int", "sys", "ud", "hlt",
	    "xbegin", "xabort", "xend", "enclu", "vmcall", "vmfunc",
	    "mov ss,", NULL };
	/* jumps and calls to an address of their own */
	static const char *const direct[] = { "jmp 0x", "call 0x", NULL };
	/* writes of memory that no operand names */
	static const char *const hidden[] = { "maskmov", "vmaskmovdqu",
	    "int", "sys", NULL };
	/* stores of their operand and nothing else */
	static const char *const moves[] = { "mov", "vmov", NULL };
	static const char *const alu[] = { "add ", "sub ", "adc ", "sbb ",
	    "and ", "or ", "xor ", "inc ", "dec ", "neg ", "not ", "shl ",
	    "shr ", "sal ", "sar ", "rol ", "ror ", "rcl ", "rcr ", "set",
	    NULL };
	const char *mn = in->text;
	unsigned f = 0;
	size_t n;
	char *end;

	while ((n = listed(mn, prefixes)) != 0)
		mn += n;
	*next = 0;
	if (listed(mn, direct)) {
		*next = strtoull(strchr(mn, ' ') + 1, &end, 16);
		if (*end != '\0')
			*next = 0;
	} else if (!in->rep && !in->is_syscall && !listed(mn, jumps))
		*next = in->addr + (uint64_t)in->size;
	if (!in->writes && !listed(mn, hidden))
		f |= I_QUIET;
	if (in->kind == WP_X86_REG_STORE || in->kind == WP_X86_IMM_STORE ||
	    (in->kind == WP_X86_XCHG && in->width > 0) ||
	    (in->kind == WP_X86_PUSH && strncmp(mn, "enter", 5) != 0) ||
	    (in->kind == WP_X86_RMW && listed(mn, alu)) ||
	    (in->kind == WP_X86_SIMD && in->width > 0 && listed(mn, moves)))
		f |= I_EXACT;
	if (in->is_syscall || (in->writes && needs_regs(&in->mem)))
		f |= I_REGS_W;
	if (in->reads && needs_regs(&in->mem))
		f |= I_REGS_R;
	return f;
}

/* Decodes the instruction at rip into p->insn, once per address. */
static void
decode_at(struct ptrace_state *s, uint64_t rip, struct pthr *p)
{
	struct icached *c;
	uint8_t code[16];
	int isnew;

	if ((c = wp_hmap_get(&s->ic, rip, 0)) != NULL) {
		p->insn = c->insn;
		p->iflags = c->flags;
		p->next = c->next;
		return;
	}
	memset(code, 0, sizeof code);
	if (pread(s->memfd, code, sizeof code, (off_t)rip) <= 0 ||
	    wp_x86_decode(code, sizeof code, rip, &p->insn) == -1) {
		/* not decoded: it may write anything, so compare after it;
		   no store is known, so a change is not credited to it */
		memset(&p->insn, 0, sizeof p->insn);
		p->insn.addr = rip;
		p->insn.kind = WP_X86_OTHER;
		p->insn.mem.base = p->insn.mem.index = -1;
		p->iflags = I_REGS_W;
		p->next = 0;
		return;
	}
	p->iflags = iflags(&p->insn, &p->next);
	if (s->ic.n >= ICACHE_MAX)
		wp_hmap_clear(&s->ic);
	c = wp_hmap_put(&s->ic, rip, 0, &isnew);
	c->insn = p->insn;
	c->flags = p->iflags;
	c->next = p->next;
}

static int
get_regs(struct pthr *p)
{
	if (ptrace(PTRACE_GETREGS, p->tid, 0, &p->pre) == -1)
		return -1;
	p->known = K_ALL;
	return 0;
}

/*
 * Decodes the instruction stopped thread p is at, with the registers it
 * takes to tell what it does: where its IP is known, only those of a
 * store, a load (with -a rw) or a system call are read.
 */
static int
fetch(struct ptrace_state *s, struct pthr *p)
{
	uint64_t ip;

	if (p->known == K_NONE && get_regs(p) == -1)
		return -1;
	decode_at(s, p->pre.rip, p);
	if (p->known == K_IP && (p->iflags & s->need)) {
		ip = p->pre.rip;
		if (get_regs(p) == -1)
			return -1;
		if (p->pre.rip != ip)	/* see ran_on */
			decode_at(s, p->pre.rip, p);
	}
	p->have = p->known == K_ALL ? (1u << WP_NREGS) - 1 : 1u << WP_RIP;
	return 0;
}

/*
 * Thread p's step trapped after an instruction whose successor does not
 * depend on registers: its IP is that one.  Not so if the step began at
 * another stop: a SIGTRAP the thread sent itself (in a system call) stops
 * it as a trap does, before its instruction ran.  A SIGTRAP sent by
 * another process in the microseconds of a step is taken for the trap,
 * as ever; the IP is then one instruction off until the registers are
 * next read: at a jump, a store, a system call, or within RECHECK steps.
 */
static void
ran_on(struct watch *w, struct pthr *p)
{
	if (p->steady && p->next != 0 && ctr(w)->steps % RECHECK != 0) {
		p->pre.rip = p->next;
		p->known = K_IP;
	}
	p->trapped = 1;
}

/*
 * A hit of thread p on entry ti, with the bytes after it; flags say what
 * kind.  The instruction that ran is its writer unless the kernel wrote
 * (a signal frame) or nothing explains the change.
 */
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

static int
in_syscall(struct ptrace_state *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->state == P_SYSCALL)
			return 1;
	return 0;
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
 * What a change of entry t's bytes that no decoded store explains is,
 * for thread p after its step: a kernel write (a signal frame), its
 * system call's write, unexplained, or (-1) to be told by the system
 * call another thread is in.
 */
static int
change_kind(struct ptrace_state *s, struct pthr *p, const struct wtarget *t,
    int was_syscall)
{
	if (p->sigstep)
		return WP_HIT_KERNEL;
	if (was_syscall)
		switch (syscall_writes(p->sc_nr, p->sc_args, t->addr,
		    t->addr + (uint64_t)t->len)) {
		case SC_YES:
			return WP_HIT_SYSCALL;
		case SC_UNKNOWN:
			return WP_HIT_SYSCALL | WP_HIT_UNVERIFIED;
		default:
			return WP_HIT_UNEXPLAINED;
		}
	return in_syscall(s) ? -1 : WP_HIT_UNEXPLAINED;
}

/* A thread starting or exiting: the kernel may write for it meanwhile. */
static int
unsettled(struct ptrace_state *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->state == P_NEW)
			return 1;
	return 0;
}

/*
 * After thread p's step: a decoded store (or load, with rw) to a target
 * is a hit whether or not the bytes changed; a change nothing explains
 * is still reported, flagged, and never as an instruction's.  The bytes
 * are read where they may have changed: after a store to them, or one
 * that may write more than its decoding says, a system call or a signal,
 * while a thread starts or exits (a change while a thread is in a call
 * is that call's to tell), and every RECHECK steps for writers outside
 * the threads (another process, through shared memory).
 */
static void
after_step(struct watch *w, struct ptrace_state *s, struct pthr *p,
    int was_syscall)
{
	struct wp_x86_regs r;
	struct wtarget *t;
	uint64_t lo, hi, slo, shi;
	size_t ti;
	int changed, kind, look, stored, store, load;

	to_regs(&p->pre, &r);
	r.have = p->have;
	stored = !p->sigstep && wp_x86_store_range(&p->insn, &r, 0, &slo,
	    &shi) == 0;
	look = was_syscall || p->sigstep || (!(p->iflags & I_QUIET) &&
	    !((p->iflags & I_EXACT) && stored)) ||
	    ctr(w)->steps % RECHECK == 0 || unsettled(s);
	for (ti = 0; ti < w->nt; ti++) {
		t = &w->t[ti];
		if (!t->armed)
			continue;
		store = stored && overlaps(slo, shi, t);
		load = !store && !p->sigstep && t->rw &&
		    wp_x86_load_range(&p->insn, &r, &lo, &hi) == 0 &&
		    overlaps(lo, hi, t);
		if ((!look && !store && !load) || pread(s->memfd, s->buf,
		    (size_t)t->len, (off_t)t->addr) != t->len)
			continue;
		changed = memcmp(s->buf, s->last[ti], (size_t)t->len) != 0;
		if (store)
			report_hit(w, s, p, ti, s->buf, 0);
		else if (load)
			report_hit(w, s, p, ti, s->buf, WP_HIT_READ);
		else if (changed) {
			if ((kind = change_kind(s, p, t, was_syscall)) == -1)
				continue;	/* that call will say */
			if (kind & WP_HIT_UNEXPLAINED)
				ctr(w)->unexplained++;
			else
				ctr(w)->kernel_writes++;
			report_hit(w, s, p, ti, s->buf, (unsigned)kind);
		}
		memcpy(s->last[ti], s->buf, (size_t)t->len);
		if (t->chain >= 0 && follow_dirty(w, (size_t)t->chain))
			rebind(w, s, (size_t)t->chain);
	}
	p->sigstep = 0;
}

/* A system call interrupted by a stop is restarted on the way out. */
static int
restart_pending(const struct user_regs_struct *u)
{
	long rax = (long)u->rax;

	return (long long)u->orig_rax >= 0 && rax >= -516 && rax <= -512;
}

/*
 * Whether thread tid has a handler for sig (SigCgt of its status): a
 * step that delivers it then stops at the handler's first instruction.
 */
static int
catches(pid_t pid, pid_t tid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid,
	    (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return 1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
}

/*
 * Resumes thread p for one instruction.  A system call is run with
 * PTRACE_SYSCALL instead (entry and exit stops, no single-step trap), so
 * that a call that blocks does not hold up the other threads.
 */
static int
resume_step(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	int sig = p->sig, restart;

	if (fetch(s, p) == -1)
		return -1;
	p->insn_ip = p->pre.rip;
	p->steady = p->trapped;
	p->sig = 0;
	/* after a step's trap no call is pending: what is known will do */
	restart = p->known == K_ALL && restart_pending(&p->pre);
	/*
	 * A signal the thread does not catch runs no instruction of its
	 * own: a step over a system call would then run the call, and
	 * never end while it blocks.  The call is run as any other.
	 */
	if ((p->insn.is_syscall || restart) && (sig == 0 ||
	    !catches(w->pid, p->tid, sig))) {
		/* the call and its arguments; a restarted one sits behind */
		p->sc_nr = restart ? (long)p->pre.orig_rax : (long)p->pre.rax;
		if (restart)
			p->insn_ip -= 2;	/* syscall is 0f 05 */
		p->sc_args[0] = p->pre.rdi;
		p->sc_args[1] = p->pre.rsi;
		p->sc_args[2] = p->pre.rdx;
		p->sc_args[3] = p->pre.r10;
		p->sc_args[4] = p->pre.r8;
		p->sc_args[5] = p->pre.r9;
		if (sig != 0)
			ctr(w)->signals_passed++;
		if (ptrace(PTRACE_SYSCALL, p->tid, 0, (void *)(long)sig) == -1)
			return -1;
		ctr(w)->steps++;
		p->state = P_SYSENTER;
		return 0;
	}
	if (sig != 0) {
		/*
		 * With a handler, the step stops on its entry before the
		 * instruction runs: what changes, the kernel wrote.
		 */
		ctr(w)->signals_passed++;
		p->sigstep = sig;
	}
	if (ptrace(PTRACE_SINGLESTEP, p->tid, 0, (void *)(long)sig) == -1)
		return -1;
	ctr(w)->steps++;
	p->state = P_STEP;
	return 0;
}

static void
on_clone(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	struct wp_thread_rec tr;
	unsigned long msg;

	if (ptrace(PTRACE_GETEVENTMSG, p->tid, 0, &msg) == 0) {
		if (pfind(s, (pid_t)msg) == NULL)
			padd(s, (pid_t)msg);
		watch_thread(w, (pid_t)msg, THR_INHERITED);
		memset(&tr, 0, sizeof tr);
		tr.event = "start";
		tr.tid = (pid_t)msg;
		tr.by_tid = p->tid;
		tr.coverage = "inherited";
		tr.has_time = 1;
		tr.time_ns = watch_time(w, wp_now_ns());
		emit_thread(w, &tr);
	}
	/* on to the exit of the clone call */
	if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
		p->state = P_GONE;
}

/*
 * A forked child, traced since its fork: let go at its first stop,
 * which comes at once (unless take_status took it first, and let it go).
 */
static void
let_go(pid_t child)
{
	int status;
	pid_t r;

	while ((r = waitpid(child, &status, __WALL)) == -1 && errno == EINTR)
		;
	if (r == child && WIFSTOPPED(status))
		ptrace(PTRACE_DETACH, child, 0, 0);
}

/*
 * A fork or vfork of thread p: the child process is not followed (its
 * writes are to memory of its own, or, after vfork, before its exec),
 * only counted.
 */
static void
on_fork(struct watch *w, struct pthr *p)
{
	struct wp_thread_rec tr;
	unsigned long msg;

	if (ptrace(PTRACE_GETEVENTMSG, p->tid, 0, &msg) == 0) {
		let_go((pid_t)msg);
		w->other_processes++;
		memset(&tr, 0, sizeof tr);
		tr.event = "fork_process";
		tr.pid = (pid_t)msg;
		tr.by_tid = p->tid;
		tr.has_time = 1;
		tr.time_ns = watch_time(w, wp_now_ns());
		emit_thread(w, &tr);
	}
	if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
		p->state = P_GONE;
}

/* Handles one wait status of thread p; returns 1 when p stopped ready. */
static int
on_status(struct watch *w, struct ptrace_state *s, struct pthr *p,
    int status)
{
	int was_syscall = p->state == P_SYSCALL, ev, sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		p->state = P_GONE;
		watch_thread(w, p->tid, THR_SEEDED)->exited = 1;
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	p->known = K_NONE;
	p->trapped = 0;
	sig = WSTOPSIG(status);
	ev = status >> 16;
	if (sig == (SIGTRAP | 0x80)) {
		if (p->state == P_SYSENTER) {
			p->state = P_SYSCALL;
			if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
				p->state = P_GONE;
			return 0;
		}
		/* the exit of the call: what changed, the kernel wrote */
		after_step(w, s, p, 1);
		p->state = P_READY;
		return 1;
	}
	if (sig == SIGTRAP && ev == 0 && p->state == P_STEP) {
		after_step(w, s, p, 0);
		ran_on(w, p);
		p->state = P_READY;
		return 1;
	}
	switch (ev) {
	case PTRACE_EVENT_CLONE:
		on_clone(w, s, p);
		return 0;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		on_fork(w, p);
		return 0;
	case PTRACE_EVENT_EXEC:
		s->exec_seen = 1;
		p->state = P_READY;
		return 1;
	case PTRACE_EVENT_EXIT:
		ptrace(PTRACE_CONT, p->tid, 0, 0);
		p->state = P_NEW;
		return 0;
	case PTRACE_EVENT_STOP:
		/* first stop after seize or clone, an interrupt, a group-stop */
		if (was_syscall)
			after_step(w, s, p, 1);
		p->state = P_READY;
		return 1;
	}
	/* a signal for the thread: deliver it with the next resume */
	if (!(sig == SIGTRAP && p->state == P_READY))
		p->sig = sig;
	if (was_syscall)
		after_step(w, s, p, 1);
	p->state = P_READY;
	return 1;
}

static void
seize_failed(struct watch *w, pid_t tid, int err)
{
	struct wp_thread_rec tr;
	struct thread *t = watch_thread(w, tid, THR_FAILED);

	t->state = THR_FAILED;
	t->err = err;
	memset(&tr, 0, sizeof tr);
	tr.event = "arm_failed";
	tr.tid = tid;
	tr.err = err;
	tr.has_time = 1;
	tr.time_ns = watch_time(w, wp_now_ns());
	emit_thread(w, &tr);
}

static void
seize_all(struct watch *w, struct ptrace_state *s)
{
	pid_t *tids;
	size_t n, i;
	int again = 1, rounds = 0;
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
	    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
	    PTRACE_O_TRACESYSGOOD;

	/* threads may be created while seizing: repeat until none is new */
	while (again && rounds++ < 100) {
		again = 0;
		if (wp_proc_tasks(w->pid, &tids, &n) == -1)
			return;
		for (i = 0; i < n; i++) {
			if (pfind(s, tids[i]) != NULL)
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0, (void *)opts) == -1) {
				if (errno != ESRCH)
					seize_failed(w, tids[i], errno);
				continue;
			}
			ptrace(PTRACE_INTERRUPT, tids[i], 0, 0);
			padd(s, tids[i]);
			watch_thread(w, tids[i], THR_SEEDED);
			again = 1;
		}
		free(tids);
	}
}

/* Whether SIGTRAP is pending for thread tid (SigPnd of its status). */
static int
trap_pending(pid_t tid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "SigPnd: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask >> (SIGTRAP - 1) & 1;
}

/*
 * A step that does not end within 100 ms (it should end at once): the
 * thread is interrupted, and the SIGTRAP its step may have left pending
 * is taken (PTRACE_CONT to its stop, which also clears the trap flag)
 * so that it cannot kill the process after the detach.
 */
static void
end_step(struct pthr *p)
{
	struct timespec ms = { 0, 1000000 };
	int status, i;
	pid_t tid;

	for (i = 0; i < 100; i++) {
		if ((tid = waitpid(p->tid, &status, __WALL | WNOHANG)) != 0)
			goto got;
		nanosleep(&ms, NULL);
	}
	ptrace(PTRACE_INTERRUPT, p->tid, 0, 0);
	while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
	    errno == EINTR)
		;
got:
	if (tid != p->tid || !WIFSTOPPED(status)) {
		p->state = P_GONE;
		return;
	}
	if ((status >> 16) == PTRACE_EVENT_STOP && trap_pending(p->tid) &&
	    ptrace(PTRACE_CONT, p->tid, 0, 0) == 0) {
		while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
		    errno == EINTR)
			;
		if (tid != p->tid || !WIFSTOPPED(status)) {
			p->state = P_GONE;
			return;
		}
	}
	if ((status >> 16) == PTRACE_EVENT_EXIT) {
		ptrace(PTRACE_DETACH, p->tid, 0, 0);
		p->state = P_GONE;
		return;
	}
	if ((status >> 16) == 0 && WSTOPSIG(status) != SIGTRAP &&
	    !(WSTOPSIG(status) & 0x80))
		p->sig = WSTOPSIG(status);
	p->state = P_READY;
}

/* Waits for thread p to stop, then detaches it. */
static void
detach_one(struct pthr *p)
{
	int status;
	pid_t tid;

	if (p->state == P_STEP)
		end_step(p);
	while (p->state != P_READY && p->state != P_GONE) {
		tid = waitpid(p->tid, &status, __WALL);
		if (tid == -1) {
			if (errno == EINTR)
				continue;
			p->state = P_GONE;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			p->state = P_GONE;
			break;
		}
		if (WIFSTOPPED(status) && (status >> 16) == 0 &&
		    WSTOPSIG(status) != SIGTRAP && !(WSTOPSIG(status) & 0x80))
			p->sig = WSTOPSIG(status);
		else if (WIFSTOPPED(status) &&
		    (status >> 16) == PTRACE_EVENT_EXIT) {
			ptrace(PTRACE_DETACH, p->tid, 0, 0);
			p->state = P_GONE;
			break;
		}
		p->state = P_READY;
	}
	if (p->state == P_READY)
		ptrace(PTRACE_DETACH, p->tid, 0, (void *)(long)p->sig);
	p->state = P_GONE;
}

/* Stops every thread (a blocked syscall is interrupted) and detaches. */
static void
detach_all(struct ptrace_state *s)
{
	struct pthr *p;
	size_t i;

	/*
	 * A thread in the middle of a step is not interrupted: its step
	 * ends at once with a SIGTRAP that must be taken here, and an
	 * interrupt would stop it first and leave that SIGTRAP pending, to
	 * kill the process after the detach.
	 */
	for (i = 0; i < s->n; i++) {
		p = s->t[i];
		if (p->state != P_READY && p->state != P_GONE &&
		    p->state != P_STEP)
			ptrace(PTRACE_INTERRUPT, p->tid, 0, 0);
	}
	for (i = 0; i < s->n; i++)
		detach_one(s->t[i]);
}

static int
alive(struct ptrace_state *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i]->state != P_GONE)
			return 1;
	return 0;
}

static int
ours(struct watch *w, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)w->pid, (int)tid);
	return access(path, F_OK) == 0;
}

static struct pthr *
next_ready(struct ptrace_state *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		k = (s->rr + i) % s->n;
		if (s->t[k]->state == P_READY) {
			s->rr = k + 1;
			return s->t[k];
		}
	}
	return NULL;
}

/*
 * The stop status of tid, for a thread known or new; a stop of another
 * process is a forked child's first: it is let go.
 */
static int
take_status(struct watch *w, struct ptrace_state *s, pid_t tid, int status)
{
	struct pthr *p;

	if ((p = pfind(s, tid)) == NULL) {
		if (!WIFSTOPPED(status))
			return 0;
		if (!ours(w, tid)) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			return 0;
		}
		p = padd(s, tid);
	}
	return on_status(w, s, p, status);
}

/* Stops of threads not being stepped: new threads, returned calls. */
static void
collect(struct watch *w, struct ptrace_state *s)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
		take_status(w, s, tid, status);
}

/* Steps thread p one instruction and takes its stop. */
static void
step(struct watch *w, struct ptrace_state *s, struct pthr *p)
{
	int status;
	pid_t tid;

	if (resume_step(w, s, p) == -1) {
		p->state = P_GONE;
		return;
	}
	if (p->state != P_STEP)
		return;		/* a system call: step the others */
	while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
	    errno == EINTR && !watch_signalled())
		;
	if (tid == p->tid)
		on_status(w, s, p, status);
	else if (tid == -1 && errno == ECHILD)
		p->state = P_GONE;
}

/* Everyone is in a system call (or starting): waits for any. */
static void
wait_any(struct watch *w, struct ptrace_state *s)
{
	uint64_t t0;
	int status, starting = 0;
	pid_t tid;
	size_t i;

	/* the target's own waiting, not its threads' attach */
	for (i = 0; i < s->n; i++)
		starting |= s->t[i]->state == P_NEW;
	t0 = wp_now_ns();
	tid = waitpid(-1, &status, __WALL);
	if (!starting)
		ctr(w)->blocked_ns += wp_now_ns() - t0;
	if (tid > 0)
		take_status(w, s, tid, status);
	else if (tid == -1 && errno == ECHILD)
		for (i = 0; i < s->n; i++)
			s->t[i]->state = P_GONE;
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

/* The bytes of each plain target now: what a change is measured from. */
static int
read_targets(struct watch *w, struct ptrace_state *s, struct wp_error *e)
{
	size_t i, maxlen = 1;

	s->last = wp_xcalloc(w->nt, sizeof *s->last);
	for (i = 0; i < w->nt; i++) {
		s->last[i] = wp_xcalloc(1, (size_t)w->t[i].len);
		if (maxlen < (size_t)w->t[i].len)
			maxlen = (size_t)w->t[i].len;
	}
	s->buf = wp_xmalloc(maxlen);
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0 && pread(s->memfd, s->last[i],
		    (size_t)w->t[i].len, (off_t)w->t[i].addr) != w->t[i].len)
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: cannot "
			    "read 0x%" PRIx64 ": %s", w->t[i].id, w->t[i].addr,
			    strerror(errno));
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
	if (read_targets(w, s, e) == -1)
		goto fail;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, NULL);
	seize_all(w, s);
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
	for (i = 0; i < w->nchains; i++)
		follow_update(w, s->memfd, i);
	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain >= 0)
			ptrace_rearm(w, i);	/* what they hold now */
	if (w->callchain != CC_NONE)
		w->armed.callchain = "cfi";
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

/* Forgets the threads that are gone, so that a churn costs nothing. */
static void
prune(struct ptrace_state *s)
{
	size_t i, k;

	for (i = k = 0; i < s->n; i++)
		if (s->t[i]->state == P_GONE)
			free(s->t[i]);
		else
			s->t[k++] = s->t[i];
	s->n = k;
	if (s->rr >= s->n)
		s->rr = 0;
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
	prune(s);
	collect(w, s);
	while (!ticked && !watch_stopping(w)) {
		if (s->exec_seen) {
			w->stop_reason = "target_exec";
			break;
		}
		if (!alive(s)) {
			w->stop_reason = "target_exited";
			break;
		}
		if ((p = next_ready(s)) != NULL)
			step(w, s, p);
		else {
			collect(w, s);
			if ((p = next_ready(s)) == NULL)
				wait_any(w, s);
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

static void
ptrace_disarm(struct watch *w)
{
	struct ptrace_state *s = w->state;
	uint64_t ns = wp_now_ns() - s->step_t0;

	set_tick(0);
	ctr(w)->steps_per_second = ns ? ctr(w)->steps * 1000000000 / ns : 0;
	detach_all(s);
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
	ctr(w)->native_ips = native_rate();
	o->ptrace = ctr(w);
	o->follow_mode = "step";
}

const struct backend backend_ptrace = {
	.name = "ptrace_singlestep",
	.traces = 1,
	.obs_size = sizeof(struct wp_obs_ptrace),
	.arm = ptrace_arm,
	.run = ptrace_run,
	.count = ptrace_count,
	.rearm = ptrace_rearm,
	.disarm = ptrace_disarm,
	.observe = ptrace_observe,
};
