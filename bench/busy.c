/* A busy loop for the ptrace benchmark: iters counts, quiet is watched. */
#include <stdio.h>
#include <unistd.h>

volatile unsigned long iters;
volatile long quiet;

int
main(void)
{
	printf("%d %p %p\n", (int)getpid(), (void *)&iters, (void *)&quiet);
	fflush(stdout);
	for (;;)
		iters++;
}
