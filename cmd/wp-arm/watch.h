/*
 * watch: what wp-arm watches and what happened, shared by the backends;
 * the seam every backend plugs into (struct backend: a folder each,
 * backend-NAME/, one line each in backends.c's table); the loop that
 * runs a backend until the watch stops (watch.c) and the signals that
 * stop it (signals.c); the one place records leave wp-arm (emit.c);
 * follow chains (follow.c), the observation (observation.c), and the
 * supervisor of a tracing backend (trace/guard.c).  Nothing here knows
 * a backend's internals: a backend's state and counters are its own
 * (w->state, w->obs).
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
#define DURATION_INF_MS	WP_DURATION_INF_MS	/* -d inf */
#define WATCH_MAXCHAIN	WP_CALLCHAIN_MAX
#define WATCH_MAXSTACK	WP_CALLCHAIN_MAXSTACK
#define HIT_BYTES_MAX	256	/* page: a wider target's hits carry no bytes */

/* --callchain: none; the backend's own (ptrace: CFI; perf, bpf: fp) */
enum { CC_NONE, CC_DEFAULT, CC_FP, CC_DWARF };

struct wtarget {
	int		 id;		/* of its target or follow record */
	uint64_t	 addr;
	int		 len;
	int		 rw;
	uint64_t	 hits;		/* written */
	uint64_t	 undelivered;	/* of hits, dropped: the output
					   did not take them in time */
	uint64_t	 unwritten;	/* seen after max events, or not
					   matching --if (filter.c) */
	int		 counted_known;	/* the kernel's count of writes: */
	uint64_t	 counted;
	int		 tallied_known;	/* its in-kernel tallies' sum: */
	uint64_t	 tallied;
	int		 chain;		/* index in w->chains; -1: a target */
	int		 level;		/* in its chain; noffs: the leaf */
	int		 armed;		/* its address is valid now */
	/* its value (up to 8 bytes) at arming and at the end, read by the
	   backend with the target stopped, else by watch_run at arming and
	   by observation.c at the end */
	int		 has_initial, has_latest;
	uint64_t	 initial, latest;
	uint64_t	 pages_dropped;	/* page: of its pages, let go */
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
	int		 dirty;		/* a pointer written: see follow_dirty */
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
	int			 fork_sought;	/* its samples came first
						   (bpev_sample_of) */
};

struct watch;
struct wp_observation;
struct filter;

/*
 * A backend: how the entries are watched.  The generic loop (watch.c)
 * knows a backend by these and nothing else; what it keeps between
 * calls is its own, in w->state.
 *
 * open() (NULL: none) runs when the backend is chosen, before anything
 * is armed: -1 with e set when it cannot be used here (then auto tries
 * the next).  What it takes goes into w->state, which arm() takes over.
 * arm() arms every thread (or returns -1 with e set, having released
 * everything, w->state included) and fills w->armed (its threads, cpus,
 * events, ring_pages, and with --callchain how it unwinds); it reads the
 * follow chains first (follow_update).  run() watches
 * until until_ns, or sooner when something happened, and sets
 * w->stop_reason when the target exited or exec'd; it reports hits
 * through watch_hit and returns soon after watch_stopping says so.
 * count() sets each entry's counted (the writes the backend knows were
 * made, written or not).  rearm() moves entry ti to where w->t[ti] says
 * now (addr, armed): the generic follow code asks for it when a chain
 * moved (follow_rebind).  disarm() collects what is left, counts, and
 * releases everything arm() took; the process is left as it was found.
 * observe() adds what only the backend knows to the observation: its
 * counters (in w->obs: o->ptrace, o->bpf, what a ring dropped), how it
 * follows chains (o->follow_mode, which is --follow-mode until then, and
 * o->follow_reason).  It runs after disarm(),
 * after a failed arm(), and in a supervisor whose tracing child was
 * killed (then w->state is not there; w->obs is).
 *
 * option: its --backend name.  caps: what it can do (BK_*), which the
 * core and the filter ask rather than its name.  fits(): whether it can
 * watch these targets here: 1, or 0 with e saying why in one line
 * (chosen: the user named it, and fits() says every reason with -v and
 * its exit status; NULL: it always can, or says so at arming).  probe():
 * whether open() would succeed here, keeping nothing (NULL: it would).
 * chosen:
 * what it costs, said where auto falls to it.
 *
 * BK_TRACES: the backend traces the target (ptrace), which a SIGKILL of
 * the tracer would leave harmed: main forks a supervisor first
 * (guard.c), which outlives a killed wp-arm; orphan_signal is the
 * signal that then likely kills the target (SIGTRAP of a trap flag left
 * set, SIGSEGV of a page left protected).  callchain: how it unwinds
 * with --callchain (the armed record's), NULL: as --callchain says.
 * cond_where: where it evaluates --if (CW_*; its name in the armed
 * record: cond_where_names).
 * obs_size: bytes of w->obs, zeroed before open(); the supervisor
 * shares them with its child.
 */
