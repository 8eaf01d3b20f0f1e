/*
 * insn-loop N [ADDRS [THREADS]]: prints "PID", waits for SIGUSR1, runs
 * one store instruction (bench_insn_store: mov [rdi + rax*8], rdx) N
 * times over ADDRS (1024) longs of a heap array in each of THREADS (1)
 * threads at once, prints "ns T" (the time until every thread is done),
 * and exits at another SIGUSR1 (a watcher's program is read while it
 * lives).  The target of bench/insn-cost.sh and insn-ptrace-cost.sh.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) static void
loop(long *a, long n, long addrs)
{
	long i;

	for (i = 0; i < n; i++)
		__asm__ volatile(".globl bench_insn_store\n"
		    "bench_insn_store: movq %2, (%0,%1,8)"
		    : : "r" (a), "r" (i % addrs), "r" (i) : "memory");
}

static long n = 100000, addrs = 1024, *a;
static pthread_barrier_t go;

static void *
run(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	loop(a, n, addrs);
	return NULL;
}

int
main(int argc, char *argv[])
{
	long threads = argc > 3 ? atol(argv[3]) : 1, t0, k;
	pthread_t t[64];
	sigset_t s;
	int sig;

	n = argc > 1 ? atol(argv[1]) : n;
	addrs = argc > 2 ? atol(argv[2]) : addrs;
	if (addrs < 1 || threads < 1 || threads > 64 ||
	    (a = calloc((size_t)addrs, sizeof *a)) == NULL)
		return 1;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	loop(a, addrs, addrs);		/* the pages touched */
	pthread_barrier_init(&go, NULL, (unsigned)threads);
	for (k = 1; k < threads; k++)
		pthread_create(&t[k], NULL, run, NULL);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	sigwait(&s, &sig);
	t0 = now_ns();
	run(NULL);
	for (k = 1; k < threads; k++)
		pthread_join(t[k], NULL);
	printf("ns %ld\n", now_ns() - t0);
	fflush(stdout);
	sigwait(&s, &sig);
	return 0;
}
