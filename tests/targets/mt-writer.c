/*
 * mt-writer [-t threads] [-n writes] [-L late_writes] [-s] [-w]
 *           [-c iterations] [-r] [-i initial]
 *
 * Prints one JSON line (pid, addresses), waits for SIGUSR1, then:
 * each of the threads (created before the ready line) writes wpt_counter
 * n times; when they are done, a late thread is created that writes it
 * late_writes times.  -s writes the same value every time.  -c: then
 * the main thread computes a checksum in wpt_counter over that many
 * iterations and prints "sum HEX" (the same in every run, watched or
 * not).  -r: then the kernel writes wpt_counter, with read(2) of the
 * first 8 bytes of the program's own file.  -w waits for another
 * SIGUSR1 before exiting.  -i: wpt_counter holds initial before the
 * ready line (else 0).  Prints "done" and exits 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

volatile long wpt_counter;
volatile int wpt_score = 7;
volatile short wpt_small;
volatile unsigned char wpt_byte;
const long wpt_const = 42;
long wpt_array[4];

static long nwrites = 1000;
static int same;
static pthread_barrier_t go;

__attribute__((noinline)) static void
write_counter(long v)
{
	wpt_counter = v;
}

static void *
worker(void *arg)
{
	long id = (long)(intptr_t)arg, i;

	pthread_barrier_wait(&go);
	for (i = 0; i < nwrites; i++)
		write_counter(same ? 1 : id * 1000000 + i);
	return NULL;
}

static void *
late(void *arg)
{
	long n = (long)(intptr_t)arg, i;

	for (i = 0; i < n; i++)
		write_counter(same ? 1 : 900000000 + i);
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t th[64], lt;
	long nthreads = 2, nlate = 0, ncompute = 0, i;
	int ch, waitend = 0, kread = 0, fd;

	while ((ch = getopt(argc, argv, "t:n:L:swc:ri:")) != -1) {
		switch (ch) {
		case 't': nthreads = atol(optarg); break;
		case 'n': nwrites = atol(optarg); break;
		case 'L': nlate = atol(optarg); break;
		case 's': same = 1; break;
		case 'w': waitend = 1; break;
		case 'c': ncompute = atol(optarg); break;
		case 'r': kread = 1; break;
		case 'i': wpt_counter = atol(optarg); break;
		default: return 64;
		}
	}
	if (nthreads < 0 || nthreads > 64)
		return 64;
	wpt_block_go();
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1));
	printf("{\"pid\":%d,\"threads\":%ld,\"counter\":\"0x%lx\","
	    "\"score\":\"0x%lx\",\"small\":\"0x%lx\",\"byte\":\"0x%lx\","
	    "\"const\":\"0x%lx\",\"array\":\"0x%lx\",\"stack\":\"0x%lx\"}\n",
	    (int)getpid(), nthreads, WPT_ADDR(&wpt_counter),
	    WPT_ADDR(&wpt_score), WPT_ADDR(&wpt_small), WPT_ADDR(&wpt_byte),
	    WPT_ADDR(&wpt_const), WPT_ADDR(wpt_array), WPT_ADDR(&ch));
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (nlate > 0) {
		pthread_create(&lt, NULL, late, (void *)(intptr_t)nlate);
		pthread_join(lt, NULL);
	}
	if (ncompute > 0) {
		unsigned long x = 1;

		for (i = 0; i < ncompute; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			wpt_counter = (long)(x ^ (unsigned long)wpt_counter);
		}
		printf("sum %lx\n", (unsigned long)wpt_counter);
	}
	if (kread) {
		if ((fd = open("/proc/self/exe", O_RDONLY)) == -1 ||
		    read(fd, (void *)&wpt_counter, 8) != 8)
			return 1;
		close(fd);
	}
	printf("done %ld\n", wpt_counter);
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
