/* wp-report: aggregate a decoded stream into the report a user reads. */
#include <sys/time.h>

#include <err.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "report.h"
#include "util.h"

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: wp-report [--json | --table] [--samples n] [--progress] "
	    "[file]\n");
	exit(status);
}

static volatile sig_atomic_t progress_hits, progress_on;
static struct timespec progress_t0;

static size_t
fmt_u(char *p, unsigned long v)
{
	char tmp[24];
	size_t n = 0, i;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* The live line: async-signal-safe formatting, written to stderr. */
static void
on_tick(int sig)
{
	struct timespec now;
	char buf[96];
	size_t n = 0;
	long ds;

	(void)sig;
	if (!progress_on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ds = (now.tv_sec - progress_t0.tv_sec) * 10 +
	    (now.tv_nsec - progress_t0.tv_nsec) / 100000000;
	memcpy(buf, "\rwp: watching ", 15);
	n = 15;
	n += fmt_u(buf + n, (unsigned long)(ds / 10));
	buf[n++] = '.';
	n += fmt_u(buf + n, (unsigned long)(ds % 10));
	memcpy(buf + n, " s, ", 4);
	n += 4;
	n += fmt_u(buf + n, (unsigned long)progress_hits);
	memcpy(buf + n, " hits  ", 7);
	n += 7;
	if (write(STDERR_FILENO, buf, n) < 0)
		progress_on = 0;
}

static void
progress_start(void)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = 250000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void
progress_stop(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	if (progress_on)
		(void)!write(STDERR_FILENO, "\n", 1);
	progress_on = 0;
}

static const struct option longopts[] = {
	{ "json",	no_argument,		NULL, 'j' },
	{ "table",	no_argument,		NULL, 't' },
	{ "samples",	required_argument,	NULL, 's' },
	{ "progress",	no_argument,		NULL, 'p' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

int
main(int argc, char *argv[])
{
	struct wp_reader rd;
	struct wp_record rec;
	struct wp_report *r;
	json_object *rep;
	const char *name;
	FILE *in;
	uint64_t nsamples = 16;
	int ch, json = 0, rc, complete, progress = 0;
	long nbad;

	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 't':
			json = 0;
			break;
		case 's':
			if (wp_parse_u64(optarg, &nsamples) == -1 ||
			    nsamples > 1000000)
				errx(WP_EXIT_USAGE, "--samples %s: not a count "
				    "(0 to 1000000)", optarg);
			break;
		case 'p':
			progress = isatty(STDERR_FILENO);
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			printf("wp-report %s\n", WP_VERSION);
			return 0;
		default:
			usage(WP_EXIT_USAGE);
		}
	}
	if (argc - optind > 1)
		usage(WP_EXIT_USAGE);
	in = wp_record_input(argc - optind == 1 ? argv[optind] : NULL, &name);
	r = wp_report_new((size_t)nsamples);
	wp_record_finish_on_interrupt();
	wp_record_reader_init(&rd, in, name);
	if (progress)
		progress_start();
	while (wp_record_read(&rd, &rec)) {
		wp_report_add(r, &rec);
		if (!progress)
			continue;
		if (strcmp(rec.type, "hit") == 0)
			progress_hits++;
		else if (strcmp(rec.type, "armed") == 0) {
			clock_gettime(CLOCK_MONOTONIC, &progress_t0);
			progress_on = 1;
		} else if (strcmp(rec.type, "observation") == 0)
			progress_stop();
	}
	if (progress)
		progress_stop();
	nbad = rd.nbad;
	wp_record_reader_free(&rd);
	complete = wp_report_complete(r);
	rep = wp_report_json(r, nbad);
	if (json) {
		fputs(json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
		putchar('\n');
	} else
		wp_report_table(rep, stdout);
	rc = fflush(stdout) == EOF || ferror(stdout) ? WP_EXIT_ERROR :
	    !complete ? WP_EXIT_INCOMPLETE : nbad ? WP_EXIT_MALFORMED :
	    WP_EXIT_OK;
	if (rc == WP_EXIT_ERROR)
		warn("stdout");
	else if (!complete)
		warnx("%s: the stream ended without an observation record; "
		    "the report is incomplete", name);
	json_object_put(rep);
	wp_report_free(r);
	if (in != stdin)
		fclose(in);
	return rc;
}
