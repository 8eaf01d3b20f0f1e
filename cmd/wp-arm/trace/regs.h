/*
 * regs: what wp-arm's ptrace engine needs of the machine's registers,
 * behind one interface: regs-x86.c (x86-64) and regs-arm64.c (AArch64),
 * of which the build compiles the one of the machine.  A thread's
 * registers are the C library's struct user_regs_struct of that machine
 * (x86-64: PTRACE_GETREGS' layout; arm64: NT_PRSTATUS', struct
 * user_pt_regs).  Nothing outside regs-*.c names a register of one
 * machine.
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
/* The first return register: a system call's result. */
uint64_t tr_ret(const struct user_regs_struct *u);

/* Whether code (tr_sc_len bytes) is the system call instruction. */
int	 tr_is_sc(const uint8_t *code);

/*
 * Sets u (stopped thread tid's, not at a system call entry) to run
 * system call nr(a[0]..a[n - 1]) from the instruction at pc, and writes
 * them, with the call the thread was in (if any) marked not to be
 * restarted.  0, or -1.
 */
int	 tr_set_call(pid_t tid, struct user_regs_struct *u, uint64_t pc,
	    long nr, const uint64_t *a, int n);
/*
 * At a system-call entry stop of tid, whose registers there are entry:
 * the call made nr instead (0, or -1); tr_rewind_call after its exit
 * sets the registers so that the original call runs again.
 */
int	 tr_set_entry_call(pid_t tid, const struct user_regs_struct *entry,
	    long nr);
int	 tr_rewind_call(pid_t tid, const struct user_regs_struct *entry);

/*
 * The thread pointer of stopped thread tid (x86-64 fs_base, arm64
 * tpidr_el0): 0, or -1.
 */
int	 tr_tls(pid_t tid, const struct user_regs_struct *u, uint64_t *tp);

/* Registers as ptrace gives them, in the records' table. */
struct wp_x86_regs;
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
 * Debug registers of the machine, as ptrace reports them: the number
 * of watchpoint (write breakpoint) slots; 0 when it cannot be told.
 * x86-64: 4 (DR0-DR3).
 */
int	 tr_watch_slots(pid_t tid);

#endif
