/*
 * page: the page backend's state and its files' functions, in layers,
 * each calling only those below it: page-state.c (the pages and
 * threads, a hit emitted), page-emulate.c, page-rseq.c (rseq areas and
 * retries), page-protect.c (which pages are protected), page-fault.c
 * (a fault), page-syscall.c (system calls, the kernel's writes),
 * page-event.c (what each stop means), backend-page.c (arming, the
 * loop, disarming).
 */
#ifndef WPARM_PAGE_H
#define WPARM_PAGE_H

#include <sys/mman.h>

#include <stdint.h>

#include "near.h"
#include "tracee.h"
#include "unwind.h"
#include "watch.h"
#include "x86.h"

#define PAGE_SZ		4096ULL

/* A page that holds part of a watched range. */
struct ppage {
	uint64_t	 addr;
	int		 own;		/* the target's own PROT_* */
	int		 prot;		/* what wp set it to last */
	int		 guarded;	/* its write permission is taken now */
	int		 rw;		/* an armed -a rw range is on it: every
					   access is taken (PROT_NONE) */
	int		 open;		/* windows that gave it back */
	int		 gone;		/* unmapped, or made unwritable */
	int		 needed;	/* an armed range is on it */
	int		 known;		/* own is known: it was checked */
};

/* A thread's window: the pages given back for its system call. */
struct pthr {
	struct ppage	**win;
	size_t		 nwin;
	int		 maps;		/* its call may change the mappings */
	long		 nr;		/* that call, and its arguments */
	uint64_t	 args[6];
	int		 others;	/* another thread ran meanwhile */
	uint64_t	 since;		/* when the stop being handled began */
	/* its own time, what it would take unwatched: CPU and calls */
	uint64_t	 t0;		/* when first seen */
	int64_t		 cpu0;		/* its user CPU time then */
	int64_t		 runq0;		/* its wait for a CPU then */
	uint64_t	 runs0;		/* the times it was given one then */
	uint64_t	 resumes0;	/* the tracer's resumes of it then */
	uint64_t	 sc_from;	/* resumed into a call then; 0: not */
	uint64_t	 sc_ns;		/* in its calls, entry to exit */
	int		 timed;		/* its own time counted */
	/* when its window of the watch's pace began, its own time then */
	uint64_t	 win_at;
	int64_t		 win_own;
	uint64_t	 win_resumes;	/* the tracer's resumes of it then */
	/* its rseq area, unregistered for the watch (0: none) */
	uint64_t	 rseq;
	uint32_t	 rseq_len, rseq_sig;
	/* its retries' step limit (0: not set yet), and whether its retry
	   is at a system call, to be taken up again at its exit */
	uint64_t	 rseq_steps;
	int		 rseq_call;
	/* its rseq area as the kernel has it now, once asked (known) */
	uint64_t	 rseq_area;
	int		 rseq_known;
	/* an instruction its step left unfinished (cut): another stop
	   came before it ran, or a rep string one's rounds were not all
	   made; its registers then and a rep one's element (0: not rep),
	   its next fault there, on from there, the same one */
	int		 cut;
	struct user_regs_struct cut_u;
	uint64_t	 cut_elem;
	/* the SIGSEGV action its rt_sigaction call sets, read at its entry
	   (act_set: it sets one), the process's at its exit */
	struct tr_sigaction act;
	int		 act_set;
	/* SIGSEGV is known not to be blocked in it: read since its last
	   stop that may have changed its mask (a call that sets it, a
	   signal delivered), so a fault of its cannot reset a handler */
	int		 segv_clear;
};

/* An instruction decoded at a fault, kept for the next one there. */
#define PAGE_DCACHE	64
struct pdecoded {
	int		 valid;
	uint64_t	 rip;
	uint8_t		 code[16];	/* its bytes then */
	/* they were on a page nothing writes but through a call that
	   changes the mappings (maps_gen then): not read again */
	int		 stable;
	uint64_t	 gen;
	struct wp_x86_insn in;
};

