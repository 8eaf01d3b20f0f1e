/*
 * agent-facts: what this kernel does with a userfaultfd write-protected
 * page and with Syscall User Dispatch, the facts an in-target agent
 * design for issue 42 rests on (run by bench/fault-designs.sh beside its
 * figures).  Each line is "FACT yes|no|VALUE":
 *   sigbus_user_wp   with UFFD_FEATURE_SIGBUS, a user-mode write into
 *                    the protected page raises SIGBUS at the written
 *                    address (the thread's registers in the handler:
 *                    no uffd reader, no tracer, no ptrace stop)
 *   sigbus_procmem   and that handler can write the page through
 *                    /proc/self/mem (what the agent of fault-designs.c
 *                    does on an mprotect-ed page); "no": EIO
 *   sigbus_kernel    with UFFD_FEATURE_SIGBUS, a system call writing
 *                    into the page: its result (like mprotect: EFAULT)
 *   release_clears   the uffd's only holder, another process, is
 *                    SIGKILLed: the page is writable again, by the
 *                    kernel and by the process itself
 *   release_wakes    without UFFD_FEATURE_SIGBUS, a write waiting for
 *                    the reader lands when the reader's holder dies
 *   syscall_pc       /proc/PID/task/TID/syscall names the faulting
 *                    store's pc while the thread waits on a uffd fault
 *   sud_fork         Syscall User Dispatch (on, the selector blocking)
 *                    holds in a child made by fork
 *   sud_thread       and in a thread made by pthread_create
 *   sud_exec         and in the program a thread executes
 * (an agent that catches system calls with it must turn it on in every
 * new thread and process itself; what it leaves behind, exec clears)
 *   segv_blocked_kills  a thread with SIGSEGV blocked writes a read-only
 *                    page while a handler is installed: the kernel kills
 *                    the process (no tracer: no stop to resolve it in, so
 *                    an agent must keep SIGSEGV unblocked in every thread,
 *                    its own handler's SA_NODEFER included)
 */
/* x86-64: the store and the SUD stubs are its */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/userfaultfd.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long *page;

static __attribute__((noinline)) void
store(unsigned long v)
{
	__asm__ volatile(".globl facts_store\nfacts_store: movq %0, (%1)" : :
	    "c"(v), "D"(page) : "memory");
}
extern const char facts_store[];

static int
protect(int uffd, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { (uintptr_t)page, 4096 },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
}

static int
make(unsigned long long features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	struct uffdio_register reg = { .range = { (uintptr_t)page, 4096 },
	    .mode = UFFDIO_REGISTER_MODE_WP };
	int uffd;

	if ((uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC)) == -1 ||
	    ioctl(uffd, UFFDIO_API, &api) == -1 ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) == -1 || protect(uffd, 1) == -1)
		_exit(99);
	return uffd;
}

/* SIGBUS: 10 + (at the page) + 2 * (written through /proc/self/mem) */
static void
on_bus(int sig, siginfo_t *si, void *ctx)
{
	unsigned long v = 42;
	int fd, wrote;

	(void)sig;
	(void)ctx;
	fd = open("/proc/self/mem", O_RDWR);
	wrote = pwrite(fd, &v, sizeof v, (off_t)(uintptr_t)page) == sizeof v;
	_exit(10 + (si->si_addr == (void *)page) + 2 * wrote);
}

