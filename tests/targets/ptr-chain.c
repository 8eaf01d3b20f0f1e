/*
 * ptr-chain [-g generations] [-n writes] [-p pause_ms] [-u]
 *
 * Prints one JSON line, then works in steps, each started by SIGUSR1:
 * for generation g (1..generations), one step allocates a new object,
 * stores its address in wpt_ptr and in wpt_holder->inner (the two-level
 * chain) and prints "ptr G OBJ"; the next step writes obj->value n times
 * and prints "gen G OBJ".  Then one step sets both pointers to NULL (the
 * null phase) and prints "null"; the last prints "done" and exits.  The
 * pause after each pointer change lets a watch re-arm before the writes.
 * With -p, one SIGUSR1 starts it all: each generation repoints, waits
 * pause_ms (0: not at all) and writes at once; then the null phase.
 * -u catches SIGURG: prints "urg" for each, and "sigurg N" before
 * "done".
 */
#include <stdint.h>
#include <time.h>

#include "wpt.h"

struct obj {
	long		pad[2];
	volatile int	value;		/* offset 0x10 */
};

struct holder {
	long		pad;
	struct obj	*volatile inner;	/* offset 0x8 */
};

struct obj *volatile wpt_ptr;
struct holder *volatile wpt_holder;
static volatile sig_atomic_t nurg;

static void
on_urg(int sig)
{
	(void)sig;
	nurg++;
	(void)!write(STDOUT_FILENO, "urg\n", 4);
}

int
main(int argc, char *argv[])
{
	long gens = 3, n = 10, pause = -1, g, i;
	struct timespec ts;
	struct obj *o;
	int ch;

	while ((ch = getopt(argc, argv, "g:n:p:u")) != -1) {
		switch (ch) {
		case 'g': gens = atol(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'p': pause = atol(optarg); break;
		case 'u': signal(SIGURG, on_urg); break;
		default: return 64;
		}
	}
	wpt_block_go();
	wpt_holder = calloc(1, sizeof *wpt_holder);
	printf("{\"pid\":%d,\"ptr\":\"0x%lx\",\"holder\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(&wpt_ptr), WPT_ADDR(&wpt_holder));
	fflush(stdout);
	ts.tv_sec = pause / 1000;
	ts.tv_nsec = (pause % 1000) * 1000000;
	for (g = 1; g <= gens; g++) {
		if (pause < 0 || g == 1)
			wpt_wait_go();
		o = calloc(1, sizeof *o);
		wpt_ptr = o;
		wpt_holder->inner = o;
		if (pause > 0)
			nanosleep(&ts, NULL);
		printf("ptr %ld 0x%lx\n", g, WPT_ADDR(o));
		fflush(stdout);
		if (pause < 0)
			wpt_wait_go();
		for (i = 0; i < n; i++)
			o->value = (int)(g * 1000 + i);
		printf("gen %ld 0x%lx\n", g, WPT_ADDR(o));
		fflush(stdout);
	}
	if (pause < 0)
		wpt_wait_go();
	wpt_ptr = NULL;
	wpt_holder->inner = NULL;
	printf("null\n");
	fflush(stdout);
	if (pause < 0)
		wpt_wait_go();
	printf("sigurg %d\n", (int)nurg);
	printf("done\n");
	fflush(stdout);
	return 0;
}
