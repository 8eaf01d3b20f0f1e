/* wp-report: aggregate a decoded stream into the report a user reads. */
#include <sys/ioctl.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html.h"
#include "report.h"
#include "stream.h"
#include "usage.h"
#include "util.h"

struct options {
	int		 json;
	uint64_t	 samples;
	uint64_t	 chains;
	int		 progress;
	const char	*html;		/* --html: the page's file */
	int		 live;		/* 0, or 1 + table (--live) */
	uint64_t	 interval_ms;	/* --interval */
	const char	*file;
	const char	*label;		/* --label: the stream's name */
};

static const char usage_text[] =
    "usage: wp-report [--json | --table] [--samples n] [--chains n] "
    "[--progress]\n"
    "                 [--live[=table|lines]] [--interval duration] "
    "[--html page]\n"
    "                 [--label name] [file]\n";

static const struct wp_opt opts[] = {
	{ 'j', "--json", "one JSON document" },
	{ 't', "--table", "a table for people (the default)" },
	{ 's', "--samples n", "samples kept per target, 0 to 1000000 (default "
	    "16)" },
	{ 'c', "--chains n", "call chains shown per writer, 0 to 64 (default "
	    "5)" },
	{ 'p', "--progress", "a live line on standard error, when it is a "
	    "terminal" },
	{ 'H', "--html page", "also write the report as one HTML page, with "
	    "timelines" },
	{ 'L', "--live[=how]", "the counts so far on standard error: a table "
	    "redrawn (the default on a terminal) or a line per interval" },
	{ 'i', "--interval duration", "how often --live draws (default 1s)" },
	{ 'l', "--label name", "the stream's name in messages (default: file, "
	    "else stdin); wp report gives the file it decoded" },
	{ 0, NULL, NULL }
};

static const struct wp_usage use = { "wp-report", usage_text, opts, "report" };

/* --live[=table|lines]: a table where standard error is a terminal. */
static void
live_option(struct options *op, const char *how)
{
	if (how == NULL)
		op->live = 1 + isatty(STDERR_FILENO);
	else if (strcmp(how, "table") == 0)
		op->live = 2;
	else if (strcmp(how, "lines") == 0)
		op->live = 1;
	else
		errx(WP_EXIT_USAGE, "--live=%s: not table or lines", how);
}

static void
parse_options(int argc, char *argv[], struct options *op)
{
	int ch;

	memset(op, 0, sizeof *op);
	op->samples = 16;
	op->chains = 5;
	op->interval_ms = 1000;
	while ((ch = wp_getopt(argc, argv, &use)) != -1) {
		switch (ch) {
		case 'j':
		case 't':
			op->json = ch == 'j';
			break;
		case 's':
			op->samples = wp_opt_number("--samples", optarg, 0,
			    1000000, "a count");
			break;
		case 'c':
			op->chains = wp_opt_number("--chains", optarg, 0,
			    MAXCHAINS, "a count");
			break;
		case 'p':
			op->progress = isatty(STDERR_FILENO);
			break;
		case 'H':
			op->html = optarg;
			break;
		case 'l':
			op->label = optarg;
			break;
		case 'L':
			live_option(op, optarg);
			break;
		case 'i':
			if (wp_parse_duration_ms(optarg, &op->interval_ms) == -1)
				errx(WP_EXIT_USAGE, "--interval %s: not a "
				    "duration (10 for seconds, 500ms, 1.5s)",
				    optarg);
			if (op->interval_ms > 86400000)
				op->interval_ms = 86400000;
			break;
		}
	}
	op->file = wp_opt_stream(argc, argv, &use);
}

/* The table's width: $COLUMNS, else the terminal's, else 0 (a file or
   a pipe: as wide as its lines need). */
static size_t
columns(void)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	uint64_t n;

	if (c != NULL && c[strspn(c, "0123456789")] == '\0' &&
	    wp_parse_u64(c, &n) == 0 && n > 0)
		return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ,
	    &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

/*
 * Reads the stream into r (and tl, unless NULL); returns the number of
 * malformed lines, and sets *failed when a read failed (the stream ends
 * there).
 */
