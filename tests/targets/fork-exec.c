/*
 * fork-exec [-c child_writes] [-n parent_writes] [-v] [-E path] [-x]
 *	     [-e path]
 *
 * Prints one JSON line, waits for SIGUSR1, forks a child that writes
 * wpt_counter child_writes times and exits; the parent waits for it,
 * then writes wpt_counter parent_writes times.  Prints the child's
 * wait status ("child 0": it exited 0) and "done".  With -v
 * the child is made by vfork(2): its writes are to the parent's memory,
 * and the parent prints "vfork child stores N status S" (the stores it
 * counted, its wait status) instead of "child", before its own writes;
 * with -E the child execs path (no arguments) after its writes rather
 * than exit, as posix_spawn's child does.  With -x
 * the parent then execs /bin/sleep 1 (so a watch sees the exec).  With
 * -e it execs path (no arguments); when that fails it prints "exec
 * failed ERRNO", then two threads each write wpt_counter parent_writes
 * times more, and it prints "after COUNT" (wpt_counter: the writes
 * since the exec), "page PERMS" (its page's, as /proc/self/maps says)
 * and exits 0.
 */
#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

volatile long wpt_counter;
static long np = 10;
/* a vfork child's stores, counted where its parent reads them */
static volatile long child_stores;
/* the options, out of main's frame, which a vfork child shares */
static long nc = 10;
static int ex, vf;
static char *path, *cpath;

static void *
after(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < np; i++)
		__atomic_fetch_add(&wpt_counter, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* The exec of path failed: the process runs on, two threads writing. */
static int
exec_failed(int err)
{
	char line[512], *end;
	unsigned long lo, hi, a = (unsigned long)&wpt_counter;
	pthread_t th;
	FILE *f;

	printf("exec failed %s\n", err == EACCES ? "EACCES" :
	    err == ENOEXEC ? "ENOEXEC" : err == ENOENT ? "ENOENT" :
	    strerror(err));
	wpt_counter = 0;
	if (pthread_create(&th, NULL, after, NULL) != 0)
		return 1;
	after(NULL);
	pthread_join(th, NULL);
	printf("after %ld\n", wpt_counter);
	if ((f = fopen("/proc/self/maps", "r")) == NULL)
		return 1;
	while (fgets(line, sizeof line, f) != NULL) {
		lo = strtoul(line, &end, 16);
		hi = strtoul(end + 1, &end, 16);
		if (lo <= a && a < hi)
			printf("page %.4s\n", end + 1);
	}
	fclose(f);
	return 0;
}

int
main(int argc, char *argv[])
{
	long i;
	int ch, st = 0;
	pid_t child;

	while ((ch = getopt(argc, argv, "c:n:vE:xe:")) != -1) {
		switch (ch) {
		case 'c': nc = atol(optarg); break;
		case 'n': np = atol(optarg); break;
		case 'v': vf = 1; break;
		case 'E': cpath = optarg; break;
		case 'x': ex = 1; break;
		case 'e': path = optarg; break;
		default: return 64;
		}
	}
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	if ((child = vf ? vfork() : fork()) == 0) {
		for (i = 0; i < nc; i++) {
			wpt_counter = 5000 + i;
			child_stores++;
		}
		if (cpath != NULL)
			execl(cpath, cpath, (char *)NULL);
		_exit(cpath != NULL ? 127 : 0);
	}
	waitpid(child, &st, 0);
	if (vf)
		printf("vfork child stores %ld status %d\n", child_stores, st);
	else
		printf("child %#x\n", st);	/* its wait status: 0, exited 0 */
	for (i = 0; i < np; i++)
		wpt_counter = i;
	printf("done\n");
	fflush(stdout);
	if (ex) {
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		return 1;
	}
	if (path != NULL) {
		execl(path, path, (char *)NULL);
		return exec_failed(errno);
	}
	return 0;
}
