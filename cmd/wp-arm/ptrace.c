/*
 * The ptrace backend: every thread is single-stepped, and before each
 * step the instruction at its IP is decoded (lib/x86) to see whether it
 * stores to a watched range.  Exact, and slow: one stop per instruction.
 */
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "record.h"
#include "util.h"
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

struct pthr {
	pid_t			 tid;
	enum pstate		 state;
	int			 sig;		/* to deliver on the next resume */
	struct user_regs_struct	 pre;
	struct wp_x86_insn	 insn;
	int			 sigstep;	/* this step delivers a signal */
};

struct icache {
	uint64_t		 rip;
	int			 used;
	struct wp_x86_insn	 insn;
};

struct pstate_all {
	struct wp_watch		*w;
	struct pthr		*t;
	size_t			 n, cap;
	int			 memfd;
	unsigned char		**last;		/* last seen bytes per target */
	unsigned char		*buf;
	struct icache		*ic;
	size_t			 iccap;
	uint64_t		 t0;
	int			 stop;
	int			 exec_seen;
	size_t			 rr;
};

static volatile sig_atomic_t got_signal, ticked;

static void
on_signal(int sig)
{
	if (sig == SIGALRM)
		ticked = 1;
	else
		got_signal = sig;
}

/* A reader that went away shows as an error on our end of the pipe. */
static int
stdout_closed(void)
{
	struct pollfd pf = { STDOUT_FILENO, 0, 0 };

	return poll(&pf, 1, 0) == 1 && (pf.revents & (POLLERR | POLLHUP));
}

static struct pthr *
pfind(struct pstate_all *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].tid == tid && s->t[i].state != P_GONE)
			return &s->t[i];
	return NULL;
}

static struct pthr *
padd(struct pstate_all *s, pid_t tid)
{
	struct pthr *p;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->t = wp_xrealloc(s->t, s->cap * sizeof *s->t);
	}
	p = &s->t[s->n++];
	memset(p, 0, sizeof *p);
	p->tid = tid;
	p->state = P_NEW;
	return p;
}

static int
emit(struct pstate_all *s, const char *buf, int n)
{
	if (s->w->output_closed)
		return -1;
	if (wp_record_write(buf, (size_t)n) == -1) {
		s->w->output_closed = 1;
		s->stop = 1;
		return -1;
	}
	return 0;
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

/* Decodes the instruction at rip, once per address. */
static int
decode_at(struct pstate_all *s, uint64_t rip, struct wp_x86_insn *out)
{
	struct icache *c;
	uint8_t code[16];
	size_t h, i;

	h = (size_t)((rip * 0x9E3779B97F4A7C15ULL) >> 40) & (s->iccap - 1);
	for (i = 0; i < 8; i++) {
		c = &s->ic[(h + i) & (s->iccap - 1)];
		if (c->used && c->rip == rip) {
			*out = c->insn;
			return 0;
		}
		if (!c->used)
			break;
	}
	c = &s->ic[(h + (i == 8 ? 0 : i)) & (s->iccap - 1)];
	memset(code, 0, sizeof code);
	if (pread(s->memfd, code, sizeof code, (off_t)rip) <= 0 ||
	    wp_x86_decode(code, sizeof code, rip, out) == -1) {
		/* not decoded: it may write anything, compare after it */
		memset(out, 0, sizeof *out);
		out->addr = rip;
		out->kind = WP_X86_OTHER;
		out->writes = 1;
		return -1;
	}
	c->used = 1;
	c->rip = rip;
	c->insn = *out;
	return 0;
}

static int
hex_bytes(char *out, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * i] = '\0';
	return (int)(2 * i);
}

