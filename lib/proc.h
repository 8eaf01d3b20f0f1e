/* proc: what wp reads of a live process from /proc/PID. */
#ifndef WP_PROC_H
#define WP_PROC_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

struct wp_map {
	uint64_t	 start, end, offset;	/* start, end: wp_find_range */
	char		 perms[5];
	char		*path;		/* NULL for anonymous memory */
};

struct wp_maps {
	struct wp_map	*v;
	size_t		 n;
};

/*
 * The path "/proc/PID/NAME", or with tid > 0 "/proc/PID/task/TID/NAME"
 * (NAME "" for the directory), into buf: buf.
 */
char	*wp_proc_path(char *buf, size_t sz, pid_t pid, pid_t tid,
	    const char *name);
/* /proc/PID opened as a directory (see wp_proc_alive_at), or -1 (errno). */
int	 wp_proc_dir(pid_t pid);
int	 wp_proc_exists(pid_t pid);
/* Whether tid is a thread of pid. */
int	 wp_proc_task_exists(pid_t pid, pid_t tid);
/*
 * The number after "KEY:" in /proc/PID/status (tid > 0: that thread's),
 * in base (10, or 16 for the signal masks): 0, or -1.
 */
int	 wp_proc_status(pid_t pid, pid_t tid, const char *key, int base,
	    unsigned long long *v);
/* The name of thread tid of pid (tid 0: the process's), "comm": 0, or -1. */
int	 wp_proc_comm(pid_t pid, pid_t tid, char *buf, size_t sz);
/* The integer of /proc/sys/NAME ("kernel/perf_event_paranoid"): 0, or -1. */
int	 wp_proc_sysctl(const char *name, long *v);
/*
 * Why ptrace was refused (EPERM) to this process: kernel.yama.ptrace_scope
 * where yama is there and forbids it, else a guess.  A static string.
 */
const char *wp_proc_trace_denied(void);
/* Field 22 of /proc/PID/stat, in clock ticks after boot: 0, or -1. */
int	 wp_proc_starttime(pid_t pid, unsigned long long *st);
/* The state letter of /proc/PID/stat (R, S, T, Z, ...), or 0. */
char	 wp_proc_state(pid_t pid);
/*
 * Thread tid's user CPU time in ns (utime, field 14 of /proc/TID/stat,
 * as the kernel samples it, in clock ticks): 0, or -1.
 */
int	 wp_proc_utime_ns(pid_t tid, uint64_t *ns);
/*
 * Thread tid's time waiting for a CPU, runnable, in ns, and the times it
 * was given one (the second and third fields of /proc/TID/schedstat): 0,
 * or -1 (a kernel without it).
 */
int	 wp_proc_runq_ns(pid_t tid, uint64_t *ns, uint64_t *runs);
/*
 * Whether the process that started at start_time still runs: not gone,
 * not another process with its pid, not a zombie.
 */
int	 wp_proc_alive(pid_t pid, unsigned long long start_time);
/*
 * The same for the process of piddir, /proc/PID opened as a directory:
 * files opened through it (openat) are that process's, never those of
 * a process that took its pid since.
 */
int	 wp_proc_alive_at(int piddir, unsigned long long start_time);
/*
 * The wait status (exit_code, field 52 of stat) of the process of
 * piddir while it is a zombie: 0, or -1 when it is not (running, or
 * reaped by its parent).
 */
int	 wp_proc_exit_status_at(int piddir, int *status);
/* The link /proc/PID/exe into buf: 0, or -1 (errno). */
int	 wp_proc_exe(pid_t pid, char *buf, size_t sz);
/* Reads /proc/PID/maps into m (freed by wp_proc_maps_free): 0, or -1. */
int	 wp_proc_maps(pid_t pid, struct wp_maps *m);
void	 wp_proc_maps_free(struct wp_maps *m);
/* The mapping that holds addr, or NULL; it lives as long as m. */
const struct wp_map *wp_proc_maps_find(const struct wp_maps *m,
	    uint64_t addr);
/*
 * Whether the process has an asynchronous I/O context, whose reads the
 * kernel completes into its memory apart from the system call that
 * asked for them: an io_uring (its fd, or its rings in maps m) or a
 * Linux AIO context (its "[aio]" ring in m).  1 with what it is into
 * buf ("an io_uring (fd 4)"), else 0.
 */
int	 wp_proc_async_io(pid_t pid, const struct wp_maps *m, char *buf,
	    size_t sz);
/* /proc/PID/mem opened for reading, or -1 (errno). */
int	 wp_proc_mem_open(pid_t pid);
/*
 * Reads exactly len bytes at addr: 0, or -1 (errno; ESRCH once the
 * process has exited and its address space is gone).
 */
int	 wp_proc_read(int memfd, uint64_t addr, void *buf, size_t len);
/* The thread ids, sorted and allocated (the caller frees): 0, or -1. */
int	 wp_proc_tasks(pid_t pid, pid_t **tids, size_t *n);

/* "PID (COMM)" of the process tracing pid, or "" when none. */
void	 wp_proc_tracer(pid_t pid, char *buf, size_t sz);

#endif
