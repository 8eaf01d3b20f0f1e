/*
 * The ptrace backend's site mode: which addresses does an instruction
 * access, where no uprobe can say (the kernel puts none on a
 * lock-prefixed instruction).  Every thread of the process is traced
 * (trace/tracee.c); a software breakpoint (regs.h: an int3, on arm64
 * brk #0) replaces the first bytes of each site.  At
 * its trap the thread's registers give the memory operand's effective
 * address (base, index, scale, displacement, the fs or gs base), and the
 * execution is tallied per (site, address, thread), exactly; then the
 * thread steps a copy of the instruction in a scratch page and goes on
 * after the site, the int3 left in place and the other threads running
 * (ptrace-xol.c); where a copy cannot serve (a branch, no page near
 * enough), the other threads held, the original byte is put back, the
 * instruction single-stepped, the int3 put in again and the threads let
 * go.  A rep string instruction traps once per element (a step runs
 * one), each tallied at its rdi.  The
 * tallies are written as the uprobe backend writes them (access
 * records).  Every way out (the end, the target's exit or exec, a stop
 * signal, a killed wp-arm through the supervisor, a fatal failure)
 * puts the original bytes back before the process is let go, and a
 * forked child's copy is mended before it is.  Slow: a trap and a step
 * per execution (and a hold of the others, stepped in place).
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <linux/kcmp.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "hmap.h"
#include "proc.h"
#include "ptrace-xol.h"
#include "record.h"
#include "sites-where.h"
#include "traced.h"
#include "tracee.h"
#include "util.h"
#include "watch.h"
#include "x86.h"


struct ps_site {
	uint64_t		 addr;
	uint8_t			 orig[4];	/* its first bytes: as many
						   as tr_brk's */
	uint8_t			 code[16];	/* the instruction */
	uint64_t		 xol;		/* its copy's address; 0:
						   stepped in place */
	int			 planted;	/* the int3 is there */
	uint64_t		 execs;
};

/* A tally: (site, address, thread). */
struct ps_tally {
	uint64_t		 addr;
	uint32_t		 site;
	pid_t			 tid;
	uint64_t		 writes, reads;
	uint64_t		 first, last;
	size_t			 nvals;
	uint64_t		 vals[WP_ACCESS_NVALS], vn[WP_ACCESS_NVALS];
	uint64_t		 vother;
};

/* A thread's (its t->user): the site whose step another stop cut
   short, plus 1; 0: none. */
struct ps_thr {
	ssize_t			 unstepped;
};

struct psites_state {
	struct tracee		 tr;
	struct ps_site		*s;		/* w->nsites */
	struct wp_hmap		 tally;
	struct wp_hmap		 thr;		/* struct site_thread: where
						   each thread's stack and
						   TLS were at its first */
	struct wp_maps		 maps;		/* the latest read: regions */
	uint64_t		 tls_below;	/* static TLS: its bytes below
						   a thread's pointer */
	uint64_t		 xol_page;	/* the copies' page; 0: none */
	int			 exec_seen;
};

#define PS_MAXSITES	SITES_MAX

static int
psites_fits(struct watch *w, int chosen, struct wp_error *e)
{
	(void)chosen;
	if (!sites_known(w, "ptrace backend's site mode", e))
		return 0;
	if (w->nsites > PS_MAXSITES) {
		wp_error_set(e, WP_EXIT_ERROR, "%zu sites: the ptrace backend "
		    "counts at most %d", w->nsites, PS_MAXSITES);
		return 0;
	}
	return 1;
}

/*
 * Writes each site's byte (orig: its own, else the int3) into process
 * pid's memory through fd.  0, or -1.
 */
static int
put_bytes(int fd, const struct psites_state *ps, size_t n, int orig)
{
	const uint8_t *b;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		b = orig ? ps->s[i].orig : tr_brk.code;
		if (pwrite(fd, b, tr_brk.len, (off_t)ps->s[i].addr) !=
		    (ssize_t)tr_brk.len)
			rc = -1;
	}
	return rc;
}

static size_t ps_n;

/* A fatal failure: the code back as it was (no allocation). */
static void
ps_fatal(void *arg)
{
	struct psites_state *ps = arg;

	put_bytes(ps->tr.memfd, ps, ps_n, 1);
}

