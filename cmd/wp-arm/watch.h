/*
 * watch: what wp-arm watches and what happened, shared by the backends;
 * the loop that runs a backend until the watch stops; and the records
 * every backend writes (hit, thread, armed) through one place.
 */
#ifndef WPARM_WATCH_H
#define WPARM_WATCH_H

#include <sys/types.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "record.h"
#include "util.h"

/* One watched address: a target, or one entry of a follow chain. */
/*
 * -d inf: a duration no watch reaches (292 years), which the deadline
 * (nanoseconds of CLOCK_MONOTONIC in a uint64_t) still holds.
 */
#define DURATION_INF_MS	((uint64_t)INT64_MAX / 1000000)
#define WATCH_MAXCHAIN	128	/* --callchain-depth at most */
#define WATCH_MAXSTACK	32768	/* --callchain dwarf,bytes at most */

/* --callchain: none; the backend's own (ptrace: CFI; perf, bpf: fp) */
enum { CC_NONE, CC_DEFAULT, CC_FP, CC_DWARF };

struct wtarget {
	int		 id;		/* of its target or follow record */
	uint64_t	 addr;
	int		 len;
	int		 rw;
	uint64_t	 hits;		/* written */
	uint64_t	 unwritten;	/* seen after max events */
	int		 counted_known;	/* the kernel's count of writes: */
	uint64_t	 counted;
	int		 tallied_known;	/* its in-kernel tallies' sum: */
	uint64_t	 tallied;
	int		 chain;		/* index in w->chains; -1: a target */
	int		 level;		/* in its chain; noffs: the leaf */
	int		 armed;		/* its address is valid now */
};

/* A --follow chain: its pointers and leaf take noffs + 1 entries. */
struct chain {
	int		 id;
	uint64_t	 slot;
	int64_t		 offs[WP_CHAIN_MAXDEPTH];
	size_t		 noffs;
	int		 len;
	int		 rw;
	size_t		 base;		/* its first entry in w->t */
	uint64_t	 generation;
	const char	*binding;
	uint64_t	 leaf;		/* when bound */
	uint64_t	 ptr_hits, leaf_hits, rebinds;
	/* the latest change, until its rebind record is written */
	uint64_t	 old_leaf;
	uint64_t	 pointers[WP_CHAIN_MAXDEPTH];
	size_t		 npointers;
};

enum thread_state {
	THR_SEEDED,		/* armed at the start */
	THR_INHERITED,		/* covered from its first instruction */
	THR_DYNAMIC,		/* armed after it started */
	THR_PENDING,		/* seen, not covered yet */
	THR_EXITED,
	THR_FAILED
};

struct thread {
	pid_t			 tid;
	enum thread_state	 state;
	int			 scan;		/* when first seen pending */
	int			 err;		/* errno when it failed */
	int			 exited;
};

struct watch;

/*
 * A backend.  arm() arms every thread (or returns -1 with e set, and
 * nothing armed) and fills w->armed; run() watches until until_ns, or
 * sooner when something happened, and sets w->stop_reason when the
 * target exited or exec'd; count() sets each entry's counted (the
 * writes the backend knows were made, written or not); disarm()
 * collects what is left, counts, and releases everything arm() took.
 * The process is left as it was found.
 */
struct backend {
	const char	*name;		/* as records give it */
	int		(*arm)(struct watch *w, struct wp_error *e);
	void		(*run)(struct watch *w, uint64_t until_ns);
	void		(*count)(struct watch *w);
	void		(*disarm)(struct watch *w);
};

extern const struct backend backend_perf, backend_bpf, backend_ptrace;
extern const struct backend backend_page;
struct bpfw;

