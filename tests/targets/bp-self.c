/*
 * bp-self [-n writes]
 *
 * Watches its own variable with a perf hardware write watchpoint
 * (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_W, 8 bytes), writes it n times
 * (default 1000) and prints "writes N hits M": M is the count the
 * kernel read back, N on a machine whose watchpoints fire.  Without
 * wp: what a guest's watchpoints are worth before any tool runs there.
 * Exits 1 when the watchpoint cannot be opened, saying why.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <err.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

volatile long bp_var;

__attribute__((noinline)) static void
write_var(long v)
{
	bp_var = v;
}

int
main(int argc, char **argv)
{
	struct perf_event_attr a;
	uint64_t hits;
	long i, n = 1000;
	int c, fd;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			errx(2, "usage: bp-self [-n writes]");
		n = strtol(optarg, NULL, 0);
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&bp_var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd == -1)
		err(1, "perf_event_open of a write watchpoint");
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == -1)
		err(1, "PERF_EVENT_IOC_ENABLE");
	for (i = 0; i < n; i++)
		write_var(i);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == -1)
		err(1, "PERF_EVENT_IOC_DISABLE");
	if (read(fd, &hits, sizeof(hits)) != sizeof(hits))
		err(1, "read of the watchpoint's count");
	printf("writes %ld hits %ju\n", n, (uintmax_t)hits);
	return 0;
}