static void
release(struct watch *w, struct psites_state *ps)
{
	tr_close(&ps->tr);
	wp_hmap_free(&ps->tally);
	wp_hmap_free(&ps->thr);
	wp_proc_maps_free(&ps->maps);
	free(ps->s);
	free(ps);
	w->state = NULL;
}

/*
 * Decodes each site again from the process's code (lib/x86.c): what its
 * record does not carry (how its store takes its value), and the code is
 * still the instruction the record names.  0, or -1 with e set.
 */
static int
decode_sites(struct watch *w, struct psites_state *ps, struct wp_error *e)
{
	struct wp_site_spec *s;
	struct wp_x86_insn in;
	uint8_t code[16];
	size_t i;

	for (i = 0; i < w->nsites; i++) {
		s = &w->sites[i];
		if (wp_x86_init() == -1 || wp_proc_read(ps->tr.memfd, s->addr,
		    code, (size_t)s->in.size) == -1 || wp_x86_decode(code,
		    (size_t)s->in.size, s->addr, &in) == -1 ||
		    strcmp(in.text, s->in.text) != 0)
			return wp_error_set(e, WP_EXIT_ERROR, "site %d: the "
			    "code at 0x%llx is no longer '%s'", s->id,
			    (unsigned long long)s->addr, s->in.text);
		s->in.kind = in.kind;
		s->in.rep = in.rep;
		s->in.src_reg = in.src_reg;
		s->in.src_shift = in.src_shift;
		s->in.src_bytes = in.src_bytes;
		ps->s[i].addr = s->addr;
		memcpy(ps->s[i].orig, code, tr_brk.len);
		memcpy(ps->s[i].code, code, sizeof code);
	}
	return w->sites_if == NULL ? 0 :
	    sites_if_check(w->sites_if, w->sites, w->nsites, e);
}

/* The scratch page and each site's copy in it, where they can be. */
static void
out_of_line(struct watch *w, struct psites_state *ps)
{
	size_t i;

	if ((ps->xol_page = xol_map(&ps->tr, ps->s[0].addr)) == 0)
		return;
	for (i = 0; i < w->nsites; i++)
		ps->s[i].xol = xol_slot(ps->tr.memfd, ps->xol_page, i,
		    ps->s[i].addr, ps->s[i].code, &w->sites[i].in);
}

static int
psites_arm(struct watch *w, struct wp_error *e)
{
	struct psites_state *ps;
	size_t i;

	w->state = ps = wp_xcalloc(1, sizeof *ps);
	ps->s = wp_xcalloc(w->nsites, sizeof *ps->s);
	ps_n = w->nsites;
	wp_hmap_init(&ps->tally, sizeof(struct ps_tally));
	wp_hmap_init(&ps->thr, sizeof(struct site_thread));
	tr_init(&ps->tr, w->pid);
	if (traced_open(w, &ps->tr, 1, e) == -1)
		goto fail;
	if (traced_attach(w, &ps->tr, e) == -1)
		goto fail;
	if (decode_sites(w, ps, e) == -1)
		goto detach;
	out_of_line(w, ps);
	traced_on_fatal(ps_fatal, ps);
	if (put_bytes(ps->tr.memfd, ps, w->nsites, 0) == -1) {
		put_bytes(ps->tr.memfd, ps, w->nsites, 1);
		wp_error_set(e, WP_EXIT_ERROR, "pid %d: cannot write an int3 "
		    "at its sites: %s", (int)w->pid, strerror(errno));
		goto detach;
	}
	wp_proc_maps(w->pid, &ps->maps);
	ps->tls_below = sites_static_tls(&ps->maps);
	traced_armed(w, ps->tr.n);
	w->armed.events = (long)w->nsites;
	/* the stops found at the seize stay queued for the loop */
	for (i = 0; i < ps->tr.n; i++)
		if (!ps->tr.t[i]->queued &&
		    ps->tr.t[i]->state == TR_STOPPED)
			tr_resume(&ps->tr, ps->tr.t[i], TR_CONT, 0);
	return 0;
detach:
	traced_detach(&ps->tr);
fail:
	release(w, ps);
	return -1;
}

