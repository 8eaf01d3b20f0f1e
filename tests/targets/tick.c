/*
 * tick [-i ms]
 *
 * A counter that runs before anyone watches it: prints one JSON line
 * (pid, the counter's address), then adds 1 to wpt_ticks every ms
 * milliseconds (default 10), from the start, until SIGUSR1; then prints
 * "ticks N" (the counter, every add made) and waits for another SIGUSR1
 * before it prints "done" and exits 0.  A watch armed while it ticks
 * counts the adds made once armed: what the value moved from its value
 * at arming.
 */
#include <time.h>

#include "wpt.h"

volatile long wpt_ticks;

int
main(int argc, char *argv[])
{
	struct timespec ts = { 0, 0 };
	sigset_t s;
	long ms = 10;
	int ch, sig;

	while ((ch = getopt(argc, argv, "i:")) != -1) {
		switch (ch) {
		case 'i': ms = atol(optarg); break;
		default: return 64;
		}
	}
	ts.tv_nsec = ms * 1000000;
	wpt_block_go();
	printf("{\"pid\":%d,\"ticks\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_ticks));
	fflush(stdout);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	while (sigtimedwait(&s, NULL, &ts) == -1)
		wpt_ticks = wpt_ticks + 1;
	printf("ticks %ld\n", wpt_ticks);
	fflush(stdout);
	sigwait(&s, &sig);
	puts("done");
	return 0;
}