enum {
	BK_TALLIES	= 1 << 0,	/* every write tallied per writer in the
					   kernel; a budget of them recorded:
					   max events cuts the samples, not
					   the watch */
	BK_EXACT	= 1 << 1,	/* every write a record, its writer exact */
	BK_SAMPLED	= 1 << 2,	/* a record per write, from rings a burst
					   can overrun */
	BK_TRACES	= 1 << 3,	/* traces the target: a supervisor */
	BK_RING		= 1 << 4,	/* perf rings: --ring-pages */
	BK_DEBUGREGS	= 1 << 5,	/* the debug registers: their slots and
					   lengths (lib/hwbp.h) */
	BK_ANYWIDTH	= 1 << 6,	/* any length and number of targets */
	BK_SITES	= 1 << 7,	/* counts instructions' addresses (site
					   records), and watches no target */
	BK_FOLLOWMODES	= 1 << 8,	/* --follow-mode: how a followed leaf is
					   re-armed, the writer stopped or run
					   on (the tracers always stop it) */
	BK_NEAR		= 1 << 9	/* its tracer follows the stopped
					   thread's CPU: --tracer-cpu
					   (trace/near.c) */
};

struct backend {
	enum wp_backend	 id;		/* its names: BK_NAME, BK_WORD */
	unsigned	 caps;
	const char	*chosen;
	int		 orphan_signal;
	const char	*callchain;
	int		 cond_where;	/* where --if is evaluated: CW_*;
					   CW_NONE: refused */
	size_t		 obs_size;
	int		(*fits)(struct watch *w, int chosen, struct wp_error *e);
	int		(*probe)(struct watch *w, struct wp_error *e);
	int		(*open)(struct watch *w, struct wp_error *e);
	int		(*arm)(struct watch *w, struct wp_error *e);
	void		(*run)(struct watch *w, uint64_t until_ns);
	void		(*count)(struct watch *w);
	void		(*rearm)(struct watch *w, size_t ti);
	void		(*disarm)(struct watch *w);
	void		(*observe)(struct watch *w, struct wp_observation *o);
};

/* as records give it, and as --backend does (lib/vocab.c) */
#define BK_NAME(b)	(wp_backend_names[(b)->id])
#define BK_WORD(b)	(wp_backend_words[(b)->id + 1])	/* NULL: auto's only */

/* Where a backend evaluates --if, and its word in the armed record. */
enum { CW_NONE, CW_KERNEL, CW_WPARM, CW_TRACER, CW_N };
extern const char *const cond_where_names[CW_N];	/* filter.c */

/* Every backend, in the order auto tries them (backends.c); NULL ends. */
extern const struct backend *const backends[];
extern const struct backend backend_perf, backend_bpf, backend_ptrace;
extern const struct backend backend_page, backend_uprobe, backend_ptrace_sites;
extern const struct backend backend_execbp;
extern const struct backend backend_sites_split;
const char *backend_words_with(unsigned caps);
/*
 * b's fits(), on a w->obs of its own, fresh (its probes count there):
 * 1, or 0 with e saying why.
 */
int	 backend_fits(struct watch *w, const struct backend *b, int chosen,
	    struct wp_error *e);
/* Whether b watches what w has: instructions (site records), or
   addresses; auto passes the others over. */
int	 backend_for(const struct watch *w, const struct backend *b);
/* The backend --backend name names, or NULL. */
const struct backend *backend_named(const char *option);
/*
 * Makes the backend name names ("auto": the first in backends[] that
 * fits and opens) the watch's, or returns -1 with e set when none can
 * (what auto passed over is said in one line).
 */
int	 backend_choose(struct watch *w, const char *name, struct wp_error *e);

