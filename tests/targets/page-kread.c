/*
 * page-kread [-n reads]
 *
 * The kernel writing a watched buffer, wpt_kbuf (64 bytes), for the
 * page backend, while other threads make the kernel write elsewhere on
 * its page and take signals.  Prints one JSON line (pid, the buffer's
 * address and length), waits for SIGUSR1, then:
 *   the reader thread read(2)s 64 bytes from a pipe into wpt_kbuf n
 *   times (default 200) with the same bytes each time, then n times
 *   more with new bytes each time;
 *   meanwhile a second thread read(2)s into wpt_kside, its neighbour on
 *   the page, and a third sends itself SIGUSR2 (a handler counts them),
 *   until the reader is done.
 * Then it prints "reader TID", "reads N" (the reader's reads into
 * wpt_kbuf that returned 64), "sum HEX" (of wpt_kbuf) and "done", and
 * exits 0.
 */
#include <sys/syscall.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

struct kpage {
	unsigned char	 kbuf[64];
	unsigned char	 pad[64];
	unsigned char	 kside[64];
} __attribute__((aligned(4096)));

struct kpage wpt_kpage;
#define wpt_kbuf	wpt_kpage.kbuf
#define wpt_kside	wpt_kpage.kside

static long n = 200, reads;
static pid_t reader_tid;
static atomic_int over;
static volatile sig_atomic_t caught;

static void
on_usr2(int sig)
{
	(void)sig;
	caught++;
}

static void *
reader(void *arg)
{
	unsigned char b[64];
	int p[2];
	long i;

	(void)arg;
	reader_tid = (pid_t)syscall(SYS_gettid);
	if (pipe(p) == -1)
		exit(1);
	for (i = 0; i < 2 * n; i++) {
		memset(b, i < n ? 'A' : (int)(i & 0xff), sizeof b);
		if (write(p[1], b, sizeof b) != (ssize_t)sizeof b)
			exit(1);
		if (read(p[0], wpt_kbuf, sizeof b) == (ssize_t)sizeof b)
			reads++;
	}
	atomic_store(&over, 1);
	return NULL;
}

static void *
side(void *arg)
{
	unsigned char b[64];
	int p[2];

	(void)arg;
	if (pipe(p) == -1)
		exit(1);
	memset(b, 'S', sizeof b);
	while (!atomic_load(&over))
		if (write(p[1], b, sizeof b) != (ssize_t)sizeof b ||
		    read(p[0], wpt_kside, sizeof b) != (ssize_t)sizeof b)
			exit(1);
	return NULL;
}

static void *
signalled(void *arg)
{
	pid_t me = (pid_t)syscall(SYS_gettid);

	(void)arg;
	while (!atomic_load(&over))
		syscall(SYS_tgkill, getpid(), me, SIGUSR2);
	return NULL;
}

int
main(int argc, char *argv[])
{
	void *(*fn[3])(void *) = { reader, side, signalled };
	pthread_t th[3];
	uint32_t h = 2166136261u;
	size_t k;
	int ch, i;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		switch (ch) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	}
	signal(SIGUSR2, on_usr2);
	wpt_block_go();
	printf("{\"pid\":%d,\"kbuf\":\"0x%lx\",\"len\":%zu}\n", (int)getpid(),
	    WPT_ADDR(wpt_kbuf), sizeof wpt_kbuf);
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, fn[i], NULL);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (k = 0; k < sizeof wpt_kbuf; k++)
		h = (h ^ wpt_kbuf[k]) * 16777619u;
	printf("reader %d\nreads %ld\nsum %08x\ndone\n", (int)reader_tid,
	    reads, (unsigned)h);
	fflush(stdout);
	return 0;
}
