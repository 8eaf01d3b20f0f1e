/*
 * arm64-regs: the register table of wp on AArch64, in the shape of
 * x86-regs.h.  Every list of arm64 registers in an order (the record's
 * "regs", perf's sampled user registers, the BPF program's samples,
 * ptrace's NT_PRSTATUS regset, libdw's DWARF frame) is derived from it.
 *
 * X(NAME, name, field, perf, dwarf): WP_A64_NAME its index in wp's
 * order, name its name in records, field its member of struct
 * user_pt_regs (ptrace's NT_PRSTATUS; the BPF program's pt_regs begins
 * with it), perf the tail of its PERF_REG_ARM64_*, dwarf its DWARF
 * register number (AAPCS64 DWARF: x0-x30 0-30, sp 31; pc has none and
 * is the frame's start address; pstate none).
 *
 * WP_ARM64_GPREGS are in perf's order (PERF_REG_ARM64_* rising), as a
 * perf sample with these registers lays them out; pstate, which perf
 * does not sample, comes last.
 */
#ifndef WP_ARM64_REGS_H
#define WP_ARM64_REGS_H

#define WP_ARM64_GPREGS(X) \
	X(X0, x0, regs[0], X0, 0) \
	X(X1, x1, regs[1], X1, 1) \
	X(X2, x2, regs[2], X2, 2) \
	X(X3, x3, regs[3], X3, 3) \
	X(X4, x4, regs[4], X4, 4) \
	X(X5, x5, regs[5], X5, 5) \
	X(X6, x6, regs[6], X6, 6) \
	X(X7, x7, regs[7], X7, 7) \
	X(X8, x8, regs[8], X8, 8) \
	X(X9, x9, regs[9], X9, 9) \
	X(X10, x10, regs[10], X10, 10) \
	X(X11, x11, regs[11], X11, 11) \
	X(X12, x12, regs[12], X12, 12) \
	X(X13, x13, regs[13], X13, 13) \
	X(X14, x14, regs[14], X14, 14) \
	X(X15, x15, regs[15], X15, 15) \
	X(X16, x16, regs[16], X16, 16) \
	X(X17, x17, regs[17], X17, 17) \
	X(X18, x18, regs[18], X18, 18) \
	X(X19, x19, regs[19], X19, 19) \
	X(X20, x20, regs[20], X20, 20) \
	X(X21, x21, regs[21], X21, 21) \
	X(X22, x22, regs[22], X22, 22) \
	X(X23, x23, regs[23], X23, 23) \
	X(X24, x24, regs[24], X24, 24) \
	X(X25, x25, regs[25], X25, 25) \
	X(X26, x26, regs[26], X26, 26) \
	X(X27, x27, regs[27], X27, 27) \
	X(X28, x28, regs[28], X28, 28) \
	X(X29, x29, regs[29], X29, 29) \
	X(X30, x30, regs[30], LR, 30) \
	X(SP, sp, sp, SP, 31) \
	X(PC, pc, pc, PC, -1)

/* then the state perf does not sample */
#define WP_ARM64_STATE(X) \
	X(PSTATE, pstate, pstate, none, -1)

#define WP_ARM64_REGS(X)	WP_ARM64_GPREGS(X) WP_ARM64_STATE(X)

#define WP_ARM64_REG_INDEX(N, name, field, perf, dwarf)	WP_A64_##N,
enum {
	WP_ARM64_REGS(WP_ARM64_REG_INDEX)
	WP_A64_NREGS
};
#define WP_A64_NGPREGS	WP_A64_PSTATE

/* The DWARF registers libdw takes as a frame's start: x0 .. sp. */
#define WP_ARM64_NDWARF	32

#endif
