/*
 * shlib-writer [-n writes]
 *
 * Prints one JSON line, waits for SIGUSR1, then calls wpt_lib_write() in
 * libwpt.so, which writes wpt_lib_counter n times.  Prints "done".
 */
#include "libwpt.h"
#include "wpt.h"

int
main(int argc, char *argv[])
{
	long n = 100;
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		if (ch != 'n')
			return 64;
		n = atol(optarg);
	}
	wpt_block_go();
	printf("{\"pid\":%d,\"lib_counter\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(wpt_lib_addr()));
	fflush(stdout);
	wpt_wait_go();
	wpt_lib_write(n, 1);
	printf("done %ld\n", *wpt_lib_addr());
	fflush(stdout);
	return 0;
}