struct page_state {
	struct tracee	 tr;
	struct ppage	**pg;		/* sorted by addr; entries never move */
	size_t		 npg;
	unsigned char	**last;		/* each target's bytes, last seen */
	unsigned char	*buf;
	int		 exec_seen;
	/* a thread stopped at the entry of an exec the watch ends before
	   (traced_setid_exec): the memory is still the process's */
	int		 exec_next;
	int		 holding;	/* every other thread held (a pointer) */
	int		 probe;		/* page_serves: nothing is changed */
	int		 moved;		/* a chain's entry moved: page_sync */
	/* the process was stopped (SIGSTOP) as it was armed: its pages are
	   protected at its first stop once it is continued (page_arm_late) */
	int		 arm_pending;
	uint64_t	 t0;
	/* the window of about a second being measured: since when, and
	   the longest delay of a thread that ended in it */
	uint64_t	 win_t;
	uint64_t	 win_delay;
	uint64_t	 win_stops;	/* of threads that ended in it */
	struct unwinder	 uw;		/* --callchain */
	int		 uw_tried;
	uint64_t	 chain[WATCH_MAXCHAIN];
	struct pdecoded	 dc[PAGE_DCACHE];
	uint64_t	 maps_gen;	/* calls that changed the mappings */
	/* the bytes an emulated store wrote, [st_lo, st_hi), at the fault
	   being handled (st NULL: none) */
	const unsigned char *st;
	uint64_t	 st_lo, st_hi;
	/* what a write not emulated wrote, [el_lo, el_hi) (equal: not
	   known): a rep round's element, a stepped store's decoded range,
	   the kernel's write; the rest of a target too wide for its hits'
	   bytes is as last has it */
	uint64_t	 el_lo, el_hi;
	/* a thread's retry of an aborted critical section, run alone
	   (page-rseq.c): its area, the section (ptr 0: not entered yet),
	   whether page_rseq_fault took the hold */
	uint64_t	 rseq_area;
	struct tr_rseq_cs rseq_cs;
	int		 rseq_held;
	/* the process's SIGSEGV action, as it set it (known: read as the
	   pages are protected, kept from its rt_sigaction calls): put back
	   where a fault of ours reset it (page_segv_keep) */
	struct tr_sigaction segv;
	int		 segv_known;
	int		 segv_lost;	/* it could not be: said once */
	struct tr_near	 near;		/* the tracer near the stopped thread */
};

/* The protection p is watched with: no access for -a rw, else no write. */
static inline int
page_guard_prot(const struct ppage *p)
{
	return p->rw ? PROT_NONE : p->own & ~PROT_WRITE;
}

/* Whether [lo, hi) reaches armed target t. */
static inline int
page_overlaps(uint64_t lo, uint64_t hi, const struct wtarget *t)
{
	return t->armed && lo < t->addr + (uint64_t)t->len && t->addr < hi;
}

/* The backend's counters, in w->obs (shared with the guard). */
static inline struct wp_obs_page *
obs(struct watch *w)
{
	return w->obs;
}

/* page-state.c */
struct ppage *page_find(struct page_state *s, uint64_t addr);
int	 page_prot_of(const char *perms);
/* mprotect(p, prot) run in stopped thread t: 0, or -1. */
int	 page_mprotect(struct page_state *s, struct tr_thread *t,
	    struct ppage *p, int prot);
/* Gives p back for a window; page_close takes it at the last close. */
int	 page_open(struct page_state *s, struct tr_thread *t, struct ppage *p);
void	 page_close(struct page_state *s, struct tr_thread *t,
	    struct ppage *p);
/* Every page its own protection again, run in t. */
void	 page_restore(struct page_state *s, struct tr_thread *t);
/* A stopped thread of the process a call can be injected into. */
struct tr_thread *page_injectable(struct page_state *s);
/* Resumes t (system calls traced), with sig. */
void	 page_resume(struct watch *w, struct page_state *s,
	    struct tr_thread *t, int sig);
/* t's own state (allocated at the first call, freed at its exit). */
struct pthr *pthr_of(struct tr_thread *t);
void	 pthr_free(struct tr_thread *t);
/*
 * t is done: the time it lived less its own time (its user CPU time
 * and its time in system calls) is what wp delayed it; the
 * longest delay of the threads' is kept in the observation.
 */
void	 page_thread_time(struct watch *w, struct tr_thread *t);
/*
 * The watch's pace by the second: once a window of a second has gone
 * (or, with last, at the end, one of half a second or more), the
 * longest delay of a thread in it; the slowest window is kept in the
 * observation (worst_second).
 */
void	 page_window(struct watch *w, struct page_state *s, int last);
/*
 * Whether t's SIGSEGV is a fault on a page of ours that its own
 * protection lets be written (-a rw: accessed): guarded, or given back
 * to a system call since the fault was raised; the page into *pp, the
 * address accessed into *addr (each may be NULL).
 */
int	 page_fault_ours(struct page_state *s, struct tr_thread *t,
	    struct ppage **pp, uint64_t *addr);
/*
 * A hit on target ti by thread tid, ip its address now: flags 0 with
 * the writer at writer_ip, or the kernel's (a system call at writer_ip,
 * or signal sig's frame); regs, the writer's registers, or NULL.  Its
 * write (the hit's store members) is the store emulated (s->st), else
 * [s->el_lo, s->el_hi).
 */
