/*
 * hold: --follow-mode stop and stop-all for the bpf backend: the
 * target's threads traced (PTRACE_SEIZE: they run on), and the thread
 * that wrote a pointer of a follow chain held until the leaf is
 * re-armed.  Everything else passes through as if untraced.
 */
#ifndef WPARM_HOLD_H
#define WPARM_HOLD_H

#include <sys/types.h>
#include <stdint.h>

#include "util.h"

struct hold;

/*
 * Traces every thread of pid; all: stop every thread for a re-arm.
 * NULL with e set when it cannot (another tracer, ptrace_scope, no free
 * signal).  SIGCHLD is blocked until hold_close.
 */
struct hold *hold_open(pid_t pid, int all, struct wp_error *e);
/* Detaches every thread, each as it was (stopped, or running). */
void	 hold_close(struct hold *h);
/* The signal the bpf program sends a pointer's writer. */
int	 hold_signal(const struct hold *h);
/* Readable when a thread has stopped. */
int	 hold_fd(const struct hold *h);
/*
 * A pointer's sample from thread tid was read: its stop is ours.  With
 * stop-all every other thread is stopped before this returns.
 */
void	 hold_pointer(struct hold *h, pid_t tid);
/* After the re-arm: lets go the threads stopped for it. */
void	 hold_release(struct hold *h);
/*
 * Takes every stop waiting: our signal is suppressed (drain(arg) first
 * reads a pointer's sample not read yet, and re-arms), the target's own
 * are delivered, group-stops kept.
 */
void	 hold_service(struct hold *h, void (*drain)(void *), void *arg);
/* Writers held, and the target's signals passed on. */
void	 hold_counts(const struct hold *h, uint64_t *held, uint64_t *passed);

#endif