static void
emit_hit(struct pstate_all *s, struct pthr *p, size_t ti,
    const unsigned char *now, const char *flag)
{
	struct wp_watch *w = s->w;
	struct wp_watch_target *t = &w->t[ti];
	struct user_regs_struct u;
	char buf[2048], hb[160];
	uint64_t v = 0, after_ip;
	int n, k, have_u;

	if (s->stop)
		return;
	have_u = ptrace(PTRACE_GETREGS, p->tid, 0, &u) == 0;
	after_ip = have_u ? u.rip : 0;
	for (k = t->len < 8 ? t->len : 8; k > 0; k--)
		v = (v << 8) | now[k - 1];
	hex_bytes(hb, now, (size_t)t->len);
	n = snprintf(buf, sizeof buf, "{\"type\":\"hit\",\"target\":%d,"
	    "\"pid\":%d,\"tid\":%d,\"cpu\":null,\"time_ns\":%" PRId64 ","
	    "\"ip\":\"0x%" PRIx64 "\",\"writer_ip\":\"0x%llx\","
	    "\"new_value\":", t->id, (int)w->pid, (int)p->tid,
	    (int64_t)(wp_now_ns() - s->t0), after_ip, p->pre.rip);
	if (t->len <= 8)
		n += snprintf(buf + n, sizeof buf - (size_t)n, "\"0x%" PRIx64
		    "\"", v);
	else
		n += snprintf(buf + n, sizeof buf - (size_t)n, "null");
	n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"new_bytes\":\"%s\","
	    "\"flags\":[%s%s%s]", hb, flag ? "\"" : "", flag ? flag : "",
	    flag ? "\"" : "");
	n += wp_watch_hit_extra(w, ti, buf + n, sizeof buf - (size_t)n);
	if (t->chain >= 0) {
		if ((size_t)t->level < w->chains[t->chain].noffs)
			w->chains[t->chain].ptr_hits++;
		else
			w->chains[t->chain].leaf_hits++;
	}
	if (w->regs && have_u)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"regs\":{"
		    "\"rax\":\"0x%llx\",\"rbx\":\"0x%llx\",\"rcx\":\"0x%llx\","
		    "\"rdx\":\"0x%llx\",\"rsi\":\"0x%llx\",\"rdi\":\"0x%llx\","
		    "\"rbp\":\"0x%llx\",\"rsp\":\"0x%llx\",\"rip\":\"0x%llx\","
		    "\"rflags\":\"0x%llx\",\"r8\":\"0x%llx\",\"r9\":\"0x%llx\","
		    "\"r10\":\"0x%llx\",\"r11\":\"0x%llx\",\"r12\":\"0x%llx\","
		    "\"r13\":\"0x%llx\",\"r14\":\"0x%llx\",\"r15\":\"0x%llx\","
		    "\"fs_base\":\"0x%llx\",\"gs_base\":\"0x%llx\"}", u.rax,
		    u.rbx, u.rcx, u.rdx, u.rsi, u.rdi, u.rbp, u.rsp, u.rip,
		    u.eflags, u.r8, u.r9, u.r10, u.r11, u.r12, u.r13, u.r14,
		    u.r15, u.fs_base, u.gs_base);
	n += snprintf(buf + n, sizeof buf - (size_t)n, "}");
	t->hits++;
	w->accepted++;
	if (w->accepted >= w->max_events) {
		w->truncated = 1;
		s->stop = 1;
	}
	emit(s, buf, n);
}

static int
in_syscall(struct pstate_all *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].state == P_SYSCALL)
			return 1;
	return 0;
}

/*
 * A pointer of chain ci was written (or the watch starts): read the
 * chain again; the entries after the pointer move, and what they hold
 * now is their last seen value.  Exact: no other thread runs meanwhile.
 */
static void
rebind(struct pstate_all *s, size_t ci)
{
	struct wp_watch *w = s->w;
	struct wp_chain *c = &w->chains[ci];
	char buf[1024];
	size_t k;
	int n;

	n = wp_watch_chain_update(w, s->memfd, ci,
	    (int64_t)(wp_now_ns() - s->t0), buf, sizeof buf);
	if (n > 0 && emit(s, buf, n) == 0)
		wp_record_out_flush();	/* scripts may wait on it */
	for (k = 0; k <= c->noffs; k++) {
		struct wp_watch_target *t = &w->t[c->base + k];

		if (t->armed && pread(s->memfd, s->last[c->base + k],
		    (size_t)t->len, (off_t)t->addr) != t->len)
			t->armed = 0;
	}
}

/*
 * After thread p's step: a decoded store (or load, with rw) to a target
 * is a hit whether or not the bytes changed; a change nothing explains
 * is still reported, flagged.
 */
