/* Numbers, allocation, errors, opening and writing files and time, for
   every tool. */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int
wp_error_set(struct wp_error *e, int status, const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

static void (*fatal_hook)(const char *);

void
wp_on_fatal(void (*fn)(const char *why))
{
	fatal_hook = fn;
}

void
wp_fatal_nomem(void)
{
	extern char *program_invocation_short_name;
	static const char msg[] = ": out of memory\n";
	void (*fn)(const char *) = fatal_hook;

	fatal_hook = NULL;
	if (fn != NULL)
		fn("out of memory");
	fflush(stdout);
	if (write(STDERR_FILENO, program_invocation_short_name,
	    strlen(program_invocation_short_name)) < 0 ||
	    write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
		_exit(WP_EXIT_ERROR);
	_exit(WP_EXIT_ERROR);
}

void *
wp_xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		wp_fatal_nomem();
	return p;
}

void *
wp_xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n ? n : 1, sz ? sz : 1)) == NULL)
		wp_fatal_nomem();
	return p;
}

void *
wp_xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n ? n : 1)) == NULL)
		wp_fatal_nomem();
	return p;
}

char *
wp_xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		wp_fatal_nomem();
	return p;
}

int
wp_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int
wp_parse_hexn(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;
	int c;

	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (i = 2; i < n; i++) {
		c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return -1;
		x = x << 4 | (uint64_t)c;
	}
	*v = x;
	return 0;
}

int
wp_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (s == NULL || *s == '\0')
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return wp_parse_hexn(s, strlen(s), v);
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

int
wp_parse_s64(const char *s, int64_t *v)
{
	uint64_t u;
	int neg = 0;

	if (s != NULL && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	if (wp_parse_u64(s, &u) == -1 || u > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* The milliseconds of the unit at *s (then past it): 0 if none. */
static uint64_t
duration_unit(const char **s)
{
	static const struct { const char *u; uint64_t ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }
	};
	size_t i, n;

	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		n = strlen(units[i].u);
		if (strncmp(*s, units[i].u, n) == 0) {
			*s += n;
			return units[i].ms;
		}
	}
	return 0;
}

/*
 * One part of a duration at *s: digits, a fraction, a unit (none where
 * the part is the whole text: seconds), added to *ms.
 */
static int
duration_part(const char **s, int whole, uint64_t *ms)
{
	uint64_t x = 0, frac = 0, scale = 1, mul, f;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1000000000)
				return -1;	/* finer than anyone means */
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	if ((mul = duration_unit(&p)) == 0) {
		if (!whole || *p != '\0')
			return -1;
		mul = 1000;
	}
	f = frac * mul / scale;
	if (frac * mul % scale != 0 || x > (UINT64_MAX - f) / mul ||
	    x * mul + f > UINT64_MAX - *ms)
		return -1;
	*ms += x * mul + f;
	*s = p;
	return 0;
}

/* "500ms", "5s", "1.5s", "2m30s", "1h"; a bare number is seconds. */
int
wp_parse_duration_ms(const char *s, uint64_t *ms)
{
	uint64_t sum = 0;
	const char *p = s;

	if (s == NULL || *s == '\0')
		return -1;
	if (strcmp(s, "inf") == 0) {
		*ms = WP_DURATION_INF_MS;
		return 0;
	}
	do {
		if (duration_part(&p, p == s, &sum) == -1)
			return -1;
	} while (*p != '\0');
	if (sum >= WP_DURATION_INF_MS)
		return -2;
	*ms = sum;
	return 0;
}

const void *
wp_find_int(const void *table, size_t n, size_t size, size_t off, int key)
{
	const char *p = table;
	int v;

	for (; n > 0; n--, p += size) {
		memcpy(&v, p + off, sizeof v);
		if (v == key)
			return p;
	}
	return NULL;
}

const void *
wp_find_range(const void *table, size_t n, size_t size, size_t off,
    uint64_t addr)
{
	const char *p = table;
	uint64_t r[2];

	for (; n > 0; n--, p += size) {
		memcpy(r, p + off, sizeof r);
		if (addr >= r[0] && addr < r[1])
			return p;
	}
	return NULL;
}

uint64_t
wp_le64(const unsigned char *b, size_t n)
{
	uint64_t x = 0;

	if (n > 8)
		n = 8;
	while (n > 0)
		x = x << 8 | b[--n];
	return x;
}

void
wp_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

uint64_t
wp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether f_type is a file system whose files are not data on a disk. */
static int
pseudo_fs(long f_type)
{
	static const long pseudo[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		BPF_FS_MAGIC, DEVPTS_SUPER_MAGIC, EFIVARFS_MAGIC,
		PSTOREFS_MAGIC, SELINUX_MAGIC, SMACK_MAGIC, 0x62656570
		/* configfs */, 0x65735543 /* fusectl */
	};
	size_t i;

	for (i = 0; i < sizeof pseudo / sizeof pseudo[0]; i++)
		if (f_type == pseudo[i])
			return 1;
	return 0;
}

/* Whether st and fs describe a regular file on a real file system. */
static int
plain_file(const struct stat *st, const struct statfs *fs,
    struct wp_error *err)
{
	if (!S_ISREG(st->st_mode))
		return wp_error_set(err, WP_EXIT_ERROR, "not a regular file");
	if (pseudo_fs((long)fs->f_type))
		return wp_error_set(err, WP_EXIT_ERROR, "a file of /proc or "
		    "/sys, not a file on disk");
	return 0;
}

int
wp_open_file(const char *path, struct wp_error *err)
{
	struct stat st, fst;
	struct statfs fs;
	char real[PATH_MAX];
	int fd, rc;

	if (realpath(path, real) == NULL || stat(real, &st) == -1 ||
	    statfs(real, &fs) == -1)
		return wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(errno));
	if (plain_file(&st, &fs, err) == -1)
		return -1;
	if ((fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
	    O_NOFOLLOW)) == -1)
		return wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(errno));
	/* the file opened is the one looked at, not one swapped in since */
	if (fstat(fd, &fst) == -1 || fstatfs(fd, &fs) == -1)
		rc = wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(errno));
	else if (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino)
		rc = wp_error_set(err, WP_EXIT_ERROR, "replaced while opened");
	else
		rc = plain_file(&fst, &fs, err);
	if (rc == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int
wp_out_create(struct wp_out *o, const char *path, struct wp_error *err)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	size_t dlen = base != NULL ? (size_t)(base - path) + 1 : 0;
	int fd;

	base = base != NULL ? base + 1 : path;
	o->path = NULL;
	o->tmp = NULL;
	if (*base == '\0' || (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(EISDIR));
	if (asprintf(&o->tmp, "%.*s.wp.XXXXXX.%s", (int)dlen, path,
	    base) == -1)
		wp_fatal_nomem();
	if ((fd = mkostemps(o->tmp, (int)strlen(base) + 1, O_CLOEXEC)) ==
	    -1) {
		wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	o->path = path;
	return fd;
}

int
wp_out_commit(struct wp_out *o, struct wp_error *err)
{
	if (rename(o->tmp, o->path) == -1) {
		wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(errno));
		wp_out_discard(o);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void
wp_out_discard(struct wp_out *o)
{
	if (o->tmp != NULL)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

void
wp_need_fds(const char *prog, int need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)need)
		errx(WP_EXIT_ERROR, "too few file descriptors: ulimit -n is "
		    "%llu, %s needs %d", (unsigned long long)rl.rlim_cur, prog,
		    need);
}
