/*
 * fault-designs MODE N GAP: what one watched write costs the writer
 * under each way of resolving a write fault on a protected page (issue
 * 42's candidate designs), on this machine.  A child writes a word of
 * its page N times (movq %rcx, (%rdi), 3 bytes), GAP iterations of
 * arithmetic before each write (0: the tight loop); it times each store
 * itself and writes the figures into memory shared with this process,
 * which prints "MODE ns_per_write W faults_per_write F total_ns T
 * median_ns M" (W a store's mean time, M its median; F counts what the
 * resolver saw: stops, signals or uffd messages; T the whole loop,
 * arithmetic included); it exits 77 where the kernel or its settings
 * lack what MODE needs (saying what), and 1 where the page's last value
 * or a count is wrong.  MODE:
 *   none      the page writable: the loop's own cost
 *   tracer    (a) today: the child traced, the tracer sleeping in
 *             waitpid; per fault PTRACE_GETSIGINFO, GETREGS, the 8
 *             bytes through /proc/PID/mem, SETREGS (rip past the store),
 *             PTRACE_CONT
 *   traced-agent  an agent's SIGSEGV handler in the child while it
 *             stays traced: each signal stops it first, the tracer
 *             passes the signal on (why an agent needs the thread
 *             detached)
 *   agent     (b) an agent's SIGSEGV handler, the child detached (it was
 *             traced and PTRACE_DETACHed before the loop): the handler
 *             finds the store's recipe (source register, width) by its
 *             IP, writes the bytes through /proc/self/mem, appends (ip,
 *             address, tid, value) to a ring shared with the tracer, and
 *             moves rip past the store
 *   agent+sud the same agent with Syscall User Dispatch on (as sys-sud
 *             below): its calls made from its own code, its SIGSEGV
 *             handler SA_NODEFER and returning through its restorer
 *   uffd-thread  (c) userfaultfd write-protect, a reader thread in the
 *             child: it reads the fault (address, tid) and lifts the
 *             protection, waking the writer.  It has no registers to
 *             emulate the store with, nor any way to know when the
 *             store has landed: here the writer protects the page again
 *             itself after each store.  A design needs one more event
 *             for that (a step, the writer held): this is a floor
 *   uffd-tracer  (c) the same, the reader another process holding the
 *             child's uffd (pidfd_getfd), which also reads the writer's
 *             pc from /proc/PID/task/TID/syscall (and checks it)
 *   spin      (d) tracer as today, but polling waitpid(WNOHANG) in a
 *             loop instead of sleeping
 * and a system call (getppid) in place of the store, for what a design
 * pays on the target's system calls (N calls):
 *   sys-none  bare
 *   sys-tracer   the page backend's way: PTRACE_SYSCALL, a stop at each
 *             call's entry and exit, the registers read at each
 *   sys-sud   an agent's: Syscall User Dispatch raises SIGSYS in the
 *             target, whose handler makes the call again from the
 *             agent's code (where calls pass), no tracer
 */
/* x86-64: the store, the agents' registers and the SUD stubs are its */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <linux/userfaultfd.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define UNSUPPORTED	77	/* this kernel or its settings lack the means */

struct shared {
	uint64_t	 ns;		/* the child's time in its stores */
	uint64_t	 total;		/* and in its whole loop */
	uint64_t	 median;	/* a store's median time */
	uint64_t	 faults;	/* what the in-child resolver saw */
	uint64_t	 last;		/* the page's word at the end */
	unsigned long	 pc;		/* the store's address */
	int		 uffd;		/* the child's uffd, for uffd-tracer */
	volatile int	 ready;
	uint64_t	 nring;
	struct hit {
		uint64_t ip, addr, tid, value;
	}		 ring[4096];
};

static struct shared *sh;
static int self_mem = -1;
static int agent_sud;		/* agent+sud: its calls made from sud_call */
long sud_call(long, long, long, long, long, long, long);
static volatile unsigned long *page;

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

static __attribute__((noinline)) void
store(volatile unsigned long *p, unsigned long v)
{
	__asm__ volatile(".globl store_insn\nstore_insn: movq %0, (%1)" : :
	    "c"(v), "D"(p) : "memory");
}
extern const char store_insn[];

static int uffd_protect(int, int);

static int
cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The writer: n stores (sys: getppid calls), gap iterations of
 * arithmetic before each; held, where not -1: a uffd with which it
 * protects the page again after each store (the uffd reader cannot: it
 * does not know when the store has landed, and until then the page is
 * open to every thread).
 */
