/* A shared library with a variable and the function that writes it. */
#include "libwpt.h"

volatile long wpt_lib_counter;

__attribute__((noinline)) void
wpt_lib_write(long n, long base)
{
	long i;

	for (i = 0; i < n; i++)
		wpt_lib_counter = base + i;
}

volatile long *
wpt_lib_addr(void)
{
	return &wpt_lib_counter;
}
