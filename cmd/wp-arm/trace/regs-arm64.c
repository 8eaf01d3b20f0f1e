/*
 * regs on AArch64 (regs.h): NT_PRSTATUS' struct user_pt_regs through
 * PTRACE_GETREGSET (arm64 has no PTRACE_GETREGS), `svc #0` with the
 * call in x8 and its arguments in x0-x5, the call a thread is in through
 * NT_ARM_SYSTEM_CALL, tpidr_el0 through NT_ARM_TLS, and the watchpoint
 * slots through NT_ARM_HW_WATCH.  The build compiles every file of
 * wp-arm: this one is empty elsewhere.
 */
#if defined(__aarch64__)
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <asm/ptrace.h>
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "util.h"

#include "a64-insn.h"
#include "regs.h"
#include "x86.h"

const unsigned tr_sc_len = 4;
const unsigned tr_insn_align = 4;
const unsigned tr_red_zone = 0;		/* AAPCS64 has none */

/*
 * struct rt_sigframe: siginfo (16 words), then struct ucontext: uc_flags,
 * uc_link, uc_stack (ss_sp word 18, ss_size 20), uc_sigmask and padding
 * to 1024 bits, uc_mcontext at byte 304 (fault_address, x0-x30, sp at
 * word 70, pc, pstate: 584 bytes every frame writes), 4096 reserved
 * bytes (the records of the vector state, as many as the thread has),
 * then a frame record.
 */
const struct tr_frame_shape tr_frame_shape = { 18, 20, 70, 584, 4720, 4720 };

static int
regset(pid_t tid, int set, int type, void *p, size_t len)
{
	struct iovec iov = { p, len };

	return ptrace(set ? PTRACE_SETREGSET : PTRACE_GETREGSET, tid,
	    (void *)(long)type, &iov) == -1 ? -1 : 0;
}

int
tr_getregs(pid_t tid, struct user_regs_struct *u)
{
	return regset(tid, 0, NT_PRSTATUS, u, sizeof *u);
}

int
tr_setregs(pid_t tid, const struct user_regs_struct *u)
{
	return regset(tid, 1, NT_PRSTATUS, (void *)u, sizeof *u);
}

uint64_t
tr_pc(const struct user_regs_struct *u)
{
	return u->pc;
}

void
tr_set_pc(struct user_regs_struct *u, uint64_t pc)
{
	u->pc = pc;
}

uint64_t
tr_sp(const struct user_regs_struct *u)
{
	return u->sp;
}

uint64_t
tr_count(const struct user_regs_struct *u)
{
	(void)u;
	return 0;
}

uint64_t
tr_ret(const struct user_regs_struct *u)
{
	return u->regs[0];
}

int
tr_is_sc(const uint8_t *code)
{
	static const uint8_t svc0[4] = { 0x01, 0x00, 0x00, 0xd4 };

	return memcmp(code, svc0, sizeof svc0) == 0;
}

int
tr_enters_kernel(const uint8_t *code)
{
	return tr_is_sc(code);
}

/* The call tid is in (its syscallno): -1 makes it none, not restarted. */
static int
set_syscallno(pid_t tid, int nr)
{
	return regset(tid, 1, NT_ARM_SYSTEM_CALL, &nr, sizeof nr);
}

int
tr_set_call(pid_t tid, struct user_regs_struct *u, uint64_t pc, long nr,
    const uint64_t *a, int n)
{
	int i;

	u->pc = pc;
	u->regs[8] = (unsigned long long)nr;
	for (i = 0; i < n && i < 6; i++)
		u->regs[i] = a[i];
	if (set_syscallno(tid, -1) == -1)
		return -1;
	return tr_setregs(tid, u);
}

int
tr_save_call(pid_t tid, long *call)
{
	int nr;

	if (regset(tid, 0, NT_ARM_SYSTEM_CALL, &nr, sizeof nr) == -1)
		return -1;
	*call = nr;
	return 0;
}

int
tr_restore_call(pid_t tid, long call)
{
	return set_syscallno(tid, (int)call);
}

