/*
 * page-rw [-n rounds] [-k] [-p] [-u]
 *
 * Reads and writes of a watched struct for -a rw: wpt_rw (two ints,
 * one per thread, 8 bytes) on a page of its own, with a neighbour
 * (wpt_rw_nb, past it on the same page).  Prints one JSON line (pid,
 * the struct's and the neighbour's addresses), waits for SIGUSR1, then
 * two threads run n rounds (default 1000) each, in tight loops, of:
 *   rw_write:  movl %reg, (field)       a write
 *   rw_load:   movl (field), %reg       a read
 *   rw_cmp:    cmpl $imm, (field)       a read
 *   rw_inc:    lock incl (field)        a write (it reads too: one
 *                                       access, a write, as ptrace says)
 *   rw_nb:     a read and a write of the neighbour (no access to wpt_rw)
 * Each thread checks that its loads read what it stored.  Prints
 * "reads R writes W bad B" (the counts over both threads, B the loads
 * that read a wrong value); with -k the kernel then reads the struct,
 * write(2) and writev(2) of its 8 bytes into a pipe, and prints
 * "kernel read W V same S" (what each returned, S 1 when the pipe gave
 * back the struct's bytes twice), with no load of the struct of its own;
 * with -p it makes the page read-only (mprotect) and reads its field 10
 * times, printing "read-only sum S"; with -u it maps a shared page over
 * it (mmap MAP_SHARED | MAP_FIXED) and writes its field 10 times,
 * printing "shared writes 10".  Then "done".
 */
#include <sys/mman.h>
#include <sys/uio.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

struct rw {
	volatile int	 f[2];
	char		 pad[56];
	volatile long	 nb;
	char		 rest[4096 - 72];	/* the page its own */
};

struct rw wpt_rw __attribute__((aligned(4096)));

static long rounds = 1000;
static long bad[2];

__attribute__((noinline)) static void
rw_write(volatile int *f, int v)
{
	__asm__ volatile("movl %1, %0" : "=m"(*f) : "r"(v));
}

__attribute__((noinline)) static int
rw_load(volatile int *f)
{
	int v;

	__asm__ volatile("movl %1, %0" : "=r"(v) : "m"(*f));
	return v;
}

__attribute__((noinline)) static int
rw_cmp(volatile int *f)
{
	unsigned char eq;

	__asm__ volatile("cmpl $7, %1\n\tsete %0" : "=r"(eq) : "m"(*f) :
	    "cc");
	return eq;
}

__attribute__((noinline)) static void
rw_inc(volatile int *f)
{
	__asm__ volatile("lock incl %0" : "+m"(*f) : : "cc");
}

__attribute__((noinline)) static void
rw_nb(void)
{
	long v;

	__asm__ volatile("movq %1, %0" : "=r"(v) : "m"(wpt_rw.nb));
	__asm__ volatile("movq %1, %0" : "=m"(wpt_rw.nb) : "r"(v + 1));
}

static void *
worker(void *arg)
{
	long k = (long)arg, i;
	volatile int *f = &wpt_rw.f[k];

	for (i = 0; i < rounds; i++) {
		rw_write(f, (int)i);
		if (rw_load(f) != (int)i)
			bad[k]++;
		rw_inc(f);
		if (rw_cmp(f) != (i + 1 == 7))
			bad[k]++;
		rw_nb();
	}
	return NULL;
}

/* The kernel reads the struct: write(2), writev(2) (an iovec). */
static void
kernel_reads(void)
{
	struct iovec iov = { (void *)wpt_rw.f, sizeof wpt_rw.f };
	/* what each field holds by now, known without a load of it */
	int want[4] = { (int)rounds, (int)rounds, (int)rounds, (int)rounds };
	int back[4];
	ssize_t a, b;
	int p[2];

	if (pipe(p) == -1)
		exit(1);
	a = write(p[1], (void *)wpt_rw.f, sizeof wpt_rw.f);
	b = writev(p[1], &iov, 1);
	printf("kernel read %zd %zd same %d\n", a, b,
	    read(p[0], back, sizeof back) == sizeof back &&
	    memcmp(back, want, sizeof want) == 0);
}

int
main(int argc, char *argv[])
{
	pthread_t th[2];
	long k;
	int ch, kern = 0, ro = 0, shared = 0;
	long sum = 0;

	while ((ch = getopt(argc, argv, "n:kpu")) != -1)
		if (ch == 'n')
			rounds = atol(optarg);
		else if (ch == 'k')
			kern = 1;
		else if (ch == 'p')
			ro = 1;
		else if (ch == 'u')
			shared = 1;
	wpt_block_go();
	printf("{\"pid\":%d,\"rw\":\"0x%lx\",\"neighbour\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(&wpt_rw), WPT_ADDR(&wpt_rw.nb));
	fflush(stdout);
	wpt_wait_go();
	for (k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, worker, (void *)k);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	printf("reads %ld writes %ld bad %ld\n", 2 * 2 * rounds, 2 * 2 * rounds,
	    bad[0] + bad[1]);
	if (kern)
		kernel_reads();
	if (ro) {
		if (mprotect(&wpt_rw, sizeof wpt_rw, PROT_READ) == -1)
			exit(1);
		for (k = 0; k < 10; k++)
			sum += rw_load(&wpt_rw.f[0]);
		printf("read-only sum %ld\n", sum);
	}
	if (shared) {
		if (mmap(&wpt_rw, sizeof wpt_rw, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			exit(1);
		for (k = 0; k < 10; k++)
			rw_write(&wpt_rw.f[0], (int)k);
		printf("shared writes 10\n");
	}
	printf("done\n");
	return 0;
}
