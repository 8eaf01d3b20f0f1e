/*
 * The stores the page backend makes itself instead of stepping them
 * (page_emulable, page_emulate), and with -a rw its plain loads
 * (page_emulate_load): plain movs, stos, the rounds of a rep stos or
 * rep movs that reach no target (page_emulate_rep), vector moves of a
 * whole xmm, ymm or zmm register, read from XSTATE (AVX-512 ones also
 * merge-masked by k: only the elements whose bit is set are written),
 * and the read-modify-
 * writes of integer arithmetic (lock add, xadd, cmpxchg, inc, ...),
 * computed by the same instruction run here on the old bytes with the
 * thread's arithmetic flags, so that the result and the flags are
 * the CPU's own.  A lock one is atomic as emulated: no other thread
 * writes the page meanwhile (it is protected, they stop at it, and
 * wp-arm handles one stop at a time), and shared memory is refused.
 * x86-64 only: page-emulate-arm64.c is arm64's (none, so far).
 */
#if defined(__x86_64__)
#include <sys/ptrace.h>
#include <sys/user.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page.h"
#include "x86.h"

#define FL_ARITH	0x8d5ULL	/* CF PF AF ZF SF OF */

/*
 * op(d, s) of one width: *d the destination, *fl the flags in (the
 * arithmetic ones) and out.  The red zone below rsp is stepped over.
 */
