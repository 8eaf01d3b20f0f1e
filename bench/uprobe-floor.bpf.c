// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The uprobe floor (bench/uprobe-floor.c): a uprobe program that only
 * counts its runs, one add to an array's one entry; and the same program
 * for an execute breakpoint.  What a uprobe on an
 * instruction costs the target at least: the floor wp-arm's uprobe
 * backend is measured against.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} runs SEC(".maps");

SEC("uprobe")
int
on_insn(struct pt_regs *ctx)
{
	__u32 k = 0;
	__u64 *v;

	(void)ctx;
	if ((v = bpf_map_lookup_elem(&runs, &k)) != NULL)
		__sync_fetch_and_add(v, 1);
	return 0;
}

/* the same at an execute breakpoint (uprobe-floor --exec) */
SEC("perf_event")
int
on_x(void *ctx)
{
	__u32 k = 0;
	__u64 *v;

	(void)ctx;
	if ((v = bpf_map_lookup_elem(&runs, &k)) != NULL)
		__sync_fetch_and_add(v, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
