/*
 * ss-floor PID SECONDS ADDR: the floor for single-stepping on this
 * machine: seize PID and PTRACE_SINGLESTEP it for SECONDS, doing nothing
 * else.  Prints the steps, the nanoseconds they took (from the first
 * step to the last stop, as wp-arm times its steps), and how far the
 * 8-byte counter at ADDR moved while stepped.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t
ns_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)(t.tv_sec - t0->tv_sec) * 1000000000 +
	    (uint64_t)t.tv_nsec - (uint64_t)t0->tv_nsec;
}

int
main(int argc, char *argv[])
{
	struct timespec t0;
	unsigned long steps = 0, a = 0, b = 0, addr;
	uint64_t ns = 0, limit;
	char path[64];
	int pid, status, fd;

	if (argc != 4)
		return 64;
	pid = atoi(argv[1]);
	limit = (uint64_t)(atof(argv[2]) * 1e9);
	addr = strtoul(argv[3], NULL, 0);
	snprintf(path, sizeof path, "/proc/%d/mem", pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return 1;
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) == -1 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) == -1) {
		perror("ptrace");
		return 1;
	}
	waitpid(pid, &status, __WALL);
	if (pread(fd, &a, 8, (off_t)addr) != 8)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
		waitpid(pid, &status, __WALL);
		steps++;
		if ((steps & 255) == 0 && (ns = ns_since(&t0)) >= limit)
			break;
	}
	if (pread(fd, &b, 8, (off_t)addr) != 8)
		return 1;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	printf("%lu %llu %lu\n", steps, (unsigned long long)ns, b - a);
	return 0;
}
