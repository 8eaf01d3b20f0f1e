/*
 * perf-queue: the perf backend's rings copied, by a thread of their own
 * at the normal policy, into a queue in memory (as perf record copies
 * them to a file), and formatted by the main thread at SCHED_IDLE: the
 * hit records cost only a CPU the target leaves idle.  Within a burst
 * (the rings filling at 64 KiB a second or more) the records wait for
 * its end, a tick with nothing new, or at most a second, so that the
 * formatter's work comes after the burst; a slow writer's are formatted
 * as they come.  The main thread formats at its normal policy while a loss or
 * exec record waits (said at once; a thread's start and exit wait with
 * its hits), from when the queue passes its cap until it is below half
 * of it, and for the watch's own work: the thread calls it back once a
 * tick.  Owned by backend-perf.c; the rings stay bp-events.c's.
 */
#ifndef WPARM_PERF_QUEUE_H
#define WPARM_PERF_QUEUE_H

#include <sys/types.h>
#include <stddef.h>

#include "perf.h"
#include "record.h"

#define PQ_CAP_DEFAULT	(64u << 20)	/* bytes; WP_ARM_QUEUE_BYTES */

struct pqueue;

/*
 * Starts copying rings[0..n) (those mapped) into a queue of cap bytes.
 * NULL, with why set, where the main thread could not come back from
 * SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE under 20) or no thread
 * starts: the backend formats as it drains, as before.
 */
struct pqueue	*pq_start(struct perf_ring *rings, int n, size_t cap,
		    const char **why);
/* Readable when bytes were queued (the main thread's wait). */
int		 pq_wakefd(const struct pqueue *q);
/*
 * Copies what the rings hold now; returns whether a record other than
 * a sample (a thread's fork) is queued and not yet formatted.
 */
int		 pq_sync(struct pqueue *q);
/*
 * perf_pick_fork on what the queue holds after the record being
 * formatted, the rings copied first (the main thread, from fn of
 * pq_format, at the normal policy from then on).
 */
int		 pq_pick_fork(struct pqueue *q, pid_t pid, pid_t tid,
		    int (*fn)(const struct perf_rec *, void *), void *arg);
/*
 * The rings copied now (the main thread, as pq_pick_fork), and a mark
 * past every record queued: pq_progress reaches it once they have all
 * been formatted (the records of the chunks formatted whole).
 */
uint64_t	 pq_mark(struct pqueue *q);
uint64_t	 pq_progress(const struct pqueue *q);
/* The copying thread could not grow the queue: it copies no more. */
int		 pq_nomem(const struct pqueue *q);
/*
 * Hands the queued records, in order, to fn (perf_walk's), at the
 * policy the header says, once the copying thread has said they need
 * not wait, or all of them at the normal policy with all.  0 when the
 * queue is empty or waits, 1 when called back for the watch's work, -1
 * when fn returned -1 (the record it was handed is done).
 */
int		 pq_format(struct pqueue *q, const struct perf_layout *lay,
		    int (*fn)(const struct perf_rec *, void *), void *arg,
		    int all);
/*
 * Ends the copying thread, copies the rest of the rings, and puts the
 * main thread back at its normal policy; the queue stays to format.
 */
void		 pq_stop(struct pqueue *q);
/* What the queue did, for the observation; then frees it. */
void		 pq_free(struct pqueue *q, struct wp_obs_perf *o);

#endif
