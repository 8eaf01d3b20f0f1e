/*
 * regs on x86-64 (regs.h): PTRACE_GETREGS' struct user_regs_struct,
 * `syscall` (0f 05) with the call in rax and orig_rax, fs_base.  The
 * build compiles every file of wp-arm: this one is empty elsewhere.
 */
#if defined(__x86_64__)
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <cpuid.h>
#include <elf.h>
#include <signal.h>
#include <string.h>

#include "regs.h"
#include "x86.h"

const unsigned tr_sc_len = 2;
const unsigned tr_insn_align = 1;
const unsigned tr_red_zone = 128;

/* struct rt_sigframe: pretcode, then struct ucontext (uc_stack at 16);
   uc_mcontext.rsp is its 21st word; 240 the frame's fixed bytes, 304
   the end of the sigcontext's reserved ones */
const struct tr_frame_shape tr_frame_shape = { 3, 5, 21, 240, 304, 440 };

int
tr_getregs(pid_t tid, struct user_regs_struct *u)
{
	return ptrace(PTRACE_GETREGS, tid, 0, u) == -1 ? -1 : 0;
}

int
tr_setregs(pid_t tid, const struct user_regs_struct *u)
{
	return ptrace(PTRACE_SETREGS, tid, 0, u) == -1 ? -1 : 0;
}

uint64_t
tr_pc(const struct user_regs_struct *u)
{
	return u->rip;
}

void
tr_set_pc(struct user_regs_struct *u, uint64_t pc)
{
	u->rip = pc;
}

uint64_t
tr_sp(const struct user_regs_struct *u)
{
	return u->rsp;
}

uint64_t
tr_count(const struct user_regs_struct *u)
{
	return u->rcx;
}

uint64_t
tr_ret(const struct user_regs_struct *u)
{
	return u->rax;
}

int
tr_is_sc(const uint8_t *code)
{
	return code[0] == 0x0f && code[1] == 0x05;
}

int
tr_enters_kernel(const uint8_t *b)
{
	return (b[0] == 0x0f && (b[1] == 0x05 || b[1] == 0x34)) ||
	    (b[0] == 0xcd && b[1] == 0x80);
}

int
tr_set_call(pid_t tid, struct user_regs_struct *u, uint64_t pc, long nr,
    const uint64_t *a, int n)
{
	u->rip = pc;
	u->rax = (unsigned long)nr;
	u->orig_rax = (unsigned long)-1;
	u->rdi = a[0];
	u->rsi = a[1];
	u->rdx = a[2];
	if (n > 3)
		u->r10 = a[3];
	if (n > 5) {
		u->r8 = a[4];
		u->r9 = a[5];
	}
	return tr_setregs(tid, u);
}

int
tr_save_call(pid_t tid, long *call)
{
	(void)tid;
	*call = -1;
	return 0;
}

int
tr_restore_call(pid_t tid, long call)
{
	(void)tid;
	(void)call;
	return 0;
}

int
tr_set_entry_call(pid_t tid, const struct user_regs_struct *entry, long nr)
{
	struct user_regs_struct r = *entry;

	r.orig_rax = (unsigned long)nr;
	return tr_setregs(tid, &r);
}

int
tr_rewind_call(pid_t tid, const struct user_regs_struct *entry)
{
	struct user_regs_struct r = *entry;

	/* the call runs again from its syscall instruction */
	r.rip -= tr_sc_len;
	r.rax = entry->orig_rax;
	r.orig_rax = (unsigned long)-1;
	return tr_setregs(tid, &r);
}

long
tr_call_of(const struct user_regs_struct *u, int restart, uint64_t a[6])
{
	a[0] = u->rdi; a[1] = u->rsi; a[2] = u->rdx;
	a[3] = u->r10; a[4] = u->r8; a[5] = u->r9;
	return restart ? (long)u->orig_rax : (long)u->rax;
}

long
tr_entry_call(const struct user_regs_struct *u, uint64_t a[6])
{
	return tr_call_of(u, 1, a);
}

int
tr_restart_pending(pid_t tid, const struct user_regs_struct *u)
{
	long rax = (long)u->rax;

	(void)tid;
	return (long long)u->orig_rax >= 0 && rax >= -516 && rax <= -512;
}

