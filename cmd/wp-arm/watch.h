#ifndef WP_WATCH_H
#define WP_WATCH_H

#include <sys/types.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct wp_watch_target {
	int		 id;
	uint64_t	 addr;
	int		 len;
	int		 rw;
	uint64_t	 hits;
	int		 chain;		/* index in chains, -1: a plain target */
	int		 level;		/* pointer level; noffs: the leaf */
	int		 armed;		/* its address is valid now */
};

#define WP_CHAIN_MAXDEPTH 8

/* A --follow chain: pointers from slot, and the leaf at the end. */
struct wp_chain {
	int		 id;
	uint64_t	 slot;
	int64_t		 offs[WP_CHAIN_MAXDEPTH];
	size_t		 noffs;
	int		 len;
	int		 rw;
	size_t		 base;		/* its first entry in t[] */
	uint64_t	 generation;
	const char	*binding;
	uint64_t	 leaf;		/* when bound */
	uint64_t	 ptr_hits, leaf_hits, rebinds;
};

enum wp_thread_state {
	WP_THR_SEEDED, WP_THR_INHERITED, WP_THR_DYNAMIC, WP_THR_PENDING,
	WP_THR_EXITED, WP_THR_FAILED
};

struct wp_thread {
	pid_t			tid;
	enum wp_thread_state	state;
	int			scan;		/* when first seen pending */
	int			err;		/* errno when it failed */
	int			exited;
};

/* One watch: what to watch, how long, and what happened. */
struct wp_watch {
	/* in */
	pid_t			 pid;
	unsigned long long	 start_time;
	struct wp_watch_target	*t;
	size_t			 nt;
	struct wp_chain		*chains;
	size_t			 nchains;
	uint64_t		 duration_ms;
	uint64_t		 max_events;
	int			 regs;
	size_t			 ring_pages;
	/* out */
	const char		*stop_reason;
	const char		*stop_detail;
	uint64_t		 elapsed_ms;
	uint64_t		 accepted;
	int			 truncated;
	struct wp_thread	*thr;
	size_t			 nthr;
	uint64_t		 excluded_other;
	uint64_t		 other_processes;
	uint64_t		 ambiguous;
	uint64_t		 unparsed;
	uint64_t		 lost;
	uint64_t		 lost_records;
	int			 output_closed;
	char			 error[256];
	/* ptrace backend */
	uint64_t		 steps;
	uint64_t		 step_ns;	/* time spent stepping */
	uint64_t		 unexplained;
	uint64_t		 syscall_writes;
	uint64_t		 signals_passed;
	uint64_t		 modify_errors;	/* failed re-arms of a chain */
};

int	 wp_watch_perf(struct wp_watch *);
struct wp_thread *wp_watch_thread(struct wp_watch *, pid_t,
	    enum wp_thread_state);
void	 wp_watch_catch_signals(void (*)(int), sigset_t *, sigset_t *);
int	 wp_watch_add_chain(struct wp_watch *, const struct wp_chain *);
int	 wp_watch_chain_update(struct wp_watch *, int, size_t, int64_t,
	    char *, size_t);
int	 wp_watch_hit_extra(const struct wp_watch *, size_t, char *, size_t);
int	 wp_watch_ptrace(struct wp_watch *);
json_object *wp_watch_observation(struct wp_watch *, const char *);
void	 wp_watch_free(struct wp_watch *);

#endif
