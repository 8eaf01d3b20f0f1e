/*
 * churn [-n threads] [-c concurrent] [-k writes] [-s] [-w]
 *
 * Prints one JSON line, waits for SIGUSR1, then creates threads threads,
 * at most concurrent of them alive at once, each writing wpt_churn k
 * times (an atomic add, one store each; -s: a plain store of its count
 * so far, which QEMU's TCG always traps) and exiting.  Prints "writes N"
 * (the stores made, by the threads' own count) and "done"; -w waits for
 * another SIGUSR1 before exiting.
 */
#include <pthread.h>
#include <string.h>

#include "wpt.h"

volatile long wpt_churn;

static long k = 2;
static long made;
static int plain;

static void *
worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < k; i++)
		if (plain)
			wpt_churn = i + 1;
		else
			__atomic_fetch_add(&wpt_churn, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&made, k, __ATOMIC_RELAXED);
	return NULL;
}

int
main(int argc, char **argv)
{
	long n = 1000, c = 20, i, j, w;
	pthread_t *th;
	int opt, waitend = 0;

	while ((opt = getopt(argc, argv, "n:c:k:sw")) != -1)
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'c': c = atol(optarg); break;
		case 'k': k = atol(optarg); break;
		case 's': plain = 1; break;
		case 'w': waitend = 1; break;
		default: return 64;
		}
	if (c < 1)
		c = 1;
	th = calloc((size_t)c, sizeof *th);
	wpt_block_go();
	printf("{\"pid\":%d,\"churn\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_churn));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i += w) {
		w = n - i < c ? n - i : c;
		for (j = 0; j < w; j++)
			if (pthread_create(&th[j], NULL, worker, NULL) != 0) {
				perror("pthread_create");
				return 1;
			}
		for (j = 0; j < w; j++)
			pthread_join(th[j], NULL);
	}
	printf("writes %ld\nvalue %ld\ndone\n", made, wpt_churn);
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