void	 page_emit(struct watch *w, struct page_state *s, size_t ti,
	    pid_t tid, uint64_t ip, uint64_t writer_ip, unsigned flags,
	    int sig, const struct wp_x86_regs *regs);

/*
 * The process's SIGSEGV action read, in stopped thread t, once: before
 * its pages are protected.
 */
void	 page_segv_learn(struct page_state *s, struct tr_thread *t);
/*
 * t stopped at the entry (exit) of a system call: the SIGSEGV action an
 * rt_sigaction sets read (made the one known when it succeeded), what
 * is known of its mask kept; a caught signal about to be delivered to
 * it (page_segv_delivered) may change its mask, and a SIGSEGV with
 * SA_RESETHAND the action (SIG_DFL after).
 */
void	 page_segv_call(struct page_state *s, struct tr_thread *t, int exit);
void	 page_segv_delivered(struct page_state *s, struct tr_thread *t);
/*
 * t stopped for a fault of ours: a write fault is a SIGSEGV the kernel
 * forces, and one forced while t blocked it, or while the process
 * ignored it, reset the process's action to SIG_DFL and unblocked it
 * in t.  The action is put back, and a handler's signal blocked in t
 * again (it was: it was not ignored).  1 when it was put back, 0 when
 * it was as it was, -1 when it could not be.
 */
int	 page_segv_keep(struct page_state *s, struct tr_thread *t);

/*
 * The targets whose bytes changed with no stop of the process (another
 * process's write through /proc/PID/mem or ptrace, which the protection
 * lets pass: a debugger's): each a hit flagged unexplained.  A target
 * on a page given back to a call is left for the call's exit, a wide
 * one (its last bytes kept only where it was written) is not looked at.
 */
void	 page_unexplained(struct watch *w, struct page_state *s);

/* page-emulate.c */
/*
 * Whether wp makes store in itself: a plain mov of a register or an
 * immediate, a stos without rep, an integer read-modify-write, a
 * vector move of a whole xmm, ymm or zmm register (merge-masked by k
 * or not).
 */
int	 page_emulable(const struct wp_x86_insn *in);
/*
 * Makes the store of in at lo (r: t's registers; the bytes of its
 * operand into b, 64 of them at most: with a mask, only those of the
 * elements it selects are written), and moves t past it (u: its
 * registers, updated): 0, or -1.
 */
int	 page_emulate(struct page_state *s, struct tr_thread *t,
	    struct user_regs_struct *u, const struct wp_x86_regs *r,
	    const struct wp_x86_insn *in, uint64_t lo, unsigned char *b);

/*
 * Makes the next k rounds of rep string store in (rep stos, rep movs;
 * u: t's registers, updated past them: rdi, rsi, rcx, and rip once rcx
 * is 0), k * width bytes at most REP_BULK_MAX: 0, or -1 (a movs whose
 * source and destination overlap, memory not there): the rounds are
 * left to be stepped, which writes the same bytes again.
 */
#define REP_BULK_MAX	(1 << 20)
int	 page_emulate_rep(struct page_state *s, struct tr_thread *t,
	    struct user_regs_struct *u, const struct wp_x86_insn *in,
	    uint64_t k);

/*
 * With -a rw: makes the plain load in (mov reg, [m]) from lo, into t's
 * register in u, and moves t past it: 0, or -1 (not such a load).
 */
int	 page_emulate_load(struct page_state *s, struct tr_thread *t,
	    struct user_regs_struct *u, const struct wp_x86_insn *in,
	    uint64_t lo);

/* page-rseq.c */
/*
 * The threads whose rseq area is on page p (all stopped): each has it
 * unregistered for the watch (the kernel writes it as it schedules the
 * thread, and kills the thread when it cannot; glibc reads its cpu_id
 * and falls back to getcpu when it is not registered).  0, or the tid
 * of one whose area could not be set aside.  With s->probe: nothing is
 * changed, 0.
 */
pid_t	 page_rseq_park(struct page_state *s, const struct ppage *p);
/* t's rseq area is to be asked of the kernel again (an rseq call). */
void	 page_rseq_forget(struct tr_thread *t);
/* Registers again, in each thread stopped, what page_rseq_park took. */
void	 page_rseq_restore(struct page_state *s);
/*
 * A write fault of t (u its registers, *pp and *addr the page and the
 * address) at an IP in its active critical section: t was preempted
 * there, so it is aborted as the kernel would (moved to the abort IP,
 * rseq_cs cleared), and its retry stepped with every other thread
 * held and the descriptor it stores again hidden, up to its next fault
 * on a guarded page (before it enters the section, or inside it).  0:
 * make the fault's store (u, *pp, *addr those of the fault now;
 * page_rseq_more after), 1: t handled (its stop queued, or resume it).
 */
