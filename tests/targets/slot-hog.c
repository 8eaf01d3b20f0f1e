/*
 * slot-hog TID ADDR: holds all four debug registers of thread TID with
 * write breakpoints at ADDR, ADDR+8, ADDR+16, ADDR+24, prints "held",
 * and waits to be killed.  Another debugger, as wp-arm would meet it.
 */
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct perf_event_attr a;
	unsigned long addr;
	int i, tid;

	if (argc != 3)
		return 64;
	tid = atoi(argv[1]);
	addr = strtoul(argv[2], NULL, 0) & ~7UL;
	for (i = 0; i < 4; i++) {
		memset(&a, 0, sizeof a);
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof a;
		a.bp_type = HW_BREAKPOINT_W;
		a.bp_addr = addr + 8 * (unsigned long)i;
		a.bp_len = HW_BREAKPOINT_LEN_8;
		a.exclude_kernel = 1;
		if (syscall(SYS_perf_event_open, &a, tid, -1, -1, 0) == -1) {
			perror("perf_event_open");
			return 1;
		}
	}
	printf("held\n");
	fflush(stdout);
	pause();
	return 0;
}
