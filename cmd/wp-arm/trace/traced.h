/*
 * traced: what the backends that trace the target (backend-ptrace.c,
 * backend-page.c) share above the ptrace engine (tracee.h): attaching
 * with a record of each thread that could not be, the 50 ms tick their
 * run returns on, the last seen bytes of each target, the count, and
 * each target's value at the end.
 */
#ifndef WPARM_TRACED_H
#define WPARM_TRACED_H

#include <sys/types.h>
#include <stdint.h>

#include "tracee.h"
#include "watch.h"

/* What a traced backend seizes with: clones, forks, exec, exit, calls. */
#define TRACED_OPTS	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | \
	PTRACE_O_TRACESYSGOOD)

/*
 * Opens the target's memory into tr (inject: and finds where to inject
 * calls from, tr_open) once it is known to be the process wp-resolve
 * saw.  0, or -1 (e).
 */
int	 traced_open(struct watch *w, struct tracee *tr, int inject,
	    struct wp_error *e);

/*
 * Seizes and stops every thread of tr's process (tr_seize_all), each
 * counted as the watch's (THR_SEEDED), an arm_failed record for one
 * that could not be; none: why, in e (another tracer, the error).
 * 0, or -1.
 */
int	 traced_attach(struct watch *w, struct tracee *tr, struct wp_error *e);

/*
 * Detaches every thread (tr_detach_all) of tr, attached by
 * traced_attach: until then a fatal failure of wp-arm (out of memory)
 * detaches them first, and the supervisor reports it (guard_failed).
 */
void	 traced_detach(struct tracee *tr);
/*
 * What a fatal failure does before it detaches, once attached: fn(arg)
 * undoes what the backend changed in the process (the page backend:
 * the pages' own protection back).  It must not allocate (memory may
 * have run out); arg is the caller's, kept until traced_detach.
 */
void	 traced_on_fatal(void (*fn)(void *arg), void *arg);

/*
 * The thread records of a clone (a thread started), of a fork, and of a
 * thread of the target gone (once, with how: watch_exited).
 */
void	 traced_started(struct watch *w, pid_t tid, pid_t by);
void	 traced_forked(struct watch *w, pid_t pid, pid_t by);
void	 traced_exited(struct watch *w, pid_t tid, int status);

/*
 * Whether child process pid, made by a fork or vfork event of the target
 * (event), shares the target's memory: a vfork child, or one of
 * clone(CLONE_VM) without CLONE_THREAD.  Its stores are then the
 * target's, and it is watched as a thread of it until it execs or exits
 * (traced_child_gone: its exit record, not the target's exit status).
 */
int	 traced_shares_vm(pid_t target, pid_t pid, int event);
void	 traced_child_gone(struct watch *w, pid_t pid);

/*
 * Whether thread tid, at the entry of system call nr(args), execs a
 * set-user-ID or set-group-ID program, or one with file capabilities
 * (its path read through memfd, the process's memory; fexecve's
 * execveat(fd, "", AT_EMPTY_PATH) the file open at fd, through
 * /proc/TID/fd): traced, the kernel would run it without its
 * privileges, so the caller lets the process go before the call runs
 * and ends the watch (target_exec); w->stop_detail then says why (a
 * static buffer).  1, or 0.
 */
int	 traced_setid_exec(struct watch *w, int memfd, pid_t tid, long nr,
	    const uint64_t args[6]);

/*
 * The tick: SIGALRM every 50 ms (0: stopped) makes a backend's run
 * return; traced_ticked says (and clears) whether it came.
 */
void	 traced_tick(long usec);
int	 traced_ticked(int clear);

/*
 * A traced backend's run: round(w) again and again, the signals of the
 * watch unblocked, until the tick, a signal, or the end of the target:
 * its exec (*exec_seen set), its exit (alive(w) false).
 */
void	 traced_run(struct watch *w, const int *exec_seen,
	    int (*alive)(struct watch *), void (*round)(struct watch *));

/*
 * Room for each target's last seen bytes (*last, an array of w->nt) and
 * a buffer for the longest (*buf); traced_bytes_free frees them.
 */
void	 traced_bytes(struct watch *w, unsigned char ***last,
	    unsigned char **buf);
void	 traced_bytes_free(struct watch *w, unsigned char **last,
	    unsigned char *buf);

/* Armed: threads seized; no CPUs, events or rings; the tick runs. */
void	 traced_armed(struct watch *w, size_t threads);

/* Every write is seen: each count is what was written or cut off. */
void	 traced_count(struct watch *w);

/*
 * n changes no thread of the target made (another process wrote): one
 * may hide several writes, so the counts are a lower bound.
 */
void	 traced_unexplained(struct watch *w, uint64_t n);

/*
 * The signal frame the kernel wrote for a handler thread tid stops at
 * the entry of: [lo, hi), of which [lo, core) and [lo + 304, lo + 440)
 * it certainly wrote (x86-64's struct rt_sigframe: the return address,
 * the ucontext and the siginfo, but the 64 reserved bytes of the
 * sigcontext at 240); the rest up to hi (the saved FPU state and the
 * alignment) it may have.  hi: the top of the alternate stack when the
 * handler runs on it, having been interrupted elsewhere, else the
 * interrupted stack pointer less the red zone.  known 0: the registers
 * or the frame could not be read.
 */
struct traced_frame {
	int		 known;
	uint64_t	 lo, core, hi;
};
void	 traced_frame(int memfd, pid_t tid, struct traced_frame *f);
/*
 * Whether frame f certainly wrote a byte of [lo, hi): 0, or 1 with the
 * first and the last it wrote there into span (NULL: not wanted).
 */
int	 traced_frame_wrote(const struct traced_frame *f, uint64_t lo,
	    uint64_t hi, uint64_t span[2]);

/*
 * Each plain target's value at arming (up to 8 bytes), from its bytes
 * last[i] read with every thread held: the armed record's initial, so
 * that latest less initial is what the watch counted.
 */
void	 traced_initial(struct watch *w, unsigned char *const *last);
/*
 * Each target's value at the end, read through memfd with every thread
 * held: the last counted write's, none made since the target ran on.
 */
void	 traced_read_latest(struct watch *w, int memfd);

#endif