/* Runs fn in a child: its exit status, 128 + its signal, or -1. */
static int
child(void (*fn)(void))
{
	int status;
	pid_t pid;

	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		fn();
		_exit(98);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
user_write(void)
{
	struct sigaction sa = { .sa_sigaction = on_bus, .sa_flags = SA_SIGINFO };

	if (sigaction(SIGBUS, &sa, NULL) == -1)
		_exit(97);
	make(UFFD_FEATURE_SIGBUS);
	store(2);
	_exit(0);
}

/* 0: the read landed; else its errno */
static void
kernel_write(void)
{
	int p[2];

	make(UFFD_FEATURE_SIGBUS);
	if (pipe(p) == -1 || write(p[1], "abcdefgh", 8) != 8)
		_exit(97);
	_exit(read(p[0], (void *)page, 8) == 8 ? 0 : errno);
}

/*
 * A holder process takes the uffd (pidfd_getfd); this one closes its
 * own; wait says whether to write before the holder dies (and wait on
 * it) or after.  0: both writes landed.
 */
static void
held(int features, int wait)
{
	char c;
	int uffd, p[2], pidfd, got;
	pid_t h;

	uffd = make(features);
	if (pipe(p) == -1)
		_exit(97);
	if ((h = fork()) == 0) {
		pidfd = (int)syscall(SYS_pidfd_open, getppid(), 0);
		got = (int)syscall(SYS_pidfd_getfd, pidfd, uffd, 0);
		if (write(p[1], got == -1 ? "n" : "y", 1) != 1)
			_exit(1);
		if (wait)
			usleep(200000);
		else
			pause();
		kill(getpid(), SIGKILL);
	}
	if (read(p[0], &c, 1) != 1 || c != 'y')
		_exit(96);
	close(uffd);
	if (wait)
		store(8);	/* waits, unread, until the holder exits */
	else {
		kill(h, SIGKILL);
		waitpid(h, NULL, 0);
		if (write(p[1], "abcdefgh", 8) != 8 ||
		    read(p[0], (void *)page, 8) != 8)
			_exit(2);
		store(7);
	}
	_exit(page[0] == (wait ? 8UL : 7UL) ? 0 : 3);
}

static void
held_sigbus(void)
{
	held(UFFD_FEATURE_SIGBUS, 0);
}

static void
held_wait(void)
{
	held(0, 1);
}

/* syscall_pc: a reader thread of this process checks the writer's pc */
static int
syscall_pc(void)
{
	struct uffd_msg msg;
	char path[80], buf[256];
	unsigned long pc;
	long nr;
	int uffd = -1, fd, status, ok, tries;
	pid_t pid;

	if ((pid = fork()) == 0) {
		make(UFFD_FEATURE_THREAD_ID);
		store(5);
		_exit(page[0] == 5 ? 0 : 1);
	}
	/* the child's uffd, found among its fds */
	for (tries = 0; tries < 200 && uffd == -1; tries++) {
		int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		int i;

		for (i = 3; i < 16 && uffd == -1; i++) {
			char l[64];
			ssize_t n;

			snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, i);
			if ((n = readlink(path, l, sizeof l - 1)) > 0) {
				l[n] = '\0';
				if (strstr(l, "userfaultfd") != NULL)
					uffd = (int)syscall(SYS_pidfd_getfd,
					    pidfd, i, 0);
			}
		}
		close(pidfd);
		if (uffd == -1)
			usleep(5000);
	}
	if (uffd == -1 || read(uffd, &msg, sizeof msg) != sizeof msg)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/task/%u/syscall", (int)pid,
	    msg.arg.pagefault.feat.ptid);
	ok = (fd = open(path, O_RDONLY)) != -1 &&
	    read(fd, buf, sizeof buf - 1) > 0 &&
	    sscanf(buf, "%ld %*x %lx", &nr, &pc) == 2 && nr == -1 &&
	    pc == (uintptr_t)facts_store;
	protect(uffd, 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return ok;
}

/*
 * Syscall User Dispatch: system calls pass only from sud_begin to
 * sud_end (sud_call, six arguments, and the signal return); any other
 * raises SIGSYS, whose handler here exits 20.
 */
__asm__(".text\n"
    ".globl sud_begin, sud_call, sud_restorer, sud_end\n"
    "sud_begin:\n"
    "sud_call:\n\t"
    "movq %rdi, %rax\n\tmovq %rsi, %rdi\n\tmovq %rdx, %rsi\n\t"
    "movq %rcx, %rdx\n\tmovq %r8, %r10\n\tmovq %r9, %r8\n\t"
    "movq 8(%rsp), %r9\n\tsyscall\n\tret\n"
    "sud_restorer:\n\tmovq $15, %rax\n\tsyscall\n\tud2\n"
    "sud_end:\n");
extern const char sud_begin[], sud_end[], sud_restorer[];
long sud_call(long, long, long, long, long, long, long);

static volatile char selector;

static void
on_sys(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	sud_call(SYS_exit_group, 20, 0, 0, 0, 0, 0);
}

static void
sud_on(void)
{
	struct {
		void	(*handler)(int, siginfo_t *, void *);
		unsigned long flags;
		const void *restorer;
		uint64_t mask;
	} ka = { on_sys, SA_SIGINFO | 0x04000000 /* SA_RESTORER */,
	    sud_restorer, 0 };

	if (syscall(SYS_rt_sigaction, SIGSYS, &ka, NULL, 8) == -1 ||
	    prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
	    (unsigned long)(uintptr_t)sud_begin,
	    (unsigned long)(sud_end - sud_begin),
	    (unsigned long)(uintptr_t)&selector) == -1)
		_exit(97);
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
}

