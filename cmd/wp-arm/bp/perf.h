/*
 * perf: the perf_event_open(2) primitives of the perf and bpf backends
 * (through bp-events.c): breakpoint and task events and their clock
 * (perf.c), the mmap ring and the parse of its records (perf-ring.c).
 * Nothing here knows about targets or threads.
 */
#ifndef WPARM_PERF_H
#define WPARM_PERF_H

#include <linux/perf_event.h>

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "sample-regs.h"
#include "x86.h"

struct perf_bp {
	uint64_t	addr;
	int		len;		/* 1, 2, 4, 8 */
	int		rw;		/* watch reads too */
	int		exec;		/* an execute breakpoint at addr (the
					   instruction's start; len unused) */
	int		regs;		/* sample user registers */
	int		disabled;	/* opened disarmed */
	int		chain;		/* user call chains (frame pointers)
					   of at most this many entries */
	size_t		stack;		/* bytes of user stack to copy */
	int		wake;		/* wake the ring's reader on each
					   sample (a followed pointer) */
};

#define PERF_RING_TAKEN_MAX	64

/* One mmap ring, written by every event of one CPU. */
struct perf_ring {
	int		 fd;		/* the event that owns the mapping */
	int		 cpu;
	void		*base;
	size_t		 pages;		/* data pages, a power of two */
	size_t		 size;		/* bytes in the data area */
	unsigned char	*tmp;		/* a record that wraps is copied here */
	uint64_t	 taken[PERF_RING_TAKEN_MAX];	/* positions of records
					   handed ahead (perf_ring_pick_fork) */
	size_t		 ntaken;
};

enum perf_kind {
	RING_SAMPLE, RING_FORK, RING_EXIT, RING_LOST, RING_EXEC, RING_OTHER,
	RING_BAD
};

/* One record of a ring, parsed. */
struct perf_rec {
	enum perf_kind	 kind;
	uint32_t	 type;		/* PERF_RECORD_* */
	uint64_t	 id;		/* event id (samples, lost) */
	uint64_t	 ip;
	uint32_t	 pid, tid, ppid, ptid, cpu;
	uint64_t	 time;
	uint64_t	 lost;
	const uint64_t	*chain;		/* the kernel's call chain, context
					   markers included; in the ring */
	size_t		 nchain;
	const unsigned char *stack;	/* the user stack copied from the
					   stack pointer on; in the ring */
	size_t		 nstack;
	int		 nregs;		/* 0, or WP_SAMPLE_NREGS in regs */
	uint64_t	 regs[WP_SAMPLE_NREGS];	/* last: only nregs are set */
};

/* What the samples of a ring carry besides the fixed fields. */
struct perf_layout {
	int		 samples;	/* every hit sampled into the ring */
	int		 regs;
	int		 chain;
	int		 stack;
};

/*
 * A breakpoint event on thread tid (cpu -1: any CPU), sampling every
 * hit; with inherit, threads and processes it creates later carry the
 * event from their first instruction.  Returns the fd, or -1 (errno).
 */
int	 perf_open_bp(const struct perf_bp *bp, pid_t tid, int cpu,
	    int inherit);
/*
 * The count of a breakpoint event (its inherited copies included: the
 * threads it covers, running or gone) and the samples the kernel could
 * not write to the ring (0 before Linux 6.0).  0, or -1 (errno).
 */
int	 perf_read_count(int fd, uint64_t *value, uint64_t *lost);
/*
 * A dummy event carrying only fork, exit and exec records: it stays
 * across exec, where breakpoints are removed, so the exec is seen.  The
 * ring mapped on it, of ring_bytes, wakes its reader when a quarter of
 * it waits (the reader drains on a timer besides).
 */
int	 perf_open_task(pid_t tid, int cpu, size_t ring_bytes);
/*
 * Moves an open breakpoint (and the copies threads inherited) to
 * bp->addr, armed or not: only the address, length, type and disabled
 * bit may differ from how it was opened.
 */
int	 perf_modify_bp(int fd, const struct perf_bp *bp);
/*
 * Arms a breakpoint on a variable of wp-arm's own, and a second one on
 * it, and writes it four times: -1 (errno) when no event opens, else 0,
 * the first's count and the second's (4 when none was free).
 */
int	 perf_canary(uint64_t *count, uint64_t *second);
/*
 * Whether, in the latest perf_canary, the second breakpoint counted less
 * than the first: here a second breakpoint on an address goes quiet
 * (QEMU reports one debug register of an access that several watch).
 */
