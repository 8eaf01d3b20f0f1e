/*
 * frames nocfi|signal [n]
 *
 * Callers that unwinding gets wrong.  Prints one JSON line (pid,
 * counter: where wpt_counter is) and waits for SIGUSR1.  Then n times
 * (default 3) wpt_counter is written:
 *
 *   nocfi   by set_nocfi, a function without call frame information
 *           that keeps in rbp what is no frame pointer (as code built
 *           with -fomit-frame-pointer may: here a timespec on main's
 *           stack), called from main.  A frame-pointer walk from it
 *           reads the return address 0xbebc200, the timespec's
 *           nanoseconds, where no code is.
 *   signal  by the handler of SIGUSR2, raised: its caller is the
 *           signal trampoline (libc's __restore_rt).
 *
 * Prints "done" and exits.
 */
#include <signal.h>
#include <string.h>
#include <time.h>

#include "wpt.h"

volatile long wpt_counter;
void	set_nocfi(long v, struct timespec *ts);

/* no .cfi directives: libdw has no CFI for it and walks rbp */
__asm__(".text\n"
    ".globl set_nocfi\n"
    ".type set_nocfi, @function\n"
    "set_nocfi:\n"
    "	push %rbp\n"
    "	mov %rsi, %rbp\n"
    "	mov %rdi, wpt_counter(%rip)\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size set_nocfi, .-set_nocfi\n");

static void
on_usr2(int sig)
{
	(void)sig;
	wpt_counter++;
}

int
main(int argc, char **argv)
{
	/* read as a frame: a saved rbp of 0, then the "return address" */
	struct timespec ts = { 0, 200000000 };
	long n = argc > 2 ? atol(argv[2]) : 3, i;
	int sig = argc > 1 && strcmp(argv[1], "signal") == 0;

	signal(SIGUSR2, on_usr2);
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++)
		if (sig)
			raise(SIGUSR2);
		else
			set_nocfi(i + 1, &ts);
	printf("done\n");
	return 0;
}
