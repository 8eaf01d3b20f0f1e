/*
 * regs: what wp-arm's ptrace engine needs of the machine's registers,
 * behind one interface: regs-x86.c (x86-64) and regs-arm64.c (AArch64),
 * of which the build compiles the one of the machine.  A thread's
 * registers are the C library's struct user_regs_struct of that machine
 * (x86-64: PTRACE_GETREGS' layout; arm64: NT_PRSTATUS', struct
 * user_pt_regs).  Outside regs-*.c (and page-emulate.c, x86-64's
 * alone) nothing of wp-arm's ptrace engine and backends names a
 * register of one machine.
 */
#ifndef WPARM_REGS_H
#define WPARM_REGS_H

#include <sys/types.h>
#include <sys/user.h>
#include <stdint.h>

/* The machine's system call instruction: its length in bytes. */
extern const unsigned tr_sc_len;
/* What every instruction's address is a multiple of. */
extern const unsigned tr_insn_align;
/* Bytes below the stack pointer a signal handler leaves alone. */
extern const unsigned tr_red_zone;

/* Stopped thread tid's registers: 0, or -1 (errno). */
int	 tr_getregs(pid_t tid, struct user_regs_struct *u);
int	 tr_setregs(pid_t tid, const struct user_regs_struct *u);

uint64_t tr_pc(const struct user_regs_struct *u);
void	 tr_set_pc(struct user_regs_struct *u, uint64_t pc);
uint64_t tr_sp(const struct user_regs_struct *u);
/* A string instruction's element count (x86-64's rcx; arm64 has none: 0). */
uint64_t tr_count(const struct user_regs_struct *u);
/* The first return register: a system call's result. */
uint64_t tr_ret(const struct user_regs_struct *u);

/* Whether code (tr_sc_len bytes) is the system call instruction. */
int	 tr_is_sc(const uint8_t *code);
/*
 * Whether it is any way into the kernel (x86-64: syscall, sysenter,
 * int $0x80; arm64: svc #0).
 */
int	 tr_enters_kernel(const uint8_t *code);

/*
 * Sets u (stopped thread tid's, not at a system call entry) to run
 * system call nr(a[0]..a[n - 1]) from the instruction at pc, and writes
 * them, with the call the thread was in (if any) marked not to be
 * restarted.  0, or -1.
 */
int	 tr_set_call(pid_t tid, struct user_regs_struct *u, uint64_t pc,
	    long nr, const uint64_t *a, int n);
/*
 * The call stopped thread tid is in, as far as the registers do not
 * hold it (arm64's syscallno; x86-64's orig_rax is in them): saved
 * before tr_set_call and put back with the registers after.  0, or -1.
 */
int	 tr_save_call(pid_t tid, long *call);
int	 tr_restore_call(pid_t tid, long call);
/*
 * At a system-call entry stop of tid, whose registers there are entry:
 * the call made nr instead (0, or -1); tr_rewind_call after its exit
 * sets the registers so that the original call runs again.
 */
int	 tr_set_entry_call(pid_t tid, const struct user_regs_struct *entry,
	    long nr);
int	 tr_rewind_call(pid_t tid, const struct user_regs_struct *entry);

/*
 * The system call u is about to make at its system call instruction
 * (restart 0), or the one it was in and restarts (restart 1, where
 * tr_restart_pending says so): its number, its arguments into a[6].
 * -1: which call it is cannot be told from the registers (arm64 keeps
 * a restarted call's first argument only in the kernel): the caller
 * learns it at the call's entry stop.
 */
long	 tr_call_of(const struct user_regs_struct *u, int restart,
	    uint64_t a[6]);
/* At a system-call entry stop: the call's number, its arguments. */
long	 tr_entry_call(const struct user_regs_struct *u, uint64_t a[6]);
/* Whether stopped thread tid is in a call the kernel will restart. */
int	 tr_restart_pending(pid_t tid, const struct user_regs_struct *u);

/*
 * The machine's software breakpoint: its bytes (len of them), where its
 * trap leaves the PC (pc_after bytes past it) and its SIGTRAP's si_code.
 */
struct tr_brk {
	uint8_t		 code[4];
	unsigned	 len, pc_after;
	int		 si_code;
};
extern const struct tr_brk tr_brk;

/*
 * The machine's instruction at ip (code, len bytes of it) decoded for
 * the single-step and page backends: 0, or -1 when it is not (then
 * tr_undecoded_quiet says whether it surely writes no memory).  arm64
 * decodes its system call and its stores whose bytes lib/a64-insn.c
 * places (str, stp, stlr, stxr, swp, cas, ldadd, st1, ...); every other
 * instruction is undecoded: quiet where it writes no memory, else
 * stepped and its effect compared.
 */
