// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The uprobe backend's program: it runs at a uprobe on an instruction
 * (its cookie: the site), before the instruction, and computes the
 * effective address of its memory operand from the registers (base,
 * index, scale, displacement, the fs base from the task), counting the
 * execution per (site, address, thread) in a hash map that wp-arm reads.
 * A new entry keeps the thread's stack pointer and fs base too, for
 * wp-arm to say whose stack or thread-local storage the address is.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "wpuprobe.h"

/* the kernel's, as far as the fs base: relocated by its BTF (CO-RE) */
struct thread_struct {
	unsigned long fsbase;
	unsigned long gsbase;
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_struct thread;
} __attribute__((preserve_access_index));

const volatile __u32 with_fs = 0;	/* a site's operand is fs: */
const volatile __u32 with_gs = 0;	/* or gs: */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WPU_MAXSITES);
	__type(key, __u32);
	__type(value, struct wpu_site);
} conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* set by wp-arm */
	__type(key, struct wpu_key);
	__type(value, struct wpu_val);
} tally SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WPU_MAXSITES);
	__type(key, __u32);
	__type(value, struct wpu_tot);
} totals SEC(".maps");

/*
 * The value budget: the first WPU_NVALS distinct values a register store
 * wrote at one address, each with its count, then how many writes were
 * of other values.  One thread's entry is only its own to change (a
 * thread runs on one CPU at a time, and the program is not preempted).
 */
static __always_inline void
tally_value(struct wpu_val *v, __u64 val)
{
	__u64 i;

#pragma unroll
	for (i = 0; i < WPU_NVALS; i++) {
		if (i == v->nvals) {
			v->vals[i] = val;
			v->vn[i] = 1;
			v->nvals = i + 1;
			return;
		}
		if (v->vals[i] == val) {
			v->vn[i]++;
			return;
		}
	}
	v->vother++;
}

SEC("uprobe")
int
on_insn(struct pt_regs *ctx)
{
	__u32 site = (__u32)bpf_get_attach_cookie(ctx);
	struct wpu_key k = { 0 };
	struct wpu_val one = { 0 }, *v;
	struct wpu_site *s;
	struct wpu_tot *tot;
	struct task_struct *task;
	__u64 a, base, val = 0, n = 0;

	if ((s = bpf_map_lookup_elem(&conf, &site)) == NULL ||
	    (tot = bpf_map_lookup_elem(&totals, &site)) == NULL)
		return 0;
	__sync_fetch_and_add(&tot->execs, 1);
	base = wp_sample_reg_at(ctx, s->base);
	if (s->addr32)
		base = (__u32)base;
	a = (__u64)s->disp + s->next_ip + base +
	    wp_sample_reg_at(ctx, s->index) * (__u64)s->scale;
	if (s->addr32)
		a = (__u32)a;
	if (with_fs && s->seg == WPU_SEG_FS) {
		task = (struct task_struct *)bpf_get_current_task();
		if (bpf_core_read(&base, sizeof base, &task->thread.fsbase)) {
			__sync_fetch_and_add(&tot->noseg, 1);
			return 0;
		}
		a += base;
	}
	if (with_gs && s->seg == WPU_SEG_GS) {
		task = (struct task_struct *)bpf_get_current_task();
		if (bpf_core_read(&base, sizeof base, &task->thread.gsbase)) {
			__sync_fetch_and_add(&tot->noseg, 1);
			return 0;
		}
		a += base;
	}
	/*
	 * A rep string store: the uprobe runs before each iteration (the
	 * kernel steps the instruction out of line, one iteration, and
	 * returns to it while rcx is not 0), each one element at rdi, up
	 * or down as DF says: an execution is an element.  rcx 0 writes
	 * nothing.
	 */
	if (s->rep) {
		n = wp_sample_reg_at(ctx, WP_SAMPLE_REP_IDX);
		if ((s->addr32 ? (__u32)n : n) == 0)
			return 0;
	}
	/* before the instruction: what a register store stores */
	if (s->src >= 0)
		val = (wp_sample_reg_at(ctx, s->src) >> s->shift) & s->mask;
	k.addr = a;
	k.site = site;
	k.tid = (__u32)bpf_get_current_pid_tgid();
	if ((v = bpf_map_lookup_elem(&tally, &k)) != NULL) {
		__sync_fetch_and_add(&v->writes, s->writes);
		__sync_fetch_and_add(&v->reads, s->reads);
		v->last = val;
		if (s->src >= 0)
			tally_value(v, val);
		return 0;
	}
	one.writes = s->writes;
	one.reads = s->reads;
	one.first = one.last = val;
	if (s->src >= 0) {
		one.vals[0] = val;
		one.vn[0] = 1;
		one.nvals = 1;
	}
	/* once per address and thread: where its stack and TLS are */
	one.sp = wp_sample_reg_at(ctx, WP_SAMPLE_SP_IDX);
	task = (struct task_struct *)bpf_get_current_task();
	if (bpf_core_read(&one.tp, sizeof one.tp, &task->thread.fsbase))
		one.tp = 0;
	if (bpf_map_update_elem(&tally, &k, &one, BPF_NOEXIST) == 0)
		return 0;
	/* another CPU made it first: add to its entry */
	if ((v = bpf_map_lookup_elem(&tally, &k)) != NULL) {
		__sync_fetch_and_add(&v->writes, s->writes);
		__sync_fetch_and_add(&v->reads, s->reads);
	} else
		__sync_fetch_and_add(&tot->full, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
