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
#include <linux/bpf_perf_event.h>
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
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WPU_MAXSITES);
	__type(key, __u32);
	__type(value, struct wpu_tot);
} totals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wpu_stop);
} stop SEC(".maps");

/* --stop: the first execution's thread stopped before it runs it. */
static __always_inline void
stop_first(__u32 site, __u32 tid, __u64 a)
{
	struct wpu_stop *st;
	__u32 z = 0;

	if ((st = bpf_map_lookup_elem(&stop, &z)) == NULL || !st->want ||
	    __sync_fetch_and_add(&st->done, 1) != 0)
		return;
	st->tid = tid;
	st->site = site;
	st->addr = a;
	bpf_send_signal_thread(19);	/* SIGSTOP */
}

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

/* What one execution tallies. */
struct acc {
	__u64	val;		/* a register store's value */
	__s64	step;		/* a rep string: the bytes to the next */
	__u32	site, tid;
	__u32	writes, reads;
	__s32	src;
};

static __always_inline void
tally_one(struct acc *c, __u64 addr, struct pt_regs *regs)
{
	struct wpu_key k = { 0 };
	struct wpu_val one = { 0 }, *v;
	struct wpu_tot *tot;
	struct task_struct *task;

	k.addr = addr;
	k.site = c->site;
	k.tid = c->tid;
	/*
	 * The thread's own entry: no other changes it (a thread runs
	 * one program at a time), so plain adds
	 */
	if ((v = bpf_map_lookup_elem(&tally, &k)) != NULL) {
		v->writes += c->writes;
		v->reads += c->reads;
		v->last = c->val;
		if (c->src >= 0)
			tally_value(v, c->val);
		return;
	}
	one.writes = c->writes;
	one.reads = c->reads;
	one.first = one.last = c->val;
	if (c->src >= 0) {
		one.vals[0] = c->val;
		one.vn[0] = 1;
		one.nvals = 1;
	}
	/* once per address and thread: where its stack and TLS are */
	one.sp = wp_sample_reg_at(regs, WP_SAMPLE_SP_IDX);
	task = (struct task_struct *)bpf_get_current_task();
	if (bpf_core_read(&one.tp, sizeof one.tp, &task->thread.fsbase))
		one.tp = 0;
	if (bpf_map_update_elem(&tally, &k, &one, BPF_NOEXIST) == 0)
		return;
	if ((v = bpf_map_lookup_elem(&tally, &k)) != NULL) {
		v->writes += c->writes;
		v->reads += c->reads;
	} else if ((tot = bpf_map_lookup_elem(&totals, &c->site)) != NULL)
		__sync_fetch_and_add(&tot->full, 1);
}

/*
 * A rep string's execution at an execute breakpoint, which traps once
 * before the instruction, not before each iteration: its run of
 * elements (first, count, step) counted per site and thread, one map
 * entry an execution however long, which wp-arm counts per element.
 * Where a trap comes again mid-way (an emulator that does not keep the
 * RF flag across iterations), that is the execution already counted,
 * told by the thread's next element and count left, and not counted
 * again.
 */
struct rep_left {
	__u32	site;
	__u32	pad;
	__u64	next;		/* the element after the first */
	__u64	left;		/* the count then */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tid */
	__type(value, struct rep_left);
} rep_at SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* set by wp-arm */
	__type(key, struct wpu_run_key);
	__type(value, struct wpu_run_val);
} runs SEC(".maps");

static __always_inline void
tally_run(struct pt_regs *regs, struct wpu_tot *tot, __u32 site, __u32 tid,
    __u64 a, __u64 n, __s64 step)
{
	struct wpu_run_key k = { 0 };
	struct wpu_run_val one = { 0 }, *v;
	struct task_struct *task;

	k.first = a;
	k.n = n;
	k.step = step;
	k.site = site;
	k.tid = tid;
	if ((v = bpf_map_lookup_elem(&runs, &k)) != NULL) {
		v->count++;
		return;
	}
	one.count = 1;
	one.sp = wp_sample_reg_at(regs, WP_SAMPLE_SP_IDX);
	task = (struct task_struct *)bpf_get_current_task();
	if (bpf_core_read(&one.tp, sizeof one.tp, &task->thread.fsbase))
		one.tp = 0;
	if (bpf_map_update_elem(&runs, &k, &one, BPF_NOEXIST) == 0)
		return;
	if ((v = bpf_map_lookup_elem(&runs, &k)) != NULL)
		v->count++;
	else
		__sync_fetch_and_add(&tot->full, n);
}

