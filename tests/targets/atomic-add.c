/*
 * atomic-add [-t threads] [-n adds] [-m excl|ldadd]
 *
 * Prints one JSON line (pid, the counter's address), waits for SIGUSR1,
 * then each thread adds 1 to wpt_atomic n times, atomically: on arm64
 * with a ldxr/stxr loop (-m excl, the default: a failed stxr stores
 * nothing and is tried again) or one ldadd (-m ldadd, ARMv8.1 LSE);
 * elsewhere with the compiler's atomic add.  Each add that stored is
 * one store of the counter: prints "count N" (its value, the stores
 * made), "done" and exits 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

volatile long wpt_atomic;

static long nadds = 1000;
static int ldadd;
static pthread_barrier_t go;

__attribute__((noinline)) static void
add_one(volatile long *p)
{
#if defined(__aarch64__)
	long v, one = 1;
	unsigned st;

	if (ldadd)
		__asm__ volatile (".arch_extension lse\n\t"
		    "ldadd %1, %0, [%2]"
		    : "=&r" (v) : "r" (one), "r" (p) : "memory");
	else
		__asm__ volatile ("1:\tldxr %0, [%2]\n\t"
		    "add %0, %0, #1\n\t"
		    "stxr %w1, %0, [%2]\n\t"
		    "cbnz %w1, 1b"
		    : "=&r" (v), "=&r" (st) : "r" (p) : "memory");
#else
	__atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
#endif
}

static void *
worker(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&go);
	for (i = 0; i < nadds; i++)
		add_one(&wpt_atomic);
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t th[64];
	long nthreads = 1, i;
	int ch;

	while ((ch = getopt(argc, argv, "t:n:m:")) != -1) {
		switch (ch) {
		case 't': nthreads = atol(optarg); break;
		case 'n': nadds = atol(optarg); break;
		case 'm':
			if (strcmp(optarg, "ldadd") == 0)
				ldadd = 1;
			else if (strcmp(optarg, "excl") != 0)
				return 64;
			break;
		default: return 64;
		}
	}
	if (nthreads < 1 || nthreads > 64)
		return 64;
	wpt_block_go();
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	printf("{\"pid\":%d,\"atomic\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_atomic));
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("count %ld\ndone\n", wpt_atomic);
	fflush(stdout);
	return 0;
}