static void
after_step(struct pstate_all *s, struct pthr *p, int was_syscall)
{
	struct wp_watch *w = s->w;
	struct wp_x86_regs r;
	uint64_t lo, hi;
	size_t ti;
	int hit, changed;

	to_regs(&p->pre, &r);
	for (ti = 0; ti < w->nt; ti++) {
		struct wp_watch_target *t = &w->t[ti];
		uint64_t h0 = t->hits;

		if (!t->armed || pread(s->memfd, s->buf, (size_t)t->len,
		    (off_t)t->addr) != t->len)
			continue;
		changed = memcmp(s->buf, s->last[ti], (size_t)t->len) != 0;
		hit = 0;
		if (wp_x86_store_range(&p->insn, &r, 0, &lo, &hi) == 0 &&
		    lo < t->addr + (uint64_t)t->len && t->addr < hi)
			hit = 1;
		if (hit)
			emit_hit(s, p, ti, s->buf, NULL);
		else if (t->rw && wp_x86_load_range(&p->insn, &r, &lo, &hi) == 0 &&
		    lo < t->addr + (uint64_t)t->len && t->addr < hi)
			emit_hit(s, p, ti, s->buf, "read");
		else if (changed && was_syscall) {
			w->syscall_writes++;
			emit_hit(s, p, ti, s->buf, "syscall");
		} else if (changed && !in_syscall(s)) {
			w->unexplained++;
			emit_hit(s, p, ti, s->buf, "unexplained");
		} else if (changed)
			continue;	/* a kernel write: its syscall reports it */
		memcpy(s->last[ti], s->buf, (size_t)t->len);
		if (t->chain >= 0 && t->hits > h0 &&
		    (size_t)t->level < w->chains[t->chain].noffs)
			rebind(s, (size_t)t->chain);
	}
}

/* A system call interrupted by a stop is restarted on the way out. */
static int
restart_pending(const struct user_regs_struct *u)
{
	long rax = (long)u->rax;

	return (long long)u->orig_rax >= 0 && rax >= -516 && rax <= -512;
}

/*
 * Resumes thread p for one instruction.  A system call is run with
 * PTRACE_SYSCALL instead (entry and exit stops, no single-step trap), so
 * that a call that blocks does not hold up the other threads.
 */
static int
resume_step(struct pstate_all *s, struct pthr *p)
{
	int sig = p->sig;

	if (ptrace(PTRACE_GETREGS, p->tid, 0, &p->pre) == -1)
		return -1;
	decode_at(s, p->pre.rip, &p->insn);
	p->sig = 0;
	if (sig == 0 && (p->insn.is_syscall || restart_pending(&p->pre))) {
		if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
			return -1;
		s->w->steps++;
		p->state = P_SYSENTER;
		return 0;
	}
	if (sig != 0) {
		/*
		 * With a handler, the step stops on its entry before the
		 * instruction runs: nothing is attributed to it.
		 */
		s->w->signals_passed++;
		p->insn.kind = WP_X86_NONE;
		p->insn.writes = p->insn.reads = 0;
	}
	if (ptrace(PTRACE_SINGLESTEP, p->tid, 0, (void *)(long)sig) == -1)
		return -1;
	s->w->steps++;
	p->state = P_STEP;
	return 0;
}

/* Handles one wait status of thread p; returns 1 when p stopped ready. */
static int
on_status(struct pstate_all *s, struct pthr *p, int status)
{
	struct wp_watch *w = s->w;
	unsigned long msg;
	int was_syscall = p->state == P_SYSCALL, ev, sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		p->state = P_GONE;
		wp_watch_thread(w, p->tid, WP_THR_SEEDED)->exited = 1;
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
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
		after_step(s, p, 1);
		p->state = P_READY;
		return 1;
	}
	if (sig == SIGTRAP && ev == 0 && p->state == P_STEP) {
		after_step(s, p, 0);
		p->state = P_READY;
		return 1;
	}
	if (ev == PTRACE_EVENT_CLONE) {
		if (ptrace(PTRACE_GETEVENTMSG, p->tid, 0, &msg) == 0) {
			char buf[256];
			int n;

			if (pfind(s, (pid_t)msg) == NULL)
				padd(s, (pid_t)msg);
			wp_watch_thread(w, (pid_t)msg, WP_THR_INHERITED);
			n = snprintf(buf, sizeof buf, "{\"type\":\"thread\","
			    "\"event\":\"start\",\"tid\":%lu,\"by_tid\":%d,"
			    "\"coverage\":\"inherited\",\"time_ns\":%" PRId64
			    "}", msg, (int)p->tid,
			    (int64_t)(wp_now_ns() - s->t0));
			emit(s, buf, n);
		}
		/* on to the exit of the clone call */
		if (ptrace(PTRACE_SYSCALL, p->tid, 0, 0) == -1)
			p->state = P_GONE;
		return 0;
	}
	if (ev == PTRACE_EVENT_EXEC) {
		s->exec_seen = 1;
		p->state = P_READY;
		return 1;
	}
	if (ev == PTRACE_EVENT_EXIT) {
		ptrace(PTRACE_CONT, p->tid, 0, 0);
		p->state = P_NEW;
		return 0;
	}
	if (ev == PTRACE_EVENT_STOP) {
		/* first stop after seize or clone, an interrupt, a group-stop */
		if (was_syscall)
			after_step(s, p, 1);
		p->state = P_READY;
		return 1;
	}
	/* a signal for the thread: deliver it with the next resume */
	if (!(sig == SIGTRAP && p->state == P_READY))
		p->sig = sig;
	if (was_syscall)
		after_step(s, p, 1);
	p->state = P_READY;
	return 1;
}

