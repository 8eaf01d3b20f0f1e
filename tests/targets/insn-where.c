/*
 * insn-where
 *
 * One plain store (wpt_where_store) that writes an address of each kind
 * a report names: an element of a static array (wpt_where_arr[3]), a
 * heap block (one long per thread), an anonymous mapping of its own (one
 * long per thread), the thread's own stack (a local)
 * and its own TLS copy (wpt_where_tls, through a pointer, not fs), from
 * the main thread and one other, each address once, on SIGUSR1.  The
 * ready line: pid, store, arr, anon; after the writes one line per
 * thread: tid, its heap and anon longs, its stack local, its TLS copy
 * and its fs base; then
 * "done".
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include <pthread.h>

#include "wpt.h"

long wpt_where_arr[8];
__thread long wpt_where_tls;

static long *heap, *anon;
static pthread_barrier_t go;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) static void
put(volatile long *p, long v)
{
	__asm__ volatile(".globl wpt_where_store\n"
	    "wpt_where_store: movq %1, (%0)"
	    : : "r" (p), "r" (v) : "memory");
}

static void
writer(int k)
{
	volatile long local = 0;
	unsigned long fs;
	pid_t tid = gettid();

	pthread_barrier_wait(&go);
	put(&wpt_where_arr[3], tid);
	put(&heap[k], tid);
	put(&anon[k], tid);
	put(&local, tid);
	put(&wpt_where_tls, tid);
	__asm__ volatile("movq %%fs:0, %0" : "=r" (fs));
	pthread_mutex_lock(&out);
	printf("{\"tid\":%d,\"heap\":\"0x%lx\",\"anon\":\"0x%lx\","
	    "\"stack\":\"0x%lx\",\"tls\":\"0x%lx\",\"fs\":\"0x%lx\"}\n",
	    (int)tid, WPT_ADDR(&heap[k]), WPT_ADDR(&anon[k]),
	    WPT_ADDR(&local), WPT_ADDR(&wpt_where_tls), fs);
	fflush(stdout);
	pthread_mutex_unlock(&out);
}

static void *
run(void *arg)
{
	writer((int)(long)arg);
	return NULL;
}

int
main(void)
{
	extern char wpt_where_store[];
	pthread_t other;

	if ((heap = calloc(2, sizeof *heap)) == NULL ||
	    (anon = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return 1;
	wpt_block_go();
	pthread_barrier_init(&go, NULL, 2);
	pthread_create(&other, NULL, run, (void *)1);
	printf("{\"pid\":%d,\"store\":\"0x%lx\",\"arr\":\"0x%lx\","
	    "\"anon\":\"0x%lx\"}\n", (int)getpid(), WPT_ADDR(wpt_where_store),
	    WPT_ADDR(wpt_where_arr), WPT_ADDR(anon));
	fflush(stdout);
	wpt_wait_go();
	writer(0);
	pthread_join(other, NULL);
	printf("done\n");
	fflush(stdout);
	return 0;
}
