#ifndef WP_WATCH_H
#define WP_WATCH_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct wp_watch_target {
	int		 id;
	uint64_t	 addr;
	int		 len;
	int		 rw;
	uint64_t	 hits;
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
};

int	 wp_watch_perf(struct wp_watch *);
int	 wp_watch_ptrace(struct wp_watch *);
json_object *wp_watch_observation(struct wp_watch *, const char *);
void	 wp_watch_free(struct wp_watch *);

#endif
