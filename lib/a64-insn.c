/* Classifying AArch64 instructions by the memory they write (capstone). */
#include <capstone/capstone.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a64-insn.h"
#include "util.h"

static csh cs;
static int cs_ready;

int
wp_a64_init(void)
{
	if (cs_ready)
		return 0;
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK)
		return -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_ready = 1;
	return 0;
}

/*
 * A general register by capstone's name: its index (WP_A64_ZR for wzr
 * and xzr) and width in bytes; -1 for another (a vector or FP register:
 * then *bytes its width, 0 unknown).
 */
static int
gpreg(arm64_reg reg, int *bytes)
{
	const char *n = cs_reg_name(cs, reg);
	char *end;
	long k;

	*bytes = 0;
	if (n == NULL)
		return -1;
	if (strcmp(n, "sp") == 0 || strcmp(n, "wsp") == 0) {
		*bytes = n[0] == 'w' ? 4 : 8;
		return WP_A64_SP;
	}
	if (strcmp(n, "xzr") == 0 || strcmp(n, "wzr") == 0) {
		*bytes = n[0] == 'w' ? 4 : 8;
		return WP_A64_ZR;
	}
	if (strcmp(n, "fp") == 0 || strcmp(n, "lr") == 0) {
		*bytes = 8;
		return n[0] == 'f' ? WP_A64_X29 : WP_A64_X30;
	}
	if (n[0] == 'x' || n[0] == 'w') {
		k = strtol(n + 1, &end, 10);
		if (*end == '\0' && end != n + 1 && k >= 0 && k <= 30) {
			*bytes = n[0] == 'w' ? 4 : 8;
			return WP_A64_X0 + (int)k;
		}
	}
	switch (n[0]) {		/* b0, h0, s0, d0, q0 */
	case 'b': *bytes = 1; break;
	case 'h': *bytes = 2; break;
	case 's': *bytes = 4; break;
	case 'd': *bytes = 8; break;
	case 'q': *bytes = 16; break;
	}
	return -1;
}

/* The bytes a vector register operand of st1-st4 stores. */
static int
vector_bytes(const cs_arm64_op *op)
{
	if (op->vector_index >= 0)
		switch (op->vess) {
		case ARM64_VESS_B: return 1;
		case ARM64_VESS_H: return 2;
		case ARM64_VESS_S: return 4;
		case ARM64_VESS_D: return 8;
		default: return 0;
		}
	switch (op->vas) {
	case ARM64_VAS_8B: case ARM64_VAS_4H: case ARM64_VAS_2S:
	case ARM64_VAS_1D:
		return 8;
	case ARM64_VAS_16B: case ARM64_VAS_8H: case ARM64_VAS_4S:
	case ARM64_VAS_2D: case ARM64_VAS_1Q:
		return 16;
	default:
		return 0;
	}
}

static const char *const atomic_ops[] = {
	"add", "clr", "eor", "set", "smax", "smin", "umax", "umin", NULL
};

/* ld<op>, st<op> (LSE atomics): the part after the op, or NULL. */
static const char *
atomic_rest(const char *mn)
{
	const char *const *op;

	if (!wp_prefix(mn, "ld") && !wp_prefix(mn, "st"))
		return NULL;
	for (op = atomic_ops; *op != NULL; op++)
		if (wp_prefix(mn + 2, *op))
			return mn + 2 + strlen(*op);
	return NULL;
}

/* Its kind, from the mnemonic: whether it writes, and how. */
static enum wp_a64_kind
kind_of(const char *mn, int *sized)
{
	const char *rest;

	*sized = 0;
	if ((rest = atomic_rest(mn)) != NULL) {
		*sized = 1;
		return WP_A64_ATOMIC;
	}
	if (wp_prefix(mn, "swp") || wp_prefix(mn, "cas")) {
		*sized = 1;
		return mn[0] == 's' ? WP_A64_SWAP : WP_A64_CAS;
	}
	if (wp_prefix(mn, "stxr") || wp_prefix(mn, "stlxr") || wp_prefix(mn, "stxp") ||
	    wp_prefix(mn, "stlxp")) {
		*sized = 1;
		return WP_A64_EXCLUSIVE;
	}
	if (wp_prefix(mn, "st1") || wp_prefix(mn, "st2") || wp_prefix(mn, "st3") ||
	    wp_prefix(mn, "st4"))
		return WP_A64_SIMD;
	if (wp_prefix(mn, "str") || wp_prefix(mn, "stur") || wp_prefix(mn, "stlr") ||
	    wp_prefix(mn, "stllr") || wp_prefix(mn, "stlur") || wp_prefix(mn, "stp") ||
	    wp_prefix(mn, "stnp") || wp_prefix(mn, "sttr")) {
		*sized = 1;
		return WP_A64_STORE;
	}
	return WP_A64_NONE;
}

/* b and h suffixes: strb, stlxrh, ldaddalb, casb, swph. */
static int
suffix_width(const char *mn)
{
	size_t n = strlen(mn);

	if (n > 3 && mn[n - 1] == 'b')
		return 1;
	if (n > 3 && mn[n - 1] == 'h')
		return 2;
	return 0;
}