struct watch {
	/* what to watch: the stream and the options */
	pid_t			 pid;
	uint64_t		 start_time;
	struct wtarget		*t;
	size_t			 nt;
	struct chain		*chains;
	size_t			 nchains;
	struct wp_site_spec	*sites;		/* instructions (--insn) */
	size_t			 nsites;
	struct wp_cond		*sites_if;	/* --if on them; NULL: none */
	uint64_t		 duration_ms;
	uint64_t		 max_events;
	uint64_t		 interval_ms;	/* count records; 0: none */
	int			 regs;
	int			 all_hits;	/* --all-hits: a sample each
						   (bpf: no budget) */
	int			 callchain;	/* --callchain: CC_* */
	size_t			 callchain_depth;
	size_t			 callchain_stack;	/* dwarf: bytes copied */
	size_t			 ring_pages;
	int			 verbose;
	int			 tracer_cpu_free;	/* --tracer-cpu free:
						   the page backend's tracer
						   does not follow (near.c) */
	const char		*follow_mode;	/* --follow-mode: stop,
						   stop-all, async; NULL:
						   the backend's own */
	size_t			 last;		/* --last: writes kept per
						   target (filter.c; the bpf
						   program's ring); 0: none */
	struct filter		*filter;	/* --if: filter.c; NULL:
						   none */
	/* while it runs */
	const struct backend	*backend;
	void			*state;		/* the backend's own */
	void			*obs;		/* its counters: obs_size */
	/* the supervisor's (guard.c), after every run; NULL: none */
	void			(*supervisor_note)(struct watch *w);
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
	uint64_t		 other_processes;	/* forked */
	uint64_t		 modify_errors;	/* re-arms that failed */
	/* what the backend's observe() says of its coverage: */
	unsigned		 obs_partial;	/* 1 << WP_PARTIAL_*, its gaps */
	int			 obs_lower_bound;	/* its counts short for
							   another reason */
	int			 obs_pages_dropped;	/* targets' pages_dropped
							   are its */
	const char		*lost_unknown;	/* why what was lost is not
						   known; NULL: it is */
	uint64_t		 undelivered;	/* records the output did not
						   take in time: dropped */
	uint64_t		 undelivered_hits;	/* of them */
	/* how the process ended, from its threads' wait statuses
	   (watch_exited): the signal that killed it, or its exit status */
	int			 died_signal;	/* 0: none seen */
	int			 has_exit_status;
	int			 exit_status;
};

/*
 * Makes b the backend of the watch: zeroes its w->obs and runs its
 * open().  0, or -1 with e set (and no backend).
 */
int	 watch_use(struct watch *w, const struct backend *b,
	    struct wp_error *e);
/*
 * Runs the watch with its backend until a stop condition: the duration,
 * max events, a signal (watch_stop_signals), a closed output, or
 * the target's exit or exec.  Returns 0 when it ran (w->stop_reason says
 * why it stopped), -1 with e set when nothing could be armed.
 */
int	 watch_run(struct watch *w, struct wp_error *e);
/*
 * Reads each plain target's value (up to 8 bytes) into its initial, where
 * the backend has not: watch_run does after arm(); a backend may before.
 */
void	 watch_read_initial(struct watch *w);
/* signals.c: the signal that stopped the watch, or 0; for backends
   that wait. */
int	 watch_signalled(void);
/* The signals that end a watch (every one that would end wp-arm). */
void	 watch_stop_signals(sigset_t *set);
/* Blocks them (the mask before into orig) and catches them, for
   watch_signalled. */
void	 watch_catch_signals(sigset_t *orig);
/* "SIGTERM", "SIGRTMIN+3": in a static buffer, until the next call. */
const char *watch_signame(int sig);

/*
 * Whether a backend's run() is to return now: a stop signal, a closed
 * output, max events, or a stop reason the backend set.
 */
static inline int
watch_stopping(const struct watch *w)
{
	return watch_signalled() || w->output_closed || w->truncated ||
	    w->stop_reason != NULL;
}
/* Frees the tables and w->obs (a supervisor's shared ones: guard_free). */
void	 watch_free(struct watch *w);

/* Nanoseconds since the time base. */
static inline int64_t
watch_time(const struct watch *w, uint64_t now_ns)
{
	return (int64_t)(now_ns - w->t0);
}

/*
 * A hit on entry ti: the one place max events cuts.  With --if, a write
 * to a target or a chain's leaf that does not match is only counted
 * (filter_hit); a pointer's is always written.  Before max events is
 * reached the hit is filled in (its chain role), counted and written (a
 * pointer's marks its chain for follow_dirty); after, it is only counted
 * as unwritten, so that the backend's count does not call it lost.
 * Returns -1 when the output is closed.
 */
int	 watch_hit(struct watch *w, size_t ti, struct wp_hit_rec *h);

/*
 * An exact hit's write on target t: [lo, hi) clipped to the target
 * (none there: not known), its bytes in bytes, t's own bytes after the
 * write (the target's address at bytes[0]).
 */
void	 watch_store(struct wp_hit_rec *h, const struct wtarget *t,
	    uint64_t lo, uint64_t hi, const unsigned char *bytes);
/*
 * Where the n bytes at addr, old before and now after, differ: from the
 * first to the last byte that changed, span[0] to span[1] (equal: none).
 */
void	 watch_changed(const unsigned char *old, const unsigned char *now,
	    size_t n, uint64_t addr, uint64_t span[2]);

/*
 * Thread tid of the process ended with wait status status (the
 * backends' one hook): notes the signal that killed the process, or its
 * exit status.
 */
void	 watch_exited(struct watch *w, pid_t tid, int status);

