/*
 * --stop: the process left stopped after the first matching write
 * (filter.c stops it), and what is said of it: where, and the debugger
 * line to look; --stop=core: its core written with gcore.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwfl.h"
#include "filter.h"
#include "proc.h"
#include "watch.h"

const char *
stop_gcore_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("PATH");
	char *dirs, *d, *save;
	int found = 0;

	dirs = wp_xstrdup(env != NULL ? env : "/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d != NULL && !found;
	    d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof path, "%s/gcore", *d ? d : ".");
		found = access(path, X_OK) == 0;
	}
	free(dirs);
	return found ? path : NULL;
}

int
stop_wait(pid_t pid)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (wp_proc_state(pid) == 'T')
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * gcore writes into the hidden file made for the core (its -o prefix is
 * that name less ".PID"), mode 0600 as the kernel writes cores, which
 * is then renamed to core.PID: never written through a link planted
 * there, nor readable by others (it is the process's whole memory).
 */
char *
stop_core(pid_t pid)
{
	char path[64], pidarg[24], *prefix;
	const char *gcore = stop_gcore_path();
	struct wp_out out;
	struct wp_error e;
	pid_t child;
	int status, fd;

	snprintf(pidarg, sizeof pidarg, "%d", (int)pid);
	snprintf(path, sizeof path, "core.%s", pidarg);
	if ((fd = wp_out_create(&out, path, &e)) == -1) {
		warnx("--stop=core: %s: %s", path, e.msg);
		kill(pid, SIGCONT);
		return NULL;
	}
	close(fd);
	prefix = wp_xstrdup(out.tmp);
	prefix[strlen(prefix) - strlen(pidarg) - 1] = '\0';
	if (gcore == NULL || (child = fork()) == -1) {
		warn("--stop=core: gcore");
		free(prefix);
		wp_out_discard(&out);
		kill(pid, SIGCONT);
		return NULL;
	}
	if (child == 0) {
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
		}
		execl(gcore, "gcore", "-o", prefix, pidarg, (char *)NULL);
		_exit(127);
	}
	free(prefix);
	while (waitpid(child, &status, 0) == -1)
		;
	kill(pid, SIGCONT);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		warnx("--stop=core: gcore %s failed (status %d)", pidarg,
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		wp_out_discard(&out);
		return NULL;
	}
	if (wp_out_commit(&out, &e) == -1) {
		warnx("--stop=core: %s: %s", path, e.msg);
		return NULL;
	}
	return wp_xstrdup(path);
}

/* "func+0xOFF" of addr into buf, or its hex. */
static void
name_of(struct wp_dwfl *d, uint64_t addr, char *buf, size_t sz)
{
	struct wp_func f;

	if (d != NULL && wp_dwfl_func(d, addr, &f) == 0)
		snprintf(buf, sz, "%s+0x%" PRIx64, f.name, addr - f.addr);
	else
		snprintf(buf, sz, "0x%" PRIx64, addr);
}

void
stop_say(struct watch *w, pid_t tid, int has_writer, uint64_t writer_ip,
    uint64_t ip, const char *core)
{
	struct wp_error e;
	struct wp_dwfl *d = wp_dwfl_open_pid(w->pid, &e);
	char writer[256] = "none (a kernel write)";

	if (has_writer)
		name_of(d, writer_ip, writer, sizeof writer);
	wp_dwfl_close(d);
	if (w->nsites > 0)
		fprintf(stderr, "wp-arm: the first matching execution: pid %d "
		    "thread %d at %s, the instruction at 0x%" PRIx64 " not run "
		    "yet\n", (int)w->pid, (int)tid, writer, ip);
	else
		fprintf(stderr, "wp-arm: the first matching write: pid %d "
		    "thread %d writer %s at 0x%" PRIx64 ", next instruction "
		    "0x%" PRIx64 "\n", (int)w->pid, (int)tid, writer,
		    has_writer ? writer_ip : 0, ip);
	if (core != NULL)
		fprintf(stderr, "wp-arm: its core is %s (gdb -c %s); the process "
		    "runs on\n", core, core);
	else
		fprintf(stderr, "wp-arm: the process is left stopped (SIGSTOP) "
		    "there, for a debugger (the writing thread is LWP %d):\n"
		    "    gdb -p %d\nwp-arm: kill -CONT %d lets it run on\n",
		    (int)tid, (int)w->pid, (int)w->pid);
}
