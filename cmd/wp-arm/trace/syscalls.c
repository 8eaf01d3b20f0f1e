/*
 * The user memory the system calls of x86-64 and arm64 write, from their
 * arguments.  A call not described here is unknown, not innocent.
 */
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <limits.h>
#include <stddef.h>
#include <unistd.h>

#include "syscalls.h"
#include "util.h"

/*
 * A buffer: argument ptr, and its size: a constant or argument len;
 * sure: when the call certainly writes it (else it only may).
 */
struct out {
	signed char	 ptr;		/* argument index, -1: none */
	signed char	 len;		/* argument index, -1: size */
	signed char	 mul;		/* len is a count of mul bytes */
	unsigned short	 size;
	signed char	 sure;		/* S_* */
};

enum {
	S_MAY,		/* the call may write it */
	S_RET,		/* its first (return value) bytes, on success */
	S_OK		/* all of it, on success (a return of 0 or more) */
};

struct call {
	int		 nr;
	struct out	 o[3];
};

#define NONE		{ -1, -1, 0, 0, S_MAY }
#define FIXED(p, n)	{ p, -1, 0, n, S_MAY }
#define BUF(p, l)	{ p, l, 1, 0, S_MAY }
#define ARR(p, l, m)	{ p, l, m, 0, S_MAY }
#define RBUF(p, l)	{ p, l, 1, 0, S_RET }	/* read(2): ret bytes */
#define OFIXED(p, n)	{ p, -1, 0, n, S_OK }	/* stat(2): all n */
/* readv(2): an array of struct iovec, written in turn up to ret bytes */
/* the sizes of the machine's struct stat and struct epoll_event */
#define STAT		((unsigned short)sizeof(struct stat))
#define EPEV		((unsigned short)sizeof(struct epoll_event))
#define IOV		{ -2, -1, 0, 0, S_RET }

