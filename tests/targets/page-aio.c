/*
 * page-aio -u|-a [-l] [-n reads]
 *
 * Reads by an asynchronous I/O context into a watched buffer, wpt_abuf
 * (64 bytes, on a page of its own), for the page backend: -u an
 * io_uring (IORING_OP_READ), -a a Linux AIO context (IOCB_CMD_PREAD),
 * both made with the raw system calls (no liburing) before the ready
 * line, so that the context is there at arming (-l: after the go
 * signal, while it is watched).  Prints one JSON line
 * (pid, the buffer's address and length, the counter's), waits for
 * SIGUSR1, then n times (default 20): reads the first 64 bytes of its
 * own file into wpt_abuf through the context and waits for the
 * completion, and adds 1 to wpt_acount.  Then it prints "reads N" (the
 * completions that read 64 bytes), "failed N" (the others, their first
 * error as "error E") and "done", and exits 0 when none failed, else 1.
 */
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/aio_abi.h>
#include <linux/io_uring.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

struct apage {
	unsigned char	 abuf[64];
	volatile long	 acount;
} __attribute__((aligned(4096)));

struct apage wpt_apage;
#define wpt_abuf	wpt_apage.abuf
#define wpt_acount	wpt_apage.acount

/* The ring's parts, as io_uring_setup's offsets place them. */
struct uring {
	int		 fd;
	unsigned	*sq_tail, *sq_mask, *sq_array;
	unsigned	*cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int
uring_open(struct uring *u)
{
	struct io_uring_params p;
	unsigned char *sq, *cq;
	size_t sqlen, cqlen;

	memset(&p, 0, sizeof p);
	if ((u->fd = (int)syscall(SYS_io_uring_setup, 4, &p)) == -1)
		return -1;
	sqlen = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cqlen = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sqlen, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_POPULATE, u->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cqlen, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_POPULATE, u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
	    IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || u->sqes == MAP_FAILED)
		return -1;
	u->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	u->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	u->sq_array = (unsigned *)(sq + p.sq_off.array);
	u->cq_head = (unsigned *)(cq + p.cq_off.head);
	u->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	u->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* One read of len bytes at offset 0 of fd into buf: its result. */
static long
uring_read(struct uring *u, int fd, void *buf, unsigned len)
{
	struct io_uring_sqe *sqe;
	unsigned tail = *u->sq_tail, head;
	long res;

	sqe = &u->sqes[tail & *u->sq_mask];
	memset(sqe, 0, sizeof *sqe);
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uint64_t)(uintptr_t)buf;
	sqe->len = len;
	u->sq_array[tail & *u->sq_mask] = tail & *u->sq_mask;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS,
	    NULL, 0) == -1)
		return -errno;
	head = *u->cq_head;
	if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = u->cqes[head & *u->cq_mask].res;
	__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/* One read through Linux AIO context ctx: its result. */
static long
aio_read(aio_context_t ctx, int fd, void *buf, unsigned len)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;

	memset(&cb, 0, sizeof cb);
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_fildes = (uint32_t)fd;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = len;
	if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
		return -errno;
	if (syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
		return -errno;
	return (long)ev.res;
}

/* The context of mode: 0, or -1 (said). */
static int
open_context(int mode, struct uring *u, aio_context_t *ctx)
{
	if (mode == 'u' && uring_open(u) == -1) {
		printf("io_uring_setup: %s\n", strerror(errno));
		return -1;
	}
	if (mode == 'a' && syscall(SYS_io_setup, 4, ctx) == -1) {
		printf("io_setup: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct uring u = { 0 };
	aio_context_t ctx = 0;
	long n = 20, i, res, ok = 0, bad = 0, first = 0;
	int ch, mode = 0, late = 0, fd;

	while ((ch = getopt(argc, argv, "ualn:")) != -1) {
		switch (ch) {
		case 'u': mode = 'u'; break;
		case 'a': mode = 'a'; break;
		case 'l': late = 1; break;
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	}
	if (mode == 0)
		return 64;
	wpt_block_go();
	if ((fd = open("/proc/self/exe", O_RDONLY)) == -1)
		return 1;
	if (!late && open_context(mode, &u, &ctx) == -1)
		return 2;
	printf("{\"pid\":%d,\"abuf\":\"0x%lx\",\"len\":%zu,"
	    "\"acount\":\"0x%lx\"}\n", (int)getpid(), WPT_ADDR(wpt_abuf),
	    sizeof wpt_abuf, WPT_ADDR(&wpt_acount));
	fflush(stdout);
	wpt_wait_go();
	if (late && open_context(mode, &u, &ctx) == -1)
		return 2;
	for (i = 0; i < n; i++) {
		res = mode == 'u' ? uring_read(&u, fd, wpt_abuf,
		    sizeof wpt_abuf) : aio_read(ctx, fd, wpt_abuf,
		    sizeof wpt_abuf);
		if (res == (long)sizeof wpt_abuf)
			ok++;
		else if (bad++ == 0)
			first = res;
		wpt_acount++;
	}
	printf("reads %ld\nfailed %ld\n", ok, bad);
	if (bad > 0)
		printf("error %s\n", strerror((int)-first));
	printf("done\n");
	return bad > 0;
}
