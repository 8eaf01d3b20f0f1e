/*
 * page-tls [-n writes]
 *
 * A thread-local variable on the page of the thread's rseq area (with
 * glibc 2.35 and later, which registers one in the thread's control
 * block, near its thread-local variables), for the page backend.
 * Starts one thread, prints one JSON line (pid, the thread's tid, the
 * address of its wpt_tls, and of its rseq area: 0x0 when glibc
 * registered none), waits for SIGUSR1, then the thread writes wpt_tls n
 * times (default 1000) and prints "wrote N"; it waits for another
 * SIGUSR1 and prints "rseq cpu_id ok" when the kernel keeps its rseq
 * area (its cpu_id is a CPU: registered), else "rseq cpu_id V", and
 * "done".
 */
#include <sys/syscall.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "wpt.h"

__thread volatile long wpt_tls;

/* glibc 2.35 and later: where the thread's rseq area is, its size */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static long n = 1000, tid;
static unsigned long tls, area;
static pthread_barrier_t ready, go;

/* The cpu_id of the thread's rseq area: -1 when not registered. */
static int32_t
rseq_cpu(void)
{
	if (&__rseq_size == NULL || __rseq_size == 0)
		return -2;
	return *(volatile int32_t *)((char *)__builtin_thread_pointer() +
	    __rseq_offset + 4);
}

static void *
worker(void *arg)
{
	long i;
	int32_t c;

	(void)arg;
	tid = (long)syscall(SYS_gettid);
	tls = WPT_ADDR(&wpt_tls);
	if (&__rseq_size != NULL && __rseq_size > 0)
		area = WPT_ADDR((char *)__builtin_thread_pointer() +
		    __rseq_offset);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	for (i = 1; i <= n; i++)
		wpt_tls = i;
	printf("wrote %ld\n", n);
	fflush(stdout);
	pthread_barrier_wait(&go);
	c = rseq_cpu();
	if (c >= 0)
		printf("rseq cpu_id ok\n");
	else
		printf("rseq cpu_id %d\n", (int)c);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t th;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		switch (opt) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	wpt_block_go();
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&go, NULL, 2);
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&ready);
	printf("{\"pid\":%d,\"tid\":%ld,\"tls\":\"0x%lx\",\"rseq\":"
	    "\"0x%lx\"}\n", (int)getpid(), tid, tls, area);
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	pthread_join(th, NULL);
	printf("done\n");
	return 0;
}