static const struct call calls[] = {
	{ SYS_read,		{ RBUF(1, 2), NONE, NONE } },
	{ SYS_pread64,		{ RBUF(1, 2), NONE, NONE } },
	{ SYS_recvfrom,		{ RBUF(1, 2), FIXED(4, 128), FIXED(5, 4) } },
	{ SYS_getrandom,	{ RBUF(0, 1), NONE, NONE } },
	{ SYS_nanosleep,	{ FIXED(1, 16), NONE, NONE } },
	{ SYS_clock_nanosleep,	{ FIXED(3, 16), NONE, NONE } },
	{ SYS_clock_gettime,	{ OFIXED(1, 16), NONE, NONE } },
	{ SYS_clock_getres,	{ FIXED(1, 16), NONE, NONE } },
	{ SYS_gettimeofday,	{ FIXED(0, 16), FIXED(1, 8), NONE } },
	{ SYS_wait4,		{ FIXED(1, 4), FIXED(3, 144), NONE } },
	{ SYS_waitid,		{ FIXED(2, 128), FIXED(4, 144), NONE } },
	{ SYS_pipe2,		{ OFIXED(0, 8), NONE, NONE } },
	{ SYS_socketpair,	{ FIXED(3, 8), NONE, NONE } },
	{ SYS_futex,		{ FIXED(0, 4), FIXED(4, 4), NONE } },
	{ SYS_rt_sigaction,	{ FIXED(2, 152), NONE, NONE } },
	{ SYS_rt_sigprocmask,	{ FIXED(2, 8), NONE, NONE } },
	{ SYS_rt_sigpending,	{ FIXED(0, 8), NONE, NONE } },
	{ SYS_rt_sigtimedwait,	{ FIXED(1, 128), NONE, NONE } },
	{ SYS_sigaltstack,	{ FIXED(1, 24), NONE, NONE } },
	{ SYS_fstat,		{ OFIXED(1, STAT), NONE, NONE } },
	{ SYS_newfstatat,	{ OFIXED(2, STAT), NONE, NONE } },
	{ SYS_statx,		{ FIXED(4, 256), NONE, NONE } },
	{ SYS_statfs,		{ FIXED(1, 120), NONE, NONE } },
	{ SYS_fstatfs,		{ FIXED(1, 120), NONE, NONE } },
	{ SYS_readv,		{ IOV, NONE, NONE } },
	{ SYS_preadv,		{ IOV, NONE, NONE } },
	{ SYS_preadv2,		{ IOV, NONE, NONE } },
	{ SYS_getdents64,	{ BUF(1, 2), NONE, NONE } },
	{ SYS_uname,		{ OFIXED(0, 390), NONE, NONE } },
	{ SYS_sysinfo,		{ OFIXED(0, 112), NONE, NONE } },
	{ SYS_times,		{ FIXED(0, 32), NONE, NONE } },
	{ SYS_getrusage,	{ FIXED(1, 144), NONE, NONE } },
	{ SYS_getrlimit,	{ FIXED(1, 16), NONE, NONE } },
	{ SYS_prlimit64,	{ FIXED(3, 16), NONE, NONE } },
	{ SYS_epoll_pwait,	{ ARR(1, 2, EPEV), NONE, NONE } },
	{ SYS_ppoll,		{ ARR(0, 1, 8), FIXED(2, 16), NONE } },
	{ SYS_pselect6,		{ FIXED(1, 128), FIXED(2, 128), FIXED(3, 128) } },
	{ SYS_accept,		{ FIXED(1, 128), FIXED(2, 4), NONE } },
	{ SYS_accept4,		{ FIXED(1, 128), FIXED(2, 4), NONE } },
	{ SYS_getsockname,	{ FIXED(1, 128), FIXED(2, 4), NONE } },
	{ SYS_getpeername,	{ FIXED(1, 128), FIXED(2, 4), NONE } },
	{ SYS_getsockopt,	{ FIXED(3, 256), FIXED(4, 4), NONE } },
	{ SYS_getcwd,		{ BUF(0, 1), NONE, NONE } },
	{ SYS_readlinkat,	{ BUF(2, 3), NONE, NONE } },
	{ SYS_sched_getaffinity, { BUF(2, 1), NONE, NONE } },
	{ SYS_sched_getparam,	{ FIXED(1, 4), NONE, NONE } },
	{ SYS_getitimer,	{ FIXED(1, 32), NONE, NONE } },
	{ SYS_setitimer,	{ FIXED(2, 32), NONE, NONE } },
	{ SYS_timer_gettime,	{ FIXED(1, 32), NONE, NONE } },
	{ SYS_timerfd_gettime,	{ FIXED(1, 32), NONE, NONE } },
	{ SYS_clone,		{ FIXED(2, 4), FIXED(3, 4), NONE } },
	{ SYS_set_robust_list,	{ NONE, NONE, NONE } },
	{ SYS_get_robust_list,	{ FIXED(1, 8), FIXED(2, 8), NONE } },
	{ SYS_getresuid,	{ FIXED(0, 4), FIXED(1, 4), FIXED(2, 4) } },
	{ SYS_getresgid,	{ FIXED(0, 4), FIXED(1, 4), FIXED(2, 4) } },
	{ SYS_getgroups,	{ ARR(1, 0, 4), NONE, NONE } },
	/* these change what is mapped, so what the bytes read */
	{ SYS_mmap,		{ BUF(0, 1), NONE, NONE } },
	{ SYS_munmap,		{ BUF(0, 1), NONE, NONE } },
	{ SYS_mremap,		{ BUF(0, 1), BUF(4, 2), NONE } },
	{ SYS_madvise,		{ BUF(0, 1), NONE, NONE } },
	{ SYS_brk,		{ NONE, NONE, NONE } },
	/* writing none of the caller's memory */
	{ SYS_write,		{ NONE, NONE, NONE } },
	{ SYS_pwrite64,		{ NONE, NONE, NONE } },
	{ SYS_writev,		{ NONE, NONE, NONE } },
	{ SYS_openat,		{ NONE, NONE, NONE } },
	{ SYS_close,		{ NONE, NONE, NONE } },
	{ SYS_lseek,		{ NONE, NONE, NONE } },
	{ SYS_mprotect,		{ NONE, NONE, NONE } },
	{ SYS_sched_yield,	{ NONE, NONE, NONE } },
	{ SYS_getpid,		{ NONE, NONE, NONE } },
	{ SYS_gettid,		{ NONE, NONE, NONE } },
	{ SYS_kill,		{ NONE, NONE, NONE } },
	{ SYS_tgkill,		{ NONE, NONE, NONE } },
	{ SYS_sendto,		{ NONE, NONE, NONE } },
	{ SYS_exit,		{ NONE, NONE, NONE } },
	{ SYS_exit_group,	{ NONE, NONE, NONE } },
	{ SYS_rt_sigreturn,	{ NONE, NONE, NONE } },
	/* waiting, for a signal or a while, with no buffer: a change while
	   a thread waits in one is another process's (shared memory) */
	{ SYS_rt_sigsuspend,	{ NONE, NONE, NONE } },
	{ SYS_getppid,		{ NONE, NONE, NONE } },
	{ SYS_getuid,		{ NONE, NONE, NONE } },
	{ SYS_geteuid,		{ NONE, NONE, NONE } },
	{ SYS_getgid,		{ NONE, NONE, NONE } },
	{ SYS_getegid,		{ NONE, NONE, NONE } },
	{ SYS_tkill,		{ NONE, NONE, NONE } },
	{ SYS_dup,		{ NONE, NONE, NONE } },
	{ SYS_dup3,		{ NONE, NONE, NONE } },
	{ SYS_fsync,		{ NONE, NONE, NONE } },
	{ SYS_fdatasync,	{ NONE, NONE, NONE } },
	{ SYS_sendmsg,		{ NONE, NONE, NONE } },
	{ SYS_connect,		{ NONE, NONE, NONE } },
	{ SYS_bind,		{ NONE, NONE, NONE } },
	{ SYS_listen,		{ NONE, NONE, NONE } },
	{ SYS_shutdown,		{ NONE, NONE, NONE } },
#ifdef SYS_open
	/* the calls x86-64 keeps from before the generic table (arm64 has
	   only their *at and p* forms, above) */
	{ SYS_time,		{ FIXED(0, 8), NONE, NONE } },
	{ SYS_pipe,		{ OFIXED(0, 8), NONE, NONE } },
	{ SYS_stat,		{ OFIXED(1, STAT), NONE, NONE } },
	{ SYS_lstat,		{ OFIXED(1, STAT), NONE, NONE } },
	{ SYS_getdents,		{ BUF(1, 2), NONE, NONE } },
	{ SYS_epoll_wait,	{ ARR(1, 2, EPEV), NONE, NONE } },
	{ SYS_poll,		{ ARR(0, 1, 8), NONE, NONE } },
	{ SYS_select,		{ FIXED(1, 128), FIXED(2, 128), FIXED(3, 128) } },
	{ SYS_readlink,		{ BUF(1, 2), NONE, NONE } },
	{ SYS_arch_prctl,	{ FIXED(1, 8), NONE, NONE } },
	{ SYS_open,		{ NONE, NONE, NONE } },
	{ SYS_pause,		{ NONE, NONE, NONE } },
	{ SYS_alarm,		{ NONE, NONE, NONE } },
	{ SYS_dup2,		{ NONE, NONE, NONE } },
#endif
};

