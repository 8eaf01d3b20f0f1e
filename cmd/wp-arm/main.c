/* wp-arm: arm hardware breakpoints on every thread and stream the hits. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"
#include "proc.h"
#include "record.h"
#include "util.h"
#include "watch.h"

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: wp-arm [-d duration] [-n max_events] [--regs] "
	    "[--backend auto|perf|ptrace]\n"
	    "              [--ring-pages n]\n"
	    "       wp-arm --check-bp\n");
	exit(status);
}

static const struct option longopts[] = {
	{ "duration",	required_argument,	NULL, 'd' },
	{ "max-events",	required_argument,	NULL, 'n' },
	{ "regs",	no_argument,		NULL, 'r' },
	{ "backend",	required_argument,	NULL, 'B' },
	{ "ring-pages",	required_argument,	NULL, 'P' },
	{ "check-bp",	no_argument,		NULL, 'C' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static int
read_follow(struct wp_watch *w, json_object *o)
{
	struct wp_chain c;
	json_object *a, *x;
	const char *acc, *str;
	int64_t v;
	size_t i;

	memset(&c, 0, sizeof c);
	if (wp_json_get_int(o, "id", &v) == -1 ||
	    wp_json_get_hex(o, "slot_addr", &c.slot) == -1 ||
	    !json_object_object_get_ex(o, "offsets", &a) ||
	    !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) == 0 ||
	    json_object_array_length(a) > WP_CHAIN_MAXDEPTH)
		return -1;
	c.id = (int)v;
	c.noffs = json_object_array_length(a);
	for (i = 0; i < c.noffs; i++) {
		x = json_object_array_get_idx(a, i);
		str = json_object_get_string(x);
		if (str == NULL || wp_parse_s64(str, &c.offs[i]) == -1)
			return -1;
	}
	c.len = wp_json_get_int(o, "len", &v) == 0 ? (int)v : 4;
	acc = wp_json_get_str(o, "access");
	c.rw = acc != NULL && strcmp(acc, "rw") == 0;
	return wp_watch_add_chain(w, &c);
}

/* Reads the stream to its end, passing every record on. */
static int
read_input(struct wp_watch *w, long *nbad)
{
	struct wp_reader rd;
	struct wp_record rec;
	struct wp_watch_target *t;
	int64_t v;
	uint64_t addr;
	const char *acc;
	int have_session = 0, bad = 0;

	wp_record_reader_init(&rd, stdin, "stdin");
	while (wp_record_read(&rd, &rec)) {
		if (wp_record_pass(&rec) == -1) {
			warn("stdout");
			wp_record_reader_free(&rd);
			return -1;
		}
		if (strcmp(rec.type, "session") == 0 && !have_session) {
			json_object *o = wp_record_obj(&rec);

			if (wp_json_get_int(o, "pid", &v) == -1 || v <= 0 ||
			    wp_json_get_int(o, "start_time", &v) == -1) {
				warnx("stdin: line %ld: session record without "
				    "pid or start_time", rec.lineno);
				bad = 1;
				continue;
			}
			wp_json_get_int(o, "pid", &v);
			w->pid = (pid_t)v;
			wp_json_get_int(o, "start_time", &v);
			w->start_time = (unsigned long long)v;
			have_session = 1;
		} else if (strcmp(rec.type, "target") == 0) {
			json_object *o = wp_record_obj(&rec);

			if (wp_json_get_int(o, "id", &v) == -1 ||
			    wp_json_get_hex(o, "runtime_addr", &addr) == -1) {
				warnx("stdin: line %ld: target record without "
				    "id or runtime_addr", rec.lineno);
				bad = 1;
				continue;
			}
			w->t = wp_xrealloc(w->t, (w->nt + 1) * sizeof *w->t);
			t = &w->t[w->nt++];
			memset(t, 0, sizeof *t);
			t->id = (int)v;
			t->addr = addr;
			t->chain = -1;
			t->armed = 1;
			if (wp_json_get_int(o, "len", &v) == -1)
				v = 4;
			t->len = (int)v;
			acc = wp_json_get_str(o, "access");
			t->rw = acc != NULL && strcmp(acc, "rw") == 0;
		} else if (strcmp(rec.type, "follow") == 0) {
			if (read_follow(w, wp_record_obj(&rec)) == -1) {
				warnx("stdin: line %ld: follow record without id, "
				    "slot_addr or offsets", rec.lineno);
				bad = 1;
			}
		}
	}
	*nbad = rd.nbad;
	wp_record_reader_free(&rd);
	if (wp_record_out_flush() == -1) {
		warn("stdout");
		return -1;
	}
	if (!have_session) {
		warnx("stdin: no session record: nothing to watch "
		    "(feed it the output of wp-resolve)");
		return -1;
	}
	if (w->nt == 0 && !bad) {
		warnx("stdin: no target records: nothing to watch");
		return -1;
	}
	return bad ? -1 : 0;
}

