/*
 * bp-events: what the perf and the bpf backends share: breakpoint
 * events on every thread (an event per entry, thread and CPU; threads
 * created later inherit them), each CPU's events writing into one mmap
 * ring, a task event per CPU and thread for the threads' comings and
 * goings (thread and lost records, written here), the scan for threads
 * no event covers, and the wait.  What a hit does is the backend's: the
 * perf backend reads samples from the rings (ops->sample), the bpf
 * backend runs its program on each event (ops->opened attaches it).
 */
#ifndef WPARM_BP_EVENTS_H
#define WPARM_BP_EVENTS_H

#include <sys/types.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "perf.h"
#include "util.h"
#include "watch.h"

struct bpev_ops {
	/* A sample of entry ti's event, in a ring; NULL: none come. */
	int	(*sample)(struct watch *w, size_t ti, const struct perf_rec *r);
	/* Entry ti's event was opened as fd: 0, or an errno; NULL: none. */
	int	(*opened)(struct watch *w, int fd, size_t ti);
	/*
	 * Everything the backend reads (bpev_drain, and its own), then
	 * the re-arms: between two threads armed, and in its run().
	 */
	void	(*drain)(struct watch *w);
	/*
	 * Where the rings are another thread's to read (ev->copied): the
	 * fork of thread tid, unread in its copy, to bpev_record (as
	 * perf_pick_fork); the rings copied now, and a mark past every
	 * record copied (mark); how far the records handed have come, in
	 * the same measure (progress).
	 */
	int		(*pick_fork)(struct watch *w, pid_t tid);
	uint64_t	(*mark)(struct watch *w);
	uint64_t	(*progress)(struct watch *w);
};

/* A thread's exit, held until the records before it are handed. */
struct bpev_exit {
	pid_t		 tid;
	uint64_t	 time_ns;
	uint64_t	 after;		/* ev->passes, or ops->progress */
};

struct bpev_id;

/* The events of a watch: in the backend's state, from bpev_open on. */
struct bpev {
	const struct bpev_ops	*ops;
	struct perf_layout	 lay;		/* what samples carry */
	int			 ncpu;
	struct perf_ring	*rings;		/* one per CPU */
	int			*fds;
	int			*fdt;		/* target entry of each fd, -1 */
	size_t			 nfds, capfds;
	struct bpev_id		*ids;		/* event id -> target entry */
	size_t			 nids, capids;
	int			 sorted;
	int			 pidfd;
	int			 piddir;	/* /proc/PID: how it ended */
	int			 memfd;		/* with follow chains, else -1 */
	int			 exec_seen;
	int			 ring_auto;	/* ring_pages not asked for */
	int			 scan;
	uint64_t		 next_scan;
	int			 copied;	/* the rings are another thread's
						   to read: not waited on */
	int			 forks_queued;	/* a fork record not yet read:
						   no thread is armed late */
	pid_t			 started_tid;	/* the latest a sample came
						   from: not looked up again */
	struct bpev_exit	*exits;		/* held, in the order read */
	size_t			 nexits, capexits;
	uint64_t		 passes;	/* bpev_drain's, done */
	struct pollfd		*pfd;
	size_t			 npfd;		/* of the latest wait */
};

/*
 * What the perf and bpf backends tell the observation: the head of
 * their w->obs (bpev_observe).
 */
struct bpev_obs {
	const char		*follow_mode;	/* decided by arm(); NULL:
						   not yet */
	const char		*follow_reason;	/* why not the mode asked */
	char			 follow_why[512];
	uint64_t		 excluded;	/* samples of other processes */
	uint64_t		 ambiguous;	/* of no event known */
	uint64_t		 unparsed;	/* ring records not understood */
	uint64_t		 lost;		/* what the rings dropped */
	uint64_t		 lost_records;
	int			 others;	/* the most slots others' took
						   on a watched thread, at
						   arming (perf_shared_quiet
						   only) */
	size_t			 quiet;		/* entries whose count is not
						   known (bpev_quiet) */
};

