/*
 * The ptrace backend's own parts, shared by its files: backend-ptrace.c
 * (the backend: arm, run, disarm), ptrace-hit.c (what a step wrote, the
 * hits), ptrace-step.c (a thread stepped one instruction at a time),
 * ptrace-rseq.c (restartable sequences), ptrace-stop.c (the threads'
 * stops) and ptrace-insn.c (what an instruction may write, decoded once
 * per address).  The threads are the ptrace engine's (tracee.h): each
 * tr_thread of the process carries a struct pthr as its user, owned
 * here.  Nothing outside the backend includes this.
 */
#ifndef WPARM_PTRACE_H
#define WPARM_PTRACE_H

#include <sys/types.h>
#include <sys/user.h>

#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "tracee.h"
#include "unwind.h"
#include "watch.h"
#include "x86.h"

enum pstate {
	P_NEW,		/* seized or cloned; its first stop not yet seen */
	P_READY,	/* in a ptrace-stop, to be stepped */
	P_STEP,		/* single-stepping one instruction */
	P_SYSENTER,	/* resumed up to the entry of a system call */
	P_SYSCALL,	/* in a system call, up to its exit; may block */
	P_LISTEN,	/* in a group-stop (SIGSTOP), kept: PTRACE_LISTEN */
	P_GONE
};

/* What pre holds of a thread stopped P_READY. */
enum pknown {
	K_NONE,		/* nothing: read the registers before the step */
	K_IP,		/* only the IP: its last step ran on to the next */
	K_ALL		/* every register, read at this stop */
};

struct pthr {
	pid_t			 tid;		/* its tr_thread's */
	enum pstate		 state;
	int			 sig;		/* to deliver on the next resume */
	int			 sigstep;	/* the signal this step delivers */
	int			 freerun;	/* SIGTRAP blocked: run to its
						   next system call, unstepped */
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
	uint64_t		 rseq;		/* its rseq area, 0: none known */
	uint64_t		 cs;		/* the restartable sequence it
						   entered (its descriptor), 0:
						   none (ptrace-rseq.c) */
	uint64_t		 cs_start, cs_end;
	int			 cs_hidden;	/* the area's rseq_cs set to 0 */
	int			 child;		/* a child process sharing the
						   memory (vfork): stepped as a
						   thread until it execs or
						   exits */
};

#define ICACHE_BITS	13	/* decoded instructions kept: 2^13, one
				   per slot of a table allocated at arm */
#define RECHECK		64	/* steps between two reads of the registers
				   and of every target */

/* What an instruction takes to step, decided once per address. */
#define I_QUIET		0x1	/* writes no memory */
#define I_EXACT		0x2	/* writes no byte outside its decoded store */
#define I_REGS_W	0x4	/* its store or its call needs registers */
#define I_REGS_R	0x8	/* its load needs registers */

struct icached {
	uint64_t		 rip;		/* 0: none */
	struct wp_x86_insn	 insn;
	unsigned		 flags;
	uint64_t		 next;
};

struct ptrace_state {
	struct tracee		 tr;		/* the threads, the memory */
	unsigned char		**last;		/* last seen bytes per target */
	unsigned char		*buf;
	int			 based;		/* last read, the watch begun */
	struct icached		*ic;		/* by a hash of the rip */
	unsigned		 need;		/* I_REGS_*: with -a rw, loads */
	int			 exec_seen;
	size_t			 rr;
	uint64_t		 step_t0;
	struct unwinder		 uw;		/* --callchain */
	int			 uw_tried;
	uint64_t		 chain[WATCH_MAXCHAIN];
	struct tr_thread	*cs_thread;	/* in a sequence, stepped alone */
};

/* Thread t's part of the backend (t->user). */
static inline struct pthr *
pt_of(struct tr_thread *t)
{
	return t->user;
}

/* The backend's counters, for the observation: w->obs. */
static inline struct wp_obs_ptrace *
pt_ctr(struct watch *w)
{
	return w->obs;
}

/* ptrace-insn.c: decodes the instruction at rip into p, once an address. */
void	 pt_decode(struct ptrace_state *s, uint64_t rip, struct pthr *p);

/*
 * ptrace-hit.c: after thread p's step (was_syscall: the exit of a system
 * call), the hits it made.
 */
void	 pt_after_step(struct watch *w, struct ptrace_state *s,
	    struct pthr *p, int was_syscall);

/* ptrace-step.c */
/* The next thread stopped ready to step, round robin; NULL: none. */
struct tr_thread *pt_next_ready(struct ptrace_state *s);
/*
 * Steps thread t one instruction (a system call: up to its entry): 1
 * when the step stopped, its stop for pt_on_stop to take.
 */
int	 pt_step(struct watch *w, struct ptrace_state *s, struct tr_thread *t);
/* The call thread p entered, or is to run: nr, and its arguments in u. */
void	 pt_set_call(struct pthr *p, long nr, const uint64_t a[6]);
/* Whether a thread is in a system call; whether one starts or exits. */
int	 pt_in_syscall(struct ptrace_state *s);
int	 pt_unsettled(struct ptrace_state *s);
/* Whether thread tid blocks SIGTRAP and has a handler for it. */
int	 pt_trap_blocked(pid_t tid);
/* After p's step trapped: where its IP is, if known without reading. */
void	 pt_ran_on(struct watch *w, struct pthr *p);

/*
 * ptrace-rseq.c: restartable sequences stepped as one unit.
 * pt_rseq_area: where thread p's rseq area is (after its first stop, and
 * an rseq(2) call).  pt_rseq_stored: after p's step stored [lo, hi),
 * the sequence it entered if that was its area's rseq_cs.
 * pt_rseq_resume: before t is resumed at its IP (plain: for one
 * instruction, no signal, no call): 0, or -1 when the resume may move
 * it to an abort IP.  pt_rseq_unhide: every hidden rseq_cs put back
 * (arg: the ptrace_state), before the threads are let go.
 */
void	 pt_rseq_area(struct pthr *p);
void	 pt_rseq_stored(struct ptrace_state *s, struct pthr *p, uint64_t lo,
	    uint64_t hi);
int	 pt_rseq_resume(struct ptrace_state *s, struct tr_thread *t, int plain);
void	 pt_rseq_unhide(void *arg);

/* ptrace-stop.c: the threads' stops */
/* Thread t's part of the backend (made for a thread of the process). */
struct pthr *pt_thread(struct tr_thread *t);
/*
 * After the seize (traced_attach): takes the first stop of every thread
 * seized, and of those cloned meanwhile: then none runs.
 */
void	 pt_stop_all(struct watch *w, struct ptrace_state *s);
/* Handles thread t's stop; returns 1 when t is ready to step. */
int	 pt_on_stop(struct watch *w, struct ptrace_state *s,
	    struct tr_thread *t);
/* Whether a thread is still traced. */
int	 pt_alive(struct watch *w);
/* Stops of threads not being stepped: new threads, returned calls. */
void	 pt_collect(struct watch *w, struct ptrace_state *s);
/* Everyone is in a system call (or starting): waits for any. */
void	 pt_wait_any(struct watch *w, struct ptrace_state *s);
/* Forgets the threads that are gone. */
void	 pt_prune(struct ptrace_state *s);

#endif