/*
 * The site's memory operand at regs, before the instruction: counted per
 * (site, address, thread); per_exec: the trap comes once an execution,
 * not once an iteration of a rep string.
 */
static __always_inline int
count_at(struct pt_regs *regs, __u32 site, int per_exec)
{
	struct acc c = { 0 };
	struct wpu_site *s;
	struct wpu_tot *tot;
	struct task_struct *task;
	struct rep_left rl, *rp;
	__u64 a, base, n = 0, df;

	if ((s = bpf_map_lookup_elem(&conf, &site)) == NULL ||
	    (tot = bpf_map_lookup_elem(&totals, &site)) == NULL)
		return 0;
	base = wp_sample_reg_at(regs, s->base);
	if (s->addr32)
		base = (__u32)base;
	a = (__u64)s->disp + s->next_ip + base +
	    wp_sample_reg_at(regs, s->index) * (__u64)s->scale;
	if (s->addr32)
		a = (__u32)a;
	if (with_fs && s->seg == WPU_SEG_FS) {
		task = (struct task_struct *)bpf_get_current_task();
		if (bpf_core_read(&base, sizeof base, &task->thread.fsbase)) {
			__sync_fetch_and_add(&tot->execs, 1);
			__sync_fetch_and_add(&tot->noseg, 1);
			return 0;
		}
		a += base;
	}
	if (with_gs && s->seg == WPU_SEG_GS) {
		task = (struct task_struct *)bpf_get_current_task();
		if (bpf_core_read(&base, sizeof base, &task->thread.gsbase)) {
			__sync_fetch_and_add(&tot->execs, 1);
			__sync_fetch_and_add(&tot->noseg, 1);
			return 0;
		}
		a += base;
	}
	c.site = site;
	c.tid = (__u32)bpf_get_current_pid_tgid();
	if (per_exec)
		stop_first(site, c.tid, a);
	c.writes = s->writes;
	c.reads = s->reads;
	c.src = s->src;
	/* before the instruction: what a register store stores */
	if (s->src >= 0)
		c.val = (wp_sample_reg_at(regs, s->src) >> s->shift) & s->mask;
	/*
	 * A rep string store at a uprobe: it runs before each iteration
	 * (the kernel steps the instruction out of line, one iteration,
	 * and returns to it while rcx is not 0), each one element at rdi,
	 * up or down as DF says: an execution is an element.  rcx 0
	 * writes nothing.
	 */
	if (s->rep) {
		n = wp_sample_reg_at(regs, WP_SAMPLE_REP_IDX);
		if (s->addr32)
			n = (__u32)n;
	}
	if (!s->rep || !per_exec) {
		__sync_fetch_and_add(&tot->execs, 1);
		if (!s->rep || n > 0)
			tally_one(&c, a, regs);
		return 0;
	}
	/* an execute breakpoint's: every element at once, an execution each */
	df = (wp_sample_reg_at(regs, WP_SAMPLE_FLAGS_IDX) >> 10) & 1;
	c.step = df ? -(__s64)s->rep : (__s64)s->rep;
	if ((rp = bpf_map_lookup_elem(&rep_at, &c.tid)) != NULL &&
	    rp->site == site && rp->next == a && rp->left == n && n > 0) {
		rp->next += (__u64)c.step;
		rp->left--;
		return 0;
	}
	__sync_fetch_and_add(&tot->execs, n > 0 ? n : 1);
	if (n == 0)
		return 0;
	rl.site = site;
	rl.pad = 0;
	rl.next = a + (__u64)c.step;
	rl.left = n - 1;
	bpf_map_update_elem(&rep_at, &c.tid, &rl, BPF_ANY);
	tally_run(regs, tot, site, c.tid, a, n, c.step);
	return 0;
}

SEC("uprobe")
int
on_insn(struct pt_regs *ctx)
{
	return count_at(ctx, (__u32)bpf_get_attach_cookie(ctx), 0);
}

/*
 * At an execute breakpoint (a perf event the threads inherit, without
 * the cookie): a program per slot, the site its own.
 */
#define ON_X(N)								\
SEC("perf_event")							\
int									\
on_x##N(struct bpf_perf_event_data *ctx)				\
{									\
	return count_at((struct pt_regs *)ctx, N, 1);			\
}
ON_X(0)
ON_X(1)
ON_X(2)
ON_X(3)

char LICENSE[] SEC("license") = "GPL";