static void
writer(unsigned long n, unsigned long gap, int held, int sys)
{
	static uint64_t lat[4096];
	volatile unsigned long x = 1;
	unsigned long i, j;
	uint64_t t, t0, sum = 0;

	t0 = now_ns();
	for (i = 1; i <= n; i++) {
		for (j = 0; j < gap; j++)
			x = x * 6364136223846793005UL + 1;
		t = now_ns();
		if (sys)
			sh->last = (uint64_t)syscall(SYS_getppid);
		else
			store(page, i);
		if (held != -1)
			uffd_protect(held, 1);
		lat[i - 1] = now_ns() - t;
		sum += lat[i - 1];
	}
	sh->total = now_ns() - t0;
	sh->ns = sum;
	qsort(lat, n, sizeof lat[0], cmp64);
	sh->median = lat[n / 2];
	if (!sys)
		sh->last = page[0];
}

/* The agent: a recipe per store IP (source register, width). */
static const struct recipe {
	const char	*ip;
	int		 reg;
	int		 len;
} recipes[] = { { store_insn, REG_RCX, 8 } };

static void
agent(int sig, siginfo_t *si, void *ctx)
{
	mcontext_t *m = &((ucontext_t *)ctx)->uc_mcontext;
	const struct recipe *r;
	struct hit *h;
	uint64_t k;

	(void)sig;
	for (r = recipes; r < recipes + 1; r++)
		if ((uintptr_t)r->ip == (uintptr_t)m->gregs[REG_RIP])
			break;
	if (r == recipes + 1 || (agent_sud ? sud_call(SYS_pwrite64, self_mem,
	    (long)&m->gregs[r->reg], r->len, (long)si->si_addr, 0, 0) :
	    pwrite(self_mem, &m->gregs[r->reg], r->len,
	    (off_t)(uintptr_t)si->si_addr)) != r->len)
		_exit(3);
	k = __atomic_fetch_add(&sh->nring, 1, __ATOMIC_RELAXED);
	h = &sh->ring[k % 4096];
	h->ip = (uint64_t)m->gregs[REG_RIP];
	h->addr = (uint64_t)(uintptr_t)si->si_addr;
	h->tid = (uint64_t)(agent_sud ? sud_call(SYS_gettid, 0, 0, 0, 0, 0,
	    0) : syscall(SYS_gettid));
	h->value = (uint64_t)m->gregs[r->reg];
	m->gregs[REG_RIP] += 3;
	sh->faults++;
}

static void
agent_install(void)
{
	struct sigaction sa = { .sa_sigaction = agent, .sa_flags = SA_SIGINFO };

	if ((self_mem = open("/proc/self/mem", O_RDWR)) == -1 ||
	    sigaction(SIGSEGV, &sa, NULL) == -1)
		_exit(2);
}

static int
uffd_protect(int uffd, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { (uintptr_t)page, 4096 },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
}

/* The child's uffd, the page registered and protected. */
static int
uffd_make(void)
{
	struct uffdio_api api = { .api = UFFD_API,
	    .features = UFFD_FEATURE_THREAD_ID };
	struct uffdio_register reg = { .range = { (uintptr_t)page, 4096 },
	    .mode = UFFDIO_REGISTER_MODE_WP };
	int uffd;

	if ((uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC)) == -1 ||
	    ioctl(uffd, UFFDIO_API, &api) == -1 ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) == -1 ||
	    uffd_protect(uffd, 1) == -1)
		return -1;
	return uffd;
}

/*
 * Resolves n uffd faults: lifts the protection, waking the writer.
 * pid: the writer's process, whose pc each fault is checked against
 * (what a resolver outside it would need), or 0.
 */
static uint64_t
uffd_serve(int uffd, unsigned long n, pid_t pid)
{
	struct uffd_msg msg;
	char path[64], buf[256];
	unsigned long pc;
	uint64_t faults = 0;
	long nr;
	int fd;

	for (;;) {
		if (read(uffd, &msg, sizeof msg) != sizeof msg) {
			if (errno == EINTR)
				continue;
			err(1, "read uffd");
		}
		if (msg.event != UFFD_EVENT_PAGEFAULT ||
		    !(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP))
			errx(1, "uffd: event %d, flags %#llx", msg.event,
			    (unsigned long long)msg.arg.pagefault.flags);
		faults++;
		if (pid > 0) {
			snprintf(path, sizeof path, "/proc/%d/task/%u/syscall",
			    (int)pid, msg.arg.pagefault.feat.ptid);
			if ((fd = open(path, O_RDONLY)) == -1 ||
			    read(fd, buf, sizeof buf - 1) <= 0 ||
			    sscanf(buf, "%ld %*x %lx", &nr, &pc) != 2 ||
			    pc != sh->pc)
				errx(1, "%s: not the store's pc", path);
			close(fd);
		}
		if (uffd_protect(uffd, 0) == -1)
			err(1, "UFFDIO_WRITEPROTECT off");
		if (faults == n)
			return faults;
	}
}

struct serve_arg {
	int uffd;
	unsigned long n;
};

