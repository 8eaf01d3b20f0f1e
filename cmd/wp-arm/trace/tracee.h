/*
 * tracee: a process traced with ptrace, thread by thread.  Seizes every
 * thread, waits for and classifies their stops, resumes them, holds the
 * others while one is worked on, injects system calls into a stopped
 * thread (tracee-inject.c), and detaches everything as it was found.
 * The one ptrace engine of wp-arm: the page backend, the single-step
 * backend and --follow holding (hold.c) build on it.
 *
 * Ownership: tr_open fills a struct tracee the caller owns; the thread
 * entries it hands out live until tr_close (a thread that is gone keeps
 * its entry, state TR_GONE, until tr_prune).  Nothing here writes a
 * record: what a stop means is the caller's.
 */
#ifndef WPARM_TRACEE_H
#define WPARM_TRACEE_H

#include <sys/types.h>
#include <sys/user.h>
#include <signal.h>
#include <stdint.h>

#include "regs.h"
#include "util.h"

/* What a thread's latest stop was. */
enum tr_stop {
	TR_NONE,	/* running: no stop to handle */
	TR_START,	/* its first stop after seize or clone (or an interrupt) */
	TR_SIGNAL,	/* signal-delivery-stop: sig is about to be delivered */
	TR_GROUP,	/* group-stop (SIGSTOP, SIGTSTP...): sig */
	TR_SC_ENTRY,	/* entry of system call nr */
	TR_SC_EXIT,	/* its exit, rval */
	TR_EVENT,	/* PTRACE_EVENT_*: event, msg */
	TR_EXITED	/* gone: exited or killed (status) */
};

enum tr_state { TR_RUNNING, TR_STOPPED, TR_GONE };

/* How a thread is resumed. */
enum tr_resume { TR_CONT, TR_SYSCALL, TR_STEP };

struct tr_thread {
	pid_t		 tid;
	pid_t		 tgid;		/* its process: another one after fork */
	enum tr_state	 state;
	enum tr_stop	 stop;		/* while TR_STOPPED, and TR_EXITED */
	int		 status;	/* the wait status of that stop */
	int		 sig;		/* TR_SIGNAL, TR_GROUP */
	int		 event;		/* TR_EVENT */
	unsigned long	 msg;		/* TR_EVENT: PTRACE_GETEVENTMSG */
	long		 nr;		/* TR_SC_ENTRY, TR_SC_EXIT */
	uint64_t	 args[6];	/* TR_SC_ENTRY */
	int64_t		 rval;		/* TR_SC_EXIT */
	enum tr_resume	 how;		/* its latest resume */
	int		 queued;	/* a stop taken by tr_hold, unreported */
	int		 held;		/* stopped by tr_hold: tr_release */
	int		 unannounced;	/* a new thread or child, stopped
					   before its creator's clone, fork
					   or vfork event: tr_wait returns
					   its stop after that */
	int		 listening;	/* in group-stop, PTRACE_LISTEN */
	int		 rewind;	/* tr_leave_entry: re-run its call */
	int		 expect;	/* stop_sig sent it, not yet taken */
	struct user_regs_struct entry_regs;	/* for the rewind */
	uint64_t	 stopped_at;	/* when its stop began (ns) */
	uint64_t	 resumes;	/* times the tracer let it run */
	void		*user;		/* the caller's */
};

struct tracee {
	pid_t		  pid;
	struct tr_thread **t;		/* entries never move */
	size_t		  n, cap;
	int		  memfd;	/* /proc/PID/mem, read and write */
	uint64_t	  gadget;	/* a system call instruction to run
					   (regs.h), 0: none */
	long		  opts;		/* PTRACE_O_* of every seize */
	uint64_t	  stopped_ns;	/* threads' time held by tr_hold */
	int		  stop_sig;	/* the caller has it sent to stop a
					   thread: not passed on to one that
					   expects it (hold.c), 0: none */
	int		  tasks_err;	/* why tr_seize_all could not list
					   the threads (errno), 0: it could */
	int		  keep_stopped;	/* --stop matched: tr_detach_all
					   leaves the process stopped, a
					   fault raised meanwhile held */
};

/* A tracee of pid with no thread yet, and no memory open. */
void	 tr_init(struct tracee *tr, pid_t pid);
/*
 * Opens pid's memory (read and write); inject: finds a syscall
 * instruction for tr_inject too.  0, or -1 (e).
 */
int	 tr_open(struct tracee *tr, pid_t pid, int inject, struct wp_error *e);
/*
 * Lets go of what tr_open and the thread table took, each thread's user
 * too (the caller's, from malloc): not a detach.
 */
