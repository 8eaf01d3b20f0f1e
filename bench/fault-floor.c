/*
 * fault-floor N: the floor of a tracer that resolves write faults, on
 * this machine.  A child writes a page it made read-only N times in a
 * tight loop (movq %rcx, (%rdi); inc; cmp; jb); the parent, its tracer,
 * does per fault only what any tracer resolving the fault must (the
 * system calls wp-arm's page backend makes for an emulated store):
 * waitpid, PTRACE_GETSIGINFO, PTRACE_GETREGS, the store's 8 bytes
 * written through /proc/PID/mem, PTRACE_SETREGS (rip moved past the
 * store), PTRACE_SYSCALL.  Then the same loop on a writable page,
 * single-stepped by a bare PTRACE_SINGLESTEP loop.  Prints
 * "fault_ns F" (per fault), "step_ns S" (per step), "steps_per_write
 * K", and "bound B": K * S / F, the most single-step/page can be on
 * this loop while a tracer stops for each fault.  Then the same loop
 * untraced, its faults resolved in the child itself by a SIGSEGV
 * handler that writes the store's 8 bytes through /proc/self/mem and
 * moves rip past it: "inproc_ns I" (per fault) and "bound_inproc
 * K * S / I", what a design with no tracer stop per fault could reach.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <ucontext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

/* movq %rcx, (%rdi) is 3 bytes: 48 89 0f */
#define STORE_LOOP(i, page, n) \
	__asm__ volatile("1: movq %%rcx, (%1)\n\tincq %%rcx\n\t" \
	    "cmpq %2, %%rcx\n\tjb 1b" : "+c"(i) : "D"(page), "r"(n) : \
	    "memory", "cc")

/* The child: n stores into page (read-only: prot), traced. */
static void
child(unsigned long n, int prot)
{
	unsigned long *page, i = 0;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || mprotect(page, 4096, prot) == -1)
		_exit(1);
	ptrace(PTRACE_TRACEME, 0, 0, 0);
	raise(SIGSTOP);
	STORE_LOOP(i, page, n);
	_exit(0);
}

static int self_mem = -1;
static unsigned long inproc_faults;

static void
on_segv(int sig, siginfo_t *si, void *ctx)
{
	mcontext_t *m = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig;
	if (pwrite(self_mem, &m->gregs[REG_RCX], 8,
	    (off_t)(uintptr_t)si->si_addr) != 8)
		_exit(1);
	m->gregs[REG_RIP] += 3;
	inproc_faults++;
}

/* The loop on a read-only page, its faults resolved by on_segv. */
static unsigned long
inproc(unsigned long n, uint64_t *ns)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
	    .sa_flags = SA_SIGINFO };
	unsigned long *page, i = 0;
	uint64_t t0;

	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (page == MAP_FAILED ||
	    (self_mem = open("/proc/self/mem", O_RDWR)) == -1 ||
	    sigaction(SIGSEGV, &sa, NULL) == -1)
		exit(1);
	t0 = now_ns();
	STORE_LOOP(i, page, n);
	*ns = now_ns() - t0;
	signal(SIGSEGV, SIG_DFL);
	return page[0] == n - 1 ? inproc_faults : 0;
}

/* Runs the child to its end, resolving faults (step 0) or stepping. */
static unsigned long
trace(pid_t pid, int step, uint64_t *ns)
{
	struct user_regs_struct u;
	unsigned long stops = 0;
	siginfo_t si;
	char path[64];
	uint64_t t0;
	int status, fd;

	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	if (waitpid(pid, &status, 0) != pid || (fd = open(path, O_RDWR)) == -1)
		exit(1);
	ptrace(step ? PTRACE_SINGLESTEP : PTRACE_SYSCALL, pid, 0, 0);
	t0 = now_ns();
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		stops++;
		if (!step && WSTOPSIG(status) == SIGSEGV) {
			ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
			ptrace(PTRACE_GETREGS, pid, 0, &u);
			if (pwrite(fd, &u.rcx, 8, (off_t)(uintptr_t)si.si_addr) != 8)
				exit(1);
			u.rip += 3;
			ptrace(PTRACE_SETREGS, pid, 0, &u);
		}
		ptrace(step ? PTRACE_SINGLESTEP : PTRACE_SYSCALL, pid, 0, 0);
	}
	*ns = now_ns() - t0;
	close(fd);
	return stops;
}

static unsigned long
run(unsigned long n, int step, uint64_t *ns)
{
	pid_t pid;

	if ((pid = fork()) == 0)
		child(n, step ? PROT_READ | PROT_WRITE : PROT_READ);
	return trace(pid, step, ns);
}

int
main(int argc, char *argv[])
{
	unsigned long n, faults, steps, ifaults;
	uint64_t fns, sns, ins;
	double k;

	if (argc != 2 || (n = strtoul(argv[1], NULL, 10)) == 0)
		return 64;
	faults = run(n, 0, &fns);
	steps = run(n, 1, &sns);
	ifaults = inproc(n, &ins);
	if (faults == 0 || steps == 0 || ifaults != n)
		return 1;
	k = (double)steps / (double)n;
	printf("fault_ns %.0f\nstep_ns %.0f\nsteps_per_write %.2f\n"
	    "bound %.1f\n", (double)fns / (double)faults,
	    (double)sns / (double)steps, k,
	    k * ((double)sns / (double)steps) /
	    ((double)fns / (double)faults));
	printf("inproc_ns %.0f\nbound_inproc %.1f\n", (double)ins / (double)n,
	    k * ((double)sns / (double)steps) / ((double)ins / (double)n));
	return 0;
}
