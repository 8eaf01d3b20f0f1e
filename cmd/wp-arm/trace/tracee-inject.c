/*
 * The ptrace engine's memory of the process, and system calls run in a
 * stopped thread of it.
 *
 * A system call is injected without writing code: the thread's IP is
 * set to a system call instruction that is already there (the vDSO has
 * some, libc's text more), the call's registers are set with the call
 * the thread was in marked none (so that the kernel's restart of an
 * interrupted call leaves them alone: regs.h), the thread steps that one
 * instruction with every signal blocked but SIGTRAP (the step's trap,
 * raised while it is blocked, would set the target's handler of it back
 * to SIG_DFL), and all its registers and its signal mask are put back;
 * at a signal-delivery-stop, the signal's siginfo too (the step's trap
 * replaced it: a fault's address, a sender's pid and value).
 *
 * The kernel forces a step's trap and a fault's SIGSEGV on the thread:
 * one forced while it is blocked (or ignored) sets the process's
 * action for it back to SIG_DFL and unblocks it in the thread, before
 * the tracer sees the stop.  Steps of the target's own instructions are
 * made with the two unblocked (tr_unblock_forced), and an action reset
 * by a fault the tracer caused is put back (tr_sigaction).
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "tracee.h"
#include "util.h"

/*
 * A system call instruction (regs.h) in the vDSO, else in an executable
 * mapping, or 0;
 * -1 (errno) when the mappings cannot be read.
 */
static uint64_t
find_gadget(pid_t pid, int memfd)
{
	struct wp_maps m;
	unsigned char *buf;
	uint64_t found = 0, len;
	size_t i, k, pass;

	errno = 0;
	if (wp_proc_maps(pid, &m) == -1)
		return (uint64_t)-1;
	for (pass = 0; pass < 2 && found == 0; pass++)
		for (i = 0; i < m.n && found == 0; i++) {
			if (m.v[i].perms[2] != 'x' || (pass == 0 &&
			    (m.v[i].path == NULL ||
			    strcmp(m.v[i].path, "[vdso]") != 0)))
				continue;
			len = m.v[i].end - m.v[i].start;
			if (len > (1 << 24))
				len = 1 << 24;
			buf = wp_xmalloc(len);
			if (pread(memfd, buf, len, (off_t)m.v[i].start) ==
			    (ssize_t)len)
				for (k = 0; k + tr_sc_len <= len && found == 0;
				    k += tr_insn_align)
					if (tr_is_sc(buf + k))
						found = m.v[i].start + k;
			free(buf);
		}
	wp_proc_maps_free(&m);
	return found;
}

int
tr_open(struct tracee *tr, pid_t pid, int inject, struct wp_error *e)
{
	char path[64];

	tr_init(tr, pid);
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	if ((tr->memfd = open(path, O_RDWR | O_CLOEXEC)) == -1)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: %s: %s",
		    (int)pid, path, strerror(errno));
	if (inject && ((tr->gadget = find_gadget(pid, tr->memfd)) == 0 ||
	    tr->gadget == (uint64_t)-1)) {
		close(tr->memfd);
		tr->memfd = -1;
		if (tr->gadget != 0)
			return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: cannot "
			    "read /proc/%d/maps: %s", (int)pid, (int)pid,
			    errno ? strerror(errno) : "read error");
		return wp_error_set(e, WP_EXIT_ERROR, "pid %d: no syscall "
		    "instruction in its executable mappings to run mprotect "
		    "from", (int)pid);
	}
	return 0;
}

/*
 * A stepped syscall can leave a second SIGTRAP queued behind the stop
 * of its step: taken here (it stops the thread before it runs on).
 */
static void
drain_traps(struct tr_thread *t)
{
	int k;

	for (k = 0; k < 4 && tr_trap_pending(t->tid); k++)
		if (ptrace(PTRACE_CONT, t->tid, 0, 0) == -1 ||
		    tr_take(t) == -1) {
			t->state = TR_GONE;
			return;
		}
}

/* Sets t's signal mask; 0, or -1. */
static int
set_mask(struct tr_thread *t, const uint64_t *mask)
{
	return (int)ptrace(PTRACE_SETSIGMASK, t->tid, sizeof *mask,
	    (void *)mask);
}

int
tr_set_mask(struct tr_thread *t, uint64_t mask)
{
	return set_mask(t, &mask);
}

int
tr_unblock_forced(struct tr_thread *t, uint64_t *mask)
{
	uint64_t m;

	if (ptrace(PTRACE_GETSIGMASK, t->tid, sizeof *mask, mask) == -1 ||
	    (*mask & TR_FORCED) == 0)
		return 0;
	m = *mask & ~TR_FORCED;
	return set_mask(t, &m) == 0;
}

