/* wp-decode: add the writer instruction and written value to each hit. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dwfl.h"
#include "stream.h"
#include "usage.h"
#include "util.h"

static const char usage_text[] =
    "usage: wp-decode [--live] [--module-dir dir]... [--bin file]...\n"
    "                 [--debug-file file]... [--debug-dir dir]... [file]\n";

static const struct wp_opt opts[] = {
	{ 'L', "--live", "read code that is in no file from the live process "
	    "(the stream comes from wp-arm, now)" },
	{ 'M', "--module-dir dir", "where module files are, found by build-id "
	    "(and their debug files)" },
	{ 'B', "--bin file", "a module file, for the module of its build-id" },
	{ 'D', "--debug-file file", "a separate debug file, for the module of "
	    "its build-id" },
	{ 'G', "--debug-dir dir", "where debug files are (default "
	    "/usr/lib/debug)" },
	{ 0, NULL, NULL }
};

static const struct wp_usage use = { "wp-decode", usage_text, opts, "decode" };

/* An option's file (optarg) that cannot be used, rc -1: exit 64. */
static void
usable(const char *opt, int rc, const struct wp_error *e)
{
	if (rc == -1)
		errx(WP_EXIT_USAGE, "%s %s: %s", opt, optarg, e->msg);
}

static const char *
parse_options(int argc, char *argv[])
{
	struct wp_error e;
	int ch;

	while ((ch = wp_getopt(argc, argv, &use)) != -1) {
		switch (ch) {
		case 'B':
			usable("--bin", image_add_bin(optarg, &e), &e);
			break;
		case 'L':
			image_allow_live();
			break;
		case 'M':
			image_add_module_dir(optarg);
			break;
		case 'D':
			usable("--debug-file", wp_dwfl_debug_file(optarg, &e),
			    &e);
			break;
		case 'G':
			wp_dwfl_debug_dir(optarg);
			break;
		}
	}
	return wp_opt_stream(argc, argv, &use);
}

/* Decodes or passes on one record; -1 when the output is closed. */
static int
one(struct decoder *d, const struct wp_record *rec, const char *name)
{
	const struct wp_jw *add;
	struct wp_error err;
	uint64_t addr;
	int rc = 0;

	if (rec->kind == WP_REC_HIT || rec->kind == WP_REC_TALLY ||
	    rec->kind == WP_REC_LAST_WRITE) {
		wp_rec_read_hit(rec, &d->hit);
		if (d->hit.has_writer)
			return wp_stream_pass(rec);
		add = decoder_hit(d, &d->hit);
		return wp_stream_append(rec, add->buf, add->len);
	}
	if (rec->kind == WP_REC_ACCESS && wp_rec_get(rec, "name") == -1 &&
	    wp_rec_hex(rec, "addr", &addr) == 0 &&
	    (add = decoder_access(d, addr)) != NULL)
		return wp_stream_append(rec, add->buf, add->len);
	if (rec->kind == WP_REC_SESSION)
		rc = decoder_session(d, rec, &err);
	else if (rec->kind == WP_REC_TARGET)
		rc = decoder_target(d, rec, &err);
	else if (rec->kind == WP_REC_ARMED)
		decoder_armed(d, rec);
	if (rc == -1)
		warnx("%s: line %ld: %s", name, rec->lineno, err.msg);
	return wp_stream_pass(rec);
}

int
main(int argc, char *argv[])
{
	struct decoder d;
	struct wp_reader rd;
	struct wp_record rec;
	const char *arg, *name;
	FILE *in;
	int rc = 0;

	arg = parse_options(argc, argv);
	wp_need_fds("wp-decode", 16);
	if ((in = wp_stream_open(arg, &name)) == NULL)
		err(WP_EXIT_ERROR, "%s", arg);
	wp_stream_out_init(stdout);
	wp_stream_finish_on_interrupt();
	wp_reader_init(&rd, in, name);
	decoder_init(&d);
	while ((rc = wp_stream_read(&rd, &rec)) != 0) {
		if (rc == -1)
			warnx("%s", rd.err.msg);
		else if ((rc = one(&d, &rec, name)) == -1)
			break;
	}
	if (rc == -1 || wp_stream_flush() == -1) {
		warnx("stdout closed after line %ld of %s", rd.lineno, name);
		rc = WP_EXIT_ERROR;
	} else
		rc = rd.failed ? WP_EXIT_ERROR : rd.nbad ? WP_EXIT_MALFORMED :
		    WP_EXIT_OK;
	wp_reader_free(&rd);
	decoder_free(&d);
	if (in != stdin)
		fclose(in);
	return rc;
}
