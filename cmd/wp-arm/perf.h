#ifndef WP_PERF_H
#define WP_PERF_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "x86.h"

/* General-purpose registers sampled with --regs, in perf's order. */
#define WP_PERF_NREGS WP_NGPREGS

struct wp_perf_bp {
	uint64_t	addr;
	int		len;		/* 1, 2, 4, 8 */
	int		rw;		/* watch reads too */
	int		regs;		/* sample user registers */
	int		disabled;	/* opened disarmed */
};

/* One mmap ring, written by every event of one CPU. */
struct wp_perf_ring {
	int		 fd;		/* the event that owns the mapping */
	int		 cpu;
	void		*base;
	size_t		 pages;		/* data pages, a power of two */
	size_t		 size;		/* bytes in the data area */
	unsigned char	*tmp;		/* a record that wraps is copied here */
};

enum wp_perf_kind {
	WP_PERF_SAMPLE, WP_PERF_FORK, WP_PERF_EXIT, WP_PERF_LOST,
	WP_PERF_EXEC, WP_PERF_OTHER, WP_PERF_BAD
};

struct wp_perf_rec {
	enum wp_perf_kind kind;
	uint64_t	 id;		/* event id (samples, lost) */
	uint64_t	 ip;
	uint32_t	 pid, tid, ppid, ptid, cpu;
	uint64_t	 time;
	uint64_t	 lost;
	int		 nregs;
	uint64_t	 regs[WP_PERF_NREGS];
};

int	 wp_perf_open_bp(const struct wp_perf_bp *, pid_t, int, int);
int	 wp_perf_open_task(pid_t, int);
int	 wp_perf_modify_bp(int, const struct wp_perf_bp *);
int	 wp_perf_canary(uint64_t *);
int	 wp_perf_ring_map(struct wp_perf_ring *, int, int, size_t);
void	 wp_perf_ring_unmap(struct wp_perf_ring *);
int	 wp_perf_set_output(int, int);
int	 wp_perf_id(int, uint64_t *);
int	 wp_perf_drain(struct wp_perf_ring *, int,
	    int (*)(const struct wp_perf_rec *, void *), void *);
int	 wp_perf_paranoid(void);

#endif
