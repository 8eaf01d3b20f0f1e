/*
 * rseq [N [MODE [THREADS]]]: restartable sequences of its own, librseq style, in
 * the rseq area glibc registered for each thread (__rseq_offset).
 * Prints one JSON line (pid, "counter", "commit": the address of the
 * commit store), waits for SIGUSR1; then THREADS threads, the process
 * pinned to one CPU, each commit N times (10 if not given, 0: for ever)
 * to wpt_counter in a critical section, in a tight loop, retrying after
 * each abort; prints "started" at the first commit, and "done COMMITS
 * ABORTS VALUE" (its own count) at the end.  The section checks the
 * CPU, then increments wpt_counter by its commit store, after a pause
 * (where an interrupt most often finds the thread: a stop then finds
 * it at the commit store, the section under way).  With "first" the
 * commit store is the section's first and only instruction, storing
 * the thread's next commit number.  With "call" each abort is followed
 * by a system call that writes wpt_ts, on wpt_counter's page
 * (clock_gettime, not the vDSO's), and "calls C failed F" is printed
 * before "done".  With "long" each try is preceded by a loop of about
 * 105000 instructions (more than a retry steps at first).  THREADS: how many threads commit (2 if not
 * given).  With no rseq area registered (an old kernel, glibc's tunable
 * off) it prints {"skip":"..."} and exits 77.
 */
#define _GNU_SOURCE
#include <sys/rseq.h>
#include <sys/syscall.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "wpt.h"

/* the counter and, on its page, what the "call" mode's calls write */
static struct {
	volatile long	 counter;
	char		 pad[56];
	struct timespec	 ts;
} wpt_page __attribute__((aligned(4096)));
#define wpt_counter	wpt_page.counter

static long each = 10;
static int first, call, slow;
static long commits, aborts, calls, failed;

extern const char wpt_rseq_commit[], wpt_rseq_first[];

/* The calling thread's rseq area, registered by glibc. */
static struct rseq *
area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() +
	    __rseq_offset);
}

/*
 * A section's entry: its descriptor (3: start 1, post-commit 2, abort
 * 4) stored to rs->rseq_cs, then its start.
 */
#define ENTER \
	".pushsection wpt_rseq_cs, \"aw\"\n\t" \
	".balign 32\n" \
	"3:\n\t" \
	".long 0, 0\n\t" \
	".quad 1f, 2f - 1f, 4f\n\t" \
	".popsection\n\t" \
	"leaq 3b(%%rip), %%rax\n\t" \
	"movq %%rax, 8(%[rs])\n" \
	"1:\n"

/* Its end, and its abort handler after the signature (RSEQ_SIG). */
#define ABORT \
	"2:\n\t" \
	".pushsection wpt_rseq_abort, \"ax\"\n\t" \
	".byte 0x0f, 0xb9, 0x3d\n\t" \
	".long 0x53053053\n" \
	"4:\n\t" \
	"jmp %l[abort]\n\t" \
	".popsection\n\t"

/*
 * One try: rs->rseq_cs set to the section's descriptor, then, on cpu
 * still, *v incremented by the commit store.  1: committed, 0: aborted
 * (the kernel moved the thread to the abort IP, after the signature).
 */
static int
try_inc(volatile long *v, struct rseq *rs, uint32_t cpu)
{
	__asm__ goto (
	    ENTER "\t"
	    "cmpl %[cpu], 4(%[rs])\n\t"		/* rs->cpu_id */
	    "jnz 4f\n\t"
	    "movq (%[v]), %%rax\n\t"
	    "addq $1, %%rax\n\t"
	    "pause\n"
	    ".globl wpt_rseq_commit\n"
	    "wpt_rseq_commit:\n\t"
	    "movq %%rax, (%[v])\n"		/* the commit */
	    ABORT
	    : : [rs] "r" (rs), [v] "r" (v), [cpu] "r" (cpu)
	    : "rax", "memory", "cc" : abort);
	return 1;
abort:
	return 0;
}

/* One try of a section whose first instruction is the commit store. */
static int
try_put(volatile long *v, struct rseq *rs, long val)
{
	__asm__ goto (
	    ENTER
	    ".globl wpt_rseq_first\n"
	    "wpt_rseq_first:\n\t"
	    "movq %[val], (%[v])\n"		/* the commit */
	    ABORT
	    : : [rs] "r" (rs), [v] "r" (v), [val] "r" (val)
	    : "rax", "memory", "cc" : abort);
	return 1;
abort:
	return 0;
}

static void *
worker(void *arg)
{
	struct rseq *rs = area();
	long n = 0;

	(void)arg;
	while (each == 0 || n < each) {
		if (slow)
			for (volatile int k = 0; k < 17500; k++)
				;
		if (first ? try_put(&wpt_counter, rs, n + 1) :
		    try_inc(&wpt_counter, rs,
		    *(volatile uint32_t *)&rs->cpu_id_start)) {
			n++;
			if (__atomic_fetch_add(&commits, 1,
			    __ATOMIC_RELAXED) == 0)
				printf("started\n");
		} else {
			__atomic_fetch_add(&aborts, 1, __ATOMIC_RELAXED);
			if (!call)
				continue;
			__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
			if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC,
			    &wpt_page.ts) != 0)
				__atomic_fetch_add(&failed, 1,
				    __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t th[8];
	cpu_set_t one;
	int i, nth = 2;

	if (argc > 1)
		each = atol(argv[1]);
	first = argc > 2 && strcmp(argv[2], "first") == 0;
	call = argc > 2 && strcmp(argv[2], "call") == 0;
	slow = argc > 2 && strcmp(argv[2], "long") == 0;
	if (argc > 3 && ((nth = atoi(argv[3])) < 1 || nth > 8))
		return 64;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (__rseq_size == 0 || (int32_t)area()->cpu_id < 0) {
		printf("{\"skip\":\"no rseq area registered by glibc\"}\n");
		return 77;
	}
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof one, &one) == -1) {
		perror("sched_setaffinity");
		return 1;
	}
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\",\"commit\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(&wpt_counter), WPT_ADDR(first ?
	    wpt_rseq_first : wpt_rseq_commit));
	wpt_wait_go();
	for (i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (call)
		printf("calls %ld failed %ld\n", calls, failed);
	printf("done %ld %ld %ld\n", commits, aborts, wpt_counter);
	return 0;
}
