/*
 * The ptrace backend's own parts, shared by its files: backend-ptrace.c
 * (the backend: arm, run, the hits), ptrace-step.c (the threads, traced
 * and stepped one instruction at a time) and ptrace-insn.c (what an
 * instruction may write, decoded once per address).  Nothing outside
 * the backend includes this.
 */
#ifndef WPARM_BACKEND_PTRACE_H
#define WPARM_BACKEND_PTRACE_H

#include <sys/types.h>
#include <sys/user.h>

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "record.h"
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
	pid_t			 tid;
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
	int			 based;		/* last read, the watch begun */
	struct wp_hmap		 ic;		/* rip -> struct icached */
	unsigned		 need;		/* I_REGS_*: with -a rw, loads */
	int			 exec_seen;
	size_t			 rr;
	uint64_t		 step_t0;
	struct unwinder		 uw;		/* --callchain */
	int			 uw_tried;
	uint64_t		 chain[WATCH_MAXCHAIN];
	/* the backend's: after thread p's step (was_syscall: the exit of
	   a system call), the hits it made */
	void			(*after_step)(struct watch *w,
				    struct ptrace_state *s, struct pthr *p,
				    int was_syscall);
};

/* The backend's counters, for the observation: w->obs. */
static inline struct wp_obs_ptrace *
pt_ctr(struct watch *w)
{
	return w->obs;
}

/* ptrace-insn.c: decodes the instruction at rip into p, once an address. */
void	 pt_decode(struct ptrace_state *s, uint64_t rip, struct pthr *p);

/* ptrace-step.c: the threads, which call s->after_step */
/* Seizes every thread of the target, those it creates meanwhile too. */
void	 pt_seize_all(struct watch *w, struct ptrace_state *s);
/* Waits until every thread seized has stopped: none runs then. */
void	 pt_stop_all(struct watch *w, struct ptrace_state *s);
/*
 * Stops every thread (a blocked syscall is interrupted), runs stopped
 * (NULL: none) while none of them runs, and detaches them.
 */
void	 pt_detach_all(struct watch *w, struct ptrace_state *s,
	    void (*stopped)(struct watch *, struct ptrace_state *));
/* Whether a thread is still traced. */
int	 pt_alive(struct ptrace_state *s);
/* The next thread stopped ready to step, round robin; NULL: none. */
struct pthr *pt_next_ready(struct ptrace_state *s);
/* Steps thread p one instruction (a system call: up to its entry). */
void	 pt_step(struct watch *w, struct ptrace_state *s, struct pthr *p);
/* Stops of threads not being stepped: new threads, returned calls. */
void	 pt_collect(struct watch *w, struct ptrace_state *s);
/* Everyone is in a system call (or starting): waits for any. */
void	 pt_wait_any(struct watch *w, struct ptrace_state *s);
/* Forgets the threads that are gone. */
void	 pt_prune(struct ptrace_state *s);
/* Whether a thread is in a system call; whether one starts or exits. */
int	 pt_in_syscall(struct ptrace_state *s);
int	 pt_unsettled(struct ptrace_state *s);

#endif
