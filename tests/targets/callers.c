/*
 * callers [-a n] [-b n] [-c n] [-i n] [-v n]
 *
 * Prints one JSON line (pid, counter: where wpt_counter is) and waits
 * for SIGUSR1.  Then one setter,
 * set_counter, writes wpt_counter: called n times from each of
 * caller_a, caller_b and caller_c (defaults 3, 5, 7), all from main,
 * and from caller_i, inlined into main (-i, default 0); caller_a is
 * called n times more through via, which main calls (-v, default 0):
 * its chains then differ past caller_a;
 * and libc's memcpy writes wpt_buf, called from copy_a (a times) and
 * copy_b (b times).  Then deep(20) calls itself down to a write.
 * Prints "ns T" (the time all that took) and "done", and exits.
 */
#include <string.h>
#include <time.h>

#include "wpt.h"

volatile long wpt_counter;
long wpt_buf[2];
volatile long wpt_deep;

static const long src[2] = { 1, 2 };
static void *(*volatile copy)(void *, const void *, size_t) = memcpy;

__attribute__((noinline)) void
set_counter(long v)
{
	wpt_counter = v;
}

__attribute__((noinline)) void
caller_a(void)
{
	set_counter(1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
caller_b(void)
{
	set_counter(2);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
caller_c(void)
{
	set_counter(3);
	__asm__ volatile("" ::: "memory");
}

/* inlined into main: the return address is main's */
static inline __attribute__((always_inline)) void
caller_i(void)
{
	set_counter(4);
	__asm__ volatile("" ::: "memory");
}

/* caller_a's other caller: the chain past caller_a is via's */
__attribute__((noinline)) void
via(long n)
{
	long i;

	for (i = 0; i < n; i++)
		caller_a();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
copy_a(void)
{
	copy(wpt_buf, src, sizeof wpt_buf);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
copy_b(void)
{
	copy(wpt_buf, src, sizeof wpt_buf);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
deep(int n)
{
	if (n == 0)
		wpt_deep = 1;
	else
		deep(n - 1);
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	long a = 3, b = 5, c = 7, d = 0, v = 0, i;
	int opt;

	while ((opt = getopt(argc, argv, "a:b:c:i:v:")) != -1)
		switch (opt) {
		case 'a': a = atol(optarg); break;
		case 'b': b = atol(optarg); break;
		case 'c': c = atol(optarg); break;
		case 'i': d = atol(optarg); break;
		case 'v': v = atol(optarg); break;
		default: return 64;
		}
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < a; i++)
		caller_a();
	for (i = 0; i < b; i++)
		caller_b();
	for (i = 0; i < c; i++)
		caller_c();
	for (i = 0; i < d; i++)
		caller_i();
	via(v);
	for (i = 0; i < a; i++)
		copy_a();
	for (i = 0; i < b; i++)
		copy_b();
	deep(20);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns %lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
	    t1.tv_nsec - t0.tv_nsec);
	printf("done\n");
	return 0;
}
