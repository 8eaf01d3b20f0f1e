/*
 * page-game [-m game|tight|neighbour] [-f frames] [-c work] [-n writes]
 *           [-w]
 *
 * A target for bench/page-speed.sh.  wpt_score (a long) and
 * wpt_neighbour share a page-aligned page; nothing else is on it.
 * Prints one JSON line (pid, the addresses), waits for SIGUSR1, then:
 *   game       frames times (default 1000): work iterations of
 *              arithmetic (default 900000, about a millisecond), then
 *              one write of wpt_score (write_score)
 *   tight      n writes of wpt_score in a tight loop (default 1000000)
 *   neighbour  n writes of wpt_neighbour in a tight loop
 *              (write_neighbour), and one write of wpt_score every 1000
 *   hop        as game, each frame on the next of the CPUs it was given
 *              (sched_setaffinity): a writer the scheduler moves each
 *              time; its CPUs are given back as they were at the end
 * Prints "score writes N", "neighbour writes N", "sum HEX" (the same in
 * every run with the same options, watched or not), and "run_ns N": the
 * time of that phase, measured by the target itself, and "switches N",
 * its context switches meanwhile (a stop for a tracer is one).  Then
 * "done"; with -w it waits for another SIGUSR1 before exiting 0.
 */
#define _GNU_SOURCE
#include <sys/resource.h>

#include <sched.h>

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "wpt.h"

static struct {
	volatile long	 score;
	char		 gap[2048];
	volatile long	 neighbour;
} page __attribute__((aligned(4096)));

__asm__(".globl wpt_score\n\t.type wpt_score, @object\n\t"
    ".set wpt_score, page\n\t.size wpt_score, 8\n\t"
    ".globl wpt_neighbour\n\t.type wpt_neighbour, @object\n\t"
    ".set wpt_neighbour, page + 2056\n\t.size wpt_neighbour, 8");

__attribute__((noinline)) static void
write_score(long v)
{
	page.score = v;
}

__attribute__((noinline)) static void
write_neighbour(long v)
{
	page.neighbour = v;
}

/* The context switches of the process so far (its threads', one). */
static long
switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int
main(int argc, char *argv[])
{
	const char *mode = "game";
	long frames = 1000, work = 900000, n = 1000000, i, k;
	long nscore = 0, nneighbour = 0, sw0;
	cpu_set_t own, one;
	int cpus[CPU_SETSIZE], ncpu;
	uint64_t x = 1, t0, t1;
	int ch, waitend = 0;

	while ((ch = getopt(argc, argv, "m:f:c:n:w")) != -1) {
		switch (ch) {
		case 'm': mode = optarg; break;
		case 'f': frames = atol(optarg); break;
		case 'c': work = atol(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'w': waitend = 1; break;
		default: return 64;
		}
	}
	if (strcmp(mode, "game") != 0 && strcmp(mode, "tight") != 0 &&
	    strcmp(mode, "neighbour") != 0 && strcmp(mode, "hop") != 0)
		return 64;
	if (sched_getaffinity(0, sizeof own, &own) == -1)
		return 1;
	for (k = 0, ncpu = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &own))
			cpus[ncpu++] = (int)k;
	wpt_block_go();
	printf("{\"pid\":%d,\"score\":\"0x%lx\",\"neighbour\":\"0x%lx\","
	    "\"mode\":\"%s\"}\n", (int)getpid(), WPT_ADDR(&page.score),
	    WPT_ADDR(&page.neighbour), mode);
	fflush(stdout);
	wpt_wait_go();
	sw0 = switches();
	t0 = now_ns();
	if (strcmp(mode, "game") == 0 || strcmp(mode, "hop") == 0) {
		for (i = 0; i < frames; i++) {
			if (mode[0] == 'h') {
				CPU_ZERO(&one);
				CPU_SET(cpus[i % ncpu], &one);
				sched_setaffinity(0, sizeof one, &one);
			}
			for (k = 0; k < work; k++)
				x = x * 6364136223846793005ULL +
				    1442695040888963407ULL;
			write_score((long)(x >> 1));
			nscore++;
		}
	} else if (strcmp(mode, "tight") == 0) {
		for (i = 0; i < n; i++)
			write_score(i);
		nscore = n;
	} else {
		for (i = 0; i < n; i++) {
			write_neighbour(i);
			if (i % 1000 == 0) {
				write_score(i);
				nscore++;
			}
		}
		nneighbour = n;
	}
	t1 = now_ns();
	sched_setaffinity(0, sizeof own, &own);
	printf("score writes %ld\nneighbour writes %ld\nsum %lx\n"
	    "run_ns %llu\nswitches %ld\ndone\n", nscore, nneighbour,
	    (unsigned long)(page.score ^ page.neighbour ^ (long)x),
	    (unsigned long long)(t1 - t0), switches() - sw0);
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
