/*
 * Reading /proc: PID's stat, status, comm, exe, maps, asynchronous I/O
 * contexts, mem, tasks; sys.
 */
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

char *
wp_proc_path(char *buf, size_t sz, pid_t pid, pid_t tid, const char *name)
{
	if (tid > 0)
		snprintf(buf, sz, "/proc/%d/task/%d/%s", (int)pid, (int)tid,
		    name);
	else
		snprintf(buf, sz, "/proc/%d/%s", (int)pid, name);
	return buf;
}

int
wp_proc_dir(pid_t pid)
{
	char path[64];

	return open(wp_proc_path(path, sizeof path, pid, 0, ""),
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int
wp_proc_exists(pid_t pid)
{
	char path[64];

	return access(wp_proc_path(path, sizeof path, pid, 0, "stat"),
	    F_OK) == 0;
}

int
wp_proc_task_exists(pid_t pid, pid_t tid)
{
	char path[64];

	return tid > 0 && access(wp_proc_path(path, sizeof path, pid, tid,
	    ""), F_OK) == 0;
}

int
wp_proc_status(pid_t pid, pid_t tid, const char *key, int base,
    unsigned long long *v)
{
	char path[64], line[256], *end;
	size_t n = strlen(key);
	FILE *f;
	int rc = -1;

	if ((f = fopen(wp_proc_path(path, sizeof path, pid, tid, "status"),
	    "re")) == NULL)
		return -1;
	while (rc == -1 && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			errno = 0;
			*v = strtoull(line + n + 1, &end, base);
			rc = errno == 0 && end != line + n + 1 ? 0 : -1;
			break;
		}
	fclose(f);
	return rc;
}

int
wp_proc_comm(pid_t pid, pid_t tid, char *buf, size_t sz)
{
	char path[64];
	ssize_t n;
	int fd;

	if ((fd = open(wp_proc_path(path, sizeof path, pid, tid, "comm"),
	    O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sz - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int
wp_proc_sysctl(const char *name, long *v)
{
	char path[128];
	FILE *f;
	int rc;

	snprintf(path, sizeof path, "/proc/sys/%s", name);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	rc = fscanf(f, "%ld", v) == 1 ? 0 : -1;
	fclose(f);
	return rc;
}

const char *
wp_proc_trace_denied(void)
{
	long scope;

	if (wp_proc_sysctl("kernel/yama/ptrace_scope", &scope) == 0) {
		if (scope >= 3)
			return "kernel.yama.ptrace_scope is 3: no process may "
			    "trace";
		if (scope == 2 && geteuid() != 0)
			return "kernel.yama.ptrace_scope is 2: only root may "
			    "trace";
		if (scope == 1 && geteuid() != 0)
			return "kernel.yama.ptrace_scope is 1: only a parent "
			    "may trace its children (or run as root)";
	}
	if (geteuid() != 0)
		return "not our process, or a security module?";
	return "a security module, or a process outside this container's "
	    "namespaces?";
}

/*
 * The state (field 3) and field want (a number: 22, the start time) of
 * the stat file in directory dir (AT_FDCWD: path is absolute).
 */
static int
read_stat_at(int dir, const char *path, char *state, int want,
    unsigned long long *st)
{
	char buf[1024], *p;
	ssize_t n;
	int fd, field;

	if ((fd = openat(dir, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == '\0')
		return -1;
	p += 2;			/* field 3 */
	*state = *p;
	for (field = 3; field < want && *p != '\0'; p++)
		if (*p == ' ')
			field++;
	if (field != want || sscanf(p, "%llu", st) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int
read_stat(pid_t pid, char *state, unsigned long long *st)
{
	char path[64];

	wp_proc_path(path, sizeof path, pid, 0, "stat");
	return read_stat_at(AT_FDCWD, path, state, 22, st);
}

int
wp_proc_utime_ns(pid_t tid, uint64_t *ns)
{
	char path[64], state;
	unsigned long long ticks;

	wp_proc_path(path, sizeof path, tid, 0, "stat");
	if (read_stat_at(AT_FDCWD, path, &state, 14, &ticks) == -1)
		return -1;
	*ns = ticks * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
	return 0;
}

int
wp_proc_runq_ns(pid_t tid, uint64_t *ns, uint64_t *runs)
{
	char path[64];
	unsigned long long run, wait, slices;
	FILE *f;
	int rc;

	wp_proc_path(path, sizeof path, tid, 0, "schedstat");
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	rc = fscanf(f, "%llu %llu %llu", &run, &wait, &slices) == 3 ? 0 : -1;
	fclose(f);
	if (rc == 0) {
		*ns = wait;
		*runs = slices;
	}
	return rc;
}

int
wp_proc_starttime(pid_t pid, unsigned long long *st)
{
	char state;

	return read_stat(pid, &state, st);
}

char
wp_proc_state(pid_t pid)
{
	unsigned long long st;
	char state;

	return read_stat(pid, &state, &st) == 0 ? state : 0;
}

int
wp_proc_alive(pid_t pid, unsigned long long start_time)
{
	unsigned long long st;
	char state;

	return read_stat(pid, &state, &st) == 0 && st == start_time &&
	    state != 'Z' && state != 'X' && state != 'x';
}

int
wp_proc_exit_status_at(int piddir, int *status)
{
	unsigned long long v;
	char state;

	if (read_stat_at(piddir, "stat", &state, 52, &v) == -1 ||
	    state != 'Z')
		return -1;
	*status = (int)v;
	return 0;
}

int
wp_proc_alive_at(int piddir, unsigned long long start_time)
{
	unsigned long long st;
	char state;

	return read_stat_at(piddir, "stat", &state, 22, &st) == 0 &&
	    st == start_time && state != 'Z' && state != 'X' && state != 'x';
}

int
wp_proc_exe(pid_t pid, char *buf, size_t sz)
{
	char path[64];
	ssize_t n;

	wp_proc_path(path, sizeof path, pid, 0, "exe");
	if ((n = readlink(path, buf, sz - 1)) == -1)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The kinds of asynchronous I/O context, as /proc shows them. */
static const char *
async_kind(const char *path)
{
	if (strcmp(path, "anon_inode:[io_uring]") == 0)
		return "an io_uring";
	/* a Linux AIO context's ring: "/[aio] (deleted)" */
	if (strncmp(path, "/[aio]", 6) == 0 || strcmp(path,
	    "anon_inode:[aio]") == 0)
		return "a Linux AIO context";
	return NULL;
}

int
wp_proc_async_io(pid_t pid, const struct wp_maps *m, char *buf, size_t sz)
{
	char path[64], link[64];
	const char *kind;
	struct dirent *d;
	ssize_t n;
	size_t i;
	DIR *dir;

	wp_proc_path(path, sizeof path, pid, 0, "fd");
	if ((dir = opendir(path)) != NULL) {
		while ((d = readdir(dir)) != NULL) {
			n = readlinkat(dirfd(dir), d->d_name, link,
			    sizeof link - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if ((kind = async_kind(link)) != NULL) {
				snprintf(buf, sz, "%s (fd %s)", kind,
				    d->d_name);
				closedir(dir);
				return 1;
			}
		}
		closedir(dir);
	}
	/* a ring still mapped after its fd was closed; AIO has no fd */
	for (i = 0; i < m->n; i++)
		if (m->v[i].path != NULL &&
		    (kind = async_kind(m->v[i].path)) != NULL) {
			snprintf(buf, sz, "%s (its ring mapped at 0x%" PRIx64
			    ")", kind, m->v[i].start);
			return 1;
		}
	return 0;
}

int
wp_proc_maps(pid_t pid, struct wp_maps *m)
{
	char path[64], *line = NULL, perms[8];
	size_t cap = 0, alloc = 0;
	unsigned long long start, end, off;
	FILE *f;
	int n;

	memset(m, 0, sizeof *m);
	wp_proc_path(path, sizeof path, pid, 0, "maps");
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		struct wp_map *mp;
		char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start,
		    &end, perms, &off, &n) < 4)
			continue;
		if (m->n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			m->v = wp_xrealloc(m->v, alloc * sizeof *m->v);
		}
		mp = &m->v[m->n++];
		mp->start = start;
		mp->end = end;
		mp->offset = off;
		memcpy(mp->perms, perms, 4);
		mp->perms[4] = '\0';
		p = line + n;
		p[strcspn(p, "\n")] = '\0';
		mp->path = *p ? wp_xstrdup(p) : NULL;
	}
	free(line);
	fclose(f);
	if (m->n == 0) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

void
wp_proc_maps_free(struct wp_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof *m);
}

const struct wp_map *
wp_proc_maps_find(const struct wp_maps *m, uint64_t addr)
{
	return wp_find_range(m->v, m->n, sizeof *m->v,
	    offsetof(struct wp_map, start), addr);
}

int
wp_proc_mem_open(pid_t pid)
{
	char path[64];

	wp_proc_path(path, sizeof path, pid, 0, "mem");
	return open(path, O_RDONLY | O_CLOEXEC);
}

int
wp_proc_read(int fd, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	if (addr > (uint64_t)INT64_MAX) {
		errno = EFAULT;
		return -1;
	}
	n = pread(fd, buf, len, (off_t)addr);
	if (n < 0)
		return -1;
	if (n == 0 && len > 0) {
		/* the kernel's answer once the address space is gone */
		errno = ESRCH;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return WP_ORDER(x, y);
}

int
wp_proc_tasks(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *d;
	size_t alloc = 0;
	DIR *dir;

	*tids = NULL;
	*n = 0;
	wp_proc_path(path, sizeof path, pid, 0, "task");
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			*tids = wp_xrealloc(*tids, alloc * sizeof **tids);
		}
		(*tids)[(*n)++] = (pid_t)atoi(d->d_name);
	}
	closedir(dir);
	qsort(*tids, *n, sizeof **tids, cmp_pid);
	return 0;
}

void
wp_proc_tracer(pid_t pid, char *buf, size_t sz)
{
	unsigned long long tp;
	char comm[64];

	buf[0] = '\0';
	if (wp_proc_status(pid, 0, "TracerPid", 10, &tp) == -1 || tp == 0 ||
	    tp > INT32_MAX)
		return;
	if (wp_proc_comm((pid_t)tp, 0, comm, sizeof comm) == -1)
		snprintf(comm, sizeof comm, "?");
	snprintf(buf, sz, "%llu (%s)", tp, comm);
}
