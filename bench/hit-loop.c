/*
 * hit-loop N [SPIN]: prints "PID ADDR", waits for SIGUSR1, writes the
 * variable N times (spinning SPIN iterations between writes), prints
 * "ns T" (the loop's time), and exits.  The target of bench/perf-guest.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile long hitvar;

static long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int
main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	long spin = argc > 2 ? atol(argv[2]) : 0, i, t0;
	volatile long j;
	sigset_t s;
	int sig;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	for (i = 0; i < n; i++)		/* warm up: TCG translates once */
		hitvar = i;
	hitvar = 0;
	printf("%d %p\n", (int)getpid(), (void *)&hitvar);
	fflush(stdout);
	sigwait(&s, &sig);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		hitvar = i;
		for (j = 0; j < spin; j++)
			;
	}
	printf("ns %ld\n", now_ns() - t0);
	fflush(stdout);
	return 0;
}
