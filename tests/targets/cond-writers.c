/*
 * cond-writers [-n writes] [-s | -z] [-p] [-c]
 *
 * Prints one JSON line (pid, the cell's address), waits for SIGUSR1,
 * then three threads write wpt_cell n times each in a tight loop, each
 * through its own writer: good_writer, busy_writer and rare_writer.
 * Only rare_writer ever writes 0, once, at its middle write.  -s: a
 * stray instead: the first two threads both write through good_writer,
 * and the third through good_writer but for its middle write, made by
 * stray_writer (0xbad).  -z: rare_writer writes 0 at every write, from
 * the first on, while the other two write other values.  -p: each writer
 * is name_p (good_writer_p, ...), which stores through wpt_cellp, not
 * to wpt_cell by its address.  Prints each writer's count ("good N", ...,
 * "zero N": the writes of 0), then "done" and exits 0.  wpt_cellp points
 * at wpt_cell, and is never written: --follow wpt_cellp+0x0 watches the
 * cell as a chain's leaf.  -c: the write of 0 is the cell's last, once
 * the other two threads are done (rare_writer writes n / 2 + 1 times),
 * and the main thread, spinning reading the cell meanwhile, crashes as
 * soon as it reads it (a store through NULL: SIGSEGV), as a program
 * whose bad write is followed by its crash within microseconds.
 */
#include <pthread.h>
#include <stdint.h>

#include "wpt.h"

volatile long wpt_cell = 1;
volatile long *volatile wpt_cellp = &wpt_cell;
static volatile long *volatile nullp;	/* -c: stored through */

static long nwrites = 1000;
static int stray, zeros, crash;
static pthread_barrier_t go;
static long ngood, nbusy, nrare, nstray, nzero;
static long nfinished;	/* -c: threads done writing */

/* Four writers of the same store, each its own function (and -p's). */
#define WRITER(name) \
	__attribute__((noinline)) void name(long v) { wpt_cell = v; } \
	__attribute__((noinline)) void name##_p(long v) { *wpt_cellp = v; }
WRITER(good_writer)
WRITER(busy_writer)
WRITER(rare_writer)
WRITER(stray_writer)

static void (*const by_addr[4])(long) = { good_writer, busy_writer,
    rare_writer, stray_writer };
static void (*const by_ptr[4])(long) = { good_writer_p, busy_writer_p,
    rare_writer_p, stray_writer_p };
static void (*const *writer)(long) = by_addr;

static void *
worker(void *arg)
{
	long id = (long)(intptr_t)arg, i, n[4] = { 0, 0, 0, 0 }, z = 0;

	pthread_barrier_wait(&go);
	for (i = 0; i < nwrites; i++) {
		if (id == 1 || (stray && (id == 2 || i != nwrites / 2))) {
			writer[0](id * 1000000 + i + 1);
			n[0]++;
		} else if (id == 2) {
			writer[1](id * 1000000 + i + 1);
			n[1]++;
		} else if (stray) {
			writer[3](0xbad);
			n[3]++;
		} else if (i == nwrites / 2 && crash) {
			while (__atomic_load_n(&nfinished, __ATOMIC_SEQ_CST) < 2)
				;
			writer[2](0);
			z++;
			n[2]++;
			break;
		} else {
			writer[2](zeros || i == nwrites / 2 ? 0 :
			    id * 1000000 + i + 1);
			z += zeros || i == nwrites / 2;
			n[2]++;
		}
	}
	__atomic_add_fetch(&nfinished, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ngood, n[0], __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&nbusy, n[1], __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&nrare, n[2], __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&nstray, n[3], __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&nzero, z, __ATOMIC_SEQ_CST);
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t th[3];
	long i;
	int ch;

	while ((ch = getopt(argc, argv, "n:szpc")) != -1) {
		switch (ch) {
		case 'n': nwrites = atol(optarg); break;
		case 'c': crash = 1; break;
		case 'p': writer = by_ptr; break;
		case 's': stray = 1; break;
		case 'z': zeros = 1; break;
		default: return 64;
		}
	}
	wpt_block_go();
	pthread_barrier_init(&go, NULL, 4);
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1));
	printf("{\"pid\":%d,\"cell\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_cell));
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	while (crash && wpt_cell != 0)
		;
	if (crash)
		*nullp = 0;
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("good %ld\nbusy %ld\nrare %ld\nstray %ld\nzero %ld\ndone\n",
	    ngood, nbusy, nrare, nstray, nzero);
	fflush(stdout);
	return 0;
}