static void *
serve_thread(void *v)
{
	struct serve_arg *a = v;

	sh->faults = uffd_serve(a->uffd, a->n, 0);
	return NULL;
}

/*
 * The tracer's loop until the child ends (its wait status in *end):
 * resolves each SIGSEGV (or, pass, hands it on); sys: resumes with
 * PTRACE_SYSCALL and reads the registers at each system call stop, as
 * a tracer checking calls' arguments must.  Returns the stops it
 * counted: SIGSEGVs, or system call stops.
 */
static uint64_t
trace(pid_t pid, int pass, int spin, int sys, int *end)
{
	struct user_regs_struct u;
	uint64_t stops = 0;
	siginfo_t si;
	char path[64];
	int status, fd, sig, req = sys ? PTRACE_SYSCALL : PTRACE_CONT;
	pid_t w;

	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	if ((fd = open(path, O_RDWR)) == -1 ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD) == -1)
		err(1, "%s", path);
	ptrace(req, pid, 0, 0);
	for (;;) {
		while ((w = waitpid(pid, &status, spin ? WNOHANG : 0)) == 0)
			;
		if (w != pid || !WIFSTOPPED(status))
			break;
		sig = WSTOPSIG(status);
		if (sig == (SIGTRAP | 0x80)) {
			stops++;
			ptrace(PTRACE_GETREGS, pid, 0, &u);
			sig = 0;
		} else if (sig == SIGSEGV && !sys) {
			stops++;
			if (!pass) {
				ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
				ptrace(PTRACE_GETREGS, pid, 0, &u);
				if (pwrite(fd, &u.rcx, 8,
				    (off_t)(uintptr_t)si.si_addr) != 8)
					exit(1);
				u.rip += 3;
				ptrace(PTRACE_SETREGS, pid, 0, &u);
				sig = 0;
			}
		}
		ptrace(req, pid, 0, sig);
	}
	close(fd);
	*end = status;
	return stops;
}

/*
 * Syscall User Dispatch: the agent's code, where system calls always
 * pass (sud_begin to sud_end): a call with six arguments and the
 * signal return.  Every other system call raises SIGSYS, which the
 * agent makes from here.
 */
__asm__(".text\n"
    ".globl sud_begin, sud_call, sud_restorer, sud_end\n"
    "sud_begin:\n"
    "sud_call:\n\t"
    "movq %rdi, %rax\n\tmovq %rsi, %rdi\n\tmovq %rdx, %rsi\n\t"
    "movq %rcx, %rdx\n\tmovq %r8, %r10\n\tmovq %r9, %r8\n\t"
    "movq 8(%rsp), %r9\n\tsyscall\n\tret\n"
    "sud_restorer:\n\tmovq $15, %rax\n\tsyscall\n"
    "\tud2\n"	/* the kernel checks the address after the syscall */
    "sud_end:\n");
extern const char sud_begin[], sud_end[], sud_restorer[];

static volatile char sud_selector;
static uint64_t sud_calls;

static void
sud_agent(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;

	(void)sig;
	sud_calls++;
	g[REG_RAX] = sud_call(si->si_syscall, g[REG_RDI], g[REG_RSI],
	    g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9]);
}

/*
 * The agent's SIGSYS handler (its restorer in the passing range), and
 * for agent+sud its SIGSEGV handler the same way, with SA_NODEFER (a
 * fault inside a handler must not find SIGSEGV blocked); then SUD on.
 */
static void
sud_install(void)
{
	struct {
		void	(*handler)(int, siginfo_t *, void *);
		unsigned long flags;
		const void *restorer;
		uint64_t mask;
	} ka = { sud_agent, SA_SIGINFO | 0x04000000 /* SA_RESTORER */,
	    sud_restorer, 0 };

	if (syscall(SYS_rt_sigaction, SIGSYS, &ka, NULL, 8) == -1)
		err(1, "rt_sigaction");
	if (agent_sud) {
		ka.handler = agent;
		ka.flags |= SA_NODEFER;
		if (syscall(SYS_rt_sigaction, SIGSEGV, &ka, NULL, 8) == -1)
			err(1, "rt_sigaction");
	}
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
	    (unsigned long)(uintptr_t)sud_begin,
	    (unsigned long)(sud_end - sud_begin),
	    (unsigned long)(uintptr_t)&sud_selector) == -1)
		err(UNSUPPORTED, "Syscall User Dispatch");
	sud_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
}

enum mode {
	NONE, TRACER, TRACED_AGENT, AGENT, AGENT_SUD, UFFD_THREAD, UFFD_TRACER,
	SPIN, SYS_NONE, SYS_TRACER, SYS_SUD, NMODES
};
static const char *const modes[NMODES] = { "none", "tracer", "traced-agent",
    "agent", "agent+sud", "uffd-thread", "uffd-tracer", "spin", "sys-none", "sys-tracer",
    "sys-sud" };

