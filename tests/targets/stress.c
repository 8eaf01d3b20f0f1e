/*
 * stress [-t threads] [-r rounds] [-w]
 *
 * Prints one JSON line, waits for SIGUSR1, then each of the threads
 * (created before the ready line) and one more created after the go
 * runs rounds rounds of four writes to wpt_stress in a tight loop, no
 * pause: a register store, an immediate store, an add and an increment,
 * each its own instruction.  Prints "writes N" (all threads), "ns T"
 * (from the go to the last write), "cpu_ns C" (the CPU time, user and
 * system, all threads, over the same span: the kernel's work at each
 * trap is the process's own), "switches S" (its context switches, all
 * threads, then), and "thread TID N" per thread, then
 * "done"; -w waits for another SIGUSR1 before exiting.
 */
#include <sys/resource.h>

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "wpt.h"

volatile long wpt_stress;

static long rounds = 200;
static pthread_barrier_t go;

/* CPU time, user and system, of every thread so far; *csw: switches */
static long
cpu_ns(long *csw)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*csw = ru.ru_nvcsw + ru.ru_nivcsw;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000L +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000L;
}

struct worker {
	pthread_t	 th;
	long		 tid;
	long		 writes;
	int		 late;
};

__attribute__((noinline)) static long
burst(long seed)
{
	long i;

	for (i = 0; i < rounds; i++) {
		wpt_stress = seed + i;		/* register store */
		wpt_stress = 42;		/* immediate store */
		wpt_stress += 3;		/* read-modify-write */
		wpt_stress++;			/* increment */
	}
	return 4 * rounds;
}

static void *
run(void *arg)
{
	struct worker *w = arg;

	w->tid = (long)syscall(SYS_gettid);
	if (!w->late)
		pthread_barrier_wait(&go);
	w->writes = burst(w->tid << 20);
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct worker w[65];
	struct timespec t0, t1;
	long n = 2, i, total = 0, c0, s0, s1;
	int ch, waitend = 0;

	while ((ch = getopt(argc, argv, "t:r:w")) != -1) {
		switch (ch) {
		case 't': n = atol(optarg); break;
		case 'r': rounds = atol(optarg); break;
		case 'w': waitend = 1; break;
		default: return 64;
		}
	}
	if (n < 0 || n > 64)
		return 64;
	wpt_block_go();
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++) {
		w[i].late = 0;
		pthread_create(&w[i].th, NULL, run, &w[i]);
	}
	printf("{\"pid\":%d,\"threads\":%ld,\"stress\":\"0x%lx\"}\n",
	    (int)getpid(), n + 1, WPT_ADDR(&wpt_stress));
	fflush(stdout);
	wpt_wait_go();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = cpu_ns(&s0);
	w[n].late = 1;
	pthread_create(&w[n].th, NULL, run, &w[n]);
	pthread_barrier_wait(&go);
	for (i = 0; i <= n; i++) {
		pthread_join(w[i].th, NULL);
		total += w[i].writes;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("writes %ld\n", total);
	printf("ns %ld\n", (t1.tv_sec - t0.tv_sec) * 1000000000L +
	    (t1.tv_nsec - t0.tv_nsec));
	printf("cpu_ns %ld\n", cpu_ns(&s1) - c0);
	printf("switches %ld\n", s1 - s0);
	for (i = 0; i <= n; i++)
		printf("thread %ld %ld\n", w[i].tid, w[i].writes);
	printf("done\n");
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
