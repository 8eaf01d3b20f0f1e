/*
 * fill-libc [-n rounds]
 *
 * wpt_fill, 256 bytes, written by libc's own memset and memcpy (called
 * through pointers the compiler cannot see through, so that neither is
 * inlined): the writers live in libc, whose source lines only its debug
 * file (libc6-dbg) knows.  Prints one JSON line (pid, the buffer's
 * address), waits for SIGUSR1, then n times (default 5) fills the
 * buffer with memset and copies 100 bytes over its start with memcpy.
 * Prints "memset N", "memcpy N" (the calls made) and "done", and exits
 * 0.
 */
#include <string.h>

#include "wpt.h"

unsigned char wpt_fill[256];
static unsigned char src[256] = "the bytes of memcpy";

void *(*volatile fill_fn)(void *, int, size_t) = memset;
void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;

int
main(int argc, char *argv[])
{
	long n = 5, i, sets = 0, copies = 0;
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		switch (ch) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	}
	wpt_block_go();
	printf("{\"pid\":%d,\"fill\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(wpt_fill));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++) {
		fill_fn(wpt_fill, (int)(0x40 + i), sizeof wpt_fill);
		sets++;
		copy_fn(wpt_fill, src, 100);
		copies++;
	}
	printf("memset %ld\nmemcpy %ld\ndone\n", sets, copies);
	fflush(stdout);
	return 0;
}