static uint64_t
reg(const struct wp_x86_regs *r, int i)
{
	return i >= 0 && i < WP_NREGS ? r->v[i] : 0;
}

/*
 * Site i's execution by t, its registers r (rip at the site): tallied;
 * 1 where it matches --if (all do without one).
 */
static int
tally(struct watch *w, struct psites_state *ps, size_t i, pid_t tid,
    const struct wp_x86_regs *r)
{
	const struct wp_site_spec *s = &w->sites[i];
	const struct wp_x86_mem *m = &s->in.mem;
	struct ps_tally *t;
	struct site_thread *th;
	uint64_t a, base, val = 0, mask;
	size_t k;
	int isnew;

	ps->s[i].execs++;
	th = wp_hmap_put(&ps->thr, (uint64_t)tid, 0, &isnew);
	if (isnew) {
		th->tid = tid;
		th->sp = r->v[WP_RSP];
		th->tp = r->v[WP_FS_BASE];
	}
	base = reg(r, m->base);
	if (m->base_bytes == 4)
		base = (uint32_t)base;
	a = (uint64_t)m->disp + (m->rip_rel ? s->addr +
	    (uint64_t)s->in.size : 0) + base + reg(r, m->index) *
	    (uint64_t)m->scale;
	if (m->base_bytes == 4)
		a = (uint32_t)a;
	if (m->seg == WP_FS_BASE)
		a += r->v[WP_FS_BASE];
	else if (m->seg == WP_GS_BASE)
		a += r->v[WP_GS_BASE];
	t = wp_hmap_put(&ps->tally, a, (uint64_t)i << 32 | (uint32_t)tid,
	    &isnew);
	if (isnew) {
		t->addr = a;
		t->site = (uint32_t)i;
		t->tid = tid;
	}
	t->writes += s->in.writes ? 1 : 0;
	t->reads += s->rw && s->in.reads ? 1 : 0;
	if (s->in.kind != WP_X86_REG_STORE)
		return sites_match_one(w->sites_if, s, tid, a, 0, 0);
	mask = s->in.width >= 8 || s->in.width <= 0 ? ~0ULL :
	    (1ULL << (8 * s->in.width)) - 1;
	val = (reg(r, s->in.src_reg) >> s->in.src_shift) & mask;
	if (isnew)
		t->first = val;
	t->last = val;
	for (k = 0; k < t->nvals && t->vals[k] != val; k++)
		;
	if (k < t->nvals)
		t->vn[k]++;
	else if (t->nvals < WP_ACCESS_NVALS) {
		t->vals[t->nvals] = val;
		t->vn[t->nvals++] = 1;
	} else
		t->vother++;
	return sites_match_one(w->sites_if, s, tid, a, 1, val);
}

/* The site whose int3 t stopped after (its SIGTRAP), or -1. */
static ssize_t
site_of_trap(struct watch *w, struct psites_state *ps, struct tr_thread *t,
    struct user_regs_struct *u)
{
	siginfo_t si;
	size_t i;

	if (t->stop != TR_SIGNAL || t->sig != SIGTRAP ||
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == -1 ||
	    si.si_code != tr_brk.si_code || tr_getregs(t->tid, u) == -1)
		return -1;
	for (i = 0; i < w->nsites; i++)
		if (tr_pc(u) - tr_brk.pc_after == ps->s[i].addr)
			return (ssize_t)i;
	return -1;
}

/*
 * t, counted at site i's int3, steps its copy (the others run on): then
 * on after the site; a stop before it ran (a signal): back at the site,
 * its next trap the same execution.
 */
