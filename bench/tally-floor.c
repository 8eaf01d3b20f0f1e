/*
 * tally-floor PID ADDR LEN OBJ: the BPF tally floor on another process,
 * as the bench compares wp-arm's bpf backend with it: a write breakpoint
 * on ADDR (LEN bytes) for every thread of PID (one event a thread, any
 * CPU, inherited by threads created later), with the program of OBJ
 * (bench/tally-floor.bpf.c, which only counts) attached.  Prints
 * "armed" once every thread is, waits until PID exits, and prints
 * "tallied H counted C" (the program's hits, the events' counts).
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <dirent.h>
#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally-floor.h"

static int
open_bp(unsigned long addr, int len, int tid)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof a;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = addr;
	a.bp_len = (unsigned)len;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

int
main(int argc, char *argv[])
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct key k, next, *prev = NULL;
	struct val v;
	struct dirent *d;
	struct pollfd pf;
	unsigned long long hits = 0, counted = 0, c;
	char path[64];
	int pid, fds[256], nfd = 0, i, mfd;
	DIR *dir;

	if (argc != 5)
		errx(64, "usage: tally-floor PID ADDR LEN OBJ");
	pid = atoi(argv[1]);
	if ((obj = bpf_object__open_file(argv[4], NULL)) == NULL ||
	    bpf_object__load(obj) != 0 ||
	    (prog = bpf_object__find_program_by_name(obj, "on_hit")) == NULL)
		errx(1, "%s: cannot load", argv[4]);
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	if ((dir = opendir(path)) == NULL)
		err(1, "%s", path);
	while ((d = readdir(dir)) != NULL && nfd < 256) {
		if (d->d_name[0] == '.')
			continue;
		if ((fds[nfd] = open_bp(strtoul(argv[2], NULL, 0),
		    atoi(argv[3]), atoi(d->d_name))) == -1)
			err(1, "perf_event_open");
		if (ioctl(fds[nfd], PERF_EVENT_IOC_SET_BPF,
		    bpf_program__fd(prog)) == -1)
			err(1, "PERF_EVENT_IOC_SET_BPF");
		nfd++;
	}
	closedir(dir);
	printf("armed\n");
	fflush(stdout);
	pf.fd = (int)syscall(SYS_pidfd_open, pid, 0);
	pf.events = POLLIN;
	if (pf.fd != -1)
		poll(&pf, 1, -1);
	for (i = 0; i < nfd; i++)
		if (read(fds[i], &c, sizeof c) == sizeof c)
			counted += c;
	mfd = bpf_map__fd(bpf_object__find_map_by_name(obj, "counts"));
	while (bpf_map_get_next_key(mfd, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(mfd, &k, &v) == 0)
			hits += v.hits;
	}
	printf("tallied %llu counted %llu\n", hits, counted);
	return 0;
}
