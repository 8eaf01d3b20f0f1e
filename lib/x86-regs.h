/*
 * x86-regs: the one register table of wp.  Every list of registers in
 * an order (the record's "regs", perf's sampled user registers, the BPF
 * program's samples, ptrace's user_regs_struct, libdw's DWARF frame) is
 * derived from it.  Plain preprocessor text and an enum, so that the
 * BPF program includes it as wp-arm does.
 *
 * X(NAME, name, field, perf, dwarf): WP_NAME its index in wp's order,
 * name its name in records, field its member of struct user_regs_struct
 * (ptrace) and struct pt_regs (the BPF program), perf the tail of its
 * PERF_REG_X86_*, dwarf its DWARF register number (x86-64 psABI; rip
 * as the return-address column).
 *
 * WP_X86_GPREGS are in perf's order (its PERF_REG_X86_* rising), as a
 * perf sample with these registers lays them out.
 */
#ifndef WP_X86_REGS_H
#define WP_X86_REGS_H

#define WP_X86_GPREGS(X) \
	X(RAX, rax, rax, AX, 0) \
	X(RBX, rbx, rbx, BX, 3) \
	X(RCX, rcx, rcx, CX, 2) \
	X(RDX, rdx, rdx, DX, 1) \
	X(RSI, rsi, rsi, SI, 4) \
	X(RDI, rdi, rdi, DI, 5) \
	X(RBP, rbp, rbp, BP, 6) \
	X(RSP, rsp, rsp, SP, 7) \
	X(RIP, rip, rip, IP, 16) \
	X(RFLAGS, rflags, eflags, FLAGS, 49) \
	X(R8, r8, r8, R8, 8) \
	X(R9, r9, r9, R9, 9) \
	X(R10, r10, r10, R10, 10) \
	X(R11, r11, r11, R11, 11) \
	X(R12, r12, r12, R12, 12) \
	X(R13, r13, r13, R13, 13) \
	X(R14, r14, r14, R14, 14) \
	X(R15, r15, r15, R15, 15)

/* then the segment bases, which ptrace gives and perf does not */
#define WP_X86_SEGBASES(X) \
	X(FS_BASE, fs_base, fs_base, none, 58) \
	X(GS_BASE, gs_base, gs_base, none, 59)

#define WP_X86_REGS(X)	WP_X86_GPREGS(X) WP_X86_SEGBASES(X)

#define WP_X86_REG_INDEX(N, name, field, perf, dwarf)	WP_##N,
enum {
	WP_X86_REGS(WP_X86_REG_INDEX)
	WP_NREGS
};
#define WP_NGPREGS	WP_FS_BASE

#ifdef __bpf__
/*
 * For the BPF programs: register i (wp's order) from a context that
 * begins with the thread's struct pt_regs (a uprobe's, or a perf
 * event's bpf_perf_event_data), read alone; -1 (none): 0.  Each case's
 * load is an instruction of its own, at its constant offset: the
 * verifier takes no other read of ctx, and the compiler would merge
 * plain ones into one load at a computed offset.
 */
static __always_inline __u64
wp_x86_reg_at(const void *ctx, __s32 i)
{
	__u64 v;

	switch (i) {
#define WP_PT_CASE(N, name, field, perf, dwarf)				\
	case WP_##N:							\
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(v)		\
		    : "r"(ctx), "i"(__builtin_offsetof(struct pt_regs,	\
		    field)));						\
		return v;
	WP_X86_GPREGS(WP_PT_CASE)
#undef WP_PT_CASE
	}
	return 0;
}
#endif

/* The first DWARF registers libdw takes as a frame's start: 0 .. 16. */
#define WP_X86_NDWARF	17

#endif
