// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF tally floor (bench/tally-floor.c): on each hit, the trap IP,
 * the thread and the watched bytes, one added to a hash keyed by (IP,
 * thread); no sample, no wake-up.  What a breakpoint that only counts
 * costs the target: the floor wp-arm's bpf backend is measured against.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "tally-floor.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct key);
	__type(value, struct val);
} counts SEC(".maps");

SEC("perf_event")
int
on_hit(struct bpf_perf_event_data *ctx)
{
	struct key k = {};
	struct val *v, nv = {};
	__u64 cur = 0;

	k.ip = ctx->regs.rip;
	k.tid = (__u32)bpf_get_current_pid_tgid();
	bpf_probe_read_user(&cur, sizeof cur, (void *)ctx->addr);
	v = bpf_map_lookup_elem(&counts, &k);
	if (v != NULL) {
		v->hits++;
		v->last = cur;
	} else {
		nv.hits = 1;
		nv.last = cur;
		bpf_map_update_elem(&counts, &k, &nv, BPF_NOEXIST);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
