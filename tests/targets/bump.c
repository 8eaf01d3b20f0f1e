/*
 * bump [-t threads]
 *
 * A counter that threads bump by 1 in a tight loop, for the watched
 * value's snapshots: prints one JSON line (pid, the counter's address),
 * waits for SIGUSR1, then each of the threads (2 by default, 8 at most)
 * adds 1 to wpt_bumps (lock add) until a second SIGUSR1.  Then it prints
 * "bumps N" (the counter, every add made), "done", and exits 0.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "wpt.h"

long wpt_bumps;

static atomic_int over;
static pthread_barrier_t go;

static void *
bumper(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	while (!atomic_load_explicit(&over, memory_order_relaxed))
		__atomic_fetch_add(&wpt_bumps, 1, __ATOMIC_RELAXED);
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t th[8];
	long nthreads = 2, i;
	int ch;

	while ((ch = getopt(argc, argv, "t:")) != -1) {
		switch (ch) {
		case 't': nthreads = atol(optarg); break;
		default: return 64;
		}
	}
	if (nthreads < 1 || nthreads > 8)
		return 64;
	wpt_block_go();
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, bumper, NULL);
	printf("{\"pid\":%d,\"threads\":%ld,\"bumps\":\"0x%lx\"}\n",
	    (int)getpid(), nthreads, WPT_ADDR(&wpt_bumps));
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	wpt_wait_go();
	atomic_store(&over, 1);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("bumps %ld\ndone\n", wpt_bumps);
	return 0;
}
