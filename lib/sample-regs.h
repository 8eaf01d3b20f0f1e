/*
 * sample-regs: the register table of the machine built for, as perf's
 * sampled user registers and the bpf program's samples lay them out:
 * lib/x86-regs.h on x86-64, lib/arm64-regs.h on arm64 (a BPF program is
 * built for arm64 with -D__TARGET_ARCH_arm64).  Plain preprocessor text,
 * for both compilers; the one place wp-arm's samples pick a machine.
 *
 * WP_SAMPLE_REGS(X) the registers sampled, in perf's order (X as the
 * tables'); WP_SAMPLE_NREGS how many; WP_SAMPLE_IDX(N) register N's
 * index; WP_SAMPLE_PERF(p) its PERF_REG_*; WP_SAMPLE_PC and _SP the
 * fields of the pc and the stack pointer in the BPF program's pt_regs,
 * _SP_IDX the stack pointer's index, _REP_IDX a string instruction's
 * count's (x86-64's rcx; -1: none), _FLAGS_IDX the flags' (its
 * direction flag; -1: none);
 * WP_SAMPLE_IN_RECORDS whether the records' register table (x86-64's
 * so far) can hold them.
 */
#ifndef WP_SAMPLE_REGS_H
#define WP_SAMPLE_REGS_H

#if defined(__aarch64__) || defined(__TARGET_ARCH_arm64)
#include "arm64-regs.h"
#define WP_SAMPLE_REGS(X)	WP_ARM64_GPREGS(X)
#define WP_SAMPLE_NREGS		WP_A64_NGPREGS
#define WP_SAMPLE_IDX(N)	WP_A64_##N
#define WP_SAMPLE_PERF(p)	PERF_REG_ARM64_##p
#define WP_SAMPLE_PC		pc
#define WP_SAMPLE_SP		sp
#define WP_SAMPLE_SP_IDX	WP_A64_SP
#define WP_SAMPLE_REP_IDX	(-1)
#define WP_SAMPLE_FLAGS_IDX	(-1)
#define WP_SAMPLE_IN_RECORDS	0
#else
#include "x86-regs.h"
#define WP_SAMPLE_REGS(X)	WP_X86_GPREGS(X)
#define WP_SAMPLE_NREGS		WP_NGPREGS
#define WP_SAMPLE_IDX(N)	WP_##N
#define WP_SAMPLE_PERF(p)	PERF_REG_X86_##p
#define WP_SAMPLE_PC		rip
#define WP_SAMPLE_SP		rsp
#define WP_SAMPLE_SP_IDX	WP_RSP
#define WP_SAMPLE_REP_IDX	WP_RCX
#define WP_SAMPLE_FLAGS_IDX	WP_RFLAGS
#define WP_SAMPLE_IN_RECORDS	1
#endif

#ifdef __bpf__
/*
 * Register i (WP_SAMPLE_IDX's order) of a context that begins with the
 * thread's user registers, read alone at its constant offset (see
 * x86-regs.h's wp_x86_reg_at, which x86-64 keeps); -1 (none): 0.
 */
#if defined(__TARGET_ARCH_arm64)
static __always_inline __u64
wp_sample_reg_at(const void *ctx, __s32 i)
{
	__u64 v;

	switch (i) {
#define WP_PT_CASE(N, name, field, perf, dwarf)				\
	case WP_A64_##N:						\
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(v)		\
		    : "r"(ctx), "i"(__builtin_offsetof(struct user_pt_regs, \
		    field)));						\
		return v;
	WP_ARM64_GPREGS(WP_PT_CASE)
#undef WP_PT_CASE
	}
	return 0;
}
#else
#define wp_sample_reg_at	wp_x86_reg_at
#endif
#endif

#endif
