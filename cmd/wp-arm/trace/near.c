/*
 * The tracer near the thread it waits for.  A thread's fault (or any
 * stop) wakes its tracer; the tracer resolves it and resumes the thread.
 * Where the tracer slept on a CPU of its own that went idle, each of
 * those two wake-ups crosses CPUs, and on a virtual machine a CPU that
 * went idle is slow to wake: about 100 us for the round trip against
 * about 20 on one CPU (bench/fault-floor.c).  Writes a program makes
 * between long stretches of computation pay this every time.  So after
 * a wait long enough for its CPU to have gone idle, the tracer binds
 * itself to the CPU the stopped thread last ran on (from
 * /proc/PID/task/TID/stat, about 5 us, read only then): the stop then
 * switches to the tracer on that CPU, and the resume back, with no CPU
 * to wake.  A short wait (a tight loop of faults) reads nothing.
 * The target's own threads are not moved: only the tracer, and the CPUs
 * it may use are those it had.  Where the scheduler wakes the thread on
 * another CPU each time anyway (an idle CPU beside the tracer's busy
 * one), following only adds moves: past NEAR_MOVES_MAX in a window the
 * tracer lets itself be placed freely again for a while (near.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "near.h"
#include "util.h"

void
near_init(struct tr_near *n, int on, uint64_t *moves)
{
	memset(n, 0, sizeof *n);
	n->on = on;
	n->cpu = -1;
	n->fd = -1;
	n->moves = moves;
	if (on)
		n->have_own = sched_getaffinity(0, sizeof n->own,
		    &n->own) == 0;
	/* one CPU only: nowhere to move */
	if (n->have_own && CPU_COUNT(&n->own) < 2)
		n->on = 0;
}

void
near_waiting(struct tr_near *n)
{
	if (n->on)
		n->since = wp_now_ns();
}

/* The CPU thread tid last ran on (stat's 39th field), -1: not known. */
static int
cpu_of(struct tr_near *n, pid_t pid, pid_t tid)
{
	char path[64], buf[1024], *p;
	ssize_t r;
	int field;

	if (n->tid != tid || n->fd == -1) {
		if (n->fd != -1)
			close(n->fd);
		snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid,
		    (int)tid);
		n->tid = tid;
		if ((n->fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return -1;
	}
	if ((r = pread(n->fd, buf, sizeof buf - 1, 0)) <= 0)
		return -1;
	buf[r] = '\0';
	/* the name, in parentheses, may hold spaces: count after it */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (field = 2; *p != '\0'; p++)
		if (*p == ' ' && ++field == 39)
			return atoi(p + 1);
	return -1;
}

/* Back where the tracer was started (-1: it could not be). */
static int
unbind(struct tr_near *n)
{
	if (n->cpu != -1 && (!n->have_own ||
	    sched_setaffinity(0, sizeof n->own, &n->own) == -1))
		return -1;
	n->cpu = -1;
	return 0;
}

void
near_stopped(struct tr_near *n, pid_t pid, pid_t tid)
{
	cpu_set_t one;
	int cpu;

	if (!n->on || wp_now_ns() - n->since < NEAR_WAIT_NS)
		return;
	if (n->paused > 0) {
		n->paused--;
		return;
	}
	if (++n->waits > NEAR_WINDOW) {
		n->waits = 1;
		n->window_moves = 0;
	}
	if ((cpu = cpu_of(n, pid, tid)) < 0 || cpu == n->cpu ||
	    cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &n->own))
		return;
	if (n->window_moves == NEAR_MOVES_MAX) {
		/* following does not keep it near: free for a while */
		if (unbind(n) == -1)
			n->on = 0;
		n->paused = NEAR_PAUSE;
		n->waits = n->window_moves = 0;
		return;
	}
	n->window_moves++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) == -1) {
		/* a cpuset changed under us: stop following */
		n->on = 0;
		return;
	}
	n->cpu = cpu;
	if (n->moves != NULL)
		(*n->moves)++;
}

void
near_close(struct tr_near *n)
{
	if (n->fd != -1)
		close(n->fd);
	n->fd = -1;
	(void)unbind(n);
	n->cpu = -1;
	n->on = 0;
}
