/*
 * page-array [-n writes] [-s seed] [-t threads] [-w]
 *
 * A 64 KiB array, wpt_big (16 pages, page-aligned), written at random
 * offsets for the page backend.  Prints one JSON line (pid, the
 * array's address and length), waits for SIGUSR1, then each thread
 * (default 1) makes n writes (default 1000) at offsets drawn from its
 * own generator (seeded with seed + the thread's number; default seed
 * 1), each of a width drawn with it, aligned to that width:
 *   write_u8, write_u16, write_u32, write_u64  (one store each)
 * Then it prints the counts of each width (its offset class), the
 * writes per 4 KiB page, the total, and a checksum of the array (with
 * one thread the same in every run with the same options, watched or
 * not; threads may race for the same bytes):
 *   u8 writes N / u16 writes N / u32 writes N / u64 writes N
 *   page P writes N          (for each of the 16 pages)
 *   total writes N
 *   sum HEX
 * then "done"; with -w it waits for another SIGUSR1 before exiting 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

#define BIG	65536
#define NPAGES	(BIG / 4096)

unsigned char wpt_big[BIG] __attribute__((aligned(4096)));

struct counts {
	long	 id;		/* the thread's number, from 0 */
	long	 width[4];
	long	 page[NPAGES];
};

static long nwrites = 1000, seed = 1;
static pthread_barrier_t go;

__attribute__((noinline)) static void
write_u8(size_t off, uint64_t v)
{
	*(volatile uint8_t *)(wpt_big + off) = (uint8_t)v;
}

__attribute__((noinline)) static void
write_u16(size_t off, uint64_t v)
{
	*(volatile uint16_t *)(wpt_big + off) = (uint16_t)v;
}

__attribute__((noinline)) static void
write_u32(size_t off, uint64_t v)
{
	*(volatile uint32_t *)(wpt_big + off) = (uint32_t)v;
}

__attribute__((noinline)) static void
write_u64(size_t off, uint64_t v)
{
	*(volatile uint64_t *)(wpt_big + off) = v;
}

static void *
writer(void *arg)
{
	struct counts *c = arg;
	uint64_t x = (uint64_t)(seed + c->id);
	size_t off, w;
	long i;

	pthread_barrier_wait(&go);
	for (i = 0; i < nwrites; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		w = (size_t)(x >> 62);			/* 1 << w bytes */
		off = (size_t)(x >> 16) % BIG & ~(((size_t)1 << w) - 1);
		switch (w) {
		case 0: write_u8(off, x); break;
		case 1: write_u16(off, x); break;
		case 2: write_u32(off, x); break;
		default: write_u64(off, x); break;
		}
		c->width[w]++;
		c->page[off / 4096]++;
	}
	return NULL;
}

static void
report(const struct counts *c, long nthreads)
{
	static const char *name[4] = { "u8", "u16", "u32", "u64" };
	uint32_t h = 2166136261u;
	long i, t, n, total = 0;

	for (i = 0; i < 4; i++) {
		for (n = 0, t = 0; t < nthreads; t++)
			n += c[t].width[i];
		printf("%s writes %ld\n", name[i], n);
	}
	for (i = 0; i < NPAGES; i++) {
		for (n = 0, t = 0; t < nthreads; t++)
			n += c[t].page[i];
		printf("page %ld writes %ld\n", i, n);
		total += n;
	}
	printf("total writes %ld\n", total);
	for (i = 0; i < BIG; i++)
		h = (h ^ wpt_big[i]) * 16777619u;
	printf("sum %08x\n", (unsigned)h);
}

int
main(int argc, char *argv[])
{
	pthread_t th[16];
	struct counts c[16];
	long nthreads = 1, i;
	int ch, waitend = 0;

	while ((ch = getopt(argc, argv, "n:s:t:w")) != -1) {
		switch (ch) {
		case 'n': nwrites = atol(optarg); break;
		case 's': seed = atol(optarg); break;
		case 't': nthreads = atol(optarg); break;
		case 'w': waitend = 1; break;
		default: return 64;
		}
	}
	if (nthreads < 1 || nthreads > 16)
		return 64;
	memset(c, 0, sizeof c);
	wpt_block_go();
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		c[i].id = i;
		pthread_create(&th[i], NULL, writer, &c[i]);
	}
	printf("{\"pid\":%d,\"big\":\"0x%lx\",\"len\":%d,\"threads\":%ld}\n",
	    (int)getpid(), WPT_ADDR(wpt_big), BIG, nthreads);
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	report(c, nthreads);
	printf("done\n");
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
