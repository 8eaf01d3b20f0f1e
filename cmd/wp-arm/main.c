/* wp-arm: arm hardware breakpoints on every thread and stream the hits. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp-events.h"
#include "cond.h"
#include "filter.h"
#include "hwbp.h"
#include "perf.h"
#include "sites-where.h"
#include "stream.h"
#include "usage.h"
#include "util.h"
#include "vocab.h"
#include "watch.h"

int	 input_read(struct watch *w, long *nbad, struct wp_error *e);
int	 doctor(int as_json);

struct options {
	const char	*backend;	/* a word of wp_backend_words */
	int		 check_bp;
	int		 doctor;	/* 2: --json */
	int		 tracer_cpu;	/* --tracer-cpu given */
	struct filter_opts filter;	/* --if, --stop */
};

static const char usage_text[] =
    "usage: wp-arm [-v] [-d duration] [-n max_events] [--regs] [--all-hits]\n"
    "              [--callchain[=fp|dwarf[,bytes]]] [--callchain-depth n]\n"
    "              [--backend auto|bpf|perf|ptrace|page|uprobe]\n"
    "              [--ring-pages n] [--interval duration]\n"
    "              [--follow-mode stop|stop-all|async] [--if expr]\n"
    "              [--stop[=core]] [--last n] [--tracer-cpu follow|free]\n"
    "       wp-arm --check-bp\n"
    "       wp-arm --doctor [--json]\n";

static const struct wp_opt opts[] = {
	{ 'v', "-v, --verbose", "print what libbpf says when the BPF program "
	    "fails" },
	{ 'd', "-d, --duration duration", "how long to watch: 10 (seconds), "
	    "500ms, 1.5s, 2m30s, 1h, or inf (until a signal); default 5s" },
	{ 'n', "-n, --max-events n", "stop after n hit records (default "
	    "20000 a second of the duration, at least 100000; -d inf: none; "
	    "bpf: samples, its tallies count on)" },
	{ 'r', "--regs", "sample the registers with each hit (written "
	    "values)" },
	{ 'A', "--all-hits", "bpf: a sample of every hit (default: every hit "
	    "tallied, a budget of them sampled)" },
	{ 'c', "--callchain[=mode]", "record the writer's callers with each "
	    "hit: fp (frame pointers; perf and bpf's default) or dwarf[,bytes] "
	    "(the stack copied into samples, unwound by wp-decode); ptrace and "
	    "page always unwind with the modules' CFI" },
	{ 'K', "--callchain-depth n", "at most n callers a hit, 1 to 128 "
	    "(default 16)" },
	{ 'B', "--backend name", "auto (the default), bpf, perf, ptrace, "
	    "page, or uprobe (instructions: site records; ptrace too, an "
	    "int3 at each)" },
	{ 'P', "--ring-pages n", "perf ring pages per CPU, a power of two "
	    "(default 64; with --regs, what kernel.perf_event_mlock_kb "
	    "allows)" },
	{ 'I', "--interval duration", "how often to write counts (default 1s; "
	    "0 for none)" },
	{ 'F', "--follow-mode mode", "stop, stop-all or async: how a followed "
	    "leaf re-arms (default stop with bpf, async with perf)" },
	{ 'i', "--if expr", "only writes that match expr are hits, each "
	    "writer's writes all counted (every backend; see CONDITIONS); "
	    "site records: each execution tested on addr, tid, value" },
	{ 'S', "--stop[=core]", "at the first matching write, leave the "
	    "process stopped there for a debugger (core: write its core with "
	    "gcore)" },
	{ 'L', "--last n", "keep each target's last n writes; if the process "
	    "dies or exits, write them (exit 6: it died)" },
	{ 'T', "--tracer-cpu mode", "page: follow (the default: after a long "
	    "wait the tracer moves to the CPU of the thread that stopped, "
	    "sparing it an idle CPU's wake-up) or free (where the scheduler "
	    "puts it)" },
	{ 'C', "--check-bp", "only check that breakpoints fire here (exit 0, "
	    "or 5)" },
	{ 'D', "--doctor", "only say what wp can use on this machine, and why "
	    "(wp doctor)" },
	{ 'j', "--json", "with --doctor: one JSON object" },
	{ 0, NULL, NULL }
};