/* int3: its trap leaves the PC after it */
const struct tr_brk tr_brk = { { 0xcc }, 1, 1, SI_KERNEL };

int
tr_decode(const uint8_t *code, size_t len, uint64_t ip, struct wp_x86_insn *in)
{
	return wp_x86_decode(code, len, ip, in);
}

int
tr_store_range(const struct wp_x86_insn *in, const struct user_regs_struct *u,
    const struct wp_x86_regs *r, uint64_t *lo, uint64_t *hi)
{
	(void)u;
	return wp_x86_store_range(in, r, 0, lo, hi);
}

int
tr_store_held(pid_t tid, const struct wp_x86_insn *in)
{
	(void)tid;
	(void)in;
	return 1;
}

int
tr_excl_seq(int memfd, uint64_t ip, uint64_t *st, uint64_t ends[TR_SEQ_ENDS],
    int *n)
{
	(void)memfd; (void)ip; (void)st; (void)ends;
	*n = 0;
	return 0;
}

const char *const tr_decode_missing = NULL;

int
tr_undecoded_quiet(const uint8_t *code, size_t len)
{
	return wp_x86_undecoded_quiet(code, len);
}

int
tr_tls(pid_t tid, const struct user_regs_struct *u, uint64_t *tp)
{
	(void)tid;
	*tp = u->fs_base;
	return 0;
}

void
tr_regs(const struct user_regs_struct *u, struct wp_x86_regs *r)
{
	r->v[WP_RAX] = u->rax; r->v[WP_RBX] = u->rbx; r->v[WP_RCX] = u->rcx;
	r->v[WP_RDX] = u->rdx; r->v[WP_RSI] = u->rsi; r->v[WP_RDI] = u->rdi;
	r->v[WP_RBP] = u->rbp; r->v[WP_RSP] = u->rsp; r->v[WP_RIP] = u->rip;
	r->v[WP_RFLAGS] = u->eflags; r->v[WP_R8] = u->r8; r->v[WP_R9] = u->r9;
	r->v[WP_R10] = u->r10; r->v[WP_R11] = u->r11; r->v[WP_R12] = u->r12;
	r->v[WP_R13] = u->r13; r->v[WP_R14] = u->r14; r->v[WP_R15] = u->r15;
	r->v[WP_FS_BASE] = u->fs_base; r->v[WP_GS_BASE] = u->gs_base;
	r->have = (1u << WP_NREGS) - 1;
}

const uint8_t *
tr_xstate(pid_t tid, size_t *len)
{
	static uint8_t xs[16384];
	struct iovec iov = { xs, sizeof xs };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == -1)
		return NULL;
	*len = iov.iov_len;
	return xs;
}

uint64_t
tr_str_count(const struct user_regs_struct *u)
{
	return u->rcx;
}

uint64_t
tr_str_dst(const struct user_regs_struct *u)
{
	return u->rdi;
}

uint64_t
tr_str_src(const struct user_regs_struct *u)
{
	return u->rsi;
}

int
tr_str_down(const struct user_regs_struct *u)
{
	return (u->eflags & 0x400) != 0;
}

int
tr_same_regs(const struct user_regs_struct *a,
    const struct user_regs_struct *b)
{
	struct user_regs_struct x = *a, y = *b;

	x.eflags &= 0xcd5;
	y.eflags &= 0xcd5;
	x.orig_rax = y.orig_rax = 0;
	return memcmp(&x, &y, sizeof x) == 0;
}

void
tr_cpu_vector(int *avx512, unsigned *xsave_bytes)
{
	unsigned a, b, c, d;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
		*avx512 = (b >> 16) & 1;
	if (__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
		*xsave_bytes = b;
}

uint64_t
tr_add_chain(uint64_t x, unsigned rounds)
{
	unsigned i;

	for (i = 0; i < rounds; i++)
		__asm__ volatile (".rept 64\n\taddq $1, %0\n\t.endr"
		    : "+r" (x));
	return x;
}

int
tr_watch_slots(void)
{
	return 4;
}

const char *
tr_watch_slots_text(void)
{
	return "x86-64 has 4 (DR0..DR3)";
}
#endif