static void
mem_operand(struct wp_a64_insn *in, const cs_arm64 *a, int m)
{
	const cs_arm64_op *op = &a->operands[m];
	int bytes;

	in->base = gpreg(op->mem.base, &bytes);
	in->disp = op->mem.disp;
	in->index = op->mem.index != ARM64_REG_INVALID ?
	    gpreg(op->mem.index, &bytes) : -1;
	if (in->index >= 0) {
		in->index_shift = op->shift.type == ARM64_SFT_LSL ?
		    (int)op->shift.value : 0;
		in->index_ext = op->ext == ARM64_EXT_UXTW ? 'w' :
		    op->ext == ARM64_EXT_SXTW ? 's' : 0;
		if (op->ext == ARM64_EXT_UXTW || op->ext == ARM64_EXT_SXTW)
			in->index_shift = (int)op->shift.value;
	}
	/* [xn], #imm: written back after, the address is xn */
	in->post_index = a->writeback && m + 1 < a->op_count &&
	    a->operands[m + 1].type == ARM64_OP_IMM;
}

/* The registers stored: from operand first, n of them. */
static void
sources(struct wp_a64_insn *in, const cs_arm64 *a, int first, int n)
{
	int i, bytes;

	for (i = 0; i < n && first + i < a->op_count &&
	    a->operands[first + i].type == ARM64_OP_REG; i++) {
		in->src[i] = gpreg(a->operands[first + i].reg, &bytes);
		snprintf(in->src_name[i], sizeof in->src_name[i], "%s",
		    cs_reg_name(cs, a->operands[first + i].reg));
		in->src_bytes = bytes;
		in->nsrc = i + 1;
	}
}

static void
classify(struct wp_a64_insn *in, const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;
	int m, nreg, sized, w, i;

	in->kind = kind_of(ci->mnemonic, &sized);
	for (m = 0; m < a->op_count && a->operands[m].type != ARM64_OP_MEM; m++)
		;
	nreg = m;		/* the register operands before the address */
	if (m == a->op_count) {
		in->kind = WP_A64_NONE;
		return;
	}
	in->reads = in->kind == WP_A64_NONE || in->kind == WP_A64_ATOMIC ||
	    in->kind == WP_A64_SWAP || in->kind == WP_A64_CAS;
	if (in->kind == WP_A64_NONE) {
		in->reads = wp_prefix(ci->mnemonic, "ld");
		return;
	}
	in->writes = 1;
	mem_operand(in, a, m);
	switch (in->kind) {
	case WP_A64_EXCLUSIVE:		/* stxr ws, xt[, xt2], [xn] */
		in->status_reg = gpreg(a->operands[0].reg, &w);
		sources(in, a, 1, nreg - 1);
		break;
	case WP_A64_CAS:		/* cas ws, wt, [xn]: wt if [xn] == ws */
		sources(in, a, nreg / 2, nreg / 2);
		break;
	case WP_A64_SWAP:		/* swp ws, wt, [xn]: ws stored */
	case WP_A64_ATOMIC:		/* ldadd ws, wt, [xn]; stadd ws, [xn] */
		sources(in, a, 0, 1);
		break;
	case WP_A64_SIMD:		/* st1 {v0.16b, v1.16b}, [x0] */
		for (i = 0; i < nreg; i++)
			in->width += vector_bytes(&a->operands[i]);
		return;
	default:			/* str wt, [xn]; stp xt, xt2, [xn] */
		sources(in, a, 0, nreg);
		break;
	}
	if (in->nsrc > 0 && in->src[0] == -1) {	/* str q0, stp d0, d1 */
		in->kind = WP_A64_SIMD;
		in->width = in->src_bytes * in->nsrc;
		in->nsrc = 0;
		return;
	}
	if (sized && (w = suffix_width(ci->mnemonic)) > 0)
		in->src_bytes = w;
	in->width = in->src_bytes * (in->nsrc > 1 ? in->nsrc : 1);
}

int
wp_a64_decode(const uint8_t *code, size_t len, uint64_t addr,
    struct wp_a64_insn *in)
{
	cs_insn *ci;
	size_t n;

	memset(in, 0, sizeof *in);
	in->base = in->index = in->status_reg = -1;
	in->src[0] = in->src[1] = -1;
	if (wp_a64_init() == -1 || len < 4)
		return -1;
	n = cs_disasm(cs, code, 4, addr, 1, &ci);
	if (n == 0)
		return wp_a64_lse((uint32_t)code[0] | (uint32_t)code[1] << 8 |
		    (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24, addr, in);
	in->addr = addr;
	in->size = (int)ci->size;
	snprintf(in->mnemonic, sizeof in->mnemonic, "%s", ci->mnemonic);
	snprintf(in->text, sizeof in->text, "%s%s%s", ci->mnemonic,
	    ci->op_str[0] ? " " : "", ci->op_str);
	classify(in, ci);
	cs_free(ci, n);
	return 0;
}
