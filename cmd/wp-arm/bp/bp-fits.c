/*
 * Whether the debug registers can watch: the targets (their lengths,
 * alignment and number) and the machine (a breakpoint on a variable of
 * our own counts its writes).  The fits() of the perf and bpf backends,
 * wp-arm --check-bp and wp doctor.
 */
#include <sys/resource.h>

#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp-events.h"
#include "hwbp.h"
#include "perf.h"
#include "proc.h"
#include "regs.h"
#include "util.h"
#include "watch.h"

/* Why debug registers cannot watch t, in msg: 1; 0 when they can. */
static int
misfit(const struct wtarget *t, char *msg, size_t msgsz)
{
	if (!wp_hwbp_len_ok((size_t)t->len))
		snprintf(msg, msgsz, "target %d: a debug register cannot "
		    "watch %d bytes (1, 2, 4 or 8)", t->id, t->len);
	else if (!wp_hwbp_aligned(t->addr, (size_t)t->len))
		snprintf(msg, msgsz, "target %d: 0x%" PRIx64 " is not aligned "
		    "to its length %d", t->id, t->addr, t->len);
	else
		return 0;
	return 1;
}

/*
 * Whether debug registers can watch the targets.  When not, why holds
 * the first reason, and with verbose every reason is printed.
 */
static int
targets_fit(const struct watch *w, int verbose, char *why, size_t whysz)
{
	char msg[200];
	size_t i;
	int ok = 1, bad;

	for (i = 0; i <= w->nt; i++) {
		if (i < w->nt)
			bad = misfit(&w->t[i], msg, sizeof msg);
		else if ((bad = w->nt > (size_t)tr_watch_slots()))
			snprintf(msg, sizeof msg, "%zu hardware slots in the "
			    "stream: %s", w->nt, tr_watch_slots_text());
		if (!bad)
			continue;
		if (ok)
			snprintf(why, whysz, "%s", msg);
		if (verbose)
			warnx("%s", msg);
		ok = 0;
	}
	return ok;
}

/*
 * Whether the descriptors the events take fit under the hard limit
 * (bp-events.c raises the soft one to it): a task event and an event
 * per entry on each thread and CPU, and what wp-arm holds besides.
 */
static int
fds_fit(const struct watch *w, int verbose, char *why, size_t whysz)
{
	struct rlimit rl;
	pid_t *tids = NULL;
	size_t nthr = 1, need;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (w->pid > 0 && wp_proc_tasks(w->pid, &tids, &nthr) == -1)
		nthr = 1;
	free(tids);
	need = nthr * (size_t)(ncpu > 0 ? ncpu : 1) * (w->nt + 1) + 32;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_max ==
	    RLIM_INFINITY || rl.rlim_max >= need)
		return 1;
	snprintf(why, whysz, "ulimit -n is %llu: breakpoint events on %zu "
	    "threads and %ld CPUs take about %zu file descriptors",
	    (unsigned long long)rl.rlim_max, nthr, ncpu, need);
	if (verbose)
		warnx("%s", why);
	return 0;
}

int
bp_canary(int verbose, char *why, size_t whysz)
{
	const char *sw = getenv("WP_ARM_BP");
	uint64_t count, second;
	int e;

	if (perf_canary(&count, &second) == -1) {
		e = errno;
		if ((e == EACCES || e == EPERM) && geteuid() != 0)
			snprintf(why, whysz, "perf_event_open: %s "
			    "(kernel.perf_event_paranoid is %d; run as root or "
			    "with CAP_PERFMON)", strerror(e), perf_paranoid());
		else if (e == EACCES || e == EPERM)
			snprintf(why, whysz, "perf_event_open: %s even to root "
			    "(a seccomp filter, or a container without "
			    "CAP_PERFMON?)", strerror(e));
		else
			snprintf(why, whysz, "perf_event_open: breakpoint "
			    "events unavailable: %s", strerror(e));
		if (verbose)
			warnx("%s", why);
		return -1;
	}
	/* the tests' switch: this machine as one whose breakpoints do not
	   fire (wp-arm(1), ENVIRONMENT) */
	if (sw != NULL && strcmp(sw, "none") == 0)
		count = 0;
	if (count == 0) {
		snprintf(why, whysz, "hardware breakpoints do not fire on this "
		    "machine (they do on bare metal and in VMs that virtualize "
		    "debug registers)");
		if (verbose)
			warnx("hardware breakpoints do not fire on this "
			    "machine: a breakpoint on wp-arm's own variable "
			    "counted 0 of 4 writes (a VM that does not "
			    "virtualize debug registers?)");
		return -1;
	}
	return 0;
}

int
bp_fits(struct watch *w, int chosen, struct wp_error *e)
{
	char why[200];

	if (!targets_fit(w, chosen, why, sizeof why)) {
		wp_error_set(e, WP_EXIT_ERROR, "%s", chosen ? "the targets do "
		    "not fit the debug registers" : why);
		return 0;
	}
	if (bp_canary(chosen, why, sizeof why) == -1) {
		wp_error_set(e, WP_EXIT_NOBP, "%s", chosen ? "hardware "
		    "breakpoints cannot be used here" : why);
		return 0;
	}
	if (!fds_fit(w, chosen, why, sizeof why)) {
		wp_error_set(e, WP_EXIT_ERROR, "%s", chosen ? "too few file "
		    "descriptors for breakpoint events" : why);
		return 0;
	}
	return 1;
}
