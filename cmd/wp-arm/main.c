/* wp-arm: arm hardware breakpoints on every thread and stream the hits. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "hwbp.h"
#include "perf.h"
#include "stream.h"
#include "util.h"
#include "watch.h"

int	 input_read(struct watch *w, long *nbad, struct wp_error *e);

struct options {
	const char	*backend;	/* auto, bpf, perf, ptrace */
	int		 check_bp;
};

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: wp-arm [-v] [-d duration] [-n max_events] [--regs]\n"
	    "              [--backend auto|bpf|perf|ptrace] [--ring-pages n]\n"
	    "              [--interval duration] [--follow-mode stop|stop-all|async]\n"
	    "       wp-arm --check-bp\n");
	exit(status);
}

static const struct option longopts[] = {
	{ "duration",	required_argument,	NULL, 'd' },
	{ "max-events",	required_argument,	NULL, 'n' },
	{ "regs",	no_argument,		NULL, 'r' },
	{ "backend",	required_argument,	NULL, 'B' },
	{ "ring-pages",	required_argument,	NULL, 'P' },
	{ "interval",	required_argument,	NULL, 'I' },
	{ "check-bp",	no_argument,		NULL, 'C' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "follow-mode",	required_argument,	NULL, 'F' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static void
option(int ch, const char *arg, struct watch *w, struct options *op)
{
	uint64_t u;

	switch (ch) {
	case 'd':
		if (wp_parse_duration_ms(arg, &w->duration_ms) == -1)
			errx(WP_EXIT_USAGE, "-d %s: not a duration (500ms, 5s, "
			    "2m)", arg);
		break;
	case 'n':
		if (wp_parse_u64(arg, &w->max_events) == -1 ||
		    w->max_events == 0)
			errx(WP_EXIT_USAGE, "-n %s: not a positive count", arg);
		break;
	case 'r':
		w->regs = 1;
		break;
	case 'B':
		if (strcmp(arg, "perf") != 0 && strcmp(arg, "auto") != 0 &&
		    strcmp(arg, "ptrace") != 0 && strcmp(arg, "bpf") != 0)
			errx(WP_EXIT_USAGE, "--backend %s: expected auto, bpf, "
			    "perf or ptrace", arg);
		op->backend = arg;
		break;
	case 'v':
		w->verbose = 1;
		break;
	case 'F':
		if (strcmp(arg, "stop") != 0 && strcmp(arg, "stop-all") != 0 &&
		    strcmp(arg, "async") != 0)
			errx(WP_EXIT_USAGE, "--follow-mode %s: expected stop, "
			    "stop-all or async", arg);
		w->follow_mode = arg;
		break;
	case 'P':
		if (wp_parse_u64(arg, &u) == -1 || u == 0 ||
		    (u & (u - 1)) != 0 || u > 65536)
			errx(WP_EXIT_USAGE, "--ring-pages %s: a power of two, 1 "
			    "to 65536", arg);
		w->ring_pages = (size_t)u;
		break;
	case 'I':
		if (wp_parse_duration_ms(arg, &w->interval_ms) == -1)
			errx(WP_EXIT_USAGE, "--interval %s: not a duration "
			    "(500ms, 1s; 0 for none)", arg);
		break;
	case 'C':
		op->check_bp = 1;
		break;
	case 'h':
		usage(0);
		break;
	case 'V':
		printf("wp-arm %s\n", WP_VERSION);
		exit(0);
	default:
		usage(WP_EXIT_USAGE);
	}
}

static void
parse_options(int argc, char *argv[], struct watch *w, struct options *op)
{
	int ch;

	memset(w, 0, sizeof *w);
	w->duration_ms = 5000;
	w->max_events = 100000;
	w->ring_pages = 64;
	w->interval_ms = 1000;
	op->backend = "auto";
	op->check_bp = 0;
	while ((ch = getopt_long(argc, argv, "d:n:vhV", longopts, NULL)) != -1)
		option(ch, optarg, w, op);
	if (optind != argc)
		usage(WP_EXIT_USAGE);
}

/* Whether debug registers can watch the targets; says why not. */
static int
perf_fits(const struct watch *w, int verbose)
{
	const struct wtarget *t;
	size_t i;
	int ok = 1;

	for (i = 0; i < w->nt; i++) {
		t = &w->t[i];
		if (!wp_hwbp_len_ok((size_t)t->len)) {
			if (verbose)
				warnx("target %d: a debug register cannot watch "
				    "%d bytes (1, 2, 4 or 8)", t->id, t->len);
			ok = 0;
		} else if (!wp_hwbp_aligned(t->addr, (size_t)t->len)) {
			if (verbose)
				warnx("target %d: 0x%" PRIx64 " is not aligned "
				    "to its length %d", t->id, t->addr, t->len);
			ok = 0;
		}
	}
	if (w->nt > WP_HWBP_SLOTS) {
		if (verbose)
			warnx("%zu hardware slots in the stream: x86-64 has %d "
			    "(DR0..DR3)", w->nt, WP_HWBP_SLOTS);
		ok = 0;
	}
	return ok;
}

/* Returns 0 when a breakpoint on our own variable counts writes. */
static int
canary(int verbose)
{
	uint64_t count;
	int e;

	if (perf_canary(&count) == -1) {
		e = errno;
		if (!verbose)
			return -1;
		if (e == EACCES || e == EPERM)
			warnx("perf_event_open: %s (kernel.perf_event_paranoid "
			    "is %d; run as root or with CAP_PERFMON)",
			    strerror(e), perf_paranoid());
		else
			warnx("perf_event_open: breakpoint events unavailable: "
			    "%s", strerror(e));
		return -1;
	}
	if (count == 0) {
		if (verbose)
			warnx("hardware breakpoints do not fire on this machine: "
			    "a breakpoint on wp-arm's own variable counted 0 of "
			    "4 writes (a VM that does not virtualize debug "
			    "registers?)");
		return -1;
	}
	return 0;
}

static const char slow[] = "using the ptrace single-step backend (the "
    "target runs 10,000 times slower or more while watched)";

/*
 * The backend to use, or NULL with e set when none can (the messages
 * are printed; e says the last).
 */
static const struct backend *
choose(struct watch *w, const char *name, struct wp_error *e)
{
	if (strcmp(name, "ptrace") == 0)
		return &backend_ptrace;
	if (strcmp(name, "auto") != 0) {
		if (!perf_fits(w, 1)) {
			wp_error_set(e, WP_EXIT_ERROR, "the targets do not fit "
			    "the debug registers");
			return NULL;
		}
		if (canary(1) == -1) {
			wp_error_set(e, WP_EXIT_NOBP, "hardware breakpoints "
			    "cannot be used here");
			return NULL;
		}
		if (strcmp(name, "perf") == 0)
			return &backend_perf;
		if ((w->bpfw = bpfw_open(w, w->verbose, e)) != NULL)
			return &backend_bpf;
		warnx("%s", e->msg);
		return NULL;
	}
	if (!perf_fits(w, 0)) {
		warnx("the targets do not fit the four debug registers: %s",
		    slow);
		return &backend_ptrace;
	}
	if (canary(0) == -1) {
		warnx("hardware breakpoints do not fire on this machine: %s",
		    slow);
		return &backend_ptrace;
	}
	if ((w->bpfw = bpfw_open(w, w->verbose, e)) != NULL)
		return &backend_bpf;
	warnx("%s: using the perf ring backend (counts stay exact; "
	    "per-writer counts come from samples, which a burst can drop)",
	    e->msg);
	return &backend_perf;
}

int
main(int argc, char *argv[])
{
	struct watch w;
	struct options op;
	struct wp_error e = { 0, "" };
	const struct backend *b;
	long nbad = 0;
	int status = WP_EXIT_OK, rc;

	parse_options(argc, argv, &w, &op);
	if (op.check_bp) {
		if (canary(1) == -1)
			return WP_EXIT_NOBP;
		printf("hardware breakpoints fire: 4 of 4 writes counted\n");
		return 0;
	}
	wp_stream_out_init(stdout);
	if ((rc = input_read(&w, &nbad, &e)) < 0) {
		/* nothing to watch: the observation says why, where it can */
		if (rc == -1)
			warnx("%s", e.msg);
		if (strncmp(e.msg, "stdout:", 7) != 0)
			observation_write(&w, e.msg);
		watch_free(&w);
		return e.status;
	}
	if ((b = choose(&w, op.backend, &e)) == NULL) {
		observation_write(&w, e.msg);
		watch_free(&w);
		return e.status;
	}
	if (b == &backend_ptrace)
		guard_fork(&w);
	if (watch_run(&w, b, &e) == -1) {
		/* nothing was watched; the observation still says why */
		warnx("%s", e.msg);
		observation_write(&w, e.msg);
		status = e.status;
	} else if (w.output_closed || observation_write(&w, NULL) == -1) {
		warnx("stdout closed: the watch stopped after %" PRIu64
		    " hits (%s)", w.accepted, w.stop_reason);
		status = WP_EXIT_ERROR;
	} else if (nbad)
		status = WP_EXIT_MALFORMED;
	bpfw_close(w.bpfw);
	watch_free(&w);
	return status;
}
