/*
 * The stores the page backend makes itself instead of stepping them
 * (page_emulable, page_emulate): plain movs, stos, and vector moves of
 * a whole xmm or ymm register, read from XSTATE.
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
page_emulate(struct page_state *s, struct tr_thread *t, struct user_regs_struct *u,
    const struct wp_x86_regs *r, const struct wp_x86_insn *in, uint64_t lo)
{
	unsigned char b[32];
	uint64_t v;
	int i;

	if (in->kind == WP_X86_SIMD) {
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
