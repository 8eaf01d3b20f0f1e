/*
 * attrib MODE: writes that are not a plain store of the process, for
 * the tests of what wp attributes them to.  Prints one JSON line with
 * the addresses, waits for SIGUSR1 (but in pipe mode), does its writes,
 * prints "done" and exits.
 *
 *   sigframe  sends itself SIGUSR2 3 times (sigqueue, each with its own
 *             value), with a handler on an alternate signal stack: the
 *             kernel writes each signal frame on it
 *             ("altstack": the top 8 KiB of that stack)
 *   shm       a child process (forked before the ready line) writes
 *             "shared" 5 times, 100 ms apart, while this process waits
 *             for it in one waitpid(2), however long the child takes
 *             (a sleep of a second was outlived by a loaded machine's
 *             child: a second change, after it)
 *   pause     as shm, but this process waits in pause(2) until its
 *             SIGCHLD handler has run (an alarm of 10 s looks again, in
 *             case SIGCHLD came before the first pause)
 *   pipe      blocks at once in read(2) of 8 bytes from stdin into
 *             "buf" (so a watch attaches to a thread in that call)
 *   vdso      clock_gettime(2) into "ts" 3 times (the vDSO writes it)
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include <errno.h>
#include <string.h>
#include <time.h>

#include "wpt.h"

#define ALT	16384

static char altstack[ALT] __attribute__((aligned(64)));
static volatile int handled;
long wpt_buf;
struct timespec wpt_ts;

static volatile sig_atomic_t chld;

static void
on_chld(int sig)
{
	(void)sig;
	chld = 1;
}

static void
on_usr2(int sig)
{
	(void)sig;
	handled++;
}

int
main(int argc, char *argv[])
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct timespec tenth = { 0, 100000000 };
	struct sigaction sa;
	volatile long *shared;
	stack_t st;
	pid_t child = 0;
	int i, shm;

	wpt_block_go();
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	shm = strcmp(mode, "shm") == 0 || strcmp(mode, "pause") == 0;
	if (shm && (child = fork()) == 0) {
		wpt_wait_go();
		for (i = 1; i <= 5; i++) {
			nanosleep(&tenth, NULL);
			*shared = i;
		}
		_exit(0);
	}
	printf("{\"pid\":%d,\"altstack\":\"0x%lx\",\"shared\":\"0x%lx\","
	    "\"buf\":\"0x%lx\",\"ts\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(altstack + ALT - 8192), WPT_ADDR(shared), WPT_ADDR(&wpt_buf),
	    WPT_ADDR(&wpt_ts));
	fflush(stdout);
	if (strcmp(mode, "pipe") == 0) {
		if (read(0, &wpt_buf, 8) != 8)
			return 1;
		printf("done\n");
		return 0;
	}
	wpt_wait_go();
	if (strcmp(mode, "sigframe") == 0) {
		st.ss_sp = altstack;
		st.ss_size = ALT;
		st.ss_flags = 0;
		sigaltstack(&st, NULL);
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr2;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR2, &sa, NULL);
		for (i = 0; i < 3; i++)
			sigqueue(getpid(), SIGUSR2, (union sigval){ .sival_int = i });
	} else if (strcmp(mode, "pause") == 0) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_chld;
		sigaction(SIGCHLD, &sa, NULL);
		sigaction(SIGALRM, &sa, NULL);
		kill(child, SIGUSR1);
		while (waitpid(child, NULL, WNOHANG) == 0) {
			alarm(10);
			if (!chld)
				pause();
		}
	} else if (shm) {
		kill(child, SIGUSR1);
		while (waitpid(child, NULL, 0) == -1 && errno == EINTR)
			;
	} else if (strcmp(mode, "vdso") == 0) {
		for (i = 0; i < 3; i++)
			clock_gettime(CLOCK_MONOTONIC, &wpt_ts);
	}
	printf("done %d\n", handled);
	fflush(stdout);
	return 0;
}
