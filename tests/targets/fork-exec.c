/*
 * fork-exec [-c child_writes] [-n parent_writes] [-x]
 *
 * Prints one JSON line, waits for SIGUSR1, forks a child that writes
 * wpt_counter child_writes times and exits; the parent waits for it,
 * then writes wpt_counter parent_writes times.  With -x the parent then
 * execs /bin/sleep 1 (so a watch sees the exec).  Prints "done".
 */
#include <sys/wait.h>

#include "wpt.h"

volatile long wpt_counter;

int
main(int argc, char *argv[])
{
	long nc = 10, np = 10, i;
	int ch, ex = 0;
	pid_t child;

	while ((ch = getopt(argc, argv, "c:n:x")) != -1) {
		switch (ch) {
		case 'c': nc = atol(optarg); break;
		case 'n': np = atol(optarg); break;
		case 'x': ex = 1; break;
		default: return 64;
		}
	}
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	if ((child = fork()) == 0) {
		for (i = 0; i < nc; i++)
			wpt_counter = 5000 + i;
		_exit(0);
	}
	waitpid(child, NULL, 0);
	for (i = 0; i < np; i++)
		wpt_counter = i;
	printf("done\n");
	fflush(stdout);
	if (ex) {
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		return 1;
	}
	return 0;
}