static const struct wp_usage use = { "wp-arm", usage_text, opts, NULL };

static const char *const tracer_cpus[] = {
	"follow", "free", NULL
};

static const char *const follow_modes[] = {
	"stop", "stop-all", "async", NULL
};

/* --callchain[=fp|dwarf[,bytes]] */
static void
callchain_mode(const char *arg, struct watch *w)
{
	uint64_t u;

	if (arg == NULL)
		w->callchain = CC_DEFAULT;
	else if (strcmp(arg, "fp") == 0)
		w->callchain = CC_FP;
	else if (strncmp(arg, "dwarf", 5) == 0 && (arg[5] == '\0' ||
	    arg[5] == ',')) {
		w->callchain = CC_DWARF;
		if (arg[5] == ',' && (wp_parse_u64(arg + 6, &u) == -1 ||
		    u < 64 || u > WATCH_MAXSTACK || u % 8 != 0))
			errx(WP_EXIT_USAGE, "--callchain %s: the stack to copy is "
			    "64 to %d bytes, a multiple of 8", arg,
			    WATCH_MAXSTACK);
		if (arg[5] == ',')
			w->callchain_stack = (size_t)u;
	} else
		errx(WP_EXIT_USAGE, "--callchain %s: expected fp or "
		    "dwarf[,bytes]", arg);
}

/*
 * --if expr: parsed now; a bad one exits 2 naming the column.  A second
 * --if is refused: one would silently replace the other.
 */
static void
condition(const char *arg, struct options *op)
{
	struct wp_error e;

	if (op->filter.cond != NULL)
		errx(WP_EXIT_USAGE, "--if '%s': a second --if; join the "
		    "conditions in one with and, or", arg);
	if (wp_cond_parse(arg, &op->filter.cond, &e) == -1)
		errx(e.status, "--if '%s': %s", arg, e.msg);
}

static void
option(int ch, const char *arg, struct watch *w, struct options *op)
{
	uint64_t u;
	int rc;

	switch (ch) {
	case 'v':
		w->verbose = 1;
		break;
	case 'd':
		if ((rc = wp_parse_duration_ms(arg, &w->duration_ms)) == -1)
			errx(WP_EXIT_USAGE, "-d %s: not a duration (10 for "
			    "seconds, 500ms, 1.5s, 2m30s)", arg);
		else if (rc == -2)
			errx(WP_EXIT_USAGE, "-d %s: longer than wp-arm can "
			    "wait (inf watches until a signal)", arg);
		break;
	case 'n':
		if (wp_parse_u64(arg, &w->max_events) == -1 ||
		    w->max_events == 0)
			errx(WP_EXIT_USAGE, "-n %s: not a positive count", arg);
		break;
	case 'r':
		w->regs = 1;
		break;
	case 'A':
		w->all_hits = 1;
		break;
	case 'c':
		callchain_mode(arg, w);
		break;
	case 'K':
		w->callchain_depth = wp_opt_number("--callchain-depth", arg, 1,
		    WATCH_MAXCHAIN, "a depth");
		if (w->callchain == CC_NONE)
			w->callchain = CC_DEFAULT;
		break;
	case 'B':
		op->backend = wp_opt_word("--backend", arg, wp_backend_words);
		break;
	case 'P':
		if (wp_parse_u64(arg, &u) == -1 || u == 0 ||
		    (u & (u - 1)) != 0 || u > 65536)
			errx(WP_EXIT_USAGE, "--ring-pages %s: a power of two, 1 "
			    "to 65536", arg);
		w->ring_pages = (size_t)u;
		break;
	case 'I':
		if ((rc = wp_parse_duration_ms(arg, &w->interval_ms)) == -1)
			errx(WP_EXIT_USAGE, "--interval %s: not a duration "
			    "(500ms, 1s; 0 for none)", arg);
		if (rc == -2 || w->interval_ms >= WP_DURATION_INF_MS)
			errx(WP_EXIT_USAGE, "--interval %s: longer than wp-arm "
			    "can wait (0 for none)", arg);
		break;
	case 'F':
		w->follow_mode = wp_opt_word("--follow-mode", arg, follow_modes);
		break;
	case 'T':
		w->tracer_cpu_free = strcmp(wp_opt_word("--tracer-cpu", arg,
		    tracer_cpus), "free") == 0;
		op->tracer_cpu = 1;
		break;
	case 'i':
		condition(arg, op);
		break;
	case 'S':
		if (arg != NULL && strcmp(arg, "core") != 0)
			errx(WP_EXIT_USAGE, "--stop=%s: expected --stop or "
			    "--stop=core", arg);
		op->filter.stop = arg != NULL ? STOP_CORE : STOP_STAY;
		break;
	case 'L':
		w->last = wp_opt_number("--last", arg, 1, LAST_MAX,
		    "a count of writes");
		break;
	case 'C':
		op->check_bp = 1;
		break;
	case 'D':
		op->doctor |= 1;
		break;
	case 'j':
		op->doctor |= 2;
		break;
	}
}

