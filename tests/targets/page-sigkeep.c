/*
 * page-sigkeep [-n writes] [-m mode]
 *
 * wpt_keep, an 8-byte word alone on its page, written n times (default
 * 5) where SIGSEGV (and SIGTRAP) are blocked, for the page backend:
 * its write fault is a SIGSEGV the kernel forces, and a forced signal
 * that is blocked resets its handler to SIG_DFL and unblocks it.  The
 * process has a SIGSEGV handler (it makes the page it faulted on
 * writable) and a SIGTRAP handler, each with SA_SIGINFO and a mask of
 * SIGUSR2.  Prints one JSON line (pid, the word's address), waits for
 * SIGUSR1, then by mode:
 *   thread   a thread that blocks every signal writes the word (mov)
 *   trap     the same, SIGSEGV left unblocked, with movsq (no rep): a
 *            store the page backend steps, and a step's trap is a
 *            forced SIGTRAP
 *   mask     a SIGUSR2 handler with a full sa_mask writes it, raised n
 *            times
 *   handler  the SIGSEGV handler writes it, for n faults of its own
 *            (a page made read-only, then written)
 * each write checking that SIGSEGV (but in trap mode) and SIGTRAP are
 * still blocked where it runs.  Then it checks that both handlers are as it set them,
 * faults once on a read-only page (its handler must catch it) and runs
 * an int3 (its SIGTRAP handler must catch it), and prints
 *   writes N masked M
 *   handlers kept K
 *   caught C trapped T
 * (M: writes that found both signals blocked; K: 1 when both handlers
 * are as set; C, T: the faults and traps its handlers took) and "done",
 * and exits 0.  Where a handler was lost, the fault or the trap kills
 * it.
 */
#include <sys/mman.h>

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

struct kp {
	volatile uint64_t	 word;
	char			 pad[4096 - 8];	/* the page its own */
};

struct kp wpt_keep __attribute__((aligned(4096)));
static volatile uint64_t from;
static volatile char *spare;		/* a page of its own faults */
static volatile long nwrites, nmasked, ncaught, ntrapped;
static long n = 5;
static const char *mode = "thread";

/* Whether SIGSEGV (but in trap mode) and SIGTRAP are blocked here. */
static int
both_blocked(void)
{
	sigset_t m;

	pthread_sigmask(SIG_BLOCK, NULL, &m);
	return (sigismember(&m, SIGSEGV) || strcmp(mode, "trap") == 0) &&
	    sigismember(&m, SIGTRAP);
}

__attribute__((noinline)) static void
write_keep(uint64_t v)
{
	if (strcmp(mode, "trap") == 0) {
		void *d = (void *)&wpt_keep.word, *s = (void *)&from;

		from = v;
		__asm__ volatile("movsq" : "+D"(d), "+S"(s) : : "memory");
	} else
		__asm__ volatile("movq %1, %0" : "=m"(wpt_keep.word) : "r"(v));
	nwrites++;
	nmasked += both_blocked();
}

static void
on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (strcmp(mode, "handler") == 0) {
		/* SIGTRAP too, as a handler with a fuller mask would */
		sigset_t m;

		sigemptyset(&m);
		sigaddset(&m, SIGTRAP);
		pthread_sigmask(SIG_BLOCK, &m, NULL);
		if (nwrites < n)
			write_keep((uint64_t)nwrites + 1);
	}
	ncaught++;
	mprotect((void *)((uintptr_t)si->si_addr & ~(uintptr_t)4095), 4096,
	    PROT_READ | PROT_WRITE);
}

static void
on_trap(int sig)
{
	(void)sig;
	ntrapped++;
}

static void
on_usr2(int sig)
{
	(void)sig;
	write_keep((uint64_t)nwrites + 1);
}

static void *
blocked_writer(void *arg)
{
	sigset_t all;
	long i;

	(void)arg;
	sigfillset(&all);
	if (strcmp(mode, "trap") == 0)
		sigdelset(&all, SIGSEGV);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	for (i = 1; i <= n; i++)
		write_keep((uint64_t)i);
	return NULL;
}

/* Whether sig's handler is fn, with SA_SIGINFO as set and SIGUSR2 masked. */
static int
kept(int sig, void *fn, int flags)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && (void *)sa.sa_handler == fn &&
	    (sa.sa_flags & SA_SIGINFO) == flags &&
	    sigismember(&sa.sa_mask, SIGUSR2) == 1;
}

/* Makes the spare page read-only and writes it: its handler's fault. */
static void
fault_once(void)
{
	mprotect((void *)spare, 4096, PROT_READ);
	spare[0]++;
}

int
main(int argc, char *argv[])
{
	struct sigaction sa;
	pthread_t th;
	long i;
	int ch, k;

	while ((ch = getopt(argc, argv, "n:m:")) != -1) {
		switch (ch) {
		case 'n': n = atol(optarg); break;
		case 'm': mode = optarg; break;
		default: return 64;
		}
	}
	if ((spare = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sa.sa_handler = on_trap;
	sa.sa_flags = 0;
	sigaction(SIGTRAP, &sa, NULL);
	sigfillset(&sa.sa_mask);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	wpt_block_go();
	printf("{\"pid\":%d,\"keep\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_keep.word));
	fflush(stdout);
	wpt_wait_go();
	if (strcmp(mode, "thread") == 0 || strcmp(mode, "trap") == 0) {
		if (pthread_create(&th, NULL, blocked_writer, NULL) != 0)
			return 1;
		pthread_join(th, NULL);
	} else if (strcmp(mode, "mask") == 0) {
		for (i = 0; i < n; i++)
			raise(SIGUSR2);
	} else if (strcmp(mode, "handler") == 0) {
		for (i = 0; i < n; i++)
			fault_once();
	} else
		return 64;
	k = kept(SIGSEGV, (void *)on_segv, SA_SIGINFO) &&
	    kept(SIGTRAP, (void *)on_trap, 0);
	printf("writes %ld masked %ld\nhandlers kept %d\n", nwrites, nmasked,
	    k);
	fflush(stdout);
	ncaught = 0;
	fault_once();
	__asm__ volatile("int3");
	printf("caught %ld trapped %ld\ndone\n", ncaught, ntrapped);
	fflush(stdout);
	return 0;
}