static void
seize_all(struct pstate_all *s)
{
	struct wp_watch *w = s->w;
	pid_t *tids;
	size_t n, i;
	int again = 1, rounds = 0;
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
	    PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD;

	/* threads may be created while seizing: repeat until none is new */
	while (again && rounds++ < 100) {
		again = 0;
		if (wp_proc_tasks(w->pid, &tids, &n) == -1)
			return;
		for (i = 0; i < n; i++) {
			if (pfind(s, tids[i]) != NULL)
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0, (void *)opts) == -1) {
				if (errno != ESRCH) {
					struct wp_thread *t = wp_watch_thread(w, tids[i],
					    WP_THR_FAILED);

					t->state = WP_THR_FAILED;
					t->err = errno;
				}
				continue;
			}
			ptrace(PTRACE_INTERRUPT, tids[i], 0, 0);
			padd(s, tids[i]);
			wp_watch_thread(w, tids[i], WP_THR_SEEDED);
			again = 1;
		}
		free(tids);
	}
}

/* Stops every thread (a blocked syscall is interrupted) and detaches. */
static void
detach_all(struct pstate_all *s)
{
	struct pthr *p;
	size_t i;
	int status;
	pid_t tid;

	/*
	 * A thread in the middle of a step is not interrupted: its step
	 * ends at once with a SIGTRAP that must be taken here, and an
	 * interrupt would stop it first and leave that SIGTRAP pending, to
	 * kill the process after the detach.
	 */
	for (i = 0; i < s->n; i++) {
		p = &s->t[i];
		if (p->state != P_READY && p->state != P_GONE &&
		    p->state != P_STEP)
			ptrace(PTRACE_INTERRUPT, p->tid, 0, 0);
	}
	for (i = 0; i < s->n; i++) {
		p = &s->t[i];
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
			    WSTOPSIG(status) != SIGTRAP &&
			    !(WSTOPSIG(status) & 0x80))
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
}

static int
alive(struct pstate_all *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].state != P_GONE)
			return 1;
	return 0;
}

static int
ours(struct pstate_all *s, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)s->w->pid,
	    (int)tid);
	return access(path, F_OK) == 0;
}

static int
any_ready(const struct pstate_all *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].state == P_READY)
			return 1;
	return 0;
}

static struct pthr *
next_ready(struct pstate_all *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		k = (s->rr + i) % s->n;
		if (s->t[k].state == P_READY) {
			s->rr = k + 1;
			return &s->t[k];
		}
	}
	return NULL;
}

/*
 * Returns 0 when a watch ran, -1 with w->error set when nothing could be
 * attached.  The process is left as it was found on every path.
 */