static int
overlaps(uint64_t p, uint64_t n, uint64_t lo, uint64_t hi)
{
	return p != 0 && n != 0 && p < hi && lo < p + n;
}

static const struct call *
lookup(long nr)
{
	if (nr < 0 || nr > INT_MAX)
		return NULL;
	return wp_find_int(calls, sizeof calls / sizeof calls[0],
	    sizeof calls[0], offsetof(struct call, nr), (int)nr);
}

/*
 * Whether [p, p + n) reaches [lo, hi); then with span (not NULL), the
 * part it reaches added to span[0..1] (the hull; empty: equal).
 */
static int
meet(uint64_t p, uint64_t n, uint64_t lo, uint64_t hi, uint64_t *span)
{
	uint64_t a, b;

	if (!overlaps(p, n, lo, hi))
		return 0;
	if (span == NULL)
		return 1;
	a = p > lo ? p : lo;
	b = p + n < hi && p + n > p ? p + n : hi;
	if (span[0] == span[1] || a < span[0])
		span[0] = a;
	if (b > span[1])
		span[1] = b;
	return 1;
}

/*
 * The iovec array of a readv(2) (a[1], a[2] entries, read through
 * memfd): SC_YES when the first ret bytes it takes (all it may take:
 * ret -1) reach [lo, hi), with span (not NULL) the hull of what they
 * reach; SC_UNKNOWN when the array cannot be read.
 */
