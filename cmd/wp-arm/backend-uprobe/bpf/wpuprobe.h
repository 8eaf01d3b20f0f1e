/*
 * What the BPF program of the uprobe backend (insn.bpf.c) and wp-arm
 * share: the maps' keys and values.  Plain UAPI types, for both
 * compilers.
 */
#ifndef WPUPROBE_H
#define WPUPROBE_H

#include <linux/types.h>

#include "bounds.h"
#include "sample-regs.h"

#define WPU_MAXSITES	1024	/* instructions probed in one watch */
#define WPU_XSLOTS	4	/* execute breakpoints: a program each */
#define WPU_NVALS	4	/* the value budget: distinct values kept
				   per site, address and thread */

enum { WPU_SEG_NONE, WPU_SEG_FS, WPU_SEG_GS };

/* conf: per site (the uprobe's cookie), its memory operand */
struct wpu_site {
	__s32	base;		/* sample-regs.h's index; -1 none */
	__s32	index;		/* -1 none */
	__u32	scale;
	__u32	seg;		/* WPU_SEG_* */
	__s64	disp;
	__u64	next_ip;	/* rip-relative: the next instruction, else 0 */
	__u32	addr32;		/* an address-size prefix: 32 bits */
	__u32	writes;		/* counted as writes */
	__u32	reads;		/* counted as reads (-a rw) */
	__s32	src;		/* a register store's source register
				   (sample-regs.h's order); -1: none */
	__u32	shift;		/* of the register: 8 for ah .. dh */
	__u32	rep;		/* a rep string store: each iteration is
				   a hit (the uprobe runs before each) */
	__u64	mask;		/* of the value: the bytes stored */
};

/* tally: per site, address and thread */
struct wpu_key {
	__u64	addr;
	__u32	site;
	__u32	tid;
};

struct wpu_val {
	__u64	writes;
	__u64	reads;
	__u64	first;		/* a register store: the value it stored */
	__u64	last;		/* first and latest (one thread's: in order) */
	__u64	vals[WPU_NVALS];	/* a register store: the first distinct
				   values it stored, */
	__u64	vn[WPU_NVALS];	/* how often each, */
	__u64	vother;		/* and how often another */
	__u64	nvals;
	__u64	sp;		/* the thread's stack pointer and thread */
	__u64	tp;		/* pointer (fs base) at the first: whose
				   stack or TLS an address is */
};

/* runs: a rep string's executions at an execute breakpoint */
struct wpu_run_key {
	__u64	first;		/* the first element's address */
	__u64	n;		/* elements */
	__s64	step;		/* bytes to the next: DF's sign */
	__u32	site;
	__u32	tid;
};

struct wpu_run_val {
	__u64	count;		/* executions */
	__u64	sp, tp;		/* as wpu_val's, at the first */
};

/*
 * totals: per site, and per CPU (no line shared by the CPUs of the
 * threads that run it; atomic adds still, where a program is preempted)
 */
struct wpu_tot {
	__u64	execs;		/* every execution */
	__u64	full;		/* executions no tally entry could hold */
	__u64	noseg;		/* the segment base could not be read */
};

/*
 * --stop (execute breakpoints): the first execution's thread is sent
 * SIGSTOP, which it takes before the instruction runs; what it was.
 */
struct wpu_stop {
	__u64	done;		/* executions that found it wanted */
	__u32	want;		/* set by wp-arm */
	__u32	tid;
	__u32	site;
	__u32	pad;
	__u64	addr;
};

#endif
