/*
 * bpf-floor N: the floor of in-kernel tallies on this kernel: the
 * program arms a write breakpoint on its own variable with wp-arm's BPF
 * program attached (tally and a sample per hit, as wp-arm loads it),
 * writes it N times, and prints "ns T tallied H" (the loop's time, the
 * hits in the tally); then the loop without a breakpoint as "plain T".
 * Built with the skeleton of the wp-arm build (tests/vm/run-guest).
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wpbpf.h"
#include "wp.skel.h"

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
	struct wpb_conf c;
	struct wpb_tot tot;
	struct wpbpf *skel;
	long n = argc > 1 ? atol(argv[1]) : 10000, i, t0, t1;
	__u32 k = 0;
	int fd;

	if ((skel = wpbpf__open_and_load()) == NULL) {
		perror("bpf-floor: load");
		return 1;
	}
	memset(&c, 0, sizeof c);
	c.addr = (unsigned long)&hitvar;
	c.len = 8;
	bpf_map_update_elem(bpf_map__fd(skel->maps.conf), &k, &c, BPF_ANY);
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof a;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (unsigned long)&hitvar;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	if ((fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0)) == -1 ||
	    ioctl(fd, PERF_EVENT_IOC_SET_BPF,
	    bpf_program__fd(skel->progs.on_s0)) == -1) {
		perror("bpf-floor: breakpoint");
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		hitvar = i;
	t1 = now_ns();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.totals), &k, &tot);
	printf("ns %ld tallied %llu\n", t1 - t0, (unsigned long long)tot.hits);
	close(fd);
	wpbpf__destroy(skel);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		hitvar = i;
	printf("plain %ld\n", now_ns() - t0);
	return 0;
}