void	 tr_close(struct tracee *tr);

/*
 * Seizes every thread of the process (those created meanwhile too) with
 * opts; stop: stops each, and on return every seized thread is
 * TR_STOPPED at TR_START (or an earlier stop it had, queued), else they
 * run on.  failed(tid, errno) is called for a thread that could not be
 * seized.  Returns the number seized (none: tasks_err may say why).  A
 * thread is resumed by tr_release
 * and a new thread's entry made with PTRACE_SYSCALL when opts has
 * PTRACE_O_TRACESYSGOOD, else PTRACE_CONT.
 */
size_t	 tr_seize_all(struct tracee *tr, long opts, int stop,
	    void (*failed)(void *arg, pid_t tid, int err), void *arg);

/* The thread's entry, or NULL. */
struct tr_thread *tr_find(struct tracee *tr, pid_t tid);
/* Adds a thread the kernel traces already (a clone's, a fork's child). */
struct tr_thread *tr_add(struct tracee *tr, pid_t tid, pid_t tgid);
/* Frees the entries of threads that are gone. */
void	 tr_prune(struct tracee *tr);
/* Whether a thread of the process itself (tgid pid) is not gone. */
int	 tr_alive(const struct tracee *tr);

/*
 * The next stop of any thread: a queued one first, then waitpid (block:
 * waits; else WNOHANG).  A stop of a thread not in the table is added
 * (a new thread, or a forked child: tgid tells); a new thread's or
 * child's stop that came before its creator's clone, fork or vfork event
 * is returned after that event (unannounced).  NULL: nothing (or a signal interrupted the wait,
 * or no child is left: *none set).
 */
struct tr_thread *tr_wait(struct tracee *tr, int block, int *none);

/*
 * Resumes stopped thread t with sig (0: none): a group-stop with
 * PTRACE_LISTEN (it stays stopped), else as how says.  0, or -1 (the
 * thread is gone).
 */
int	 tr_resume(struct tracee *tr, struct tr_thread *t, enum tr_resume how,
	    int sig);

/*
 * Single-steps stopped thread t (delivering sig, 0: none; with a
 * handler the step ends at its first instruction) and waits for its
 * stop: 0 when the step ended in its trap, 1 when another stop came
 * (t->stop says which; a fault of the stepped instruction is
 * TR_SIGNAL), -1 when t is gone.
 */
int	 tr_step(struct tracee *tr, struct tr_thread *t, int sig);

/*
 * Stops every running thread but except (NULL: none) with
 * PTRACE_INTERRUPT and waits until each has: they are marked held, and
 * a stop other than the interrupt's is queued for tr_wait.  One that
 * has not stopped within 200 ms is left unheld: it will stop, before it
 * runs an instruction, and that stop comes to tr_wait.  tr_release
 * resumes the held ones whose stop is not queued, as they ran before,
 * and adds the time they were held to stopped_ns.
 */
void	 tr_hold(struct tracee *tr, struct tr_thread *except);
void	 tr_release(struct tracee *tr);

/*
 * Runs system call nr(a0..a2) in stopped thread t (not at a system call
 * entry: tr_leave_entry first) from the syscall instruction found by
 * tr_open, every register restored after.  Returns its result (-errno
 * on failure); -ENOSYS when nothing could be injected.
 */
long	 tr_inject(struct tracee *tr, struct tr_thread *t, long nr,
	    uint64_t a0, uint64_t a1, uint64_t a2);
/* The same with a fourth argument (r10), a[3]. */
long	 tr_inject4(struct tracee *tr, struct tr_thread *t, long nr,
	    const uint64_t a[4]);
/* The same with six (r10, r8, r9): mmap(2). */
long	 tr_inject6(struct tracee *tr, struct tr_thread *t, long nr,
	    const uint64_t a[6]);
/* struct kernel_sigaction, as rt_sigaction(2) reads and writes it. */
struct tr_sigaction {
	uint64_t	 handler;	/* SIG_DFL 0, SIG_IGN 1, or a function */
	uint64_t	 flags;
	uint64_t	 restorer;
	uint64_t	 mask;
};
/*
 * rt_sigaction(sig, act, old) run in stopped thread t (as tr_inject),
 * the two structs placed below the red zone of its stack and the bytes
 * there put back after: act made sig's action (NULL: none), the one
 * before read into old (NULL: not).  0, or -errno.
 */
long	 tr_sigaction(struct tracee *tr, struct tr_thread *t, int sig,
	    const struct tr_sigaction *act, struct tr_sigaction *old);