static long
read_all(struct report *r, struct timeline *tl, FILE *in, const char *name,
    const struct options *op, int *failed)
{
	int progress = op->progress && !op->live;

	struct wp_reader rd;
	struct wp_record rec;
	long nbad;
	int rc;

	wp_reader_init(&rd, in, name);
	if (progress)
		progress_start();
	if (op->live)
		live_start(r, tl, op->live == 2, (long)op->interval_ms);
	while ((rc = wp_stream_read(&rd, &rec)) != 0) {
		if (rc == -1) {
			warnx("%s", rd.err.msg);
			continue;
		}
		if (op->live)
			live_lock();
		report_add(r, &rec);
		if (tl != NULL)
			timeline_record(tl, r, &rec);
		if (op->live) {
			live_record(&rec);
			live_unlock();
		}
		if (progress)
			progress_record(&rec);
	}
	if (progress)
		progress_stop();
	if (op->live)
		live_stop();
	nbad = rd.nbad;
	*failed = rd.failed;
	wp_reader_free(&rd);
	return nbad;
}

/* The page of --html into hf, then closed and put in its place: 0, or
   -1 (said, and no page left). */
static int
write_html(const struct options *op, const struct report *r,
    const struct timeline *tl, FILE *hf, struct wp_out *page)
{
	struct wp_error e;
	int bad;

	bad = report_html(r, tl, hf) == -1 || fflush(hf) == EOF;
	if (fclose(hf) == EOF)
		bad = 1;
	if (bad) {
		warn("--html %s", op->html);
		wp_out_discard(page);
		return -1;
	}
	if (wp_out_commit(page, &e) == -1) {
		warnx("--html %s: %s", op->html, e.msg);
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct options op;
	struct report r;
	struct timeline tl;
	FILE *hf = NULL;
	struct wp_out page = { 0 };
	struct wp_error e;
	struct wp_jw doc = { 0 };
	const char *name;
	FILE *in;
	long nbad;
	int rc, fd = -1, html_failed = 0, read_failed, out_failed;

	parse_options(argc, argv, &op);
	/* a reader that closed the pipe (head) is seen on write: status 1 */
	signal(SIGPIPE, SIG_IGN);
	if ((in = wp_stream_open(op.file, &name)) == NULL)
		err(WP_EXIT_ERROR, "%s", op.file);
	if (op.label != NULL)
		name = op.label;
	if (op.html != NULL && ((fd = wp_out_create(&page, op.html, &e)) ==
	    -1 || (hf = fdopen(fd, "w")) == NULL)) {
		wp_out_discard(&page);
		errx(WP_EXIT_ERROR, "--html %s: %s", op.html, fd == -1 ? e.msg :
		    strerror(errno));
	}
	timeline_init(&tl);
	report_init(&r, (size_t)op.samples, (size_t)op.chains);
	wp_stream_finish_on_interrupt();
	nbad = read_all(&r, hf || op.live ? &tl : NULL, in, name, &op,
	    &read_failed);
	report_view(&r, nbad);
	if (hf != NULL && write_html(&op, &r, &tl, hf, &page) == -1)
		html_failed = 1;
	if (op.json) {
		report_document(&r, &doc);
		fwrite(doc.buf, 1, doc.len, stdout);
		putchar('\n');
	} else
		report_table(&r, stdout, columns());
	out_failed = fflush(stdout) == EOF || ferror(stdout);
	rc = out_failed || html_failed || read_failed ? WP_EXIT_ERROR :
	    !report_complete(&r) ? WP_EXIT_INCOMPLETE : nbad ?
	    WP_EXIT_MALFORMED : WP_EXIT_OK;
	if (out_failed && !html_failed && errno != EPIPE)
		warn("stdout");
	else if (!report_complete(&r))
		warnx("%s: the stream ended without an observation record; "
		    "the report is incomplete", name);
	wp_jw_free(&doc);
	timeline_free(&tl);
	report_free(&r);
	if (in != stdin)
		fclose(in);
	return rc;
}