struct watch {
	/* what to watch: the stream and the options */
	pid_t			 pid;
	uint64_t		 start_time;
	struct wtarget		*t;
	size_t			 nt;
	struct chain		*chains;
	size_t			 nchains;
	uint64_t		 duration_ms;
	uint64_t		 max_events;
	uint64_t		 interval_ms;	/* count records; 0: none */
	int			 regs;
	int			 callchain;	/* --callchain: CC_* */
	size_t			 callchain_depth;
	size_t			 callchain_stack;	/* dwarf: bytes copied */
	size_t			 ring_pages;
	int			 verbose;
	const char		*follow_mode;	/* stop, stop-all, async;
						   NULL: the backend's own */
	/* while it runs */
	const struct backend	*backend;
	struct bpfw		*bpfw;		/* backend_bpf: its program */
	void			*state;		/* the backend's own */
	uint64_t		 t0;		/* the time base of time_ns */
	struct wp_jw		 jw;		/* the record being written */
	struct wp_armed_rec	 armed;		/* filled by arm() */
	sigset_t		 waitmask;	/* lets the stop signals in */
	/* what happened */
	const char		*stop_reason, *stop_detail;
	uint64_t		 elapsed_ms;
	uint64_t		 accepted;
	int			 truncated;
	int			 output_closed;
	struct thread		*thr;
	size_t			 nthr;
	uint64_t		 excluded_other, other_processes, ambiguous;
	uint64_t		 unparsed, lost, lost_records, modify_errors;
	struct wp_obs_ptrace	 ptrace;	/* the ptrace backend's counters */
	struct wp_obs_bpf	 bpf;		/* the bpf backend's */
	struct wp_obs_page	 page;		/* the page backend's */
	const char		*lost_unknown;	/* why what was lost is not
						   known; NULL: it is */
	pid_t			 guard_parent;	/* in guard.c's child: wp-arm */
	struct guard_page	*guard;		/* shared with it, or NULL */
	char			 stop_why[64];	/* stop_detail's buffer */
	const char		*follow_reason;	/* why not the mode asked */
	char			 follow_why[512];
};

/*
 * Runs the watch with backend b until a stop condition: the duration,
 * max events, a signal (watch_stop_signals), a closed output, or
 * the target's exit or exec.  Returns 0 when it ran (w->stop_reason says
 * why it stopped), -1 with e set when nothing could be armed.
 */
int	 watch_run(struct watch *w, const struct backend *b,
	    struct wp_error *e);
/* The signal that stopped the watch, or 0; for backends that wait. */
int	 watch_signalled(void);
/* The signals that end a watch (every one that would end wp-arm). */
void	 watch_stop_signals(sigset_t *set);
/* "SIGTERM", "SIGRTMIN+3": in a static buffer, until the next call. */
const char *watch_signame(int sig);
void	 watch_free(struct watch *w);

/* Nanoseconds since the time base. */
int64_t	 watch_time(const struct watch *w, uint64_t now_ns);

/* Writes w->jw as a line; -1 (and output_closed set) when it cannot. */
int	 watch_emit(struct watch *w);

/*
 * A hit on entry ti: fills in its chain role, counts it, and writes it
 * unless max events was reached before.  Returns -1 when the output is
 * closed.
 */
int	 watch_hit(struct watch *w, size_t ti, struct wp_hit_rec *h);

/* Entry ti's role in a follow chain (WP_ROLE_*), and its level. */
void	 watch_role(const struct watch *w, size_t ti, int *role, int *level);

/* The thread's entry, added in state st when it is new. */
struct thread *watch_thread(struct watch *w, pid_t tid,
	    enum thread_state st);
struct thread *watch_thread_find(struct watch *w, pid_t tid);
size_t	 watch_count_threads(const struct watch *w, enum thread_state st);
int	 watch_thread_record(struct watch *w, const struct wp_thread_rec *t);

/* follow.c: --follow chains in the target table. */
void	 follow_add(struct watch *w, const struct wp_spec *f);
/*
 * Reads chain ci again through memfd and moves its entries.  Returns 1
 * when the leaf or the binding changed: the caller re-arms, then writes
 * the rebind record with follow_record.
 */
int	 follow_walk(struct watch *w, int memfd, size_t ci);
/* The rebind record of chain ci's latest change; r gives the re-arm. */
void	 follow_record(struct watch *w, size_t ci, int64_t rearm_ns, int held,
	    int missed);
/* Both, when the re-arm itself takes no time (the ptrace backend). */
int	 follow_update(struct watch *w, int memfd, size_t ci);

/*
 * observation.c: the last record of a watch; error is NULL after a
 * watch, else why nothing could be watched.  -1: it was not written.
 */
int	 observation_write(struct watch *w, const char *error);

/*
 * guard.c: for the ptrace backend, forks; returns in the child, which
 * watches; the parent waits, passes the signals that end a watch on, and
 * exits as the child did, writing the observation if it was killed.
 */
void	 guard_fork(struct watch *w);
/* In the child: what the parent needs if the child is killed. */
void	 guard_note(struct watch *w);
/* Frees what guard_fork shared (w->t and w->chains with it). */
void	 guard_free(struct watch *w);

#endif
