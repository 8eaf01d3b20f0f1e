/*
 * uprobe-floor PID FILE OFFSET OBJ: the uprobe floor on another process,
 * as bench/insn-cost.sh compares wp-arm's uprobe backend with it: a
 * uprobe at OFFSET of FILE in PID (every thread, later ones too) running
 * OBJ's program (bench/uprobe-floor.bpf.c, which only counts).  Prints
 * "armed", waits until PID exits, and prints "counted N".
 *
 * uprobe-floor --stats: turns on the kernel's BPF run-time statistics
 * (BPF_ENABLE_STATS, for every program) while it lives: prints
 * "enabled" and waits to be killed.
 */
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <err.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

	if (argc == 2 && strcmp(argv[1], "--stats") == 0) {
		if (bpf_enable_stats(BPF_STATS_RUN_TIME) == -1)
			err(1, "BPF_ENABLE_STATS");
		printf("enabled\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc != 5)
		errx(64, "usage: uprobe-floor PID FILE OFFSET OBJ | --stats");
	pid = (pid_t)atoi(argv[1]);
	if ((pf.fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		err(1, "pidfd_open %d", (int)pid);
	if ((obj = bpf_object__open_file(argv[4], NULL)) == NULL ||
	    bpf_object__load(obj) != 0)
		errx(1, "%s: cannot load", argv[4]);
	prog = bpf_object__find_program_by_name(obj, "on_insn");
	link = bpf_program__attach_uprobe_opts(prog, pid, argv[2],
	    (size_t)strtoull(argv[3], NULL, 0), &o);
	if (libbpf_get_error(link) != 0)
		errx(1, "no uprobe at %s+%s", argv[2], argv[3]);
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
