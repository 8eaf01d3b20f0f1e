/*
 * tally-floor PID ADDR LEN OBJ [wpev]: the BPF tally floor on another
 * process, as the bench compares wp-arm's bpf backend with it: a write
 * breakpoint on ADDR (LEN bytes) for every thread of PID (one event a
 * thread, any CPU, inherited by threads created later), with the
 * program of OBJ (bench/tally-floor.bpf.c, which only counts) attached.
 * Prints "armed" once every thread is, waits until PID exits, and prints
 * "tallied H counted C run_ns T runs N" (the program's hits, the
 * events' counts, and the program's time and runs where
 * kernel.bpf_stats_enabled is 1).
 *
 * To tell where wp-arm's cost goes, either half can be wp-arm's own:
 * wpev opens the events as wp-arm does (one per thread and CPU, with its
 * attributes: cmd/wp-arm/perf.c), and an OBJ with wp-arm's program
 * (build/bpf/wp.bpf.o: on_s0) runs that, configured as wp-arm does for
 * one plain target of LEN bytes, its samples never read (they wake
 * nobody); H is then the hits of its tallies.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <dirent.h>
#include <stdint.h>
#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tally-floor.h"

#define MAXFD	1024

static int
open_bp(unsigned long addr, int len, int tid, int cpu, int wpev)
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
	if (wpev) {
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		a.sample_id_all = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = 4096;
		a.inherit_thread = 1;
		a.read_format = PERF_FORMAT_ID;
		a.remove_on_exec = 1;
	}
	return (int)syscall(SYS_perf_event_open, &a, tid, cpu, -1, 0);
}

/* Sets the const volatile NAME of OBJ's .rodata, before the load. */
static void
set_rodata(struct bpf_object *obj, const char *name, __u64 v)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	struct bpf_map *m;
	size_t sz;
	char *data = NULL;
	int id, i;

	bpf_object__for_each_map(m, obj)
		if (strstr(bpf_map__name(m), ".rodata") != NULL)
			data = (char *)(uintptr_t)bpf_map__initial_value(m,
			    &sz);
	if (btf == NULL || data == NULL ||
	    (id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC)) < 0)
		errx(1, "no .rodata for %s", name);
	t = btf__type_by_id(btf, (__u32)id);
	vs = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vs++)
		if (strcmp(btf__name_by_offset(btf,
		    btf__type_by_id(btf, vs->type)->name_off), name) == 0 &&
		    vs->offset + vs->size <= sz) {
			memcpy(data + vs->offset, &v, vs->size);
			return;
		}
	errx(1, "no %s in .rodata", name);
}

/*
 * wp-arm's program, as wp-arm sets it up for one plain target (struct
 * wpb_conf begins addr, len, kind; kind 0 is a plain target); its
 * samples never wake anyone.
 */
static void
wp_conf(struct bpf_object *obj, unsigned long addr, int len)
{
	struct { __u64 addr; __u32 len, kind; char rest[256]; } c;
	__u32 k = 0;

	memset(&c, 0, sizeof c);
	c.addr = addr;
	c.len = (__u32)len;
	if (bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(obj,
	    "conf")), &k, &c, BPF_ANY) != 0)
		err(1, "conf");
}

/* The program's hits: the floor's counts, or wp-arm's tallies. */
static unsigned long long
tallied(struct bpf_object *obj, int wp)
{
	/* wp-arm's key (32 bytes) and value (hits first, 40 bytes) */
	unsigned char k[32], next[32], v[64];
	unsigned long long hits = 0, h;
	void *prev = NULL;
	int mfd;

	mfd = bpf_map__fd(bpf_object__find_map_by_name(obj,
	    wp ? "tally" : "counts"));
	while (bpf_map_get_next_key(mfd, prev, next) == 0) {
		memcpy(k, next, sizeof k);
		prev = k;
		if (bpf_map_lookup_elem(mfd, k, v) == 0) {
			memcpy(&h, v, sizeof h);
			hits += h;
		}
	}
	return hits;
}

int
main(int argc, char *argv[])
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_prog_info info;
	__u32 ilen = sizeof info;
	struct dirent *d;
	struct pollfd pf;
	unsigned long long counted = 0, c[2];
	unsigned long addr;
	char path[64];
	int pid, fds[MAXFD], nfd = 0, i, cpu, ncpu = 1, wpev, wp, len;
	DIR *dir;

	if (argc != 5 && argc != 6)
		errx(64, "usage: tally-floor PID ADDR LEN OBJ [wpev]");
	pid = atoi(argv[1]);
	addr = strtoul(argv[2], NULL, 0);
	len = atoi(argv[3]);
	if ((wpev = argc == 6 && strcmp(argv[5], "wpev") == 0))
		ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if ((obj = bpf_object__open_file(argv[4], NULL)) == NULL)
		errx(1, "%s: cannot open", argv[4]);
	if ((wp = bpf_object__find_program_by_name(obj, "on_s0") != NULL))
		set_rodata(obj, "wake_bytes", ~0ULL);
	if (bpf_object__load(obj) != 0 ||
	    (prog = bpf_object__find_program_by_name(obj,
	    wp ? "on_s0" : "on_hit")) == NULL)
		errx(1, "%s: cannot load", argv[4]);
	if (wp)
		wp_conf(obj, addr, len);
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	if ((dir = opendir(path)) == NULL)
		err(1, "%s", path);
	while ((d = readdir(dir)) != NULL)
		for (cpu = 0; d->d_name[0] != '.' && cpu < ncpu &&
		    nfd < MAXFD; cpu++, nfd++) {
			if ((fds[nfd] = open_bp(addr, len, atoi(d->d_name),
			    wpev ? cpu : -1, wpev)) == -1)
				err(1, "perf_event_open");
			if (ioctl(fds[nfd], PERF_EVENT_IOC_SET_BPF,
			    bpf_program__fd(prog)) == -1)
				err(1, "PERF_EVENT_IOC_SET_BPF");
		}
	closedir(dir);
	printf("armed\n");
	fflush(stdout);
	pf.fd = (int)syscall(SYS_pidfd_open, pid, 0);
	pf.events = POLLIN;
	if (pf.fd != -1)
		poll(&pf, 1, -1);
	for (i = 0; i < nfd; i++)
		if (read(fds[i], c, sizeof c) >= (ssize_t)sizeof c[0])
			counted += c[0];
	memset(&info, 0, sizeof info);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &ilen) != 0)
		info.run_cnt = 0;
	printf("tallied %llu counted %llu run_ns %llu runs %llu\n",
	    tallied(obj, wp), counted, (unsigned long long)info.run_time_ns,
	    (unsigned long long)info.run_cnt);
	return 0;
}
