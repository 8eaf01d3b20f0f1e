/*
 * The stores the page backend makes itself instead of stepping them
 * (page_emulable, page_emulate), and with -a rw its plain loads
 * (page_emulate_load): plain movs, stos, vector moves of a
 * whole xmm or ymm register, read from XSTATE, and the read-modify-
 * writes of integer arithmetic (lock add, xadd, cmpxchg, inc, ...),
 * computed by the same instruction run here on the old bytes with the
 * thread's arithmetic flags, so that the result and the flags are
 * the CPU's own.  A lock one is atomic as emulated: no other thread
 * writes the page meanwhile (it is protected, they stop at it, and
 * wp-arm handles one stop at a time), and shared memory is refused.
 */
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <elf.h>
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

/* The mnemonic of in, lock aside, matched in rmws; NULL: none. */
static const struct rmw *
rmw_of(const struct wp_x86_insn *in)
{
	const char *mn = in->text;
	size_t i, n;

	if (strncmp(mn, "lock ", 5) == 0)
		mn += 5;
	n = strcspn(mn, " ");
	for (i = 0; rmws[i].mn != NULL; i++)
		if (strlen(rmws[i].mn) == n && strncmp(mn, rmws[i].mn, n) == 0)
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

/* Vector moves of a whole xmm or ymm register, emulated from XSTATE. */
static const char *const vmoves[] = { "movups ", "movaps ", "movdqu ",
    "movdqa ", "movntdq ", "movntps ", "vmovups ", "vmovaps ", "vmovdqu ",
    "vmovdqa ", "vmovntdq ", "vmovntps ", NULL };

/* The xmm or ymm register a vector move stores, 0..15, or -1. */
static int
vector_src(const struct wp_x86_insn *in)
{
	const char *src = strrchr(in->text, ' ');
	size_t i;
	int n;

	for (i = 0; vmoves[i] != NULL; i++)
		if (strncmp(in->text, vmoves[i], strlen(vmoves[i])) == 0)
			break;
	if (vmoves[i] == NULL || src == NULL || in->kind != WP_X86_SIMD ||
	    strchr(in->text, '{') != NULL)
		return -1;
	src++;
	if ((strncmp(src, "xmm", 3) != 0 || in->width != 16) &&
	    (strncmp(src, "ymm", 3) != 0 || in->width != 32))
		return -1;
	n = atoi(src + 3);
	return n >= 0 && n < 16 ? n : -1;
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

#define XSAVE_XMM	160	/* XMM0 in the legacy area */
#define XSAVE_YMM_HI	576	/* the upper halves of YMM0, standard form */

/* The bytes of vector register n (16 or 32 of them) into b: 0, or -1. */
static int
vector_bytes(pid_t tid, int n, int width, unsigned char *b)
{
	static unsigned char xs[16384];
	struct iovec iov = { xs, sizeof xs };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == -1 ||
	    iov.iov_len < (size_t)(width == 32 ? XSAVE_YMM_HI + 256 :
	    XSAVE_XMM + 256))
		return -1;
	memcpy(b, xs + XSAVE_XMM + 16 * n, 16);
	if (width == 32)
		memcpy(b + 16, xs + XSAVE_YMM_HI + 16 * n, 16);
	return 0;
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
	uint64_t v;
	int i;

	if (in->kind == WP_X86_RMW || in->kind == WP_X86_XCHG) {
		if (emulate_rmw(s, u, r, in, rmw_of(in), lo, b) == -1)
			return -1;
	} else if (in->kind == WP_X86_SIMD) {
		if (vector_bytes(t->tid, vector_src(in), in->width, b) == -1)
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
	if (pwrite(s->tr.memfd, b, (size_t)in->width, (off_t)lo) != in->width)
		return -1;
	u->rip += (uint64_t)in->size;
	if (in->kind == WP_X86_STRING)
		u->rdi += u->eflags & 0x400 ? -(uint64_t)in->width :
		    (uint64_t)in->width;
	return (int)ptrace(PTRACE_SETREGS, t->tid, 0, u);
}
