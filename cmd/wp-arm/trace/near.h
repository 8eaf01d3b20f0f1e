/*
 * The tracer near the thread it waits for (near.c): after a long wait,
 * the tracer moves to the CPU of the thread whose stop woke it.
 */
#ifndef WP_NEAR_H
#define WP_NEAR_H

#include <sys/types.h>

#include <sched.h>
#include <stdint.h>

/*
 * A wait longer than this is one the tracer slept through on a CPU that
 * may have gone idle: waking it there cost the stopped thread about
 * 100 us on a virtual machine; on the thread's own CPU about 20
 */
#define NEAR_WAIT_NS	40000

/*
 * Where following does not keep the thread near (it is woken on another
 * CPU each time: an idle machine's scheduler may prefer an idle CPU to
 * the tracer's), each long wait is a move: after NEAR_MOVES_MAX moves
 * within NEAR_WINDOW long waits the tracer stops following, where it was
 * started, for NEAR_PAUSE long waits, then tries again
 */
#define NEAR_WINDOW	64
#define NEAR_MOVES_MAX	8
#define NEAR_PAUSE	1024

struct tr_near {
	int		 on;		/* --tracer-cpu follow */
	int		 cpu;		/* where the tracer is now bound, -1:
					   where it was started */
	pid_t		 tid;		/* the thread whose stat fd is open */
	int		 fd;		/* its /proc/PID/task/TID/stat, -1 */
	int		 have_own;
	cpu_set_t	 own;		/* the tracer's CPUs at the start */
	uint64_t	 since;		/* when the latest wait began */
	unsigned	 waits;		/* long waits in this window */
	unsigned	 window_moves;	/* moves in this window */
	unsigned	 paused;	/* long waits left not following */
	uint64_t	*moves;		/* counted here (the observation's) */
};

/* Starts following (on), counting each move in *moves (NULL: none). */
void	 near_init(struct tr_near *n, int on, uint64_t *moves);
/* The tracer begins to wait for a stop. */
void	 near_waiting(struct tr_near *n);
/* Thread tid of process pid stopped: after a long wait, go to its CPU. */
void	 near_stopped(struct tr_near *n, pid_t pid, pid_t tid);
/* The tracer's own CPUs back, the fd closed. */
void	 near_close(struct tr_near *n);

#endif
