/*
 * sighandler [-n n]
 *
 * Prints one JSON line (pid, counter: where wpt_counter is) and waits
 * for SIGUSR1.  Then raises SIGUSR2 n times (default 3), whose handler
 * writes wpt_counter: its caller is the signal trampoline (libc's
 * __restore_rt).  Prints "done" and exits.
 */
#include <signal.h>

#include "wpt.h"

volatile long wpt_counter;

static void
on_usr2(int sig)
{
	(void)sig;
	wpt_counter++;
}

int
main(int argc, char **argv)
{
	long n = 3, i;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		switch (opt) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	signal(SIGUSR2, on_usr2);
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++)
		raise(SIGUSR2);
	printf("done\n");
	return 0;
}
