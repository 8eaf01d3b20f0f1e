/* Helpers shared by the test targets: a ready line, then a go signal. */
#ifndef WPT_H
#define WPT_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * Blocks SIGUSR1 (inherited by every thread created later) so that the
 * target can wait for it with wpt_wait_go().
 */
static inline void
wpt_block_go(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

static inline void
wpt_wait_go(void)
{
	sigset_t s;
	int sig;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigwait(&s, &sig);
}

#define WPT_ADDR(p) ((unsigned long)(p))

#endif
