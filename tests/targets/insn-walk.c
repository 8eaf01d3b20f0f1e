/*
 * insn-walk [-n elems]
 *
 * One store instruction (wpt_walk_store) writing n (1000) known heap
 * addresses in a loop, an array walk, from 3 threads: one made before
 * the ready line, the main thread, and one made after SIGUSR1 (after
 * arming).  Thread k (1, 2, 3) walks the array k times, so each address
 * is written k times by it.  Prints the ready line, one line per thread
 * with its own counts, then "done".  wpt_walk_add (add, a
 * read-modify-write) runs once over the array, by the main thread.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "wpt.h"

static long *array;
static long n = 1000;
static pthread_barrier_t start;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) static void
walk(long *a, long len, long v)
{
	long i;

	for (i = 0; i < len; i++)
		__asm__ volatile(".globl wpt_walk_store\n"
		    "wpt_walk_store: movq %2, (%0,%1,8)"
		    : : "r" (a), "r" (i), "r" (v) : "memory");
}

__attribute__((noinline, noclone)) static void
bump(long *a, long len)
{
	long i;

	for (i = 0; i < len; i++)
		__asm__ volatile(".globl wpt_walk_add\n"
		    "wpt_walk_add: addq $1, (%0,%1,8)"
		    : : "r" (a), "r" (i) : "memory", "cc");
}

static void
walker(long rounds)
{
	long r;
	pid_t tid = gettid();

	pthread_barrier_wait(&start);
	for (r = 0; r < rounds; r++)
		walk(array, n, tid);
	pthread_mutex_lock(&out);
	printf("{\"tid\":%d,\"rounds\":%ld,\"writes\":%ld}\n", (int)tid,
	    rounds, rounds * n);
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
	extern char wpt_walk_store[], wpt_walk_add[];
	pthread_t before, after;
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		if (ch != 'n')
			return 64;
		n = atol(optarg);
	}
	if ((array = calloc((size_t)n, sizeof *array)) == NULL)
		return 1;
	wpt_block_go();
	pthread_barrier_init(&start, NULL, 3);
	pthread_create(&before, NULL, run, (void *)2);
	printf("{\"pid\":%d,\"array\":\"0x%lx\",\"store\":\"0x%lx\","
	    "\"add\":\"0x%lx\",\"n\":%ld}\n", (int)getpid(), WPT_ADDR(array),
	    WPT_ADDR(wpt_walk_store), WPT_ADDR(wpt_walk_add), n);
	fflush(stdout);
	wpt_wait_go();
	pthread_create(&after, NULL, run, (void *)3);
	walker(1);
	pthread_join(before, NULL);
	pthread_join(after, NULL);
	bump(array, n);
	printf("done\n");
	fflush(stdout);
	return 0;
}