/* nr(a[0]..a[n - 1]) run in t (n: 3, 4 or 6): see tr_inject. */
static long
inject(struct tracee *tr, struct tr_thread *t, long nr, const uint64_t *a,
    int n)
{
	struct user_regs_struct saved, r;
	struct tr_thread keep = *t;
	siginfo_t si;
	uint64_t mask, all = ~(1ULL << (SIGTRAP - 1));
	long rv = -ENOSYS, call;
	int k, rc, sigstop = 0, sigtrap = 0, has_si;

	if (tr->gadget == 0 || t->state != TR_STOPPED ||
	    t->stop == TR_SC_ENTRY ||
	    tr_getregs(t->tid, &saved) == -1 ||
	    tr_save_call(t->tid, &call) == -1 ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, sizeof mask, &mask) == -1)
		return -ENOSYS;
	has_si = t->stop == TR_SIGNAL &&
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0;
	r = saved;
	if (set_mask(t, &all) == -1 ||
	    tr_set_call(t->tid, &r, tr->gadget, nr, a, n) == -1)
		return -ENOSYS;
	/* a group-stop or an interrupt may come first: step again; a
	   SIGSTOP (not blocked by any mask) or the target's own SIGTRAP
	   (a trap before the syscall ran) is sent again afterwards */
	for (k = 0; k < 4; k++) {
		if ((rc = tr_step(tr, t, 0)) == 0 &&
		    tr_getregs(t->tid, &r) == 0 &&
		    tr_pc(&r) == tr->gadget) {
			sigtrap = 1;
			continue;
		}
		if (rc != 1)
			break;
		if (t->stop == TR_SIGNAL && t->sig == SIGSTOP)
			sigstop = 1;
		else if (t->stop == TR_SIGNAL)
			break;
	}
	if (t->state != TR_GONE && tr_getregs(t->tid, &r) == 0 &&
	    tr_pc(&r) == tr->gadget + tr_sc_len)
		rv = (long)tr_ret(&r);
	if (t->state != TR_GONE)
		drain_traps(t);
	if (t->state != TR_GONE) {
		tr_setregs(t->tid, &saved);
		tr_restore_call(t->tid, call);
		set_mask(t, &mask);
		/* the trap's stop is a signal-delivery-stop: it takes the
		   signal's siginfo back, for page_fault_ours and delivery */
		if (has_si)
			ptrace(PTRACE_SETSIGINFO, t->tid, 0, &si);
		/* what the caller knows of the stop stays true: resuming
		   from the step's trap does what resuming from it did */
		t->stop = keep.stop;
		t->sig = keep.sig;
		t->event = keep.event;
		t->status = keep.status;
		if (sigstop)
			syscall(SYS_tgkill, t->tgid, t->tid, SIGSTOP);
		if (sigtrap)
			syscall(SYS_tgkill, t->tgid, t->tid, SIGTRAP);
	}
	return rv;
}

long
tr_inject(struct tracee *tr, struct tr_thread *t, long nr, uint64_t a0,
    uint64_t a1, uint64_t a2)
{
	const uint64_t a[3] = { a0, a1, a2 };

	return inject(tr, t, nr, a, 3);
}

long
tr_inject4(struct tracee *tr, struct tr_thread *t, long nr,
    const uint64_t a[4])
{
	return inject(tr, t, nr, a, 4);
}

long
tr_inject6(struct tracee *tr, struct tr_thread *t, long nr,
    const uint64_t a[6])
{
	return inject(tr, t, nr, a, 6);
}

long
tr_sigaction(struct tracee *tr, struct tr_thread *t, int sig,
    const struct tr_sigaction *act, struct tr_sigaction *old)
{
	struct user_regs_struct r;
	unsigned char keep[2 * sizeof *act];
	uint64_t at, a[4];
	long rv;

	if (t->state != TR_STOPPED ||
	    tr_getregs(t->tid, &r) == -1)
		return -ENOSYS;
	/* below the red zone: nothing of the thread's is there */
	at = (tr_sp(&r) - tr_red_zone - sizeof keep) & ~(uint64_t)15;
	if (pread(tr->memfd, keep, sizeof keep, (off_t)at) != sizeof keep ||
	    (act != NULL && pwrite(tr->memfd, act, sizeof *act, (off_t)at) !=
	    sizeof *act))
		return -EFAULT;
	a[0] = (uint64_t)sig;
	a[1] = act != NULL ? at : 0;
	a[2] = old != NULL ? at + sizeof *act : 0;
	a[3] = sizeof act->mask;
	rv = inject(tr, t, SYS_rt_sigaction, a, 4);
	if (rv == 0 && old != NULL && pread(tr->memfd, old, sizeof *old,
	    (off_t)(at + sizeof *act)) != sizeof *old)
		rv = -EFAULT;
	if (pwrite(tr->memfd, keep, sizeof keep, (off_t)at) != sizeof keep)
		rv = -EFAULT;
	return rv;
}

int
tr_leave_entry(struct tracee *tr, struct tr_thread *t)
{
	(void)tr;
	if (t->stop != TR_SC_ENTRY || tr_getregs(t->tid, &t->entry_regs) == -1)
		return -1;
	if (tr_set_entry_call(t->tid, &t->entry_regs, SYS_getpid) == -1 ||
	    ptrace(PTRACE_SYSCALL, t->tid, 0, 0) == -1 || tr_take(t) == -1)
		return -1;
	if (tr_rewind_call(t->tid, &t->entry_regs) == -1)
		return -1;
	t->rewind = 1;
	return 0;
}
