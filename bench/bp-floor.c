/*
 * bp-floor N: the floor of breakpoint sampling on this kernel: the
 * program arms a sampling write breakpoint on its own variable (one
 * ring, every hit sampled with IP, TID and time, as wp-arm asks), writes
 * it N times, and prints "ns T samples S" (the loop's time, the samples
 * in the ring); the same loop without a breakpoint, before it was
 * armed, as "before T", and after it was closed as "plain T".
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile long hitvar;

static long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int
main(int argc, char *argv[])
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	long n = argc > 1 ? atol(argv[1]) : 10000, i, t0, t1;
	size_t pages = 1024, pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long head;
	int fd;

	for (i = 0; i < n; i++)		/* warm up: TCG translates once */
		hitvar = i;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		hitvar = i;
	printf("before %ld\n", now_ns() - t0);
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof a;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (unsigned long)&hitvar;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	if (argc > 2 && strcmp(argv[2], "wp") == 0) {
		/* the attributes wp-arm uses */
		a.sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.inherit = 1;
		a.sample_id_all = 1;
		a.remove_on_exec = 1;
	}
	if ((fd = syscall(SYS_perf_event_open, &a, 0,
	    argc > 2 && strcmp(argv[2], "wp") == 0 ? 0 : -1, -1, 0)) == -1) {
		perror("perf_event_open");
		return 1;
	}
	mp = mmap(NULL, (pages + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	if (mp == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < n; i++)		/* warm up: TCG translates once */
		hitvar = i;
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	t0 = now_ns();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++)
		hitvar = i;
	t1 = now_ns();
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	printf("ns %ld samples %llu\n", t1 - t0, head / (argc > 2 ? 48 : 32));
	close(fd);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		hitvar = i;
	printf("plain %ld\n", now_ns() - t0);
	return 0;
}