int
main(int argc, char *argv[])
{
	unsigned long n, gap;
	uint64_t faults = 0;
	int mode, status, pidfd, uffd, traced, protect, sys;
	pid_t pid;

	if (argc != 4 || (n = strtoul(argv[2], NULL, 10)) == 0 || n > 4095)
		errx(64, "usage: fault-designs MODE N(1-4095) GAP");
	gap = strtoul(argv[3], NULL, 10);
	for (mode = 0; mode < NMODES; mode++)
		if (strcmp(argv[1], modes[mode]) == 0)
			break;
	if (mode == NMODES)
		errx(64, "%s: no such mode", argv[1]);
	traced = mode == TRACER || mode == TRACED_AGENT || mode == AGENT ||
	    mode == AGENT_SUD || mode == SPIN || mode == SYS_TRACER;
	protect = mode == TRACER || mode == TRACED_AGENT || mode == AGENT ||
	    mode == AGENT_SUD || mode == SPIN;
	sys = mode >= SYS_NONE;
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || page == MAP_FAILED)
		err(1, "mmap");
	page[0] = 0;
	sh->pc = (unsigned long)(uintptr_t)store_insn;
	sh->uffd = -1;
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		pthread_t t;
		struct serve_arg a = { -1, n };

		if (mode == TRACED_AGENT || mode == AGENT || mode == AGENT_SUD)
			agent_install();
		if (protect && mprotect((void *)page, 4096, PROT_READ) == -1)
			_exit(2);
		if (traced) {
			ptrace(PTRACE_TRACEME, 0, 0, 0);
			raise(SIGSTOP);
		}
		if (mode == UFFD_THREAD || mode == UFFD_TRACER) {
			if ((a.uffd = uffd_make()) == -1)
				err(UNSUPPORTED, "userfaultfd write-protect");
			sh->uffd = a.uffd;
		}
		if (mode == UFFD_THREAD &&
		    pthread_create(&t, NULL, serve_thread, &a))
			_exit(5);
		sh->ready = 1;
		while (mode == UFFD_TRACER && sh->ready != 2)
			;
		if (mode == SYS_SUD || mode == AGENT_SUD) {
			agent_sud = mode == AGENT_SUD;
			sud_install();
		}
		writer(n, gap, a.uffd, sys);
		if (mode == SYS_SUD || mode == AGENT_SUD)
			sud_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		if (mode == SYS_SUD)
			sh->faults = sud_calls;
		if (mode == UFFD_THREAD)
			pthread_join(t, NULL);
		_exit(0);
	}
	if (traced) {
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			errx(1, "the child did not stop");
		if (mode == AGENT || mode == AGENT_SUD) {
			if (ptrace(PTRACE_DETACH, pid, 0, 0) == -1)
				err(1, "PTRACE_DETACH");
			traced = 0;
		} else
			faults = trace(pid, mode == TRACED_AGENT, mode == SPIN,
			    sys, &status);
	}
	if (mode == UFFD_TRACER) {
		while (!sh->ready)
			if (waitpid(pid, &status, WNOHANG) == pid)
				return WIFEXITED(status) &&
				    WEXITSTATUS(status) == UNSUPPORTED ?
				    UNSUPPORTED : 1;
		if ((pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1 ||
		    (uffd = (int)syscall(SYS_pidfd_getfd, pidfd, sh->uffd,
		    0)) == -1) {
			warn("pidfd_getfd");
			kill(pid, SIGKILL);
			return UNSUPPORTED;
		}
		sh->ready = 2;
		faults = uffd_serve(uffd, n, pid);
	}
	if ((!traced && waitpid(pid, &status, 0) != pid) ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == UNSUPPORTED)
			return UNSUPPORTED;
		errx(1, "%s: the child failed (status %#x)", argv[1], status);
	}
	if (mode == TRACED_AGENT || mode == AGENT || mode == AGENT_SUD ||
	    mode == UFFD_THREAD || mode == SYS_SUD)
		faults = sh->faults;
	if ((!sys && sh->last != n) || (mode != NONE && mode != SYS_NONE &&
	    faults < n) || ((mode == TRACED_AGENT || mode == AGENT ||
	    mode == AGENT_SUD) && sh->nring != n) || (sys && sh->last != (unsigned long)getpid()))
		errx(1, "%s: last %lu of %lu, %lu faults", argv[1],
		    (unsigned long)sh->last, n, (unsigned long)faults);
	printf("%s ns_per_write %.0f faults_per_write %.2f total_ns %llu "
	    "median_ns %llu\n", argv[1], (double)sh->ns / (double)n,
	    (double)faults / (double)n, (unsigned long long)sh->total,
	    (unsigned long long)sh->median);
	return 0;
}
