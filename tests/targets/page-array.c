/*
 * page-array [-n writes] [-s seed] [-t threads] [-L] [-r] [-w]
 *
 * A 64 KiB array, wpt_big (16 pages, page-aligned), written at random
 * offsets for the page backend.  Prints one JSON line (pid, the
 * array's address and length), waits for SIGUSR1, then each thread
 * (default 1) makes n writes (default 1000) at offsets drawn from its
 * own generator (seeded with seed + the thread's number; default seed
 * 1), each of a width drawn with it, aligned to that width:
 *   write_u8, write_u16, write_u32, write_u64  (one store each)
 * With -r, once the writes are made, the main thread read(2)s
 * READ_LEN (512) bytes from a pipe into the array at READ_AT (0x1f00,
 * across pages 1 and 2), byte i being (7 * i + 3) & 0xff.
 * Then, with -L, it logs every write, in the order of each thread's
 * writes (one thread: as they were made), where it landed and the
 * bytes it left (hex, memory order):
 *   at 0xOFFSET HEX
 * and with -r the read's, its first 256 bytes:
 *   read 0xOFFSET LEN HEX
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
#define READ_AT		0x1f00
#define READ_LEN	512

unsigned char wpt_big[BIG] __attribute__((aligned(4096)));

struct logged {
	uint32_t	 off;
	uint32_t	 w;		/* 1 << w bytes */
	uint64_t	 v;
};

struct counts {
	long	 id;		/* the thread's number, from 0 */
	long	 width[4];
	long	 page[NPAGES];
	struct logged *log;	/* -L: each write */
};

static long nwrites = 1000, seed = 1;
static int logged;
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
		if (logged)
			c->log[i] = (struct logged){ (uint32_t)off,
			    (uint32_t)w, x };
	}
	return NULL;
}

/* n bytes at b in hex */
static void
hex(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* -L: the writes of each thread, as made: offset and bytes */
static void
print_log(const struct counts *c, long nthreads)
{
	const struct logged *e;
	unsigned char b[8];
	uint64_t v;
	long t, i;
	size_t w, k;

	for (t = 0; t < nthreads; t++)
		for (i = 0; i < nwrites; i++) {
			e = &c[t].log[i];
			w = (size_t)1 << e->w;
			for (v = e->v, k = 0; k < w; k++, v >>= 8)
				b[k] = (unsigned char)v;
			printf("at 0x%x ", (unsigned)e->off);
			hex(b, w);
			printf("\n");
		}
}

/* -r: READ_LEN bytes read(2) from a pipe into the array at READ_AT */
static void
kernel_read(void)
{
	unsigned char b[READ_LEN];
	int p[2];
	size_t i;

	for (i = 0; i < sizeof b; i++)
		b[i] = (unsigned char)(7 * i + 3);
	if (pipe(p) == -1 || write(p[1], b, sizeof b) != (ssize_t)sizeof b ||
	    read(p[0], wpt_big + READ_AT, sizeof b) != (ssize_t)sizeof b)
		exit(1);
	if (logged) {
		printf("read 0x%x %d ", READ_AT, READ_LEN);
		hex(wpt_big + READ_AT, 256);
		printf("\n");
	}
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
	int ch, waitend = 0, kread = 0;

	while ((ch = getopt(argc, argv, "n:s:t:Lrw")) != -1) {
		switch (ch) {
		case 'n': nwrites = atol(optarg); break;
		case 's': seed = atol(optarg); break;
		case 't': nthreads = atol(optarg); break;
		case 'L': logged = 1; break;
		case 'r': kread = 1; break;
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
		if (logged && (c[i].log = calloc((size_t)nwrites,
		    sizeof *c[i].log)) == NULL)
			return 1;
		pthread_create(&th[i], NULL, writer, &c[i]);
	}
	printf("{\"pid\":%d,\"big\":\"0x%lx\",\"len\":%d,\"threads\":%ld}\n",
	    (int)getpid(), WPT_ADDR(wpt_big), BIG, nthreads);
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (logged)
		print_log(c, nthreads);
	if (kread)
		kernel_read();
	report(c, nthreads);
	printf("done\n");
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