/* Bytes of a --callchain dwarf sample besides the stack: regs, chain. */
#define SAMPLE_EXTRA	512

/* The default of -n: hit records a second of the watch, and the least. */
#define EVENTS_PER_S	20000
#define EVENTS_MIN	100000

/*
 * The default of -n scales with the duration, so that a long watch is
 * not cut short by a count meant for a short one; -d inf: none.
 */
static uint64_t
default_max_events(uint64_t duration_ms)
{
	uint64_t n;

	if (duration_ms >= WP_DURATION_INF_MS)
		return INT64_MAX;
	n = duration_ms / 1000 * EVENTS_PER_S +
	    duration_ms % 1000 * EVENTS_PER_S / 1000;
	return n > EVENTS_MIN ? n : EVENTS_MIN;
}

/*
 * Refuses options that cannot work together, before anything is read:
 * a ring or a follow mode for a backend that has none, and a ring
 * smaller than one sample.
 */
static void
check_combination(const struct watch *w, const struct options *op)
{
	long pg = sysconf(_SC_PAGESIZE);
	const struct backend *b = strcmp(op->backend, "auto") == 0 ? NULL :
	    backend_named(op->backend);
	size_t need, pages;
	int ringless = b != NULL && !(b->caps & BK_RING);

	if (b != NULL && !(b->caps & BK_FOLLOWMODES) && w->follow_mode != NULL)
		errx(WP_EXIT_USAGE, "--follow-mode with --backend %s: only "
		    "%s re-arm a followed leaf that way", op->backend,
		    backend_words_with(BK_FOLLOWMODES));
	if (ringless && w->ring_pages > 0)
		errx(WP_EXIT_USAGE, "--ring-pages with --backend %s: it has "
		    "no ring (%s have)", op->backend,
		    backend_words_with(BK_RING));
	if (op->tracer_cpu && b != NULL && !(b->caps & BK_NEAR))
		errx(WP_EXIT_USAGE, "--tracer-cpu with --backend %s: only "
		    "the tracer of %s follows a thread's CPU", op->backend,
		    backend_words_with(BK_NEAR));
	if (w->ring_pages == 0 || w->callchain != CC_DWARF || pg <= 0)
		return;
	need = w->callchain_stack + SAMPLE_EXTRA;
	for (pages = 1; pages * (size_t)pg < need; pages *= 2)
		;
	if (w->ring_pages < pages)
		errx(WP_EXIT_USAGE, "--ring-pages %zu with --callchain dwarf: "
		    "a sample (%zu bytes of stack and the registers) does not "
		    "fit a ring of %zu bytes, every one would be lost: "
		    "--ring-pages %zu at least, or fewer bytes "
		    "(--callchain dwarf,BYTES)", w->ring_pages,
		    w->callchain_stack, w->ring_pages * (size_t)pg, pages);
}

