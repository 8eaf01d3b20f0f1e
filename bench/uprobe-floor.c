/*
 * uprobe-floor PID FILE OFFSET OBJ: the uprobe floor on another process,
 * as bench/insn-cost.sh compares wp-arm's uprobe backend with it: a
 * uprobe at OFFSET of FILE in PID (every thread, later ones too) running
 * OBJ's program (bench/uprobe-floor.bpf.c, which only counts).  Prints
 * "armed", waits until PID exits, and prints "counted N".
 *
 * uprobe-floor --exec PID ADDR OBJ: the same with an execute breakpoint
 * at ADDR on each thread of PID (inherited by later ones) in place of
 * the uprobe, running OBJ's on_x: the floor of wp-arm's bpf backend's
 * site mode.
 *
 * uprobe-floor --stats: turns on the kernel's BPF run-time statistics
 * (BPF_ENABLE_STATS, for every program) while it lives: prints
 * "enabled" and waits to be killed.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An execute breakpoint at addr on each thread of pid, prog on each. */
static void
exec_bps(pid_t pid, uint64_t addr, int prog)
{
	struct perf_event_attr a;
	struct dirent *d;
	char path[64];
	DIR *dir;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL)
		err(1, "%s", path);
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_BREAKPOINT;
		a.bp_type = HW_BREAKPOINT_X;
		a.bp_addr = addr;
		a.bp_len = sizeof(long);
		a.sample_period = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.inherit = 1;
		a.disabled = 1;
		if ((fd = (int)syscall(SYS_perf_event_open, &a,
		    atoi(d->d_name), -1, -1, 0)) == -1 ||
		    ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) == -1 ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == -1)
			err(1, "an execute breakpoint on thread %s", d->d_name);
	}
	closedir(dir);
}

int
main(int argc, char *argv[])
{
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct pollfd pf;
	uint64_t n = 0;
	uint32_t k = 0;
	pid_t pid;
	int xaddr;

	if (argc == 2 && strcmp(argv[1], "--stats") == 0) {
		if (bpf_enable_stats(BPF_STATS_RUN_TIME) == -1)
			err(1, "BPF_ENABLE_STATS");
		printf("enabled\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc != 5)
		errx(64, "usage: uprobe-floor PID FILE OFFSET OBJ | "
		    "--exec PID ADDR OBJ | --stats");
	xaddr = strcmp(argv[1], "--exec") == 0;
	pid = (pid_t)atoi(argv[1 + xaddr]);
	if ((pf.fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		err(1, "pidfd_open %d", (int)pid);
	if ((obj = bpf_object__open_file(argv[4], NULL)) == NULL)
		errx(1, "%s: cannot open", argv[4]);
	bpf_program__set_autoload(bpf_object__find_program_by_name(obj,
	    xaddr ? "on_insn" : "on_x"), 0);
	if (bpf_object__load(obj) != 0)
		errx(1, "%s: cannot load", argv[4]);
	if (xaddr) {
		link = NULL;
		exec_bps(pid, strtoull(argv[3], NULL, 0), bpf_program__fd(
		    bpf_object__find_program_by_name(obj, "on_x")));
	} else {
		prog = bpf_object__find_program_by_name(obj, "on_insn");
		link = bpf_program__attach_uprobe_opts(prog, pid, argv[2],
		    (size_t)strtoull(argv[3], NULL, 0), &o);
		if (libbpf_get_error(link) != 0)
			errx(1, "no uprobe at %s+%s", argv[2], argv[3]);
	}
	printf("armed\n");
	fflush(stdout);
	pf.events = POLLIN;
	while (poll(&pf, 1, -1) == -1)
		;
	bpf_map_lookup_elem(bpf_map__fd(bpf_object__find_map_by_name(obj,
	    "runs")), &k, &n);
	printf("counted %llu\n", (unsigned long long)n);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