/*
 * Prepares the events of w (nothing armed yet) with what samples carry
 * (lay) and the backend's ops: the rings, the target's pidfd, its
 * memory with follow chains, and the chains read.  -1 with e set, and
 * everything released.
 */
int	 bpev_open(struct bpev *ev, struct watch *w, const struct bpev_ops *ops,
	    const struct perf_layout *lay, struct wp_error *e);
/* Arms every thread there is, and fills w->armed.  -1 with e set. */
int	 bpev_arm(struct bpev *ev, struct watch *w, struct wp_error *e);
/* The target entry of the event whose id a record carries, or -1. */
int	 bpev_target_of(struct bpev *ev, uint64_t id);
/* Where bpev_record's records go. */
struct bpev_at {
	struct watch	*w;
	struct bpev	*ev;
};

/* One ring record to the records (what bpev_drain does with each). */
int	 bpev_record(const struct perf_rec *r, void *arg);
/*
 * Before a sample or the exit of thread tid of the target is written:
 * where the thread has not started, its fork record, if one waits
 * unread (in a ring, or ops->pick_fork's copy), goes first
 * (perf_pick_fork says why); looked for once a thread.
 */
void	 bpev_sample_of(struct bpev *ev, struct watch *w, pid_t tid);
/*
 * A thread's exit is written after its last hit: its samples, all in the
 * rings when its exit is read but maybe in a ring read before that one
 * (or after, the bpf program's), go first.  The exit is held until the
 * rings have all been read once more (bpev_drain), or, where they are
 * copied, until the records copied with it are handed (ops->progress
 * past ops->mark).  These write the exits held so far whose records
 * have come (all of them with all, at the watch's end).
 */
void	 bpev_exits(struct bpev *ev, struct watch *w, int all);
/* Hands what the rings hold to the records, held to go out together. */
void	 bpev_drain(struct bpev *ev, struct watch *w);
/* Waits until until_ns for the rings, fds[0..n), the target's end. */
void	 bpev_wait(struct bpev *ev, struct watch *w, uint64_t until_ns,
	    const int *fds, size_t n);
/* After a wait and its drain: the stop reasons, a scan when due. */
void	 bpev_settle(struct bpev *ev, struct watch *w);
/* Moves every event of entry ti where w->t[ti] says (rearm). */
void	 bpev_move(struct bpev *ev, struct watch *w, size_t ti);
/* The events' own counts into each entry's counted. */
void	 bpev_count(struct bpev *ev, struct watch *w);
/* Stops every event (before the last drain). */
void	 bpev_disable(struct bpev *ev);
/*
 * After the last count, where a second breakpoint on an address goes
 * quiet (perf_shared_quiet): an armed entry that counted nothing while
 * others' breakpoints were on the watched threads (at arming or now) has
 * no known count (the observation's breakpoints_quiet says how many).
 */
void	 bpev_quiet(struct watch *w);
void	 bpev_close(struct bpev *ev);
/*
 * Entries of the kernel's call chains in samples: the context marker,
 * the trap IP, the callers asked for and one more, to tell a longer
 * chain; within kernel.perf_event_max_stack's default.
 */
int	 bpev_chain_cap(const struct watch *w);
/* Following chains without holding the writer: why, said once. */
void	 bpev_unheld(struct watch *w, const char *reason);
/*
 * Whether a breakpoint on a variable of wp-arm's own counts its writes
 * here: 0, or -1 with why saying what stops them (verbose: said on
 * standard error, at more length).  WP_ARM_BP=none: as where they do
 * not fire.  bp-fits.c.
 */
int	 bp_canary(int verbose, char *why, size_t whysz);
/* The fits() of both backends: the targets, then the machine. */
int	 bp_fits(struct watch *w, int chosen, struct wp_error *e);
/* The observe() of both backends: their follow mode, what the rings
   said. */
void	 bpev_observe(struct watch *w, struct wp_observation *o);

#endif