int	 perf_shared_quiet(void);
/*
 * How many more breakpoints thread tid takes (0 to WP_HWBP_SLOTS), each
 * opened disabled and closed again: with wp's own, the slots the
 * others' leave free.  -1 (errno) when none could be asked.
 */
int	 perf_bp_free(pid_t tid);
int	 perf_ring_map(struct perf_ring *r, int fd, int cpu, size_t pages);
void	 perf_ring_unmap(struct perf_ring *r);
int	 perf_set_output(int fd, int ringfd);
int	 perf_id(int fd, uint64_t *id);
/*
 * Hands every record in the ring to fn, then frees the space (what rec
 * points into is valid during the call only).  lay says what samples
 * carry.  Returns the number of records, or -1 when fn returned -1 (the
 * rest stays in the ring).
 */
int	 perf_drain(struct perf_ring *r, const struct perf_layout *lay,
	    int (*fn)(const struct perf_rec *rec, void *arg), void *arg);
/*
 * A thread's fork record, ahead of its samples.  The kernel writes a
 * fork into the ring of the parent's CPU before the new thread runs,
 * and the thread's samples into the rings of the CPUs it runs on: a
 * reader that took the parent's ring before the fork landed reads the
 * thread's first samples before its fork.  These hand the fork of
 * thread tid of process pid, unread in ring r (perf_ring_pick_fork) or
 * in b[off..len) (perf_pick_fork, bytes perf_ring_take copied), to fn,
 * and leave it in place, taken: perf_drain passes over it (the ring
 * keeps its position, at most PERF_RING_TAKEN_MAX unread at once), as
 * perf_walk does in b (its type made PERF_RECORD_TAKEN).  1 when one
 * was handed, 0 when none is there (or the ring keeps as many taken as
 * it can), -1 when fn returned -1.  The ring's unread bytes stay unread.
 */
#define PERF_RECORD_TAKEN	0xffffffffu
int	 perf_ring_pick_fork(struct perf_ring *r, pid_t pid, pid_t tid,
	    int (*fn)(const struct perf_rec *rec, void *arg), void *arg);
int	 perf_pick_fork(unsigned char *b, size_t len, size_t off, pid_t pid,
	    pid_t tid, int (*fn)(const struct perf_rec *rec, void *arg),
	    void *arg);
/* Bytes the kernel wrote into the ring that are not read yet. */
size_t	 perf_ring_pending(const struct perf_ring *r);
/*
 * Copies the ring's first n unread bytes (at most perf_ring_pending's:
 * whole records) into dst, unwrapped, and frees their space: the bytes
 * copied.
 */
size_t	 perf_ring_take(struct perf_ring *r, unsigned char *dst, size_t n);
/*
 * The header of the record at b[off..len), a copy, into *h: 1 where the
 * record is there whole, 0 where not (fewer bytes left than a header or
 * than its size, or a size under a header's: nothing after it is read).
 */
int	 perf_rec_at(const unsigned char *b, size_t len, size_t off,
	    struct perf_event_header *h);
/*
 * Hands the records of b[*off..len) (as perf_ring_take copied them,
 * 8-byte aligned) to fn as perf_drain does, *off past each one handed.
 * Returns the number handed, or -1 when fn returned -1 (then *off is
 * past that record).
 */
int	 perf_walk(const unsigned char *b, size_t len, size_t *off,
	    const struct perf_layout *lay,
	    int (*fn)(const struct perf_rec *rec, void *arg), void *arg);
/*
 * The hit record of sample r: its pid, tid, cpu, ip and registers
 * (into regs, which h then points to); the rest of h is zero, for the
 * caller (the target, the time).
 */
void	 perf_sample_hit(const struct perf_rec *r, struct wp_hit_rec *h,
	    struct wp_x86_regs *regs);
/*
 * CLOCK_MONOTONIC minus the rings' clock (perf's own, which the events
 * keep: an event that reads CLOCK_MONOTONIC itself costs a hit much in
 * a guest), measured again where a second old; 0 where the events read
 * CLOCK_MONOTONIC.  perf-ring.c adds it to every record's time.
 */
int64_t	 perf_clock_off(void);
/* kernel.perf_event_paranoid, or -99 when unreadable. */
int	 perf_paranoid(void);

#endif