static void
parse_options(int argc, char *argv[], struct watch *w, struct options *op)
{
	int ch;

	memset(w, 0, sizeof *w);
	w->duration_ms = 5000;
	w->max_events = 0;		/* default_max_events */
	w->ring_pages = 0;		/* the backend's: bp-events.c */
	w->interval_ms = 1000;
	w->callchain_depth = WP_CALLCHAIN_DEFAULT;
	w->callchain_stack = WP_CALLCHAIN_STACK;
	memset(op, 0, sizeof *op);
	op->backend = "auto";
	while ((ch = wp_getopt(argc, argv, &use)) != -1) {
		/* --callchain MODE, as perf's --call-graph MODE */
		if (ch == 'c' && optarg == NULL && optind < argc &&
		    (strcmp(argv[optind], "fp") == 0 ||
		    strncmp(argv[optind], "dwarf", 5) == 0))
			optarg = argv[optind++];
		option(ch, optarg, w, op);
	}
	if (w->max_events == 0)
		w->max_events = default_max_events(w->duration_ms);
	/* the registers start the unwinding of the copied stack */
	if (w->callchain == CC_DWARF)
		w->regs = 1;
	if (optind != argc)
		wp_usage(&use, WP_EXIT_USAGE);
	check_combination(w, op);
}

/* Nothing is watched: the observation says why (say: on stderr too). */
static int
refused(struct watch *w, struct wp_error *e, int say)
{
	if (say)
		warnx("%s", e->msg);
	observation_write(w, e->msg);
	watch_free(w);
	return e->status;
}

/*
 * A watch that max events ended before its duration says so, in one
 * line: the observation's stop_reason alone goes unseen.
 */
static void
say_cut(const struct watch *w)
{
	char of[64];

	if (w->stop_reason == NULL || strcmp(w->stop_reason,
	    wp_stop_names[WP_STOP_MAX_EVENTS]) != 0)
		return;
	if (w->duration_ms >= WP_DURATION_INF_MS)
		snprintf(of, sizeof of, "-d inf");
	else
		snprintf(of, sizeof of, "%.10g s", (double)w->duration_ms / 1000);
	warnx("-n %" PRIu64 ": the watch stopped at %.1f s of %s, after %"
	    PRIu64 " hit records (a larger -n watches longer)", w->max_events,
	    (double)w->elapsed_ms / 1000, of, w->accepted);
}