static void
step_out_of_line(struct psites_state *ps, struct tr_thread *t, size_t i,
    uint64_t len, struct user_regs_struct *u)
{
	struct ps_thr *pt = t->user;
	uint64_t xol = ps->s[i].xol, count = tr_count(u), pc;
	int rc;

	tr_set_pc(u, xol);
	if (tr_setregs(t->tid, u) == -1) {
		t->state = TR_GONE;
		return;
	}
	if ((rc = tr_step(&ps->tr, t, 0)) == -1)
		return;
	if (tr_getregs(t->tid, u) == -1) {
		t->state = TR_GONE;
		return;
	}
	pc = tr_pc(u);
	if (pc == xol + len)
		tr_set_pc(u, ps->s[i].addr + len);
	else if (pc >= xol && pc < xol + len) {
		/* not run; or a rep's element, the next one's trap to come */
		tr_set_pc(u, ps->s[i].addr);
		if (tr_count(u) == count)
			pt->unstepped = (ssize_t)i + 1;
	}
	if (tr_setregs(t->tid, u) == -1) {
		t->state = TR_GONE;
		return;
	}
	if (rc == 0)
		tr_resume(&ps->tr, t, TR_CONT, 0);
	else
		t->queued = 1;	/* the next round's */
}

/*
 * t stopped at site i's int3: counted, rewound to the site, and the
 * instruction run (out of line, or its byte back for one step, the
 * others held).
 */
static void
on_trap(struct watch *w, struct psites_state *ps, struct tr_thread *t,
    size_t i, struct user_regs_struct *u)
{
	struct wp_x86_regs r;
	struct ps_thr *pt;
	int rc, match = 0;

	tr_set_pc(u, ps->s[i].addr);
	tr_regs(u, &r);
	if (t->user == NULL)
		t->user = wp_xcalloc(1, sizeof(struct ps_thr));
	pt = t->user;
	/* its step cut short before (a signal): this is the same one; a
	   rep string instruction traps before each element, none when
	   rcx is 0 */
	if (pt->unstepped == (ssize_t)i + 1)
		pt->unstepped = 0;
	else if (t->tgid == ps->tr.pid && !(w->sites[i].in.rep &&
	    (w->sites[i].in.mem.base_bytes == 4 ? (uint32_t)tr_count(u) :
	    tr_count(u)) == 0))
		match = tally(w, ps, i, t->tid, &r);
	/* --stop: left at the site, the instruction not run, and the
	   watch ends (its int3 taken out, the process left stopped) */
	if (match && filter_stops(w)) {
		if (tr_setregs(t->tid, u) == -1) {
			t->state = TR_GONE;
			return;
		}
		t->stop = TR_START;	/* no SIGTRAP to pass on */
		t->sig = 0;
		ps->tr.keep_stopped = 1;
		filter_site_stop(w, t->tid, ps->s[i].addr, 0);
		return;
	}
	if (ps->s[i].xol != 0) {
		step_out_of_line(ps, t, i, (uint64_t)w->sites[i].in.size, u);
		return;
	}
	if (tr_setregs(t->tid, u) == -1) {
		t->state = TR_GONE;
		return;
	}
	tr_hold(&ps->tr, t);
	if (pwrite(ps->tr.memfd, ps->s[i].orig, tr_brk.len,
	    (off_t)ps->s[i].addr) != (ssize_t)tr_brk.len) {
		/* its memory cannot be written: the process is gone */
		tr_release(&ps->tr);
		t->state = TR_GONE;
		return;
	}
	rc = tr_step(&ps->tr, t, 0);
	if (pwrite(ps->tr.memfd, tr_brk.code, tr_brk.len,
	    (off_t)ps->s[i].addr) != (ssize_t)tr_brk.len &&
	    !w->obs_lower_bound) {
		warnx("site %zu: its int3 could not be put back (%s): its "
		    "later executions are not counted", i, strerror(errno));
		w->obs_lower_bound = 1;
	}
	tr_release(&ps->tr);
	if (rc == 0)
		tr_resume(&ps->tr, t, TR_CONT, 0);
	else if (rc == 1) {
		/* another stop first: the instruction has not run if the
		   thread is still at it, and its next trap is not counted */
		if (tr_getregs(t->tid, u) == 0 && tr_pc(u) == ps->s[i].addr)
			pt->unstepped = (ssize_t)i + 1;
		t->queued = 1;	/* the next round's */
	}
}

/*
 * A process started by fork, vfork or clone: sharing the memory (vfork)
 * it runs on traced, its traps stepped (not counted: not the target's),
 * until it execs or exits (0: the caller handles its stop); else its own
 * copy of the code is mended and it is let go, at its first stop (1).
 */
