/*
 * The stores the page backend makes itself on arm64: none yet.  Every
 * faulting store is resolved by stepping it (the page unprotected, the
 * other threads held, the page protected again: page-fault.c), as the
 * observation's page.emulated (0) and page.stepped say; with -a rw, its
 * loads too.  The x86-64 emulation (page-emulate.c) reads x86-64's
 * registers and XSTATE (AVX-512 masks), which arm64 has not.
 */
#if defined(__aarch64__)
#include "page.h"
#include "x86.h"

int
page_emulable(const struct wp_x86_insn *in)
{
	(void)in;
	return 0;
}

int
page_emulate(struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, const struct wp_x86_regs *r,
    const struct wp_x86_insn *in, uint64_t lo, unsigned char *b)
{
	(void)s; (void)t; (void)u; (void)r; (void)in; (void)lo; (void)b;
	return -1;
}

int
page_emulate_rep(struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, const struct wp_x86_insn *in, uint64_t k)
{
	(void)s; (void)t; (void)u; (void)in; (void)k;
	return -1;
}

int
page_emulate_load(struct page_state *s, struct tr_thread *t,
    struct user_regs_struct *u, const struct wp_x86_insn *in, uint64_t lo)
{
	(void)s; (void)t; (void)u; (void)in; (void)lo;
	return -1;
}
#endif