int
tr_set_entry_call(pid_t tid, const struct user_regs_struct *entry, long nr)
{
	(void)entry;
	/* at the entry the kernel has read x8: only syscallno counts */
	return set_syscallno(tid, (int)nr);
}

int
tr_rewind_call(pid_t tid, const struct user_regs_struct *entry)
{
	struct user_regs_struct r = *entry;

	/* x0 (the first argument, which the result overwrote) as at the
	   entry, and the call run again from its svc */
	r.pc -= tr_sc_len;
	if (set_syscallno(tid, -1) == -1)
		return -1;
	return tr_setregs(tid, &r);
}

long
tr_call_of(const struct user_regs_struct *u, int restart, uint64_t a[6])
{
	int i;

	for (i = 0; i < 6; i++)
		a[i] = u->regs[i];
	/* a restarted call's x0 is its result, the argument gone */
	return restart ? -1 : (long)u->regs[8];
}

long
tr_entry_call(const struct user_regs_struct *u, uint64_t a[6])
{
	return tr_call_of(u, 0, a);
}

int
tr_restart_pending(pid_t tid, const struct user_regs_struct *u)
{
	long x0 = (long)u->regs[0], nr;

	return x0 >= -516 && x0 <= -512 && tr_save_call(tid, &nr) == 0 &&
	    nr >= 0;
}

/* brk #0: its trap leaves the PC at it */
const struct tr_brk tr_brk = { { 0x00, 0x00, 0x20, 0xd4 }, 4, 0, TRAP_BRKPT };

/*
 * A store lib/a64-insn.c decoded, in the engine's instruction: its
 * address in mem (base and index WP_A64_*, scale the index's shift, seg
 * its extension 'w', 's' or 0, rip_rel: post-indexed), op_reg an
 * exclusive store's status register (-1: none).  Its kind is x86-64's
 * nearest: a plain or exclusive store a register store, an atomic
 * (swp, cas, ldadd, ...) an exchange (its source register overwritten,
 * no byte written outside it), a vector store SIMD.  Loads are not
 * placed (reads 0).  A cas is a store whether or not it compared equal.
 */
static int
to_insn(const struct wp_a64_insn *a, struct wp_x86_insn *in)
{
	static const enum wp_x86_kind kinds[] = {
		[WP_A64_STORE] = WP_X86_REG_STORE,
		[WP_A64_EXCLUSIVE] = WP_X86_REG_STORE,
		[WP_A64_SWAP] = WP_X86_XCHG,
		[WP_A64_CAS] = WP_X86_XCHG,
		[WP_A64_ATOMIC] = WP_X86_XCHG,
		[WP_A64_SIMD] = WP_X86_SIMD,
	};

	if (!a->writes || a->width == 0 || a->base < 0 ||
	    a->kind >= (int)(sizeof kinds / sizeof kinds[0]) ||
	    kinds[a->kind] == WP_X86_NONE)
		return -1;
	memset(in, 0, sizeof *in);
	in->addr = a->addr;
	in->size = a->size;
	snprintf(in->text, sizeof in->text, "%s", a->text);
	in->kind = kinds[a->kind];
	in->writes = 1;
	in->width = a->width;
	in->has_mem = 1;
	in->mem.base = a->base;
	in->mem.index = a->index;
	in->mem.scale = a->index_shift;
	in->mem.seg = a->index_ext;
	in->mem.rip_rel = a->post_index;
	in->mem.disp = a->disp;
	in->src_reg = in->ld_reg = -1;
	in->op_reg = a->kind == WP_A64_EXCLUSIVE ? a->status_reg : -1;
	return 0;
}

/* What a64-store.c takes of a store to_insn made. */
static void
of_insn(const struct wp_x86_insn *in, struct wp_a64_insn *a)
{
	memset(a, 0, sizeof *a);
	a->writes = in->writes;
	a->width = in->width;
	a->base = in->mem.base;
	a->index = in->mem.index;
	a->index_shift = in->mem.scale;
	a->index_ext = in->mem.seg;
	a->post_index = in->mem.rip_rel;
	a->disp = in->mem.disp;
}