int	 page_rseq_fault(struct watch *w, struct page_state *s,
	    struct tr_thread *t, struct user_regs_struct *u, struct ppage **pp,
	    uint64_t *addr);
/*
 * At the exit of a system call t's retry came to (and let the others
 * run for): the retry taken up again, the others held, when no other
 * retry is under way.  1: t handled, 0: resume it, 2: the retry is at
 * a fault on page *pp at *addr, to be made (page_on_fault).
 */
int	 page_rseq_call(struct watch *w, struct page_state *s,
	    struct tr_thread *t, struct ppage **pp, uint64_t *addr);
/*
 * After a fault page_rseq_fault gave back was made (u: t's registers
 * now): 0 when t is still short of its section or inside it, and its
 * retry, stepped on, is at another such fault (u, *pp, *addr then, as
 * page_rseq_fault), 1 when the retry is over (page_rseq_done) or none
 * is under way.
 */
int	 page_rseq_more(struct watch *w, struct page_state *s,
	    struct tr_thread *t, struct user_regs_struct *u, struct ppage **pp,
	    uint64_t *addr);
/*
 * The retry is over: its descriptor put back if t is still inside the
 * section (the kernel aborts it then, as it would), the others
 * released.  Nothing when no retry is under way.
 */
void	 page_rseq_done(struct page_state *s, struct tr_thread *t);

/* page-protect.c */
/* The pages the armed ranges lie on are needed, the others not. */
void	 page_collect(struct watch *w, struct page_state *s);
/*
 * Each page needed and not known yet checked: its own protection, from
 * maps; a page that cannot be watched this way is refused with the
 * reason (and advice).  A process with an asynchronous I/O context
 * (wp_proc_async_io) is refused too with s->probe (auto: single-step
 * instead), else said (page_async_io).  0, or -1.
 */
int	 page_check(struct watch *w, struct page_state *s, const char *advice,
	    struct wp_error *e);
/*
 * The process has an asynchronous I/O context, what (at arming, or made
 * during the watch): its reads into a protected page fail with EFAULT,
 * unseen; said on standard error, and counted (page.async_io: the
 * counts are a lower bound).
 */
void	 page_async_io(struct watch *w, const char *what);
/*
 * Takes write permission away from every page needed (with the process
 * stopped by SIGSTOP: at its first stop once continued).  0, or -1.
 */
int	 page_protect(struct watch *w, struct page_state *s,
	    struct wp_error *e);
/*
 * The process stopped at arming has been continued (t stopped, not in
 * group-stop): the pages protected now, every other thread held.
 */
void	 page_arm_late(struct watch *w, struct page_state *s,
	    struct tr_thread *t);
/*
 * The chains whose pointer was written read again, their pages synced,
 * with every thread held (already, when s->holding).
 */
void	 page_follow(struct watch *w, struct page_state *s);

/* page-fault.c */
/* A fault of stopped thread t on page p, at addr: made, and t resumed. */
void	 page_on_fault(struct watch *w, struct page_state *s,
	    struct tr_thread *t, struct ppage *p, uint64_t addr);

/* page-syscall.c */
/*
 * What the system call of window pt, which returned ret, does to
 * [lo, hi): 0 nothing, 1 it may write there, 2 it certainly wrote
 * there.
 */
int	 page_call_writes(int memfd, const struct pthr *pt, int64_t ret,
	    uint64_t lo, uint64_t hi);
/*
 * The kernel's writes as t's stop ends its window pt (the pages in
 * pt->win): with WP_HIT_SYSCALL its system call's, at its exit (each
 * target the call may write whose bytes changed, or that it certainly
 * wrote: read(2) of bytes equal to those there); else the frame of
 * signal sig, t's stack pointer now at its start (each target in the
 * frame's reach whose bytes changed).  A change elsewhere is left for
 * the window it is another thread's.
 */
void	 page_kernel_writes(struct watch *w, struct page_state *s,
	    struct tr_thread *t, const struct pthr *pt, unsigned flags,
	    int sig);
/*
 * Thread t stopped at the entry (exit) of a system call: the pages it
 * may write given back, its writes found, protection calls honoured.
 */
void	 page_sc_entry(struct watch *w, struct page_state *s,
	    struct tr_thread *t);
void	 page_sc_exit(struct watch *w, struct page_state *s,
	    struct tr_thread *t);

/* page-event.c */
/* Handles one stop of thread t. */
void	 page_event(struct watch *w, struct page_state *s,
	    struct tr_thread *t);

#endif