static int
iov_writes(int memfd, const uint64_t a[6], int64_t ret, uint64_t lo,
    uint64_t hi, uint64_t *span)
{
	uint64_t iov[2], i, left = ret < 0 ? UINT64_MAX : (uint64_t)ret, n;
	int found = 0;

	for (i = 0; i < a[2] && i < 1024 && left > 0; i++) {
		if (pread(memfd, iov, sizeof iov, (off_t)(a[1] + i * 16)) !=
		    (ssize_t)sizeof iov)
			return found ? SC_YES : SC_UNKNOWN;
		n = iov[1] < left ? iov[1] : left;
		if (meet(iov[0], n, lo, hi, span)) {
			if (span == NULL)
				return SC_YES;
			found = 1;
		}
		left -= n;
	}
	if (found)
		return SC_YES;
	return i < a[2] && left > 0 ? SC_UNKNOWN : SC_NO;
}

int
syscall_writes(int memfd, long nr, const uint64_t a[6], uint64_t lo,
    uint64_t hi)
{
	const struct call *c;
	const struct out *o;
	uint64_t n;
	size_t k;

	if ((c = lookup(nr)) == NULL)
		return SC_UNKNOWN;
	for (k = 0; k < 3; k++) {
		o = &c->o[k];
		if (o->ptr == -2)
			return iov_writes(memfd, a, -1, lo, hi, NULL);
		if (o->ptr < 0)
			continue;
		n = o->len < 0 ? o->size : a[(int)o->len] * (uint64_t)o->mul;
		if (overlaps(a[(int)o->ptr], n, lo, hi))
			return SC_YES;
	}
	return SC_NO;
}

int
syscall_wrote(int memfd, long nr, const uint64_t a[6], int64_t ret,
    uint64_t lo, uint64_t hi, uint64_t *span)
{
	const struct call *c;
	const struct out *o;
	uint64_t n;
	size_t k;
	int found = 0;

	if (span != NULL)
		span[0] = span[1] = 0;
	if ((c = lookup(nr)) == NULL || ret < 0)
		return 0;
	for (k = 0; k < 3; k++) {
		o = &c->o[k];
		if (o->ptr == -2)
			return ret > 0 &&
			    iov_writes(memfd, a, ret, lo, hi, span) == SC_YES;
		if (o->ptr < 0 || o->sure == S_MAY)
			continue;
		n = o->len < 0 ? o->size : a[(int)o->len] * (uint64_t)o->mul;
		if (o->sure == S_RET && (uint64_t)ret < n)
			n = (uint64_t)ret;
		if (meet(a[(int)o->ptr], n, lo, hi, span)) {
			if (span == NULL)
				return 1;
			found = 1;
		}
	}
	return found;
}