static int
new_process(struct watch *w, struct psites_state *ps, struct tr_thread *t)
{
	char path[64];
	int fd;

	if (syscall(SYS_kcmp, ps->tr.pid, t->tgid, KCMP_VM, 0, 0) == 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/mem", (int)t->tgid);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) != -1) {
		put_bytes(fd, ps, w->nsites, 1);
		close(fd);
	}
	tr_detach(&ps->tr, t, 0);
	return 1;
}

static void
on_event(struct watch *w, struct psites_state *ps, struct tr_thread *t)
{
	switch (t->event) {
	case PTRACE_EVENT_CLONE:
		if (t->tgid == ps->tr.pid && wp_proc_exists((pid_t)t->msg) &&
		    tr_find(&ps->tr, (pid_t)t->msg) == NULL)
			tr_add(&ps->tr, (pid_t)t->msg, ps->tr.pid);
		if (t->tgid == ps->tr.pid)
			traced_started(w, (pid_t)t->msg, t->tid);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (t->tgid == ps->tr.pid)
			traced_forked(w, (pid_t)t->msg, t->tid);
		break;
	case PTRACE_EVENT_EXEC:
		if (t->tgid == ps->tr.pid) {
			ps->exec_seen = 1;
			return;		/* stopped: the watch ends */
		}
		tr_detach(&ps->tr, t, 0);
		return;
	}
	tr_resume(&ps->tr, t, TR_CONT, 0);
}

static void
on_stop(struct watch *w, struct psites_state *ps, struct tr_thread *t)
{
	struct user_regs_struct u;
	ssize_t i;

	if (t->stop != TR_EXITED && t->tgid != ps->tr.pid &&
	    new_process(w, ps, t))
		return;
	switch (t->stop) {
	case TR_EXITED:
		if (t->tgid == ps->tr.pid)
			traced_exited(w, t->tid, t->status);
		return;
	case TR_START:
		tr_resume(&ps->tr, t, TR_CONT, 0);
		return;
	case TR_EVENT:
		on_event(w, ps, t);
		return;
	case TR_SIGNAL:
		if ((i = site_of_trap(w, ps, t, &u)) >= 0) {
			on_trap(w, ps, t, (size_t)i, &u);
			return;
		}
		tr_resume(&ps->tr, t, TR_CONT, tr_own_trap(t) ? 0 : t->sig);
		return;
	default:
		tr_resume(&ps->tr, t, TR_CONT, 0);
		return;
	}
}

static int
psites_alive(struct watch *w)
{
	return tr_alive(&((struct psites_state *)w->state)->tr);
}

static void
psites_round(struct watch *w)
{
	struct psites_state *ps = w->state;
	struct tr_thread *t;
	int none;

	if ((t = tr_wait(&ps->tr, 1, &none)) != NULL)
		on_stop(w, ps, t);
	else if (none)
		for (size_t i = 0; i < ps->tr.n; i++)
			ps->tr.t[i]->state = TR_GONE;
}

static void
psites_run(struct watch *w, uint64_t until)
{
	struct psites_state *ps = w->state;

	(void)until;		/* the 50 ms tick returns here */
	tr_prune(&ps->tr);
	traced_run(w, &ps->exec_seen, psites_alive, psites_round);
}