#define ALU(name, T, insn)						\
static void								\
name(uint64_t *d, uint64_t s, uint64_t *fl)				\
{									\
	T x = (T)*d, y = (T)s;						\
	uint64_t f = 0x202 | (*fl & FL_ARITH);				\
									\
	__asm__("lea -128(%%rsp), %%rsp\n\tpushq %1\n\tpopfq\n\t"	\
	    insn "\n\tpushfq\n\tpopq %1\n\tlea 128(%%rsp), %%rsp"	\
	    : "+q"(x), "+r"(f) : "q"(y) : "cc");			\
	*d = (uint64_t)x;						\
	*fl = (*fl & ~FL_ARITH) | (f & FL_ARITH);			\
}
#define ALU4(name, insn)						\
	ALU(name##8, uint8_t, insn) ALU(name##16, uint16_t, insn)	\
	ALU(name##32, uint32_t, insn) ALU(name##64, uint64_t, insn)	\
	static void (*const name[])(uint64_t *, uint64_t, uint64_t *) =	\
	    { name##8, name##16, name##32, name##64 };

ALU4(alu_add, "add %2, %0")
ALU4(alu_adc, "adc %2, %0")
ALU4(alu_sub, "sub %2, %0")
ALU4(alu_sbb, "sbb %2, %0")
ALU4(alu_and, "and %2, %0")
ALU4(alu_or, "or %2, %0")
ALU4(alu_xor, "xor %2, %0")
ALU4(alu_inc, "inc %0")
ALU4(alu_dec, "dec %0")
ALU4(alu_neg, "neg %0")
ALU4(alu_not, "not %0")
ALU4(alu_cmp, "cmp %0, %2")	/* flags of s - d, d unchanged */

typedef void (*const alu_fn[4])(uint64_t *, uint64_t, uint64_t *);

enum { RMW_ALU, RMW_XADD, RMW_XCHG, RMW_CMPXCHG };

/* The read-modify-writes emulated: mnemonic, operation, operands. */
static const struct rmw {
	const char	*mn;
	const alu_fn	*fn;
	int		 unary;		/* no other operand */
	int		 how;		/* RMW_*: what else it writes */
} rmws[] = {
	{ "add", &alu_add, 0, RMW_ALU }, { "adc", &alu_adc, 0, RMW_ALU },
	{ "sub", &alu_sub, 0, RMW_ALU }, { "sbb", &alu_sbb, 0, RMW_ALU },
	{ "and", &alu_and, 0, RMW_ALU }, { "or", &alu_or, 0, RMW_ALU },
	{ "xor", &alu_xor, 0, RMW_ALU }, { "inc", &alu_inc, 1, RMW_ALU },
	{ "dec", &alu_dec, 1, RMW_ALU }, { "neg", &alu_neg, 1, RMW_ALU },
	{ "not", &alu_not, 1, RMW_ALU }, { "xadd", &alu_add, 0, RMW_XADD },
	{ "xchg", NULL, 0, RMW_XCHG }, { "cmpxchg", &alu_cmp, 0, RMW_CMPXCHG },
	{ NULL, NULL, 0, 0 }
};

/* Whether the mnemonic that starts text is mn. */
static int
mnemonic_is(const char *text, const char *mn)
{
	size_t n = strcspn(text, " ");

	return strlen(mn) == n && strncmp(text, mn, n) == 0;
}

/* The mnemonic of in, lock aside, matched in rmws; NULL: none. */
static const struct rmw *
rmw_of(const struct wp_x86_insn *in)
{
	const char *mn = in->text;
	size_t i;

	if (strncmp(mn, "lock ", 5) == 0)
		mn += 5;
	for (i = 0; rmws[i].mn != NULL; i++)
		if (mnemonic_is(mn, rmws[i].mn))
			break;
	if (rmws[i].mn == NULL || in->rep || !in->has_mem ||
	    (in->width != 1 && in->width != 2 && in->width != 4 &&
	    in->width != 8))
		return NULL;
	if (!rmws[i].unary && in->op_reg < 0 && !in->has_op_imm)
		return NULL;
	if (rmws[i].how != RMW_ALU && in->op_reg < 0)
		return NULL;	/* it writes that register too */
	return &rmws[i];
}

/* General register idx (WP_*) of u. */
static unsigned long long *
ureg(struct user_regs_struct *u, int idx)
{
	unsigned long long *const p[] = { &u->rax, &u->rbx, &u->rcx,
	    &u->rdx, &u->rsi, &u->rdi, &u->rbp, &u->rsp, &u->rip,
	    &u->eflags, &u->r8, &u->r9, &u->r10, &u->r11, &u->r12, &u->r13,
	    &u->r14, &u->r15 };

	return p[idx];
}

/* A write of v to register idx as wide as bytes (at shift: ah...). */
static void
set_reg(struct user_regs_struct *u, int idx, int bytes, int shift,
    uint64_t v)
{
	unsigned long long *p = ureg(u, idx), m;

	if (bytes >= 8)
		*p = v;
	else if (bytes == 4)
		*p = (uint32_t)v;	/* zero-extended, as the CPU does */
	else {
		m = ((1ULL << (8 * bytes)) - 1) << shift;
		*p = (*p & ~m) | ((v << shift) & m);
	}
}

/*
 * Read-modify-write rmw of in at lo: the new bytes into b, u's flags
 * and the register it writes updated.  0, or -1.
 */
static int
emulate_rmw(struct page_state *s, struct user_regs_struct *u,
    const struct wp_x86_regs *r, const struct wp_x86_insn *in,
    const struct rmw *m, uint64_t lo, unsigned char *b)
{
	uint64_t d = 0, old, src, fl = u->eflags;
	int i, k = in->width == 1 ? 0 : in->width == 2 ? 1 :
	    in->width == 4 ? 2 : 3;

	if (pread(s->tr.memfd, b, (size_t)in->width, (off_t)lo) != in->width)
		return -1;
	for (i = 0; i < in->width; i++)
		d |= (uint64_t)b[i] << (8 * i);
	old = d;
	src = in->op_reg >= 0 ? r->v[in->op_reg] >> in->op_shift : in->op_imm;
	switch (m->how) {
	case RMW_XCHG:
		d = src;
		break;
	case RMW_CMPXCHG:
		(*m->fn)[k](&d, r->v[WP_RAX], &fl);
		if (fl & 0x40)		/* ZF: equal, the source goes in */
			d = src;
		else
			set_reg(u, WP_RAX, in->width, 0, old);
		break;
	default:
		(*m->fn)[k](&d, src, &fl);
	}
	if (m->how == RMW_XCHG || m->how == RMW_XADD)
		set_reg(u, in->op_reg, in->op_bytes, in->op_shift, old);
	u->eflags = fl;
	for (i = 0; i < in->width; i++)
		b[i] = (unsigned char)(d >> (8 * i));
	return 0;
}

/*
 * Vector moves of a whole xmm, ymm or zmm register, emulated from
 * XSTATE; the AVX-512 ones with a k mask too.
 */
static const char *const vmoves[] = { "movups", "movupd", "movaps",
    "movapd", "movdqu", "movdqa", "movntdq", "movntps", "movntpd",
    "vmovups", "vmovupd", "vmovaps", "vmovapd", "vmovdqu", "vmovdqa",
    "vmovntdq", "vmovntps", "vmovntpd", "vmovdqu8", "vmovdqu16",
    "vmovdqu32", "vmovdqu64", "vmovdqa32", "vmovdqa64", NULL };

/* The vector register a vector move stores, 0..31, or -1. */
static int
vector_src(const struct wp_x86_insn *in)
{
	const char *src = strrchr(in->text, ' ');
	size_t i;
	int n;

	for (i = 0; vmoves[i] != NULL; i++)
		if (mnemonic_is(in->text, vmoves[i]))
			break;
	if (vmoves[i] == NULL || src == NULL || in->kind != WP_X86_SIMD ||
	    in->unmodeled || (in->mask != WP_X86_MASK_NONE &&
	    (in->mask != WP_X86_MASK_K || in->elem == 0 || in->compress)))
		return -1;
	src++;
	if (strncmp(src, in->width == 16 ? "xmm" : in->width == 32 ? "ymm" :
	    in->width == 64 ? "zmm" : "-", 3) != 0)
		return -1;
	n = atoi(src + 3);
	return n >= 0 && n < 32 ? n : -1;
}

int
page_emulable(const struct wp_x86_insn *in)
{
	const char *mn = in->text;

	if (in->kind == WP_X86_RMW || in->kind == WP_X86_XCHG)
		return rmw_of(in) != NULL;
	if (in->rep || strncmp(mn, "lock ", 5) == 0)
		return 0;
	if (in->kind == WP_X86_SIMD)
		return vector_src(in) >= 0;
	if (in->width < 1 || in->width > 8)
		return 0;
	if (in->kind == WP_X86_STRING)
		return strncmp(mn, "stos", 4) == 0;
	if (in->kind != WP_X86_REG_STORE && in->kind != WP_X86_IMM_STORE)
		return 0;
	if (strncmp(mn, "mov ", 4) != 0 && strncmp(mn, "movabs ", 7) != 0 &&
	    strncmp(mn, "movnti ", 7) != 0)
		return 0;
	return in->kind == WP_X86_IMM_STORE || in->src_reg >= 0;
}

/*
 * The bytes vector move in stores into b, and its mask's bits (all set
 * when it has none) into *bits, from thread tid's XSTATE: 0, or -1.
 */
static int
vector_bytes(pid_t tid, const struct wp_x86_insn *in, unsigned char *b,
    uint64_t *bits)
{
	const uint8_t *xs;
	size_t len;

	*bits = ~0ULL;
	if ((xs = tr_xstate(tid, &len)) == NULL ||
	    wp_x86_xsave_vector(xs, len, vector_src(in), in->width, b) == -1)
		return -1;
	if (in->mask == WP_X86_MASK_NONE)
		return 0;
	return wp_x86_xsave_mask(in, xs, len, bits);
}

/*
 * Writes b, the operand of in at lo: with a mask only the elements
 * whose bit of bits is set, a run of them at a time (the others may be
 * on no page at all).  0, or -1.
 */
static int
write_elements(struct page_state *s, const struct wp_x86_insn *in,
    uint64_t lo, const unsigned char *b, uint64_t bits)
{
	size_t e = in->mask == WP_X86_MASK_NONE ? (size_t)in->width :
	    (size_t)in->elem;
	size_t n = (size_t)in->width / e, i, j;

	for (i = 0; i < n; i = j + 1) {
		for (j = i; j < n && (bits >> j & 1); j++)
			;
		if (j > i && pwrite(s->tr.memfd, b + i * e, (j - i) * e,
		    (off_t)(lo + i * e)) != (ssize_t)((j - i) * e))
			return -1;
	}
	return 0;
}

int
page_emulate_rep(struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, const struct wp_x86_insn *in, uint64_t k)
{
	uint64_t e = (uint64_t)in->width, len = k * e, d, src = 0, i;
	int down = (u->eflags & 0x400) != 0;
	int movs = strncmp(in->text, "rep movs", 8) == 0;
	unsigned char *b;
	int rc = -1;

	if (!in->rep || in->kind != WP_X86_STRING || e < 1 || e > 8 ||
	    k == 0 || k > u->rcx || len > REP_BULK_MAX ||
	    (!movs && strncmp(in->text, "rep stos", 8) != 0))
		return -1;
	/* the lowest byte of the rounds' elements, destination and source */
	d = down ? u->rdi - (k - 1) * e : u->rdi;
	if (movs)
		src = down ? u->rsi - (k - 1) * e : u->rsi;
	if (movs && src < d + len && d < src + len)
		return -1;
	b = wp_xmalloc((size_t)len);
	if (movs && pread(s->tr.memfd, b, (size_t)len, (off_t)src) !=
	    (ssize_t)len)
		goto out;
	for (i = 0; !movs && i < len; i++)
		b[i] = (unsigned char)(u->rax >> (8 * (i % e)));
	if (pwrite(s->tr.memfd, b, (size_t)len, (off_t)d) != (ssize_t)len)
		goto out;
	u->rdi = down ? u->rdi - len : u->rdi + len;
	if (movs)
		u->rsi = down ? u->rsi - len : u->rsi + len;
	if ((u->rcx -= k) == 0)
		u->rip += (uint64_t)in->size;
	rc = (int)ptrace(PTRACE_SETREGS, t->tid, 0, u);
out:
	free(b);
	return rc;
}

int
page_emulate_load(struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, const struct wp_x86_insn *in, uint64_t lo)
{
	unsigned char b[8];
	uint64_t v = 0;
	int i;

	if (in->ld_reg < 0 || in->rep || in->width != in->ld_bytes ||
	    in->width < 1 || in->width > 8 ||
	    pread(s->tr.memfd, b, (size_t)in->width, (off_t)lo) != in->width)
		return -1;
	for (i = 0; i < in->width; i++)
		v |= (uint64_t)b[i] << (8 * i);
	set_reg(u, in->ld_reg, in->ld_bytes, in->ld_shift, v);
	u->rip += (uint64_t)in->size;
	return (int)ptrace(PTRACE_SETREGS, t->tid, 0, u);
}

int
page_emulate(struct page_state *s, struct tr_thread *t, struct user_regs_struct *u,
    const struct wp_x86_regs *r, const struct wp_x86_insn *in, uint64_t lo,
    unsigned char *b)
{
	uint64_t v, bits = ~0ULL;
	int i;

	if (in->kind == WP_X86_RMW || in->kind == WP_X86_XCHG) {
		if (emulate_rmw(s, u, r, in, rmw_of(in), lo, b) == -1)
			return -1;
	} else if (in->kind == WP_X86_SIMD) {
		if (vector_bytes(t->tid, in, b, &bits) == -1)
			return -1;
	} else {
		if (in->kind == WP_X86_IMM_STORE)
			v = in->imm;
		else if (in->kind == WP_X86_STRING)
			v = r->v[WP_RAX];
		else
			v = r->v[in->src_reg] >> in->src_shift;
		for (i = 0; i < in->width; i++)
			b[i] = (unsigned char)(v >> (8 * i));
	}
	if (write_elements(s, in, lo, b, bits) == -1)
		return -1;
	u->rip += (uint64_t)in->size;
	if (in->kind == WP_X86_STRING)
		u->rdi += u->eflags & 0x400 ? -(uint64_t)in->width :
		    (uint64_t)in->width;
	return (int)ptrace(PTRACE_SETREGS, t->tid, 0, u);
}
#endif