struct wp_x86_insn;
int	 tr_decode(const uint8_t *code, size_t len, uint64_t ip,
	    struct wp_x86_insn *in);
int	 tr_undecoded_quiet(const uint8_t *code, size_t len);

/*
 * The bytes [*lo, *hi) decoded store in writes, from the registers
 * before it ran: u (arm64's; NULL where they were not read) or r
 * (x86-64's, its have bits).  0, or -1 when it stores nothing or the
 * registers do not tell.
 */
struct wp_x86_regs;
int	 tr_store_range(const struct wp_x86_insn *in,
	    const struct user_regs_struct *u, const struct wp_x86_regs *r,
	    uint64_t *lo, uint64_t *hi);
/*
 * After stopped thread tid ran decoded store in: whether it stored (an
 * exclusive store, arm64's stxr, when its status register says so;
 * every other, 1).
 */
int	 tr_store_held(pid_t tid, const struct wp_x86_insn *in);

/*
 * Whether the instruction at ip (read through memfd) begins an
 * exclusive sequence that a single step would break (arm64: ldxr ..
 * stxr, whose monitor the step's trap clears, so that the stxr never
 * stores): 1, with the exclusive store's address *st and the addresses
 * the sequence leaves by (ends, *n of them: the one after the store,
 * and where a conditional branch in it goes outside it), to be run as
 * one; 0, none (always on x86-64, whose lock prefix has no such loop).
 */
#define TR_SEQ_ENDS	4
int	 tr_excl_seq(int memfd, uint64_t ip, uint64_t *st,
	    uint64_t ends[TR_SEQ_ENDS], int *n);

/*
 * Why the machine's instructions cannot be read as site mode (the
 * uprobe backend, the ptrace backend's sites) and a sample's writer
 * need them, their memory operands: NULL where they can (x86-64).
 */
extern const char *const tr_decode_missing;

/*
 * The thread pointer of stopped thread tid (x86-64 fs_base, arm64
 * tpidr_el0): 0, or -1.
 */
int	 tr_tls(pid_t tid, const struct user_regs_struct *u, uint64_t *tp);

/* Registers as ptrace gives them, in the records' table. */
void	 tr_regs(const struct user_regs_struct *u, struct wp_x86_regs *r);
/*
 * Thread tid's XSAVE area (PTRACE_GETREGSET NT_X86_XSTATE), *len bytes,
 * in a buffer the next call reuses; NULL when it cannot be read (and on
 * a machine that has none).
 */
const uint8_t *tr_xstate(pid_t tid, size_t *len);

/*
 * A signal frame as the kernel of the machine lays it out at the
 * handler's stack pointer, in 64-bit words: where its uc_stack's ss_sp
 * and ss_size and the interrupted stack pointer are; in bytes, the two
 * parts every frame writes, [0, core) and [gap, size), size the whole
 * frame's.
 */
struct tr_frame_shape {
	unsigned	 ss_sp, ss_size, sp;
	unsigned	 core, gap, size;
};
extern const struct tr_frame_shape tr_frame_shape;

/*
 * The registers of x86-64's string instructions in u: the rep count
 * (rcx), destination (rdi) and source (rsi) pointers, the direction
 * flag; arm64 has no such instruction: 0.  Whether a and b are the same
 * registers, the flags aside but the ALU's and DF (x86-64), all of
 * them (arm64).
 */
uint64_t tr_str_count(const struct user_regs_struct *u);
uint64_t tr_str_dst(const struct user_regs_struct *u);
uint64_t tr_str_src(const struct user_regs_struct *u);
int	 tr_str_down(const struct user_regs_struct *u);
int	 tr_same_regs(const struct user_regs_struct *a,
	    const struct user_regs_struct *b);

/*
 * The CPU's vector state as x86-64 has it: whether it has AVX-512 (the
 * page backend emulates its stores), its XSAVE area's bytes; 0 and 0 on
 * a machine without (arm64).
 */
void	 tr_cpu_vector(int *avx512, unsigned *xsave_bytes);

/*
 * x plus rounds * 64 additions of 1, each waiting for the one before
 * (one a cycle): what the clock rate is measured by.
 */
uint64_t tr_add_chain(uint64_t x, unsigned rounds);

/*
 * The machine's watchpoint (write breakpoint) slots: x86-64's 4 (DR0..
 * DR3); arm64's as ptrace reports them (NT_ARM_HW_WATCH of a child of
 * wp-arm's, read once), 0 when they cannot be told.  What the messages
 * say of them: "x86-64 has 4 (DR0..DR3)".
 */
int	 tr_watch_slots(void);
const char *tr_watch_slots_text(void);

#endif