/* The tallies into access records, and the totals into the sites. */
static void
psites_count(struct watch *w)
{
	struct psites_state *ps = w->state;
	struct sites_obs *o = w->obs;
	const struct ps_tally *t;
	struct site_thread *th;
	struct wp_access_rec a;
	struct wp_maps maps;
	const struct wp_map *mp;
	size_t i;

	if (ps == NULL)
		return;
	/* where each address lies, while the process is there to say */
	if (wp_proc_maps(w->pid, &maps) == 0) {
		wp_proc_maps_free(&ps->maps);
		ps->maps = maps;
	}
	for (i = 0; i < w->nsites; i++) {
		o->sites[i].id = w->sites[i].id;
		o->sites[i].executions = ps->s[i].execs;
		o->sites[i].addresses = 0;
		o->sites[i].counted_by = WP_BK_PTRACE + 1;
	}
	o->up.nsites = w->nsites;
	for (i = 0; i < ps->thr.cap; i++)
		if ((th = wp_hmap_slot(&ps->thr, i)) != NULL)
			th->stack = wp_proc_maps_find(&ps->maps, th->sp);
	for (i = 0; i < ps->tally.cap; i++) {
		if ((t = wp_hmap_slot(&ps->tally, i)) == NULL)
			continue;
		o->sites[t->site].addresses++;
		memset(&a, 0, sizeof a);
		a.site = w->sites[t->site].id;
		a.addr = t->addr;
		a.tid = t->tid;
		a.writes = t->writes;
		a.reads = t->reads;
		a.time_ns = watch_time(w, wp_now_ns());
		a.backend = wp_backend_names[WP_BK_PTRACE];
		if (w->sites[t->site].in.kind == WP_X86_REG_STORE) {
			a.has_values = 1;
			a.first = t->first;
			a.last = t->last;
			a.nvals = t->nvals;
			memcpy(a.vals, t->vals, sizeof a.vals);
			memcpy(a.vn, t->vn, sizeof a.vn);
			a.vother = t->vother;
		}
		if ((mp = wp_proc_maps_find(&ps->maps, t->addr)) != NULL) {
			snprintf(a.region, sizeof a.region, "%s",
			    mp->path != NULL ? mp->path : "[anon]");
			a.map_start = mp->start;
		}
		sites_whose(ps->tls_below, w->pid, &ps->thr, mp, t->addr, &a);
		sites_match(w->sites_if, &w->sites[t->site], &a);
		watch_thread(w, a.tid, THR_INHERITED);
		if (emit_access(w, &a) == -1)
			break;
	}
}

/*
 * A held thread at one of the int3s, its SIGTRAP taken or still
 * pending: rewound to the site, the signal not to be delivered (the
 * instruction runs when it is let go, uncounted: after the watch).
 */
static void
unwind_trap(struct watch *w, struct psites_state *ps, struct tr_thread *t)
{
	struct user_regs_struct u;
	ssize_t i;

	if (t->state != TR_STOPPED || t->tgid != ps->tr.pid)
		return;
	if (t->stop != TR_SIGNAL && t->stop != TR_GROUP &&
	    tr_trap_pending(t->tid))
		tr_take_signal(t, SIGTRAP);
	if (t->state != TR_STOPPED ||
	    (i = site_of_trap(w, ps, t, &u)) < 0)
		return;
	tr_set_pc(&u, ps->s[i].addr);
	tr_setregs(t->tid, &u);
	t->stop = TR_START;	/* no signal to pass on */
	t->sig = 0;
}

/*
 * Holds every thread, counts, puts every site's own byte back, and
 * detaches; a trap of ours taken meanwhile is undone.
 */
static void
psites_disarm(struct watch *w)
{
	struct psites_state *ps = w->state;
	size_t i;

	if (ps == NULL)
		return;
	traced_tick(0);
	tr_hold(&ps->tr, NULL);
	for (i = 0; i < ps->tr.n; i++)
		unwind_trap(w, ps, ps->tr.t[i]);
	if (!ps->exec_seen) {
		put_bytes(ps->tr.memfd, ps, w->nsites, 1);
		xol_unmap(&ps->tr, ps->xol_page);
	}
	psites_count(w);
	traced_detach(&ps->tr);
	release(w, ps);
}

static void
psites_rearm(struct watch *w, size_t ti)
{
	(void)w;
	(void)ti;
}

static void
psites_observe(struct watch *w, struct wp_observation *o)
{
	struct sites_obs *po = w->obs;

	po->up.sites = po->sites;
	o->uprobe = &po->up;
}

const struct backend backend_ptrace_sites = {
	.id = WP_BK_PTRACE,
	.caps = BK_SITES | BK_TRACES,
	.chosen = "the ptrace backend (an int3 at each instruction, every "
	    "execution counted per address and thread, the instruction "
	    "single-stepped: exact, but slow)",
	.cond_where = CW_TRACER, .orphan_signal = SIGTRAP,
	.obs_size = sizeof(struct sites_obs),
	.fits = psites_fits, .arm = psites_arm, .run = psites_run,
	.count = psites_count, .rearm = psites_rearm, .disarm = psites_disarm,
	.observe = psites_observe
};