/* After a watch: the observation, and the exit status. */
static int
finish(struct watch *w, long nbad)
{
	if (w->output_closed || observation_write(w, NULL) == -1) {
		warnx("stdout closed: the watch stopped after %" PRIu64
		    " hits (%s)", w->accepted, w->stop_reason);
		return WP_EXIT_ERROR;
	}
	say_cut(w);
	if (filter_died(w))
		return WP_EXIT_DIED;
	return nbad ? WP_EXIT_MALFORMED : WP_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct watch w;
	struct options op;
	struct wp_error e = { 0, "" };
	char why[200];
	long nbad = 0;
	int status, rc;

	parse_options(argc, argv, &w, &op);
	if (op.doctor == 2)
		errx(WP_EXIT_USAGE, "--json goes with --doctor");
	if (op.doctor)
		return doctor(op.doctor & 2);
	if (op.check_bp) {
		if (bp_canary(1, why, sizeof why) == -1)
			return WP_EXIT_NOBP;
		printf("hardware breakpoints fire: 4 of 4 writes counted\n");
		return 0;
	}
	wp_need_fds("wp-arm", 16);
	wp_stream_out_init(stdout);
	if ((rc = input_read(&w, &nbad, &e)) < 0) {
		/* nothing to watch: the observation says why, where it can */
		if (rc == -1)
			warnx("%s", e.msg);
		if (strncmp(e.msg, "stdout:", 7) != 0)
			observation_write(&w, e.msg);
		wp_cond_free(op.filter.cond);
		watch_free(&w);
		return e.status;
	}
	/* instructions are counted, not watched for a write */
	if (w.nsites > 0 && w.last > 0) {
		wp_error_set(&e, WP_EXIT_USAGE, "--last keeps the writes to "
		    "addresses: site records are counted (by the uprobe or the "
		    "ptrace backend), not watched");
		wp_cond_free(op.filter.cond);
		return refused(&w, &e, 1);
	}
	/* --if on sites: their tallies are tested, each (addr, tid) */
	if (w.nsites > 0 && op.filter.cond != NULL) {
		if (sites_if_check(op.filter.cond, w.sites, 0, &e) == -1) {
			wp_cond_free(op.filter.cond);
			return refused(&w, &e, 1);
		}
		w.sites_if = op.filter.cond;
		op.filter.cond = NULL;
	} else if (op.filter.cond != NULL &&
	    (wp_cond_uses(op.filter.cond) & WP_COND_ADDR)) {
		wp_error_set(&e, WP_EXIT_USAGE, "--if '%s': addr tests the "
		    "address a site record's instruction accesses; an address "
		    "watch's writes are to its targets",
		    wp_cond_text(op.filter.cond));
		wp_cond_free(op.filter.cond);
		return refused(&w, &e, 1);
	}
	/* auto: page, which stops at the write (perf: when it reads it);
	   for sites, ptrace, which stops before the execution */
	if (strcmp(op.backend, "auto") == 0 && w.nsites == 0 &&
	    (op.filter.cond != NULL ||
	    op.filter.stop != STOP_NONE || w.last > 0))
		op.backend = "page";
	else if (strcmp(op.backend, "auto") == 0 && w.nsites > 0 &&
	    op.filter.stop != STOP_NONE)
		op.backend = "ptrace";
	/* a site's refusal is said here: wp-resolve checks no backend's
	   limits for sites, and wp accesses shows no observation of a
	   watch that never armed */
	if (backend_choose(&w, op.backend, &e) == -1) {
		/* the condition is filter_open's to keep, or to free */
		wp_cond_free(op.filter.cond);
		return refused(&w, &e, w.nsites > 0);
	}
	/* --stop at a site: its tracer (any execution), or an execute
	   breakpoint's program (the first), stops it before it runs; a
	   uprobe's thread runs the instruction before it takes a signal */
	if (w.nsites > 0 && op.filter.stop != STOP_NONE &&
	    (w.backend->cond_where == CW_NONE || (w.sites_if != NULL &&
	    w.backend->cond_where != CW_TRACER))) {
		wp_error_set(&e, WP_EXIT_USAGE, "--stop on site records: the "
		    "ptrace backend stops at an execution (--backend ptrace)%s",
		    w.backend->cond_where == CW_NONE ? "; the uprobe backend "
		    "only counts (its thread runs the instruction before it "
		    "takes a signal)" : ", the bpf backend at the first "
		    "execution only, not with --if, yet");
		wp_cond_free(op.filter.cond);
		return refused(&w, &e, 1);
	}
	/* a tracer's writes are tallied by writer, for hits a slow
	   reader could not take */
	if ((op.filter.cond != NULL || op.filter.stop != STOP_NONE ||
	    w.last > 0 || (w.backend->caps & BK_EXACT)) &&
	    filter_open(&w, &op.filter, &e) == -1)
		return refused(&w, &e, 1);
	if (w.backend->caps & BK_TRACES)
		guard_fork(&w);
	if (watch_run(&w, &e) == -1) {
		/* nothing was watched; the observation still says why */
		warnx("%s", e.msg);
		observation_write(&w, e.msg);
		status = e.status;
	} else {
		guard_stopped(&w);
		filter_stopped(&w);
		status = finish(&w, nbad);
	}
	guard_free(&w);
	watch_free(&w);
	return status;
}
