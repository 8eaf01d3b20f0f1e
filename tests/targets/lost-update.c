/*
 * lost-update [-n rounds] [-s]
 *
 * Prints one JSON line (pid, the total's address), waits for SIGUSR1,
 * then two threads take turns adding to wpt_total, n rounds each (default
 * 1000), non-atomically (a load, then a store of it plus their step):
 * small_adder adds 1, big_adder 1000.  In round n / 2 big_adder loads,
 * lets small_adder make its whole add, then stores what it loaded plus
 * 1000: small_adder's update is lost, once, as a non-atomic += on two
 * threads loses one.  Prints "small N", "big N" (each one's adds),
 * "expected E" (what they add up to) and "total T" (wpt_total at the
 * end, E - 1), then "done", and exits 0.  With -s the total is a field
 * of a struct, wpt_acct (16 bytes, the "acct" of the JSON line): its
 * rounds (+0x0), which big_adder's thread counts alone (count_round,
 * nothing lost), then its total (+0x8).
 */
#include <pthread.h>
#include <stdint.h>

#include "wpt.h"

volatile long wpt_total;
struct acct {
	volatile long	 rounds;
	volatile long	 total;
} wpt_acct;
/* the total added to: wpt_total, or with -s wpt_acct.total */
static volatile long *total = &wpt_total;
/* whose turn it is, on a page of its own: not the watched one */
static volatile int turn __attribute__((aligned(4096)));
static long rounds = 1000;

__attribute__((noinline)) static long
load_total(void)
{
	return *total;
}

__attribute__((noinline)) void
small_adder(long v)
{
	*total = v + 1;
}

__attribute__((noinline)) void
big_adder(long v)
{
	*total = v + 1000;
}

__attribute__((noinline)) void
count_round(void)
{
	wpt_acct.rounds = wpt_acct.rounds + 1;
}

/* Waits for turn t; give hands the turn to t. */
static void
take(int t)
{
	while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != t)
		;
}

static void
give(int t)
{
	__atomic_store_n(&turn, t, __ATOMIC_RELEASE);
}

static void *
small(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		take(0);
		small_adder(load_total());
		give(1);
	}
	return NULL;
}

static void *
big(void *arg)
{
	long i, v;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		take(1);
		if (total == &wpt_acct.total)
			count_round();
		v = load_total();
		if (i == rounds / 2) {
			/* small_adder's next add comes between */
			give(0);
			take(1);
			big_adder(v);
			continue;
		}
		big_adder(v);
		give(0);
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t a, b;
	int ch;

	while ((ch = getopt(argc, argv, "n:s")) != -1) {
		switch (ch) {
		case 'n': rounds = atol(optarg); break;
		case 's': total = &wpt_acct.total; break;
		default: return 64;
		}
	}
	if (rounds < 2)
		return 64;
	wpt_block_go();
	printf("{\"pid\":%d,\"total\":\"0x%lx\",\"acct\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(&wpt_total), WPT_ADDR(&wpt_acct));
	fflush(stdout);
	wpt_wait_go();
	pthread_create(&a, NULL, small, NULL);
	pthread_create(&b, NULL, big, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("small %ld\nbig %ld\nexpected %ld\ntotal %ld\ndone\n", rounds,
	    rounds, rounds * 1001, *total);
	fflush(stdout);
	return 0;
}
