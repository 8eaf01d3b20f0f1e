/*
 * insn-lock [-n elems] [-r rounds]
 *
 * One lock-prefixed instruction (wpt_lock_add: lock addq $1, a counter)
 * in a tight loop over n (8) shared counters, and beside it a plain store
 * (wpt_plain_store: the counter's index into seen[i]), from 3 threads: one made
 * before the ready line, the main thread, and one made after SIGUSR1
 * (after arming).  Thread k (1, 2, 3) walks the counters k * rounds
 * (50) times, so each counter is added to k * rounds times by it.
 * Prints the ready line, one line per thread with its own counts, each
 * counter's final value in one line, then "done".
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "wpt.h"

static long *counters, *seen;
static long n = 8, rounds = 50;
static pthread_barrier_t start;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) static void
walk(long *a, long len)
{
	long i;

	for (i = 0; i < len; i++) {
		__asm__ volatile(".globl wpt_lock_add\n"
		    "wpt_lock_add: lock addq $1, (%0,%1,8)"
		    : : "r" (a), "r" (i) : "memory", "cc");
		__asm__ volatile(".globl wpt_plain_store\n"
		    "wpt_plain_store: movq %1, (%0,%1,8)"
		    : : "r" (seen), "r" (i) : "memory");
	}
}

static void
walker(long k)
{
	long r;
	pid_t tid = gettid();

	pthread_barrier_wait(&start);
	for (r = 0; r < k * rounds; r++)
		walk(counters, n);
	pthread_mutex_lock(&out);
	printf("{\"tid\":%d,\"rounds\":%ld}\n", (int)tid, k * rounds);
	fflush(stdout);
	pthread_mutex_unlock(&out);
}

static void *
run(void *arg)
{
	walker((long)arg);
	return NULL;
}

int
main(int argc, char *argv[])
{
	extern char wpt_lock_add[], wpt_plain_store[];
	pthread_t before, after;
	long i;
	int ch;

	while ((ch = getopt(argc, argv, "n:r:")) != -1) {
		if (ch == 'n')
			n = atol(optarg);
		else if (ch == 'r')
			rounds = atol(optarg);
		else
			return 64;
	}
	if ((counters = calloc((size_t)n, sizeof *counters)) == NULL ||
	    (seen = calloc((size_t)n, sizeof *seen)) == NULL)
		return 1;
	wpt_block_go();
	pthread_barrier_init(&start, NULL, 3);
	pthread_create(&before, NULL, run, (void *)2);
	printf("{\"pid\":%d,\"counters\":\"0x%lx\",\"add\":\"0x%lx\","
	    "\"n\":%ld,\"seen\":\"0x%lx\",\"plain\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(counters), WPT_ADDR(wpt_lock_add), n,
	    WPT_ADDR(seen), WPT_ADDR(wpt_plain_store));
	fflush(stdout);
	wpt_wait_go();
	pthread_create(&after, NULL, run, (void *)3);
	walker(1);
	pthread_join(before, NULL);
	pthread_join(after, NULL);
	for (i = 0; i < n; i++)
		printf("%s%ld", i ? " " : "", counters[i]);
	printf("\ndone\n");
	fflush(stdout);
	return 0;
}
