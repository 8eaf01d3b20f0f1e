/*
 * blocked [-n writes]
 *
 * Prints one JSON line, waits for SIGUSR1; then a thread writes
 * wpt_counter n times, one write every 100 µs of computing, while the
 * main thread sits in read(2) on a pipe that nobody writes (a signal
 * sent to the process goes to it).  Prints "writes N" and "done" when
 * the thread is finished, and exits.
 */
#include <pthread.h>
#include <time.h>

#include "wpt.h"

volatile long wpt_counter;

static long n = 200;
static int fds[2];

static void *
writer(void *arg)
{
	struct timespec t0, t;
	long i;

	(void)arg;
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		    (t.tv_nsec - t0.tv_nsec) < 100000);
		wpt_counter = i;
	}
	printf("writes %ld\ndone\n", n);
	fflush(stdout);
	exit(0);
}

int
main(int argc, char **argv)
{
	pthread_t th;
	char c;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		switch (opt) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	if (pipe(fds) == -1)
		return 1;
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	pthread_create(&th, NULL, writer, NULL);
	for (;;)
		if (read(fds[0], &c, 1) != -1)
			break;
	return 0;
}