/* Entry ti's role in a follow chain (WP_ROLE_*), and its level. */
static inline void
watch_role(const struct watch *w, size_t ti, int *role, int *level)
{
	const struct wtarget *t = &w->t[ti];

	*role = WP_ROLE_NONE;
	*level = 0;
	if (t->chain < 0)
		return;
	*role = (size_t)t->level < w->chains[t->chain].noffs ?
	    WP_ROLE_POINTER : WP_ROLE_LEAF;
	*level = t->level;
}

/* The thread's entry, added in state st when it is new. */
struct thread *watch_thread(struct watch *w, pid_t tid,
	    enum thread_state st);
struct thread *watch_thread_find(struct watch *w, pid_t tid);
size_t	 watch_count_threads(const struct watch *w, enum thread_state st);

/*
 * emit.c: the one place where records leave wp-arm.  Each writes its
 * record (built by lib/record.c's wp_rec_*) as a line, and returns -1
 * (w->output_closed set) when it cannot.  From the armed record until
 * the watch stops, a record the output cannot take in time is dropped
 * and counted (w->undelivered; a hit is then not the target's): a slow
 * reader does not hold the watch past its deadline.  Hits give way
 * first: the last 64 KiB of the buffer are kept for the other records.
 */
int	 emit_pass(const struct wp_record *rec);	/* stdin's, as read */
int	 emit_armed(struct watch *w);		/* from w->armed */
int	 emit_hit(struct watch *w, const struct wp_hit_rec *h);
/* A thread record, with the thread's name where it is first seen. */
int	 emit_thread(struct watch *w, const struct wp_thread_rec *t);
int	 emit_count(struct watch *w, const struct wp_count_rec *c);
int	 emit_tally(struct watch *w, const struct wp_tally_rec *t);
int	 emit_last_write(struct watch *w, const struct wp_last_write_rec *r);
int	 emit_access(struct watch *w, const struct wp_access_rec *r);
int	 emit_lost(struct watch *w, uint64_t n, int cpu, int64_t time_ns);
/* Flushed: scripts may wait on it. */
int	 emit_rebind(struct watch *w, const struct wp_rebind_rec *r);
/* Flushed, the last record. */
int	 emit_observation(struct watch *w, const struct wp_observation *o);
/* Writes what waits in the stream's buffer. */
int	 emit_flush(struct watch *w);
/*
 * Between emit_hold and emit_release the records wait in the buffer,
 * to go out together (what one drain of the rings read).
 */
void	 emit_hold(void);
/* From now on hits too wait for the reader, not dropped (the watch ends). */
int	 emit_wait_reader(struct watch *w);
int	 emit_release(struct watch *w);

/* follow.c: --follow chains in the target table. */
void	 follow_add(struct watch *w, const struct wp_spec *f);
/*
 * Reads chain ci again through memfd; its entries that moved (or were
 * armed or disarmed) are re-armed by the backend (rearm).  Returns 1
 * when the leaf or the binding changed: the caller then writes the
 * rebind record with follow_record.
 */
int	 follow_rebind(struct watch *w, int memfd, size_t ci);
/*
 * The rebind record of chain ci's latest change: rearm_ns from the
 * pointer's write to the re-arm (-1: not known), held (the writer was
 * held meanwhile), missed (the leaf changed meanwhile; -1: not known).
 */
void	 follow_record(struct watch *w, size_t ci, int64_t rearm_ns, int held,
	    int missed);
/* Both, for every chain, with nothing known of the re-arm (at the
   start). */
void	 follow_update(struct watch *w, int memfd);
/*
 * Whether a pointer of chain ci was written (a hit accepted) since the
 * last call: the backend then reads the chain again (follow_rebind).
 */
int	 follow_dirty(struct watch *w, size_t ci);

/*
 * observation.c: the last record of a watch; error is NULL after a
 * watch, else why nothing could be watched.  -1: it was not written.
 */
int	 observation_write(struct watch *w, const char *error);

/*
 * guard.c: for a backend that traces (b->traces), forks; returns in the
 * child, which watches, and notes after every run (supervisor_note) what
 * the parent needs if the child is killed; the parent waits, passes the
 * signals that end a watch on, and exits as the child did, writing the
 * observation if it was killed.  w->t, w->chains and w->obs are shared
 * with it from then on.
 */
void	 guard_fork(struct watch *w);
/* In the child, after the watch: says so in the stop detail when the
   stop signal came because wp-arm was killed. */
void	 guard_stopped(struct watch *w);
/*
 * In the child, about to exit on a failure (why) once it has let the
 * process go: the parent writes the observation, as for a killed child.
 */
void	 guard_failed(const char *why);
/* Frees what guard_fork shared (w->t, w->chains, w->obs); none: nothing. */
void	 guard_free(struct watch *w);

#endif
