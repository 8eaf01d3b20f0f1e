/*
 * The signals that end a watch: which they are, how they are caught
 * (the one that came, for the loop in watch.c and the backends that
 * wait), and their names in records.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "watch.h"

static volatile sig_atomic_t got_signal;

int
watch_signalled(void)
{
	return got_signal;
}

/*
 * Every signal whose default action would end or suspend wp-arm ends a
 * watch instead, so that it always leaves the process as it was found:
 * they are blocked, except where a backend waits (it lets them in and
 * returns), and caught without SA_RESTART so that the wait ends.
 * SIGALRM is the ptrace backend's tick, SIGPIPE is ignored (a closed
 * output is seen on write), and the faults are only caught when sent.
 */
void
watch_stop_signals(sigset_t *set)
{
	static const int sigs[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU,
		SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGSYS,
		SIGTSTP, SIGTTIN, SIGTTOU, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
		SIGILL, SIGSEGV
	};
	size_t i;
	int s;

	sigemptyset(set);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(set, sigs[i]);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
}

static void
on_signal_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS ||
	    sig == SIGFPE || sig == SIGILL || sig == SIGTRAP)) {
		/* a fault of wp-arm's own: the default action, at once */
		signal(sig, SIG_DFL);
		return;
	}
	got_signal = sig;
}

void
watch_catch_signals(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t block;
	int s;

	watch_stop_signals(&block);
	sigprocmask(SIG_BLOCK, &block, orig);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal_info;
	sa.sa_flags = SA_SIGINFO;
	for (s = 1; s < NSIG; s++)
		if (sigismember(&block, s) == 1)
			sigaction(s, &sa, NULL);
}

const char *
watch_signame(int sig)
{
	static char buf[32];
	const char *ab;

	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, sizeof buf, "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (sig == SIGIO)
		snprintf(buf, sizeof buf, "SIGIO");	/* not SIGPOLL */
	else if ((ab = sigabbrev_np(sig)) != NULL)
		snprintf(buf, sizeof buf, "SIG%s", ab);
	else
		snprintf(buf, sizeof buf, "signal %d", sig);
	return buf;
}
