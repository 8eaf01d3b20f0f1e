/*
 * ss-floor PID SECONDS ADDR: the floor for single-stepping on this
 * machine: seize PID and PTRACE_SINGLESTEP it for SECONDS, doing nothing
 * else.  Prints the steps, and how far the 8-byte counter at ADDR moved
 * while stepped.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main(int argc, char *argv[])
{
	struct timespec t0, t;
	unsigned long steps = 0, a = 0, b = 0, addr;
	char path[64];
	int pid, status, fd;
	double secs;

	if (argc != 4)
		return 64;
	pid = atoi(argv[1]);
	secs = atof(argv[2]);
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
		if ((steps & 255) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 >=
			    secs)
				break;
		}
	}
	if (pread(fd, &b, 8, (off_t)addr) != 8)
		return 1;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	printf("%lu %lu\n", steps, b - a);
	return 0;
}