int
wp_watch_ptrace(struct wp_watch *w)
{
	struct pstate_all s;
	struct sigaction sa;
	struct itimerval it;
	struct pthr *p;
	unsigned long long st;
	uint64_t deadline;
	sigset_t block, orig;
	size_t i, maxlen = 1;
	int status, rc = 0, collect = 1;
	pid_t tid;

	memset(&s, 0, sizeof s);
	s.w = w;
	s.iccap = 4096;
	s.ic = wp_xcalloc(s.iccap, sizeof *s.ic);
	if (wp_proc_starttime(w->pid, &st) == -1 || st != w->start_time) {
		snprintf(w->error, sizeof w->error, "pid %d: the process has "
		    "exited or its pid was reused", (int)w->pid);
		free(s.ic);
		return -1;
	}
	if ((s.memfd = wp_proc_mem_open(w->pid)) == -1) {
		snprintf(w->error, sizeof w->error, "pid %d: %s", (int)w->pid,
		    strerror(errno));
		free(s.ic);
		return -1;
	}
	s.last = wp_xcalloc(w->nt, sizeof *s.last);
	for (i = 0; i < w->nt; i++) {
		s.last[i] = wp_xcalloc(1, (size_t)w->t[i].len);
		if (w->t[i].chain < 0 && pread(s.memfd, s.last[i],
		    (size_t)w->t[i].len,
		    (off_t)w->t[i].addr) != w->t[i].len) {
			snprintf(w->error, sizeof w->error, "target %d: cannot "
			    "read 0x%" PRIx64 ": %s", w->t[i].id, w->t[i].addr,
			    strerror(errno));
			rc = -1;
		}
		if (maxlen < (size_t)w->t[i].len)
			maxlen = (size_t)w->t[i].len;
	}
	s.buf = wp_xmalloc(maxlen);
	if (rc == -1)
		goto out;

	wp_watch_catch_signals(on_signal, &block, &orig);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGALRM, &sa, NULL);	/* the 50 ms tick */

	s.t0 = wp_now_ns();
	seize_all(&s);
	if (s.n == 0) {
		snprintf(w->error, sizeof w->error, "pid %d: cannot attach: %s",
		    (int)w->pid, w->nthr ? strerror(w->thr[0].err) :
		    "no thread");
		rc = -1;
		goto restore;
	}
	for (i = 0; i < w->nchains; i++)
		rebind(&s, i);
	{
		char buf[512];
		int n = snprintf(buf, sizeof buf, "{\"type\":\"armed\","
		    "\"backend\":\"ptrace_singlestep\",\"pid\":%d,\"threads\":%zu,"
		    "\"targets\":%zu,\"cpus\":null,\"events\":null,\"ring_pages\":"
		    "null,\"regs\":%s,\"clock\":\"CLOCK_MONOTONIC\","
		    "\"time_base_ns\":\"0x%" PRIx64 "\"}", (int)w->pid, s.n,
		    w->nt, w->regs ? "true" : "false", s.t0);

		if (emit(&s, buf, n) == -1 || wp_record_out_flush() == -1)
			w->output_closed = 1, s.stop = 1;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = 50000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);

	deadline = s.t0 + w->duration_ms * 1000000;
	w->step_ns = wp_now_ns();
	while (!s.stop) {
		if (got_signal) {
			w->stop_reason = "signal";
			w->stop_detail = got_signal == SIGINT ? "SIGINT" :
			    got_signal == SIGTERM ? "SIGTERM" : "SIGHUP";
			break;
		}
		if (ticked) {
			ticked = 0;
			collect = 1;
			if (wp_now_ns() >= deadline) {
				w->stop_reason = "duration";
				break;
			}
			if (stdout_closed()) {
				w->output_closed = 1;
				break;
			}
		}
		if (s.exec_seen) {
			w->stop_reason = "target_exec";
			break;
		}
		if (!alive(&s)) {
			w->stop_reason = "target_exited";
			break;
		}
		/*
		 * Stops of threads not being stepped (new threads, system
		 * calls that returned) are collected on each tick, or when
		 * no thread is ready.
		 */
		if (collect || !any_ready(&s)) {
			collect = 0;
			while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
				if ((p = pfind(&s, tid)) != NULL)
					on_status(&s, p, status);
				else if (WIFSTOPPED(status) && ours(&s, tid)) {
					p = padd(&s, tid);
					on_status(&s, p, status);
				}
		}
		if ((p = next_ready(&s)) != NULL) {
			if (resume_step(&s, p) == -1) {
				p->state = P_GONE;
				continue;
			}
			if (p->state != P_STEP)
				continue;	/* a system call: step the others */
			while ((tid = waitpid(p->tid, &status, __WALL)) == -1 &&
			    errno == EINTR && !got_signal)
				;
			if (tid == p->tid)
				on_status(&s, p, status);
			else if (tid == -1 && errno == ECHILD)
				p->state = P_GONE;
			continue;
		}
		/* everyone is in a syscall (or starting): wait for any */
		tid = waitpid(-1, &status, __WALL);
		if (tid > 0) {
			if ((p = pfind(&s, tid)) == NULL && ours(&s, tid))
				p = padd(&s, tid);
			if (p != NULL)
				on_status(&s, p, status);
		} else if (tid == -1 && errno == ECHILD) {
			for (i = 0; i < s.n; i++)
				s.t[i].state = P_GONE;
		}
	}
	if (w->stop_reason == NULL)
		w->stop_reason = w->output_closed ? "output_closed" :
		    w->truncated ? "max_events" : "duration";
	if (w->output_closed)
		w->stop_reason = "output_closed";
	else if (w->truncated)
		w->stop_reason = "max_events";
	w->step_ns = wp_now_ns() - w->step_ns;
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	sigprocmask(SIG_BLOCK, &block, NULL);
	detach_all(&s);
	w->elapsed_ms = (wp_now_ns() - s.t0) / 1000000;
restore:
	sigprocmask(SIG_SETMASK, &orig, NULL);
out:
	for (i = 0; i < w->nt; i++)
		free(s.last[i]);
	free(s.last);
	free(s.buf);
	free(s.t);
	free(s.ic);
	close(s.memfd);
	return rc;
}
