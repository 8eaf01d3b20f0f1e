/*
 * nocfi [-n n]
 *
 * Prints one JSON line (pid, counter: where wpt_counter is) and waits
 * for SIGUSR1.  Then set_nocfi, a function without call frame
 * information that keeps in rbp what is no frame pointer (as code built
 * with -fomit-frame-pointer may: here a timespec on main's stack),
 * writes wpt_counter n times (default 3), called from main.  A
 * frame-pointer walk from it reads the return address 0xbebc200, the
 * timespec's nanoseconds, where no code is.  Prints "done" and exits.
 */
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

int
main(int argc, char **argv)
{
	/* read as a frame: a saved rbp of 0, then the "return address" */
	struct timespec ts = { 0, 200000000 };
	long n = 3, i;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		switch (opt) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_counter));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++)
		set_nocfi(i + 1, &ts);
	printf("done\n");
	return 0;
}
