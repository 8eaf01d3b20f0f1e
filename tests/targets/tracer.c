/*
 * tracer PID: another debugger: traces every thread of PID with
 * PTRACE_SEIZE, passes every signal on, prints "tracing", and stays
 * until killed.
 */
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	pid_t pid, tid;
	int st;

	if (argc != 2)
		return 64;
	pid = (pid_t)atoi(argv[1]);
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return 1;
	while ((d = readdir(dir)) != NULL)
		if ((tid = (pid_t)atoi(d->d_name)) > 0 &&
		    ptrace(PTRACE_SEIZE, tid, 0,
		    (void *)(long)PTRACE_O_TRACECLONE) == -1) {
			perror("tracer: PTRACE_SEIZE");
			return 1;
		}
	closedir(dir);
	printf("tracing\n");
	fflush(stdout);
	while ((tid = waitpid(-1, &st, __WALL)) > 0)
		if (WIFSTOPPED(st))
			ptrace(PTRACE_CONT, tid, 0, (st >> 16) == 0 ?
			    (void *)(long)WSTOPSIG(st) : 0);
	return 0;
}