/* The signals a step of the target's instructions may have forced on it. */
#define TR_FORCED	((1ULL << (SIGTRAP - 1)) | (1ULL << (SIGSEGV - 1)))
/*
 * Unblocks TR_FORCED in stopped thread t before steps of its own
 * instructions: the kernel forces a step's trap and a fault's SIGSEGV,
 * and one forced while it is blocked resets the process's action for it
 * to SIG_DFL (and the next one kills it).  Its mask into *mask: 1 when
 * it was changed (tr_set_mask(t, *mask) after the steps), else 0.
 */
int	 tr_unblock_forced(struct tr_thread *t, uint64_t *mask);
/* Sets stopped thread t's signal mask: 0, or -1. */
int	 tr_set_mask(struct tr_thread *t, uint64_t mask);

/*
 * At a system-call entry stop of t: the call is made getpid instead and
 * run to its exit, where tr_inject can run; the original call is set to
 * run again when t is resumed (t->rewind set until its entry is seen).
 * 0, or -1 (t is gone).
 */
int	 tr_leave_entry(struct tracee *tr, struct tr_thread *t);

/*
 * Stops every thread, then detaches each, passing on a signal it was
 * stopped to receive (not a step's SIGTRAP, which is taken if still
 * pending); a thread in group-stop stays stopped.  keep_stopped: the
 * process is sent SIGSTOP before the first is let go, so that none runs
 * an instruction, and a fault the kernel raised for a thread's
 * instruction (SIGSEGV, SIGBUS, SIGILL, SIGFPE) is not passed on: it
 * comes again when the process is continued.
 */
void	 tr_detach_all(struct tracee *tr);
/* Detaches one stopped thread (a forked child let go) with sig. */
void	 tr_detach(struct tracee *tr, struct tr_thread *t, int sig);
/*
 * A forked child traced since the fork (PTRACE_O_TRACEFORK): waits for
 * its first stop and detaches it, unless tr_wait took it already.
 */
void	 tr_let_go(struct tracee *tr, pid_t child);

/*
 * Whether t's signal-delivery-stop is a SIGTRAP of the tracer's own (a
 * single-step's, or its step into a handler): never to be delivered.
 * The target's own (kill(2), raise(3), an int3) are not.
 */
int	 tr_own_trap(struct tr_thread *t);

/* The signal mask key (SigPnd, SigBlk, SigCgt...) of tid's status. */
uint64_t tr_sigmask(pid_t tid, const char *key);
/* Whether thread tid has a handler for sig (SigCgt of its status). */
int	 tr_catches(pid_t tid, int sig);

/* A thread's rseq area, as it registered it with rseq(2). */
struct tr_rseq {
	uint64_t	 area;		/* its struct rseq, 0: none */
	uint32_t	 len, sig;	/* its length, the abort signature */
};
/*
 * Where stopped thread tid's rseq area is (PTRACE_GET_RSEQ_CONFIGURATION):
 * 0, or -1 when it cannot be told (rs->area is then 0).
 */
int	 tr_rseq(pid_t tid, struct tr_rseq *rs);

#define TR_RSEQ_CS_AT	8	/* struct rseq: rseq_cs, after two u32 */

/* The critical section an rseq area's rseq_cs points at. */
struct tr_rseq_cs {
	uint64_t	 ptr;		/* the descriptor's address */
	uint64_t	 start, end;	/* [start_ip, start_ip + post_commit) */
	uint64_t	 abort_ip;
};
/*
 * The section rseq area area (read through memfd) is in: 0, or -1 when
 * its rseq_cs is 0 or points at no valid descriptor.
 */
int	 tr_rseq_cs(int memfd, uint64_t area, struct tr_rseq_cs *cs);
/* Writes v to area's rseq_cs (0: hidden, what the kernel leaves): 0, -1. */
int	 tr_rseq_cs_put(int memfd, uint64_t area, uint64_t v);

/* Whether a SIGTRAP is pending for thread tid (a step's, perhaps). */
int	 tr_trap_pending(pid_t tid);
/* Takes the next stop of t, just resumed: 0, or -1 when t is gone. */
int	 tr_take(struct tr_thread *t);
/*
 * t, stopped by an interrupt (not a signal, not a group-stop) with sig
 * pending behind it (a fault raised as tr_hold stopped it): resumed to
 * take that signal's stop, so that the caller decides whether it is
 * delivered rather than the detach.
 */
void	 tr_take_signal(struct tr_thread *t, int sig);

#endif