int
tr_decode(const uint8_t *code, size_t len, uint64_t ip, struct wp_x86_insn *in)
{
	struct wp_a64_insn a;

	if (len < tr_sc_len)
		return -1;
	if (!tr_is_sc(code))
		return wp_a64_decode(code, len, ip, &a) == -1 ? -1 :
		    to_insn(&a, in);
	memset(in, 0, sizeof *in);
	in->addr = ip;
	in->size = (int)tr_sc_len;
	in->kind = WP_X86_OTHER;
	in->is_syscall = 1;
	in->writes = 1;
	in->mem.base = in->mem.index = -1;
	snprintf(in->text, sizeof in->text, "svc #0");
	return 0;
}

int
tr_store_range(const struct wp_x86_insn *in, const struct user_regs_struct *u,
    const struct wp_x86_regs *r, uint64_t *lo, uint64_t *hi)
{
	struct wp_a64_insn a;
	struct wp_a64_regs ar;
	int i;

	(void)r;
	if (u == NULL || in->is_syscall || !in->has_mem)
		return -1;
	of_insn(in, &a);
	for (i = 0; i < 31; i++)
		ar.v[WP_A64_X0 + i] = u->regs[i];
	ar.v[WP_A64_SP] = u->sp;
	ar.v[WP_A64_PC] = u->pc;
	ar.v[WP_A64_PSTATE] = u->pstate;
	ar.have = (1ULL << WP_A64_NREGS) - 1;
	return wp_a64_store_range(&a, &ar, lo, hi);
}

int
tr_store_held(pid_t tid, const struct wp_x86_insn *in)
{
	struct user_regs_struct u;

	if (in->op_reg < 0 || in->is_syscall || !in->has_mem)
		return 1;
	/* stxr's status: 0 when it stored */
	return tr_getregs(tid, &u) == 0 && (uint32_t)u.regs[in->op_reg] == 0;
}

#define SEQ_MAX		16	/* instructions of a sequence, as gdb's */

/* Where branch a goes when its condition holds (its last #operand). */
static uint64_t
branch_to(const struct wp_a64_insn *a)
{
	const char *h = strrchr(a->text, '#');

	return h == NULL ? 0 : strtoull(h + 1, NULL, 0);
}

static int
add_end(uint64_t ends[TR_SEQ_ENDS], int *n, uint64_t a)
{
	int i;

	for (i = 0; i < *n; i++)
		if (ends[i] == a)
			return 0;
	if (*n == TR_SEQ_ENDS)
		return -1;
	ends[(*n)++] = a;
	return 0;
}

/*
 * As gdb's aarch64_software_single_step: from a load-exclusive, the
 * exclusive store within SEQ_MAX instructions, no unconditional branch
 * or call before it; conditional branches out of it are ends too.
 */
int
tr_excl_seq(int memfd, uint64_t ip, uint64_t *st, uint64_t ends[TR_SEQ_ENDS],
    int *n)
{
	static const char *const lx[] = { "ldxr", "ldaxr", "ldxp", "ldaxp",
	    NULL };
	static const char *const cond[] = { "b.", "cbz", "cbnz", "tbz",
	    "tbnz", NULL };
	static const char *const jump[] = { "b", "bl", "br", "blr", "ret",
	    "svc", "brk", "eret", NULL };
	uint8_t code[SEQ_MAX * 4];
	struct wp_a64_insn a;
	uint64_t to[SEQ_MAX];
	uint32_t w;
	int i, k, nto = 0;

	*n = 0;
	/* the load/store exclusive class, a load (o2 0, L 1), first: no
	   decoding at every other step */
	if (pread(memfd, &w, sizeof w, (off_t)ip) != (ssize_t)sizeof w ||
	    (w & 0x3fc00000) != 0x08400000)
		return 0;
	if (pread(memfd, code, sizeof code, (off_t)ip) != (ssize_t)sizeof code ||
	    wp_a64_decode(code, 4, ip, &a) == -1)
		return 0;
	for (k = 0; lx[k] != NULL && !wp_prefix(a.mnemonic, lx[k]); k++)
		;
	if (lx[k] == NULL)
		return 0;
	for (i = 1; i < SEQ_MAX; i++) {
		if (wp_a64_decode(code + 4 * i, 4, ip + 4 * (uint64_t)i,
		    &a) == -1)
			return 0;
		if (a.kind == WP_A64_EXCLUSIVE)
			break;
		for (k = 0; cond[k] != NULL && !wp_prefix(a.mnemonic,
		    cond[k]); k++)
			;
		if (cond[k] != NULL) {
			if ((to[nto++] = branch_to(&a)) == 0)
				return 0;
			continue;
		}
		for (k = 0; jump[k] != NULL &&
		    strcmp(a.mnemonic, jump[k]) != 0; k++)
			;
		if (jump[k] != NULL)
			return 0;
	}
	if (i == SEQ_MAX)
		return 0;
	*st = a.addr;
	for (k = 0; k < nto; k++)
		if ((to[k] < ip || to[k] > *st) && add_end(ends, n, to[k]) == -1)
			return 0;
	return add_end(ends, n, *st + 4) == 0;
}

