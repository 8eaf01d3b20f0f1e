/*
 * x86: one x86-64 instruction at a time (capstone): what it stores and
 * loads, where, and from which register, over the register table of
 * x86-regs.h.
 */
#ifndef WP_X86_H
#define WP_X86_H

#include <stddef.h>
#include <stdint.h>

#include "x86-regs.h"

/* Their names in records ("rax", ..., "gs_base"), indexed WP_*. */
extern const char *const wp_x86_reg_names[WP_NREGS];

struct wp_x86_regs {
	uint64_t	v[WP_NREGS];
	uint32_t	have;		/* bit per register known */
};

struct user_regs_struct;
/* All the registers of a thread ptrace stopped, from PTRACE_GETREGS
   (on an x86-64 machine only). */
void	 wp_x86_regs_from_user(struct wp_x86_regs *r,
	    const struct user_regs_struct *u);

enum wp_x86_kind {
	WP_X86_NONE,		/* writes no memory */
	WP_X86_REG_STORE,	/* mov [m], reg */
	WP_X86_IMM_STORE,	/* mov [m], imm */
	WP_X86_RMW,		/* add [m], ...; inc; or; shl; setcc */
	WP_X86_XCHG,		/* xchg, xadd, cmpxchg: source overwritten */
	WP_X86_PUSH,		/* push, call, enter, pushf */
	WP_X86_STRING,		/* stos, movs (rep too) */
	WP_X86_SIMD,		/* a store from a vector or x87 register */
	WP_X86_OTHER		/* another memory write */
};

struct wp_x86_mem {
	int		seg;		/* 0, or WP_FS_BASE / WP_GS_BASE */
	int		base;		/* register index, -1 none */
	int		index;		/* register index, -1 none */
	int		base_bytes;	/* 4 with an address-size prefix */
	int		scale;
	int64_t		disp;
	int		rip_rel;
};

/* What decides which bytes of a store's operand it writes. */
enum wp_x86_mask {
	WP_X86_MASK_NONE,	/* every byte */
	WP_X86_MASK_K,		/* AVX-512: element i when bit i of k<mask_reg> */
	WP_X86_MASK_VEC		/* vmaskmov, maskmovdqu: element i when the top
				   bit of element i of vector mask_reg is set */
};

struct wp_x86_insn {
	uint64_t	 addr;
	int		 size;
	char		 text[200];
	enum wp_x86_kind kind;
	int		 writes;	/* writes memory */
	int		 reads;		/* reads memory */
	int		 width;		/* bytes stored, 0 unknown */
	int		 has_mem;	/* the written operand, explicit */
	struct wp_x86_mem mem;
	int		 src_reg;	/* WP_R*, -1 */
	int		 src_bytes;
	int		 src_shift;	/* 8 for ah, bh, ch, dh */
	const char	*src_name;
	uint64_t	 imm;
	int		 rep;
	int		 is_syscall;
	enum wp_x86_mask mask;
	int		 mask_reg;	/* k or xmm/ymm register number */
	int		 elem;		/* bytes an element of the mask */
	int		 compress;	/* vpcompress: the chosen elements, packed */
	/*
	 * Which bytes it writes is not known from the decoding: xsave,
	 * fxsave (width: the most it may write), scatters and masked
	 * stores of unknown elements (no store range at all).
	 */
	int		 unmodeled;
	/* it writes a register its address is computed from, so the
	   registers after it do not place its store */
	int		 addr_clobbered;
	/* a read-modify-write's or exchange's other operand: a general
	   register (op_reg -1: none), or an immediate (has_op_imm) */
	int		 op_reg, op_bytes, op_shift;
	int		 has_op_imm;
	uint64_t	 op_imm;
	/* a plain load, mov reg, [m]: the general register it loads
	   (ld_reg -1: none), as wide as the load */
	int		 ld_reg, ld_bytes, ld_shift;
};

/* Opens capstone once; wp_x86_decode calls it.  0, or -1. */
int	 wp_x86_init(void);
/* The string stores' mnemonics (rep's too), NULL-terminated. */
extern const char *const wp_x86_string_stores[];
/* Whether an instruction's text (mnemonic first) is a rep string store. */
int	 wp_x86_text_rep_store(const char *insn);
/*
 * Decodes the instruction at code (len bytes, at address addr) and
 * classifies how it writes memory.  0, or -1 when it is no instruction.
 */
int	 wp_x86_decode(const uint8_t *code, size_t len, uint64_t addr,
	    struct wp_x86_insn *in);
/*
 * The bytes the instruction stores, [*lo, *hi), from the registers
 * before it ran (after = 0) or after it (after = 1: push and call have
 * moved rsp down to the slot, string stores have moved rdi on).  -1
 * when it stores nothing or the registers needed are not known.
 */
int	 wp_x86_store_range(const struct wp_x86_insn *in,
	    const struct wp_x86_regs *r, int after, uint64_t *lo, uint64_t *hi);
/*
 * Whether it reads memory through its memory operand (in->mem): a load,
 * a read-modify-write or an exchange, not a plain store (in->reads also
 * says so of stores, whose operand is memory).
 */
int	 wp_x86_operand_reads(const struct wp_x86_insn *in);
/* The bytes it loads, from the registers before it ran; or -1. */
int	 wp_x86_load_range(const struct wp_x86_insn *in,
	    const struct wp_x86_regs *r, uint64_t *lo, uint64_t *hi);

/*
 * Whether bytes the decoder cannot read as an instruction surely write
 * no memory: a VEX or EVEX encoding (kmovq k1, rax and vpcmpub k0,
 * ymm16, [rdi] in capstone 4) whose ModRM names a register, or whose
 * opcode only loads.  0: they may write anything.
 */
int	 wp_x86_undecoded_quiet(const uint8_t *code, size_t len);
/*
 * Whether a masked store whose operand is [lo, lo + width) writes any
 * byte of [wlo, whi), bit i of bits telling whether element i is
 * written.  An unmasked store: whether the ranges overlap.
 */
int	 wp_x86_masked_writes(const struct wp_x86_insn *in, uint64_t lo,
	    uint64_t bits, uint64_t wlo, uint64_t whi);
/*
 * The mask bits of a masked store (bit i: element i written), read
 * from xs, an XSAVE area in the standard format (len bytes, as
 * PTRACE_GETREGSET NT_X86_XSTATE gives it) of this CPU.  0, or -1 when
 * the store is unmasked or its mask is not in the area.
 */
int	 wp_x86_xsave_mask(const struct wp_x86_insn *in, const uint8_t *xs,
	    size_t len, uint64_t *bits);
/*
 * The width bytes (16, 32 or 64: xmm, ymm or zmm) of vector register n
 * (0-31) from xs, an XSAVE area as above; the offsets of its parts are
 * CPUID leaf 0xd's, a part XSTATE_BV says is unused reads as zeros.  0,
 * or -1 when a part is not in the area (no AVX-512 for zmm, n > 15).
 */
int	 wp_x86_xsave_vector(const uint8_t *xs, size_t len, int n, int width,
	    uint8_t *b);

#endif
