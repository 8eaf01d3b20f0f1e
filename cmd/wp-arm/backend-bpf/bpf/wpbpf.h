/*
 * What the BPF program of the bpf backend (wp.bpf.c) and wp-arm share:
 * the maps' keys and values and the samples.  Plain UAPI types, for
 * both compilers.
 */
#ifndef WPBPF_H
#define WPBPF_H

#include <linux/types.h>

#include "bounds.h"
#include "cond-ops.h"
#include "sample-regs.h"

#define WPB_SLOTS	WP_HWBP_SLOTS	/* one program per debug register */
#define WPB_MAXDEPTH	WP_CHAIN_MAXDEPTH /* pointers in a follow chain */
#define WPB_NREGS	WP_SAMPLE_NREGS	/* in sample-regs.h's order */

enum { WPB_TARGET, WPB_POINTER, WPB_LEAF };

/* conf: per slot, set by wp-arm and moved when a chain is re-armed */
struct wpb_conf {
	__u64	addr;		/* where the breakpoint is */
	__u32	len;		/* bytes to read, at most 8 */
	__u32	kind;		/* WPB_* */
	__u32	level;		/* a pointer's level in its chain */
	__u32	noffs;		/* the chain's pointers */
	__u32	leaf_len;
	__u32	sig;		/* a pointer: signal its writer, 0: not */
	__s64	offs[WPB_MAXDEPTH];
};

/* tally: per slot, writing instruction, thread and call chain */
struct wpb_key {
	__u64	ip;		/* the trap IP: after the writing instruction */
	__u32	tid;
	__u32	slot;
	__s32	stack;		/* the chain in stacks (--callchain), or
				   bpf_get_stackid's error; 0 without */
	__u32	pad;
};

struct wpb_val {
	__u64	hits;
	__u64	first;		/* the watched bytes after the first hit */
	__u64	last;		/* and after the latest */
	__u64	unchanged;	/* hits that left the value as it was */
	__u64	matched;	/* hits that matched --if (all without) */
};

/* totals: per slot */
struct wpb_tot {
	__u64	sent;		/* samples in the ring */
	__u64	drops;		/* samples the ring had no room for */
	__u64	capped;		/* samples not sent: max events reached */
	__u64	readerr;	/* the watched bytes could not be read */
	__u64	tally_full;	/* hits no tally entry could hold */
	__u64	last_value;	/* the slot's value after its latest hit */
	__u64	claimed;	/* samples claimed against the limit */
	__u64	skipped;	/* hits the sample budget passed over */
	__u64	next_ns;	/* the budget's next sample, at the
				   earliest (CLOCK_MONOTONIC) */
	__u64	looked;		/* the kernel tick (jiffies) it last
				   looked at the clock in */
	__u64	first;		/* hits that matched --if (all without),
				   counted up to the budget's WPB_FIRST */
	__u64	stops;		/* --stop: matches after the first */
	__u64	kept;		/* --last: hits kept in lastw */
	__u64	pending;	/* samples of hits of writers not
				   decoded yet (WPB_F_PENDING) */
};

/*
 * lastw: --last, per target slot a ring of its last last_n hits, every
 * one, matched or not: its kth hit (k from 0, counted in totals.kept)
 * at slot * last_n + k % last_n, with seq k + 1 (0: not written).
 * Written with no sample and no wake-up; wp-arm reads it at the end.
 */
struct wpb_last {
	__u64	seq;
	__u64	time_ns;	/* CLOCK_MONOTONIC */
	__u64	ip;		/* the trap IP */
	__u64	value;		/* the watched bytes at the trap */
	__u32	tid;
	__u32	known;		/* value could be read */
	__s32	stack;		/* as in wpb_key */
	__u32	pad;
};

/*
 * cond: per slot, --if compiled (lib/cond.h's wp_cond_compile, whose
 * WP_COP_* and WP_CMP_* the ops carry) and --stop, set by wp-arm before
 * arming; nops 0: every hit matches.
 */