const char *const tr_decode_missing = "wp-arm does not decode arm64 "
    "instructions' memory operands yet";

/* Whether it is an instruction that writes no memory. */
int
tr_undecoded_quiet(const uint8_t *code, size_t len)
{
	struct wp_a64_insn a;

	return !tr_is_sc(code) && wp_a64_decode(code, len, 0, &a) == 0 &&
	    a.kind == WP_A64_NONE;
}

int
tr_tls(pid_t tid, const struct user_regs_struct *u, uint64_t *tp)
{
	(void)u;
	return regset(tid, 0, NT_ARM_TLS, tp, sizeof *tp);
}

/*
 * The records' register table is x86-64's so far (lib/x86-regs.h): an
 * arm64 thread's registers are not put in records until it has arm64's
 * (lib/arm64-regs.h).  None known.
 */
void
tr_regs(const struct user_regs_struct *u, struct wp_x86_regs *r)
{
	(void)u;
	memset(r, 0, sizeof *r);
}

const uint8_t *
tr_xstate(pid_t tid, size_t *len)
{
	(void)tid;
	*len = 0;
	return NULL;
}

uint64_t
tr_str_count(const struct user_regs_struct *u)
{
	(void)u;
	return 0;
}

uint64_t
tr_str_dst(const struct user_regs_struct *u)
{
	(void)u;
	return 0;
}

uint64_t
tr_str_src(const struct user_regs_struct *u)
{
	(void)u;
	return 0;
}

int
tr_str_down(const struct user_regs_struct *u)
{
	(void)u;
	return 0;
}

int
tr_same_regs(const struct user_regs_struct *a,
    const struct user_regs_struct *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

void
tr_cpu_vector(int *avx512, unsigned *xsave_bytes)
{
	*avx512 = 0;
	*xsave_bytes = 0;
}

uint64_t
tr_add_chain(uint64_t x, unsigned rounds)
{
	unsigned i;

	for (i = 0; i < rounds; i++)
		__asm__ volatile (".rept 64\n\tadd %0, %0, #1\n\t.endr"
		    : "+r" (x));
	return x;
}

int
tr_watch_slots(void)
{
	static int n = -1;
	struct user_hwdebug_state hw;
	pid_t c;
	int st;

	if (n >= 0)
		return n;
	n = 0;
	/* a child stopped under ptrace: its watchpoint registers' dbg_info
	   has their number in its low byte */
	if ((c = fork()) == -1)
		return n;
	if (c == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0)
			raise(SIGSTOP);
		_exit(0);
	}
	memset(&hw, 0, sizeof hw);
	if (waitpid(c, &st, 0) == c && WIFSTOPPED(st) &&
	    regset(c, 0, NT_ARM_HW_WATCH, &hw, sizeof hw) == 0)
		n = (int)(hw.dbg_info & 0xff);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	if (n > WP_HWBP_SLOTS)
		n = WP_HWBP_SLOTS;
	return n;
}

const char *
tr_watch_slots_text(void)
{
	static char s[64];

	snprintf(s, sizeof s, "this arm64 machine has %d (its watchpoint "
	    "registers)", tr_watch_slots());
	return s;
}
#endif
