/*
 * tls-writer [-t threads] [-n writes]
 *
 * Starts threads threads, then prints one JSON ready line: the pid and,
 * per thread, its tid and where its copies of wpt_tls and of libc's
 * errno are.  On SIGUSR1 every thread writes its own wpt_tls
 * n times (1, 2, ...); the program prints "done" and exits.
 */
#include <sys/syscall.h>
#include <errno.h>
#include <pthread.h>

#include "wpt.h"

__thread volatile long wpt_tls;

struct who {
	long		 tid;
	unsigned long	 tls, err;
};

static long n = 10;
static pthread_barrier_t ready, go;

static void *
worker(void *arg)
{
	struct who *w = arg;
	long i;

	w->tid = (long)syscall(SYS_gettid);
	w->tls = WPT_ADDR(&wpt_tls);
	w->err = WPT_ADDR(&errno);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	for (i = 1; i <= n; i++)
		wpt_tls = i;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t th[64];
	struct who who[64];
	long t = 2, i;
	int opt;

	while ((opt = getopt(argc, argv, "t:n:")) != -1)
		switch (opt) {
		case 't': t = atol(optarg); break;
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	if (t < 1 || t > 64)
		return 64;
	wpt_block_go();
	pthread_barrier_init(&ready, NULL, (unsigned)t + 1);
	pthread_barrier_init(&go, NULL, (unsigned)t + 1);
	for (i = 0; i < t; i++)
		pthread_create(&th[i], NULL, worker, &who[i]);
	pthread_barrier_wait(&ready);
	printf("{\"pid\":%d,\"threads\":[", (int)getpid());
	for (i = 0; i < t; i++)
		printf("%s{\"tid\":%ld,\"tls\":\"0x%lx\",\"errno\":\"0x%lx\"}",
		    i ? "," : "", who[i].tid, who[i].tls, who[i].err);
	printf("]}\n");
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	printf("done\n");
	return 0;
}
