/*
 * bpf: the bpf backend's program (bpf/wp.bpf.c) as wp-arm drives it:
 * loading it, attaching it to breakpoint events, turning its samples
 * into hit records and its tallies into tally records.  The events
 * themselves are events.c's, as for the perf backend.
 */
#ifndef WPARM_BPF_H
#define WPARM_BPF_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "watch.h"

struct bpfw;

/* What the program saw when a chain's pointer was written. */
struct bpfw_pointer {
	size_t		 slot;		/* the pointer's entry */
	pid_t		 tid;		/* the thread that wrote it */
	uint64_t	 time_ns;	/* of the write, CLOCK_MONOTONIC */
	int		 has_leaf;
	uint64_t	 leaf_addr;	/* where the chain leads now */
	uint64_t	 leaf_value;	/* and the value there then */
};

/*
 * Loads the program for the entries of w (at most four).  NULL with e
 * set when BPF cannot be used here; verbose prints libbpf's messages,
 * the verifier's log among them.
 */
struct bpfw *bpfw_open(const struct watch *w, int verbose,
	    struct wp_error *e);
void	 bpfw_close(struct bpfw *b);
/* Runs entry slot's program on the breakpoint event fd: 0, or errno. */
int	 bpfw_attach(struct bpfw *b, int fd, size_t slot);
/* Tells the program where entry slot is now (after a re-arm). */
void	 bpfw_conf(struct bpfw *b, const struct watch *w, size_t slot);
/* The signal a pointer's writer gets (0: none), for every pointer. */
void	 bpfw_stop_signal(struct bpfw *b, const struct watch *w, int sig);
/* A descriptor that polls readable when samples wait. */
int	 bpfw_fd(struct bpfw *b);
/*
 * Writes the samples waiting as hit records; for a chain's pointer
 * calls on_pointer (the caller re-arms).
 */
void	 bpfw_drain(struct bpfw *b, struct watch *w,
	    void (*on_pointer)(struct watch *w, const struct bpfw_pointer *p));
/*
 * Reads the tallies: sets each entry's tallied count, the counters of
 * the samples, and writes a tally record per writing instruction and
 * thread.
 */
void	 bpfw_tallies(struct bpfw *b, struct watch *w);

#endif