#define WPB_COND_OPS	WP_COND_KERNEL_OPS	/* a power of two */

struct wpb_op {
	__u32	op, cmp, negate, pad;
	__u64	a, b;
	__u64	name[2];	/* comm, as bpf_get_current_comm writes it */
};

struct wpb_cond {
	__u32	nops;
	__u32	stop;		/* SIGSTOP the first matching writer */
	__u32	comm;		/* an op tests comm: read it at each hit */
	__u32	stores;		/* --if tests the value: a known writer's
				   is its store's (stores), not memory's */
	struct wpb_op op[WPB_COND_OPS];
};

/*
 * stores: by trap IP, the store that ends there, as wp-arm decoded it
 * from a sample (cond-sample.c): a mov of a general register or an
 * immediate, its address base + index * scale + disp from the
 * registers at the trap (a rip-relative one's disp made absolute).
 * src WPB_SRC_MEMORY: another kind of write, its value read in memory;
 * WPB_SRC_PENDING: a writer the program met, not decoded yet.
 */
#define WPB_SRC_IMM	(-1)
#define WPB_SRC_MEMORY	(-2)
#define WPB_SRC_PENDING	(-3)
#define WPB_STORES	4096

struct wpb_store {
	__s32	src;		/* a register (sample-regs.h's order), or
				   WPB_SRC_* */
	__u32	shift;		/* of the register: 8 for ah .. dh */
	__u32	width;		/* bytes stored: 1, 2, 4 or 8 */
	__s32	base, index;	/* registers, -1: none */
	__u32	scale;
	__u32	addr32;		/* an address-size prefix */
	__u32	pad;
	__s64	disp;
	__u64	imm;
};

/*
 * The sample budget of a target (unless every hit is asked for; a
 * follow chain's entries have every hit sampled): its first WPB_FIRST
 * hits, the first WPB_FIRST_KEY of each tally (writer, thread, chain),
 * then one each WPB_PERIOD_NS (or each kernel tick, when longer), so
 * that samples span the watch.
 */
#define WPB_FIRST	64
#define WPB_FIRST_KEY	4
#define WPB_PERIOD_NS	2000000ULL

#define WPB_F_REGS	1
#define WPB_F_LEAF	2	/* a pointer's sample: leaf_* are set */
#define WPB_F_STOP	4	/* --stop: its thread was sent SIGSTOP */
#define WPB_F_STORED	8	/* value: the store's, from its source
				   register or immediate (stores) */
#define WPB_F_PENDING	16	/* a hit of a writer not decoded yet,
				   with --if testing the value: not
				   tested here (not counted matched);
				   wp-arm decodes the writer, and tests
				   the hit on its registers and prev */

struct wpb_sample {
	__u64	time_ns;	/* CLOCK_MONOTONIC */
	__u64	ip;
	__u64	value;		/* the watched bytes at the trap, or
				   the store's (WPB_F_STORED) */
	__u64	addr;
	__u64	leaf_addr;	/* a pointer's new leaf, and its value */
	__u64	leaf_value;
	__u32	pid, tid;
	__u32	slot, flags;
	__u32	cpu;
	__s32	stack;		/* as in wpb_key */
	__u64	prev;		/* WPB_F_PENDING: the slot's value
				   before this hit */
};

struct wpb_sample_regs {
	struct wpb_sample s;
	__u64	regs[WPB_NREGS];
};

/* --callchain dwarf: after the registers, the user stack from rsp on */
#define WPB_STACK_CHUNK	512	/* copied a chunk at a time */
#define WPB_MAXSTACK	WP_CALLCHAIN_MAXSTACK

struct wpb_sample_stack {
	struct wpb_sample_regs r;
	__u64	nstack;		/* bytes copied: the stack may end sooner */
	unsigned char stack[];
};

#endif
