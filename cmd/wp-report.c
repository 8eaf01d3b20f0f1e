/* wp-report: aggregate a decoded stream into the report a user reads. */
#include <err.h>
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
	    "usage: wp-report [--json | --table] [--samples n] [file]\n");
	exit(status);
}

static const struct option longopts[] = {
	{ "json",	no_argument,		NULL, 'j' },
	{ "table",	no_argument,		NULL, 't' },
	{ "samples",	required_argument,	NULL, 's' },
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
	const char *name = "stdin";
	FILE *in = stdin;
	uint64_t nsamples = 16;
	int ch, json = 0, rc, complete;
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
	if (argc - optind == 1 && strcmp(argv[optind], "-") != 0) {
		name = argv[optind];
		if ((in = fopen(name, "re")) == NULL)
			err(WP_EXIT_ERROR, "%s", name);
	}
	r = wp_report_new((size_t)nsamples);
	wp_record_reader_init(&rd, in, name);
	while (wp_record_read(&rd, &rec))
		wp_report_add(r, &rec);
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
