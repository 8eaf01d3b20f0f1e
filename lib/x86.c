/* Classifying x86-64 instructions by the memory they write (capstone). */
#include <sys/user.h>

#include <capstone/capstone.h>

#include <err.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "x86.h"

static csh cs;
static int cs_ready;

struct regmap {
	int		reg;		/* x86_reg */
	int		idx;
	int		bytes;
	int		shift;
};

/* capstone's names of register WP_q: 64, 32, 16 and 8 bits wide */
#define R4(q, d, w, b) \
	{ X86_REG_##q, WP_##q, 8, 0 }, { X86_REG_##d, WP_##q, 4, 0 }, \
	{ X86_REG_##w, WP_##q, 2, 0 }, { X86_REG_##b, WP_##q, 1, 0 }
/* and the high byte of the first four */
#define HI(q, h)	{ X86_REG_##h, WP_##q, 1, 8 }
/* r8 .. r15 */
#define RN(n)		R4(R##n, R##n##D, R##n##W, R##n##B)

static const struct regmap regmap[] = {
	R4(RAX, EAX, AX, AL), HI(RAX, AH), R4(RBX, EBX, BX, BL), HI(RBX, BH),
	R4(RCX, ECX, CX, CL), HI(RCX, CH), R4(RDX, EDX, DX, DL), HI(RDX, DH),
	R4(RSI, ESI, SI, SIL), R4(RDI, EDI, DI, DIL),
	R4(RBP, EBP, BP, BPL), R4(RSP, ESP, SP, SPL),
	RN(8), RN(9), RN(10), RN(11), RN(12), RN(13), RN(14), RN(15),
	{ X86_REG_RIP, WP_RIP, 8, 0 }, { X86_REG_EIP, WP_RIP, 4, 0 },
};

/*
 * What only an x86-64 machine has: its CPUID (leaf 0xd, sub-leaf sub:
 * the XSAVE area's layout; 0 elsewhere, where no XSAVE area is read)
 * and ptrace's user_regs_struct of x86-64.
 */
#if defined(__x86_64__)
#include <cpuid.h>

static int
cpuid_xsave(unsigned sub, unsigned *a, unsigned *b, unsigned *c)
{
	unsigned d;

	return __get_cpuid_count(0xd, sub, a, b, c, &d);
}

void
wp_x86_regs_from_user(struct wp_x86_regs *r, const struct user_regs_struct *u)
{
#define FROM_USER(N, name, field, perf, dwarf)	r->v[WP_##N] = u->field;
	WP_X86_REGS(FROM_USER)
#undef FROM_USER
	r->have = (1u << WP_NREGS) - 1;
}
#else
static int
cpuid_xsave(unsigned sub, unsigned *a, unsigned *b, unsigned *c)
{
	(void)sub;
	*a = *b = *c = 0;
	return 0;
}
#endif

static const struct regmap *
reg_lookup(x86_reg r)
{
	return wp_find_int(regmap, sizeof regmap / sizeof regmap[0],
	    sizeof regmap[0], offsetof(struct regmap, reg), (int)r);
}

int
wp_x86_init(void)
{
	if (cs_ready)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_ready = 1;
	return 0;
}

static int
one_of(const char *m, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(m, *list) == 0)
			return 1;
	return 0;
}

/* Mnemonics whose first memory operand is only read. */
static const char *const readonly_dest[] = {
	"cmp", "test", "bt", "push", "call", "jmp", "ucomiss", "ucomisd",
	"comiss", "comisd", "vucomiss", "vucomisd", "vcomiss", "vcomisd",
	"ptest", "vptest", "nop", "prefetch", "prefetchw", "prefetcht0",
	"prefetcht1", "prefetcht2", "prefetchnta", "clflush", "clflushopt",
	"clwb", "lea", "fld", "fild", "fldcw", "fldenv", "frstor", "fcom",
	"fcomp", "ficom", "ficomp", "fadd", "fmul", "fsub", "fsubr", "fdiv",
	"fdivr", "fiadd", "fimul", "fisub", "fisubr", "fidiv", "fidivr",
	"lgdt", "lidt", "lldt", "ltr", "verr", "verw", "ldmxcsr",
	"vldmxcsr", "xrstor", "xrstor64", "fxrstor", "fxrstor64", "bound",
	"lods", "lodsb", "lodsw", "lodsd", "lodsq", "scasb", "scasw",
	"scasd", "scasq", "cmpsb", "cmpsw", "cmpsd", "cmpsq", NULL
};

static const char *const plain_stores[] = {
	"mov", "movabs", "movnti", "movbe", NULL
};

static const char *const xchg_like[] = {
	"xchg", "xadd", "cmpxchg", "cmpxchg8b", "cmpxchg16b", NULL
};

static const char *const push_like[] = {
	"push", "call", "enter", "pushfq", "pushf", "pushal", NULL
};

static void
mem_of(const cs_x86_op *op, struct wp_x86_insn *in, int addr_size)
{
	const struct regmap *m;

	in->mem.seg = op->mem.segment == X86_REG_FS ? WP_FS_BASE :
	    op->mem.segment == X86_REG_GS ? WP_GS_BASE : 0;
	in->mem.base = -1;
	in->mem.index = -1;
	in->mem.base_bytes = addr_size ? addr_size : 8;
	if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
		in->mem.rip_rel = 1;
	else if ((m = reg_lookup(op->mem.base)) != NULL)
		in->mem.base = m->idx;
	if ((m = reg_lookup(op->mem.index)) != NULL)
		in->mem.index = m->idx;
	in->mem.scale = op->mem.scale;
	in->mem.disp = op->mem.disp;
	in->has_mem = 1;
}

/* A stack store: push, call, enter, pushf, at rsp - width. */
static void
classify_push(const cs_x86_op *op0, struct wp_x86_insn *in)
{
	in->kind = WP_X86_PUSH;
	in->writes = 1;
	in->width = (op0 != NULL && op0->size == 2) ? 2 : 8;
	in->mem.base = WP_RSP;
	in->mem.index = -1;
	in->mem.base_bytes = 8;
	in->mem.disp = -in->width;
}

static int
simd_store(const char *mn)
{
	static const char *const p[] = { "f", "xsave", "fxsave", "stmxcsr",
	    "vstmxcsr", "sgdt", "sidt", "vmov", "movnt", "vextract", "pextr",
	    "vpextr", "extractps", "vextractps", "vmaskmov", "vpmaskmov",
	    "maskmov", NULL };
	size_t i;

	for (i = 0; p[i] != NULL; i++)
		if (wp_prefix(mn, p[i]))
			return 1;
	return 0;
}

/* The number of vector or mask register name (k1, ymm3, xmm12), or -1. */
static int
regno(x86_reg r)
{
	const char *n = cs_reg_name(cs, r);

	if (n == NULL)
		return -1;
	if (n[0] == 'k' && n[1] >= '0' && n[1] <= '7' && n[2] == '\0')
		return n[1] - '0';
	if ((wp_prefix(n, "xmm") || wp_prefix(n, "ymm") || wp_prefix(n, "zmm")) &&
	    n[3] >= '0' && n[3] <= '9')
		return atoi(n + 3);
	return -1;
}

/* The bytes of an element of an AVX-512 masked store, or 0: unknown. */
static int
k_elem(const char *mn)
{
	size_t n = strlen(mn);
	char c = n > 0 ? mn[n - 1] : '\0';

	if (wp_prefix(mn, "vmovdq"))
		return atoi(mn + 7) / 8;	/* vmovdqu8 .. vmovdqa64 */
	if (wp_prefix(mn, "vpcompress"))
		return c == 'b' ? 1 : c == 'w' ? 2 : c == 'd' ? 4 : 8;
	if (wp_prefix(mn, "vextract") && n >= 11)
		return atoi(mn + 9) / 8;	/* vextractf32x4 */
	if (wp_prefix(mn, "vpmov") && (c == 'b' || c == 'w' || c == 'd'))
		return c == 'b' ? 1 : c == 'w' ? 2 : 4;
	if (n >= 2 && (strcmp(mn + n - 2, "ps") == 0 ||
	    strcmp(mn + n - 2, "ss") == 0))
		return 4;
	if (n >= 2 && (strcmp(mn + n - 2, "pd") == 0 ||
	    strcmp(mn + n - 2, "sd") == 0))
		return 8;
	return 0;
}

/*
 * Masks, and stores whose bytes the decoding does not tell: an AVX-512
 * store masked by k (operand 1), vmaskmov masked by a vector
 * (operand 1), the xsave family, fxsave, scatters.
 */
static void
classify_mask(const char *mn, const cs_x86 *x, struct wp_x86_insn *in)
{
	const cs_x86_op *op1 = x->op_count > 1 ? &x->operands[1] : NULL;
	unsigned a, b, c;
	int r = op1 != NULL && op1->type == X86_OP_REG ? regno(op1->reg) : -1;

	if (wp_prefix(mn, "vpscatter") || wp_prefix(mn, "vscatter")) {
		in->unmodeled = 1;	/* the index is a vector */
		in->has_mem = 0;
	} else if (wp_prefix(mn, "fxsave")) {
		in->unmodeled = 1;
		in->width = 512;
	} else if (wp_prefix(mn, "xsave")) {
		in->unmodeled = 1;
		in->width = cpuid_xsave(0, &a, &b, &c) && c > 0 ?
		    (int)c : 4096;
	} else if (op1 != NULL && op1->type == X86_OP_REG && op1->size == 2 &&
	    r >= 0 && cs_reg_name(cs, op1->reg)[0] == 'k') {
		in->mask = WP_X86_MASK_K;
		in->mask_reg = r;
		in->elem = k_elem(mn);
		in->compress = wp_prefix(mn, "vpcompress") ||
		    wp_prefix(mn, "vcompress");
		if (in->elem == 0 || in->width % in->elem != 0)
			in->unmodeled = 1;
	} else if ((wp_prefix(mn, "vmaskmov") || wp_prefix(mn, "vpmaskmov")) &&
	    r >= 0) {
		in->mask = WP_X86_MASK_VEC;
		in->mask_reg = r;
		in->elem = mn[strlen(mn) - 1] == 'd' ||
		    mn[strlen(mn) - 1] == 's' ? 4 : 8;
	}
}

/* maskmovdqu src, mask: 16 bytes at [rdi], those the mask selects. */
static void
classify_maskmovdqu(const cs_x86 *x, struct wp_x86_insn *in)
{
	in->kind = WP_X86_SIMD;
	in->writes = 1;
	in->has_mem = 1;
	in->width = 16;
	in->mem.base = WP_RDI;
	in->mem.index = -1;
	in->mem.base_bytes = x->addr_size == 4 ? 4 : 8;
	in->mask = WP_X86_MASK_VEC;
	in->elem = 1;
	in->mask_reg = x->op_count > 1 && x->operands[1].type == X86_OP_REG ?
	    regno(x->operands[1].reg) : -1;
	if (in->mask_reg < 0)
		in->unmodeled = 1;
}

/* A store to the explicit memory operand dst: of what kind. */
static void
classify_store(const char *mn, const cs_x86 *x, const cs_x86_op *dst,
    const cs_x86_op *op1, struct wp_x86_insn *in)
{
	const struct regmap *m;

	in->writes = 1;
	in->width = dst->size;
	mem_of(dst, in, x->addr_size);
	if (one_of(mn, xchg_like))
		in->kind = WP_X86_XCHG;
	else if (one_of(mn, plain_stores) && op1 != NULL &&
	    op1->type == X86_OP_REG && (m = reg_lookup(op1->reg)) != NULL) {
		in->kind = WP_X86_REG_STORE;
		in->src_reg = m->idx;
		in->src_bytes = m->bytes;
		in->src_shift = m->shift;
		in->src_name = cs_reg_name(cs, op1->reg);
	} else if (one_of(mn, plain_stores) && op1 != NULL &&
	    op1->type == X86_OP_IMM) {
		in->kind = WP_X86_IMM_STORE;
		in->imm = (uint64_t)op1->imm;
	} else if ((op1 != NULL && op1->type == X86_OP_REG &&
	    reg_lookup(op1->reg) == NULL && !wp_prefix(mn, "set")) ||
	    simd_store(mn))
		in->kind = WP_X86_SIMD;	/* xmm, ymm, st, mm, sreg */
	else
		in->kind = WP_X86_RMW;
	if ((in->kind == WP_X86_RMW || in->kind == WP_X86_XCHG) &&
	    op1 != NULL && op1->type == X86_OP_REG &&
	    (m = reg_lookup(op1->reg)) != NULL) {
		in->op_reg = m->idx;
		in->op_bytes = m->bytes;
		in->op_shift = m->shift;
	} else if (in->kind == WP_X86_RMW && op1 != NULL &&
	    op1->type == X86_OP_IMM) {
		in->has_op_imm = 1;
		in->op_imm = (uint64_t)op1->imm;
	}
	classify_mask(mn, x, in);
}

/* The mnemonic without rep, lock and notrack prefixes; sets in->rep. */
static const char *
mnemonic(cs_insn *ci, const cs_x86 *x, struct wp_x86_insn *in)
{
	const char *mn = ci->mnemonic;

	in->rep = x->prefix[0] == X86_PREFIX_REP ||
	    wp_prefix(mn, "rep ") || wp_prefix(mn, "repe ") || wp_prefix(mn, "repne ");
	if (in->rep && strchr(mn, ' ') != NULL)
		mn = strchr(mn, ' ') + 1;
	if (wp_prefix(mn, "lock ") || wp_prefix(mn, "notrack "))
		mn = strchr(mn, ' ') + 1;
	return mn;
}

static void
classify(const char *mn, const cs_x86 *x, struct wp_x86_insn *in)
{
	const cs_x86_op *op0 = x->op_count > 0 ? &x->operands[0] : NULL;
	const cs_x86_op *op1 = x->op_count > 1 ? &x->operands[1] : NULL;
	const struct regmap *m;
	int i, memop = -1;

	for (i = 0; i < x->op_count && memop < 0; i++)
		if (x->operands[i].type == X86_OP_MEM)
			memop = i;
	if (memop >= 0 && strcmp(mn, "lea") != 0 && !wp_prefix(mn, "nop"))
		in->reads = 1;
	if (strcmp(mn, "maskmovdqu") == 0 || strcmp(mn, "vmaskmovdqu") == 0)
		classify_maskmovdqu(x, in);
	else if (one_of(mn, wp_x86_string_stores)) {
		in->kind = WP_X86_STRING;
		in->writes = 1;
		in->width = mn[4] == 'b' ? 1 : mn[4] == 'w' ? 2 :
		    mn[4] == 'd' ? 4 : 8;
		in->mem.base = WP_RDI;
		in->mem.index = -1;
		in->mem.base_bytes = 8;
	} else if (one_of(mn, push_like) && !(op0 != NULL &&
	    op0->type == X86_OP_MEM && strcmp(mn, "call") != 0 &&
	    strcmp(mn, "push") != 0))
		classify_push(op0, in);
	else if (memop >= 0 && op0 != NULL && (op0->type == X86_OP_MEM ||
	    (one_of(mn, xchg_like) && op1 != NULL && op1->type == X86_OP_MEM)) &&
	    !one_of(mn, readonly_dest) && !wp_prefix(mn, "j") &&
	    !wp_prefix(mn, "prefetch"))
		classify_store(mn, x, &x->operands[memop], op1, in);
	else {
		in->kind = WP_X86_NONE;
		if (memop >= 0) {
			mem_of(&x->operands[memop], in, x->addr_size);
			in->width = x->operands[memop].size;
			in->has_mem = 0;
		}
		if (memop == 1 && strcmp(mn, "mov") == 0 &&
		    op0->type == X86_OP_REG &&
		    (m = reg_lookup(op0->reg)) != NULL) {
			in->ld_reg = m->idx;
			in->ld_bytes = m->bytes;
			in->ld_shift = m->shift;
		}
	}
}

/* Whether the instruction writes a register its store's address uses. */
static void
clobbers(cs_insn *ci, struct wp_x86_insn *in)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;
	const struct regmap *m;

	if (!in->writes || in->kind == WP_X86_PUSH ||
	    in->kind == WP_X86_STRING ||
	    cs_regs_access(cs, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return;
	for (i = 0; i < nwr; i++)
		if ((m = reg_lookup(wr[i])) != NULL &&
		    (m->idx == in->mem.base || m->idx == in->mem.index))
			in->addr_clobbered = 1;
}

int
wp_x86_decode(const uint8_t *code, size_t len, uint64_t addr,
    struct wp_x86_insn *in)
{
	cs_insn *ci;
	const char *mn;

	memset(in, 0, sizeof *in);
	in->src_reg = -1;
	in->op_reg = -1;
	in->ld_reg = -1;
	if (wp_x86_init() == -1 || cs_disasm(cs, code, len, addr, 1, &ci) != 1)
		return -1;
	in->addr = addr;
	in->size = ci->size;
	snprintf(in->text, sizeof in->text, "%s%s%s", ci->mnemonic,
	    ci->op_str[0] ? " " : "", ci->op_str);
	mn = mnemonic(ci, &ci->detail->x86, in);
	in->is_syscall = strcmp(mn, "syscall") == 0;
	classify(mn, &ci->detail->x86, in);
	clobbers(ci, in);
	cs_free(ci, 1);
	return 0;
}

static int
have(const struct wp_x86_regs *r, int idx)
{
	return idx < 0 || (r->have & (1u << idx)) != 0;
}

/* The address in's memory operand points to, its displacement disp. */
static int
effective(const struct wp_x86_insn *in, int64_t disp,
    const struct wp_x86_regs *r, uint64_t *ea)
{
	const struct wp_x86_mem *m = &in->mem;
	uint64_t a;

	if (!have(r, m->base) || !have(r, m->index) ||
	    (m->seg && !have(r, m->seg)))
		return -1;
	a = (uint64_t)disp;
	if (m->rip_rel)
		a += in->addr + (uint64_t)in->size;
	if (m->base >= 0)
		a += m->base_bytes == 4 ? (uint32_t)r->v[m->base] :
		    r->v[m->base];
	if (m->index >= 0)
		a += r->v[m->index] * (uint64_t)m->scale;
	if (m->base_bytes == 4)
		a = (uint32_t)a;
	if (m->seg)
		a += r->v[m->seg];
	*ea = a;
	return 0;
}

int
wp_x86_operand_reads(const struct wp_x86_insn *in)
{
	if (!in->reads)
		return 0;
	switch (in->kind) {
	case WP_X86_REG_STORE:
	case WP_X86_IMM_STORE:
	case WP_X86_PUSH:
	case WP_X86_STRING:
	case WP_X86_SIMD:
		return 0;
	default:
		return 1;
	}
}

/*
 * The bytes the instruction stores, [*lo, *hi), from the registers
 * before it ran (after = 0) or after it ran (after = 1: push and call
 * have then moved rsp down to the slot, string stores moved rdi on).
 * Returns -1 when it stores nothing or the registers are not known.
 */
int
wp_x86_store_range(const struct wp_x86_insn *in, const struct wp_x86_regs *r,
    int after, uint64_t *lo, uint64_t *hi)
{
	int64_t disp = in->mem.disp;
	uint64_t ea;
	int w = in->width > 0 ? in->width : 8;

	if (!in->writes || (in->unmodeled && !in->has_mem))
		return -1;
	if (after && in->kind == WP_X86_PUSH)
		disp = 0;
	if (after && in->kind == WP_X86_STRING) {
		if (!have(r, WP_RFLAGS))
			return -1;
		disp = (r->v[WP_RFLAGS] & 0x400) ? w : -w;
	}
	if (effective(in, disp, r, &ea) == -1)
		return -1;
	if (in->kind == WP_X86_XCHG && in->width == 0)
		w = 8;
	*lo = ea;
	*hi = ea + (uint64_t)w;
	return 0;
}

int
wp_x86_load_range(const struct wp_x86_insn *in, const struct wp_x86_regs *r,
    uint64_t *lo, uint64_t *hi)
{
	uint64_t ea;

	if (!in->reads || in->kind == WP_X86_STRING || in->kind == WP_X86_PUSH)
		return -1;
	if (effective(in, in->mem.disp, r, &ea) == -1)
		return -1;
	*lo = ea;
	*hi = ea + (uint64_t)(in->width > 0 ? in->width : 8);
	return 0;
}

int
wp_x86_masked_writes(const struct wp_x86_insn *in, uint64_t lo,
    uint64_t bits, uint64_t wlo, uint64_t whi)
{
	uint64_t e = (uint64_t)in->elem, n, i, a;

	if (in->mask == WP_X86_MASK_NONE || e == 0)
		return lo < whi && wlo < lo + (uint64_t)in->width;
	n = (uint64_t)in->width / e;
	if (in->compress)
		return lo < whi && wlo < lo +
		    e * (uint64_t)__builtin_popcountll(n < 64 ?
		    bits & ((1ULL << n) - 1) : bits);
	for (i = 0; i < n && i < 64; i++) {
		a = lo + i * e;
		if ((bits >> i & 1) && a < whi && wlo < a + e)
			return 1;
	}
	return 0;
}

/* The offset of XSAVE component c in the standard format, or 0. */
static size_t
xsave_offset(unsigned c)
{
	unsigned a, b, cc;

	if (!cpuid_xsave(c, &a, &b, &cc) || a == 0)
		return 0;
	return b;
}

#define XSAVE_BV	512	/* XSTATE_BV, in the header */

/*
 * n bytes at offset at of XSAVE component c (1: the xmm registers in
 * the legacy area) of xs, len bytes, into b: zeros when XSTATE_BV says
 * the component is in its initial state.  0, or -1 when not in xs.
 */
static int
xsave_part(const uint8_t *xs, size_t len, unsigned c, size_t at, size_t n,
    uint8_t *b)
{
	uint64_t bv;
	size_t off = c == 1 ? 160 : xsave_offset(c);

	if (off == 0 || len < XSAVE_BV + 8 || off + at + n > len)
		return -1;
	memcpy(&bv, xs + XSAVE_BV, 8);
	if (bv >> c & 1)
		memcpy(b, xs + off + at, n);
	else
		memset(b, 0, n);
	return 0;
}

int
wp_x86_xsave_vector(const uint8_t *xs, size_t len, int n, int width,
    uint8_t *b)
{
	size_t i = (size_t)n;

	if (n < 0 || n > 31 || (width != 16 && width != 32 && width != 64))
		return -1;
	/* xmm16-31, ymm16-31, zmm16-31: component 7, 64 bytes each */
	if (n > 15)
		return xsave_part(xs, len, 7, 64 * (i - 16), (size_t)width, b);
	/* the low 16 bytes, 16-31 in component 2, 32-63 in component 6 */
	if (xsave_part(xs, len, 1, 16 * i, 16, b) == -1 ||
	    (width > 16 && xsave_part(xs, len, 2, 16 * i, 16, b + 16) == -1) ||
	    (width > 32 && xsave_part(xs, len, 6, 32 * i, 32, b + 32) == -1))
		return -1;
	return 0;
}

int
wp_x86_xsave_mask(const struct wp_x86_insn *in, const uint8_t *xs,
    size_t len, uint64_t *bits)
{
	uint8_t v[32];
	size_t i, e = (size_t)in->elem;

	*bits = 0;
	if (in->mask == WP_X86_MASK_K)	/* component 5: k0-k7, 8 bytes each */
		return xsave_part(xs, len, 5, 8 * (size_t)in->mask_reg, 8,
		    (uint8_t *)bits);
	if (in->mask != WP_X86_MASK_VEC || e == 0 || in->width > 32 ||
	    wp_x86_xsave_vector(xs, len, in->mask_reg, in->width > 16 ? 32 :
	    16, v) == -1)
		return -1;
	for (i = 0; i < (size_t)in->width / e; i++)
		if (v[(i + 1) * e - 1] & 0x80)
			*bits |= 1ULL << i;
	return 0;
}

/*
 * The opcodes of VEX and EVEX maps 0F, 0F38 and 0F3A that may store to
 * their memory operand: moves, extracts, conversions and compressions
 * to memory, masked moves, scatters, vstmxcsr.
 */
static int
vex_store(unsigned map, uint8_t op)
{
	static const uint8_t m1[] = { 0x11, 0x13, 0x17, 0x29, 0x2b, 0x7e,
	    0x7f, 0xae, 0xd6, 0xe7, 0xf7 };
	static const uint8_t m2[] = { 0x2e, 0x2f, 0x63, 0x8a, 0x8b, 0x8e,
	    0xa0, 0xa1, 0xa2, 0xa3 };
	static const uint8_t m3[] = { 0x14, 0x15, 0x16, 0x17, 0x19, 0x1b,
	    0x1d, 0x39, 0x3b };
	const uint8_t *l = map == 1 ? m1 : map == 2 ? m2 : m3;
	size_t i, n = map == 1 ? sizeof m1 : map == 2 ? sizeof m2 : sizeof m3;

	if (map < 1 || map > 3)
		return 1;
	/* vpmov* down-conversions to memory */
	if (map == 2 && ((op >= 0x10 && op <= 0x15) ||
	    (op >= 0x20 && op <= 0x25) || (op >= 0x30 && op <= 0x35)))
		return 1;
	for (i = 0; i < n; i++)
		if (l[i] == op)
			return 1;
	return 0;
}

int
wp_x86_undecoded_quiet(const uint8_t *code, size_t len)
{
	size_t i = 0, op;
	unsigned map;

	while (i < len && (code[i] == 0x67 || code[i] == 0x2e ||
	    code[i] == 0x3e || code[i] == 0x26 || code[i] == 0x36 ||
	    code[i] == 0x64 || code[i] == 0x65))
		i++;
	if (i + 1 >= len)
		return 0;
	/* the opcode after the 2, 3 or 4 bytes of VEX or EVEX */
	op = i + (code[i] == 0xc5 ? 2 : code[i] == 0xc4 ? 3 :
	    code[i] == 0x62 ? 4 : 0);
	if (op == i || op + 1 >= len)
		return 0;
	map = code[i] == 0xc5 ? 1 : code[i] == 0xc4 ? code[i + 1] & 0x1fu :
	    code[i + 1] & 0x7u;
	/* a register operand: no memory, but for maskmovdqu's [rdi] */
	if (code[op + 1] >> 6 == 3)
		return !(map == 1 && code[op] == 0xf7);
	return !vex_store(map, code[op]);
}