/* 20: the forked child's getppid raised SIGSYS; 0: it passed */
static void
sud_fork(void)
{
	int status;
	pid_t pid;

	sud_on();
	pid = (pid_t)sud_call(SYS_fork, 0, 0, 0, 0, 0, 0);
	if (pid == 0) {
		syscall(SYS_getppid);
		sud_call(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	}
	sud_call(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);
	sud_call(SYS_exit_group, WIFEXITED(status) ? WEXITSTATUS(status) : 96,
	    0, 0, 0, 0, 0);
}

static volatile int go;

static void *
sud_thread_main(void *v)
{
	(void)v;
	while (!go)
		;
	syscall(SYS_getppid);
	go = 2;
	return NULL;
}

/* 20: the new thread's getppid raised SIGSYS; 0: it passed */
static void
sud_thread(void)
{
	pthread_t t;

	/* pthread_create's own calls would trap: made before, joined after */
	sud_on();
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	if (pthread_create(&t, NULL, sud_thread_main, NULL) != 0)
		_exit(96);
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	go = 1;
	while (go != 2)
		;
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	pthread_join(t, NULL);
	_exit(0);
}

/* 0: the executed shell ran and exited; else the SIGSYS kept it from */
static void
sud_exec(void)
{
	static char *const argv[] = { "/bin/sh", "-c", "exit 0", NULL };
	extern char **environ;

	sud_on();
	sud_call(SYS_execve, (long)argv[0], (long)argv, (long)environ, 0, 0,
	    0);
	_exit(95);
}

static void
on_segv(int sig)
{
	(void)sig;
	_exit(30);
}

/* 30: the handler ran; else how the child ended (main: 139, killed) */
static void
segv_blocked(void)
{
	sigset_t set;

	signal(SIGSEGV, on_segv);
	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	if (mprotect((void *)page, 4096, PROT_READ) == -1 ||
	    sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		_exit(97);
	store(9);
	_exit(0);
}

/* 0 where this process may write-protect page with a uffd, else errno */
static int
uffd_probe(void)
{
	struct uffdio_api api = { .api = UFFD_API,
	    .features = UFFD_FEATURE_SIGBUS | UFFD_FEATURE_THREAD_ID };
	struct uffdio_register reg = { .range = { (uintptr_t)page, 4096 },
	    .mode = UFFDIO_REGISTER_MODE_WP };
	int uffd, e = 0;

	if ((uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC)) == -1)
		return errno;
	if (ioctl(uffd, UFFDIO_API, &api) == -1 ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) == -1)
		e = errno;
	close(uffd);
	return e;
}

int
main(void)
{
	static const char *const ufacts[] = { "sigbus_user_wp",
	    "sigbus_procmem", "sigbus_kernel", "release_clears",
	    "release_wakes", "syscall_pc" };
	size_t i;
	int s, pc, e;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		err(1, "mmap");
	page[0] = 1;
	if ((e = uffd_probe()) != 0)
		for (i = 0; i < sizeof ufacts / sizeof ufacts[0]; i++)
			printf("%s unknown (userfaultfd write-protect: %s)\n",
			    ufacts[i], strerror(e));
	else {
		s = child(user_write);
		printf("sigbus_user_wp %s\n", s == 11 || s == 13 ? "yes" : "no");
		printf("sigbus_procmem %s\n", s == 13 ? "yes" : "no");
		s = child(kernel_write);
		printf("sigbus_kernel %s\n", s == 0 ? "landed" :
		    s > 0 && s < 96 ? strerror(s) : "failed");
		printf("release_clears %s\n",
		    child(held_sigbus) == 0 ? "yes" : "no");
		printf("release_wakes %s\n", child(held_wait) == 0 ? "yes" : "no");
		pc = syscall_pc();
		printf("syscall_pc %s\n", pc == 1 ? "yes" : pc == 0 ? "no" :
		    "failed");
	}
	s = child(segv_blocked);
	printf("segv_blocked_kills %s\n", s == 128 + SIGSEGV ? "yes" :
	    s == 30 ? "no" : "failed");
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0,
	    0) == -1) {
		e = errno;
		printf("sud_fork unknown (Syscall User Dispatch: %s)\n"
		    "sud_thread unknown (the same)\nsud_exec unknown (the same)\n",
		    strerror(e));
		return 0;
	}
	s = child(sud_fork);
	printf("sud_fork %s\n", s == 20 ? "yes" : s == 0 ? "no" : "failed");
	s = child(sud_thread);
	printf("sud_thread %s\n", s == 20 ? "yes" : s == 0 ? "no" : "failed");
	s = child(sud_exec);
	printf("sud_exec %s\n", s == 20 || s == 159 ? "yes" : s == 0 ? "no" :
	    "failed");
	return 0;
}
