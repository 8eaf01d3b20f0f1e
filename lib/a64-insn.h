/*
 * a64-insn: one AArch64 instruction at a time (capstone's ARM64): what
 * it stores, where and from which registers, over the register table
 * of arm64-regs.h.  A watchpoint on AArch64 reports the PC of the
 * storing instruction itself, with the registers before it ran.
 */
#ifndef WP_A64_INSN_H
#define WP_A64_INSN_H

#include <stddef.h>
#include <stdint.h>

#include "arm64-regs.h"

/* Their names in records ("x0", ..., "pstate"), indexed WP_A64_*. */
extern const char *const wp_a64_reg_names[WP_A64_NREGS];

struct wp_a64_regs {
	uint64_t	v[WP_A64_NREGS];
	uint64_t	have;		/* bit per register known */
};

#define WP_A64_ZR	(-2)	/* wzr, xzr: reads as zero */

enum wp_a64_kind {
	WP_A64_NONE,		/* writes no memory */
	WP_A64_STORE,		/* str, stur, stlr, stp, ...: registers */
	WP_A64_EXCLUSIVE,	/* stxr, stlxr, stxp: when the monitor holds */
	WP_A64_SWAP,		/* swp: the source, the old value loaded */
	WP_A64_CAS,		/* cas: the new value, when memory held the old */
	WP_A64_ATOMIC,		/* ldadd, stadd, ldset, ...: old value op source */
	WP_A64_SIMD,		/* st1, str q0: vector registers (not sampled) */
	WP_A64_OTHER		/* another memory write (dc zva, ...) */
};

struct wp_a64_insn {
	uint64_t	 addr;
	int		 size;		/* 4 */
	char		 text[200];
	char		 mnemonic[32];
	enum wp_a64_kind kind;
	int		 writes, reads;
	int		 width;		/* bytes stored, 0 unknown */
	int		 base;		/* WP_A64_*: the address register */
	int		 index;		/* WP_A64_*, -1 none */
	int		 index_shift;
	int		 index_ext;	/* 0 none, 'w' uxtw, 's' sxtw */
	int64_t		 disp;
	int		 post_index;	/* [xn], #imm: the address is xn */
	int		 nsrc;		/* the registers stored: 1 or 2 */
	int		 src[2];	/* WP_A64_*, WP_A64_ZR */
	char		 src_name[2][8];
	int		 src_bytes;	/* each */
	int		 status_reg;	/* stxr's status register, -1 */
};

/* Opens capstone once; wp_a64_decode calls it.  0, or -1. */
int	 wp_a64_init(void);
/*
 * Decodes the instruction at code (len bytes, at address addr) and
 * classifies how it writes memory.  0, or -1 when it is no instruction.
 */
int	 wp_a64_decode(const uint8_t *code, size_t len, uint64_t addr,
	    struct wp_a64_insn *in);
/*
 * The bytes it stores, [*lo, *hi), from the registers before it ran.
 * -1 when it stores nothing or the registers needed are not known.
 */
int	 wp_a64_store_range(const struct wp_a64_insn *in,
	    const struct wp_a64_regs *r, uint64_t *lo, uint64_t *hi);
/*
 * The ARMv8.1 atomics capstone 4 does not decode (a64-lse.c): the
 * instruction w at addr into in (set up as wp_a64_decode does), 0; or
 * -1 when w is none of them.
 */
int	 wp_a64_lse(uint32_t w, uint64_t addr, struct wp_a64_insn *in);
/* The registers its address and stored value are computed from. */
uint64_t wp_a64_needs(const struct wp_a64_insn *in);

#endif
