/*
 * util: version, exit statuses, errors, allocation, numbers, time.
 *
 * How lib/ reports an error, the one style of every function there:
 * - a failure a user must read about returns -1 (or NULL) and fills the
 *   caller's struct wp_error (below): its message names the thing and
 *   says what is wrong, its status is the exit status it calls for;
 * - a wrapper of one system call (proc.c's /proc readers, a stream's
 *   open) returns -1 (or NULL) with errno, as the call does;
 * - a lookup or a test ("the mapping at addr", "a number?") returns -1,
 *   NULL or 0 for "no such": an answer, not an error;
 * - out of memory ends the process (wp_xmalloc).
 * lib/ never prints, but for usage.c (--help, the usage) and the
 * out-of-memory message.
 */
#ifndef WP_UTIL_H
#define WP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define WP_VERSION "0.1.0"
#define WP_SCHEMA_VERSION 1

/* Exit statuses shared by every tool (see wp-records(7)). */
#define WP_EXIT_OK		0
#define WP_EXIT_ERROR		1	/* a fatal error, message on stderr */
#define WP_EXIT_MALFORMED	2	/* bad input lines skipped, rest processed */
#define WP_EXIT_INCOMPLETE	3	/* input ended without an observation */
#define WP_EXIT_PROCESS		4	/* the process cannot be used */
#define WP_EXIT_NOBP		5	/* hardware breakpoints do not fire here */
#define WP_EXIT_DIED		6	/* wp-arm --last: the process died of a
					   signal */
#define WP_EXIT_USAGE		64

/*
 * How lib/ (and a tool's own modules) report an error: the function
 * returns -1 and fills a struct wp_error, which the tool prints; status
 * is the exit status the error calls for.
 */
struct wp_error {
	int	 status;	/* WP_EXIT_* */
	char	 msg[512];
};

int	 wp_error_set(struct wp_error *e, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * Raises this process's limit of open files to its hard limit, and
 * exits (WP_EXIT_ERROR, one line naming prog and ulimit -n) when that
 * is fewer than need: libdw, /proc and the perf events fail in other
 * words when descriptors run out.
 */
void	 wp_need_fds(const char *prog, int need);

/*
 * Allocation that cannot fail: out of memory, the tool exits with
 * status 1 and says so.  The one place lib/ ends the process.
 */
void	*wp_xmalloc(size_t n);
void	*wp_xcalloc(size_t n, size_t size);
void	*wp_xrealloc(void *p, size_t n);
char	*wp_xstrdup(const char *s);
/* Whether s begins with p. */
int	 wp_prefix(const char *s, const char *p);
void	 wp_fatal_nomem(void) __attribute__((noreturn));
/*
 * fn(why) runs once, first, when a fatal failure is to end the process
 * (out of memory): a tracer lets its tracee go there.  NULL: none.
 */
void	 wp_on_fatal(void (*fn)(const char *why));

/*
 * Numbers as users and records write them.  Each returns 0, or -1 when
 * the whole text is not such a number (out of range included).
 */
/* decimal, or hex with 0x */
int	 wp_parse_u64(const char *s, uint64_t *v);
/* the same with an optional sign */
int	 wp_parse_s64(const char *s, int64_t *v);
/* "0x" and 1 to 16 hex digits, n bytes of s */
int	 wp_parse_hexn(const char *s, size_t n, uint64_t *v);
/*
 * -d inf: a duration no watch reaches (292 years), which a deadline
 * (nanoseconds of CLOCK_MONOTONIC in a uint64_t) still holds, and the
 * observation's duration_requested_ms says (wp-records(7)).
 */
#define WP_DURATION_INF_MS	((uint64_t)INT64_MAX / 1000000)
/*
 * A duration: parts of a number (a fraction allowed, to whole
 * milliseconds) and a unit, ms, s, m or h ("500ms", "1.5s", "2m30s");
 * a bare number is seconds; "inf" is WP_DURATION_INF_MS.  0; -1 for
 * anything else; -2 for a duration written out that is as long as inf
 * or longer.
 */
int	 wp_parse_duration_ms(const char *s, uint64_t *ms);

/*
 * The first of the n entries (size bytes each) of table whose int at
 * offset off is key, or NULL: a lookup in a small constant table.
 */
const void *wp_find_int(const void *table, size_t n, size_t size,
	    size_t off, int key);
/*
 * The same for the first entry holding addr, whose members at offset
 * off are uint64_t start, end: [start, end).
 */
const void *wp_find_range(const void *table, size_t n, size_t size,
	    size_t off, uint64_t addr);

/* -1, 0 or 1 as a is below, equal to or above b: a qsort comparator's
   answer, for any two numbers of one type. */
#define WP_ORDER(a, b)	(((a) > (b)) - ((a) < (b)))

/* Closes *fd where it is one (not negative), and marks it closed: -1. */
void	 wp_close_fd(int *fd);

/* The little-endian value of n (at most 8) bytes. */
uint64_t wp_le64(const unsigned char *b, size_t n);

/*
 * A file named by input that may not be trusted (a stream, a debug
 * link), opened for reading only when it is a regular file on a real
 * file system: symlinks resolved first, then the last component opened
 * with O_NOFOLLOW, O_NOCTTY and O_NONBLOCK, so that no device, FIFO,
 * socket or /proc and /sys file (/proc/self/mem, /proc/kcore) is ever
 * opened or read.  Returns the fd (the caller closes it), or -1 with
 * err saying why, for a path the user named.
 */
int	 wp_open_file(const char *path, struct wp_error *err);

/*
 * A file wp writes (a --html page, a --stop=core core; wp's --save is
 * made the same way, in bash): made new, under a hidden name in its
 * directory, with O_EXCL (a link planted there is never followed) and
 * mode 0600 (it holds the target's memory, which only those who may
 * trace the target read); renamed over path by wp_out_commit, which
 * replaces the name, never a file a link there points to.  Until then
 * path is untouched.  The hidden name is ".wp.XXXXXX." and path's last
 * component: wp_out_create returns its fd (the caller closes it), or
 * -1 with err saying why (strerror's words); a directory at path is
 * refused at once.
 */
struct wp_out {
	const char	*path;	/* as given: the caller keeps it */
	char		*tmp;	/* the hidden name; NULL once placed */
};
int	 wp_out_create(struct wp_out *o, const char *path,
	    struct wp_error *err);
/* 0, or -1 with err: the file is then removed */
int	 wp_out_commit(struct wp_out *o, struct wp_error *err);
/* The hidden file removed, if there still is one. */
void	 wp_out_discard(struct wp_out *o);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t wp_now_ns(void);

#endif