static void
add_latest(struct wp_watch *w, json_object *obs)
{
	json_object *a = json_object_object_get(obs, "targets"), *t;
	unsigned long long st;
	unsigned char b[8];
	uint64_t x;
	size_t i, j;
	int fd, k, alive;

	alive = wp_proc_starttime(w->pid, &st) == 0 && st == w->start_time;
	fd = alive ? wp_proc_mem_open(w->pid) : -1;
	json_object_object_add(obs, "target_alive_after",
	    json_object_new_boolean(alive));
	for (i = j = 0; i < w->nt; i++) {
		if (w->t[i].chain >= 0)
			continue;
		t = json_object_array_get_idx(a, j++);
		if (fd == -1 || w->t[i].len > 8 || wp_proc_read(fd,
		    w->t[i].addr, b, (size_t)w->t[i].len) == -1) {
			json_object_object_add(t, "latest_value", NULL);
			continue;
		}
		for (x = 0, k = w->t[i].len; k > 0; k--)
			x = (x << 8) | b[k - 1];
		json_object_object_add(t, "latest_value", wp_json_hex(x));
	}
	if (fd != -1)
		close(fd);
}

/*
 * Whether debug registers can watch the targets: four slots, lengths of
 * 1, 2, 4 or 8, natural alignment.  Says why not when verbose.
 */
static int
perf_fits(const struct wp_watch *w, int verbose)
{
	const struct wp_watch_target *t;
	size_t i;
	int ok = 1;

	for (i = 0; i < w->nt; i++) {
		t = &w->t[i];
		if (t->len != 1 && t->len != 2 && t->len != 4 && t->len != 8) {
			if (verbose)
				warnx("target %d: a debug register cannot watch "
				    "%d bytes (1, 2, 4 or 8)", t->id, t->len);
			ok = 0;
		} else if (t->addr % (uint64_t)t->len != 0) {
			if (verbose)
				warnx("target %d: 0x%" PRIx64 " is not aligned "
				    "to its length %d", t->id, t->addr, t->len);
			ok = 0;
		}
	}
	if (w->nt > 4) {
		if (verbose)
			warnx("%zu hardware slots in the stream: x86-64 has 4 "
			    "(DR0..DR3)", w->nt);
		ok = 0;
	}
	return ok;
}

