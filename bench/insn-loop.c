/*
 * insn-loop N [ADDRS]: prints "PID", waits for SIGUSR1, runs one store
 * instruction (bench_insn_store: mov [rdi + rax*8], rdx) N times over
 * ADDRS (1024) longs of a heap array, prints "ns T" (the loop's time),
 * and exits at another SIGUSR1 (a watcher's program is read while it
 * lives).  The target of bench/insn-cost.sh.
 */
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

int
main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	long addrs = argc > 2 ? atol(argv[2]) : 1024, t0, *a;
	sigset_t s;
	int sig;

	if (addrs < 1 || (a = calloc((size_t)addrs, sizeof *a)) == NULL)
		return 1;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	loop(a, addrs, addrs);		/* the pages touched */
	printf("%d\n", (int)getpid());
	fflush(stdout);
	sigwait(&s, &sig);
	t0 = now_ns();
	loop(a, n, addrs);
	printf("ns %ld\n", now_ns() - t0);
	fflush(stdout);
	sigwait(&s, &sig);
	return 0;
}
