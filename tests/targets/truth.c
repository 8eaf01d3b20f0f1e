/*
 * truth MODE [N]: what a single-stepping watch must see truly, from its
 * first instant to its last.  Prints one JSON line (pid, addresses),
 * then, but in tick mode, waits for SIGUSR1 and prints "done COUNT"
 * after its writes (COUNT: what it did, by its own count).
 *
 *   tick N     N threads (2 if not given) write wpt_counter 1000 times
 *              a second each, a new value each time, until killed
 *   read N     N times, 200 ms apart, read(2) the same 8 bytes of its
 *              own file into wpt_counter (the bytes never change)
 *   alt N      N times raises SIGUSR2, caught on an alternate signal
 *              stack ("altstack": its top 8 KiB), with the same value
 *   altwait N  the same, the signals sent from outside while it waits
 *              in pause(2): each frame the same bytes; prints "ready"
 *   shm N      a child forked before the ready line writes "shared" N
 *              times, 100 ms apart; this process takes SIGALRM every
 *              10 ms meanwhile, in a handler that writes elsewhere
 *   int3 N     N times executes int3, caught by a SIGTRAP handler
 *   raise N    N times raise(SIGTRAP), caught
 *   trapwait N waits until its SIGTRAP handler has run N times (a
 *              kill -TRAP from outside); prints "ready" first, then
 *              "handled I" as the handler has run I times
 *   trapdie    raise(SIGTRAP) without a handler: dies of it
 *   late       writes wpt_counter once at once after the ready line,
 *              before any SIGUSR1 (then waits for it as the others)
 */
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "wpt.h"

#define ALT	16384

volatile long wpt_counter;
volatile long wpt_other;
static char altstack[ALT] __attribute__((aligned(64)));
static volatile sig_atomic_t handled;

static void
on_sig(int sig)
{
	(void)sig;
	handled++;
	wpt_other++;
}

static void *
ticker(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	static volatile long seq;

	(void)arg;
	for (;;) {
		wpt_counter = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void
catch(int sig, int onstack)
{
	struct sigaction sa;
	stack_t st;

	if (onstack) {
		st.ss_sp = altstack;
		st.ss_size = ALT;
		st.ss_flags = 0;
		sigaltstack(&st, NULL);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sa.sa_flags = onstack ? SA_ONSTACK : 0;
	sigaction(sig, &sa, NULL);
}

static int
kernel_reads(long n)
{
	struct timespec fifth = { 0, 200000000 };
	long i;
	int fd;

	if ((fd = open("/proc/self/exe", O_RDONLY)) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (pread(fd, (void *)&wpt_counter, 8, 0) != 8)
			return -1;
		nanosleep(&fifth, NULL);
	}
	close(fd);
	return (int)n;
}

static void
shm_parent(pid_t child, long n)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };

	catch(SIGALRM, 0);
	setitimer(ITIMER_REAL, &it, NULL);
	kill(child, SIGUSR1);
	while (waitpid(child, NULL, 0) == -1)
		;
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	(void)n;
}

static void
shm_child(volatile long *shared, long n)
{
	struct timespec tenth = { 0, 100000000 };
	long i;

	wpt_wait_go();
	for (i = 1; i <= n; i++) {
		nanosleep(&tenth, NULL);
		*shared = i;
	}
	_exit(0);
}

static long
traps(const char *mode, long n)
{
	long i;

	if (strcmp(mode, "trapdie") != 0)
		catch(SIGTRAP, 0);
	if (strcmp(mode, "trapwait") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (i = 0; handled < n; wpt_other++)
			if (handled != i) {
				printf("handled %ld\n", i = handled);
				fflush(stdout);
			}
		return handled;
	}
	for (i = 0; i < n; i++)
		if (strcmp(mode, "int3") == 0)
			__asm__ volatile ("int3");
		else
			raise(SIGTRAP);
	return handled;
}

int
main(int argc, char *argv[])
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 2, i, done = 0;
	volatile long *shared;
	pthread_t th;
	pid_t child = 0;

	wpt_block_go();
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (strcmp(mode, "shm") == 0 && (child = fork()) == 0)
		shm_child(shared, n);
	printf("{\"pid\":%d,\"counter\":\"0x%lx\",\"altstack\":\"0x%lx\","
	    "\"shared\":\"0x%lx\"}\n", (int)getpid(), WPT_ADDR(&wpt_counter),
	    WPT_ADDR(altstack + ALT - 8192), WPT_ADDR(shared));
	fflush(stdout);
	if (strcmp(mode, "tick") == 0) {
		for (i = 0; i < n; i++)
			pthread_create(&th, NULL, ticker, NULL);
		pause();
	}
	if (strcmp(mode, "late") == 0)
		wpt_counter = 0x1234;
	wpt_wait_go();
	if (strcmp(mode, "read") == 0)
		done = kernel_reads(n);
	else if (strcmp(mode, "alt") == 0) {
		catch(SIGUSR2, 1);
		for (i = 0; i < n; i++)
			raise(SIGUSR2);
		done = handled;
	} else if (strcmp(mode, "altwait") == 0) {
		catch(SIGUSR2, 1);
		printf("ready\n");
		fflush(stdout);
		while (handled < n)
			pause();
		done = handled;
	} else if (strcmp(mode, "shm") == 0) {
		shm_parent(child, n);
		done = n;
	} else if (strcmp(mode, "int3") == 0 || strncmp(mode, "trap", 4) == 0 ||
	    strcmp(mode, "raise") == 0)
		done = traps(mode, n);
	printf("done %ld\n", done);
	fflush(stdout);
	return 0;
}