/* Returns 0 when a breakpoint on our own variable counts writes. */
static int
canary(int verbose)
{
	uint64_t count;

	if (wp_perf_canary(&count) == -1) {
		if (!verbose)
			return -1;
		if (errno == EACCES || errno == EPERM)
			warnx("perf_event_open: %s (kernel.perf_event_paranoid "
			    "is %d; run as root or with CAP_PERFMON)",
			    strerror(errno), wp_perf_paranoid());
		else
			warn("perf_event_open: breakpoint events unavailable");
		return -1;
	}
	if (count == 0) {
		if (!verbose)
			return -1;
		warnx("hardware breakpoints do not fire on this machine: a "
		    "breakpoint on wp-arm's own variable counted 0 of 4 writes "
		    "(a VM that does not virtualize debug registers?)");
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct wp_watch w;
	json_object *obs;
	uint64_t u;
	long nbad = 0;
	const char *backend = "auto", *used;
	int ch, status, check = 0, rc;

	memset(&w, 0, sizeof w);
	w.duration_ms = 5000;
	w.max_events = 100000;
	w.ring_pages = 64;
	while ((ch = getopt_long(argc, argv, "d:n:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			if (wp_parse_duration_ms(optarg, &w.duration_ms) == -1)
				errx(WP_EXIT_USAGE, "-d %s: not a duration "
				    "(500ms, 5s, 2m)", optarg);
			break;
		case 'n':
			if (wp_parse_u64(optarg, &w.max_events) == -1 ||
			    w.max_events == 0)
				errx(WP_EXIT_USAGE, "-n %s: not a positive count",
				    optarg);
			break;
		case 'r':
			w.regs = 1;
			break;
		case 'B':
			if (strcmp(optarg, "perf") != 0 &&
			    strcmp(optarg, "auto") != 0 &&
			    strcmp(optarg, "ptrace") != 0)
				errx(WP_EXIT_USAGE, "--backend %s: expected auto, "
				    "perf or ptrace", optarg);
			backend = optarg;
			break;
		case 'P':
			if (wp_parse_u64(optarg, &u) == -1 || u == 0 ||
			    (u & (u - 1)) != 0 || u > 65536)
				errx(WP_EXIT_USAGE, "--ring-pages %s: a power of "
				    "two, 1 to 65536", optarg);
			w.ring_pages = (size_t)u;
			break;
		case 'C':
			check = 1;
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			printf("wp-arm %s\n", WP_VERSION);
			return 0;
		default:
			usage(WP_EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage(WP_EXIT_USAGE);

	if (check) {
		if (optind != argc || canary(1) == -1)
			return WP_EXIT_NOBP;
		printf("hardware breakpoints fire: 4 of 4 writes counted\n");
		return 0;
	}
	wp_record_out_init(stdout);
	if (read_input(&w, &nbad) == -1) {
		wp_watch_free(&w);
		return WP_EXIT_ERROR;
	}
	if (strcmp(backend, "perf") == 0) {
		if (!perf_fits(&w, 1)) {
			wp_watch_free(&w);
			return WP_EXIT_ERROR;
		}
		if (canary(1) == -1) {
			wp_watch_free(&w);
			return WP_EXIT_NOBP;
		}
		used = "perf_breakpoint";
	} else if (strcmp(backend, "ptrace") == 0)
		used = "ptrace_singlestep";
	else if (!perf_fits(&w, 0)) {
		warnx("the targets do not fit the four debug registers: using "
		    "the ptrace single-step backend (the target runs 10,000 "
		    "times slower or more while watched)");
		used = "ptrace_singlestep";
	} else if (canary(0) == -1) {
		warnx("hardware breakpoints do not fire on this machine: using "
		    "the ptrace single-step backend (the target runs 10,000 "
		    "times slower or more while watched)");
		used = "ptrace_singlestep";
	} else
		used = "perf_breakpoint";
	rc = strcmp(used, "perf_breakpoint") == 0 ? wp_watch_perf(&w) :
	    wp_watch_ptrace(&w);
	if (rc == -1) {
		/* nothing was watched; the observation still says why */
		warnx("%s", w.error);
		w.stop_reason = "error";
		obs = wp_watch_observation(&w, used);
		if (wp_record_emit(obs) == 0)
			wp_record_out_flush();
		json_object_put(obs);
		status = strstr(w.error, "reused") ? WP_EXIT_PROCESS :
		    WP_EXIT_ERROR;
		wp_watch_free(&w);
		return status;
	}
	obs = wp_watch_observation(&w, used);
	add_latest(&w, obs);
	status = nbad ? WP_EXIT_MALFORMED : WP_EXIT_OK;
	if (w.output_closed || wp_record_emit(obs) == -1 ||
	    wp_record_out_flush() == -1) {
		warnx("stdout closed: the watch stopped after %" PRIu64
		    " hits (%s)", w.accepted, w.stop_reason);
		status = WP_EXIT_ERROR;
	}
	json_object_put(obs);
	wp_watch_free(&w);
	return status;
}
