/* wp-decode: add the writer instruction and written value to each hit. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "record.h"
#include "util.h"

static void
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: wp-decode [file]\n");
	exit(status);
}

static const struct option longopts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{ "version",	no_argument,	NULL, 'V' },
	{ NULL,		0,		NULL, 0 }
};

int
main(int argc, char *argv[])
{
	struct wp_decoder *d;
	struct wp_reader rd;
	struct wp_record rec;
	const char *name;
	FILE *in;
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
			break;
		case 'V':
			printf("wp-decode %s\n", WP_VERSION);
			return 0;
		default:
			usage(WP_EXIT_USAGE);
		}
	}
	if (argc - optind > 1)
		usage(WP_EXIT_USAGE);
	in = wp_record_input(argc - optind == 1 ? argv[optind] : NULL, &name);
	wp_record_out_init(stdout);
	wp_record_finish_on_interrupt();
	wp_record_reader_init(&rd, in, name);
	d = wp_decode_new();
	while (wp_record_read(&rd, &rec)) {
		const char *raw;
		size_t rl;

		if (strcmp(rec.type, "hit") == 0 &&
		    wp_record_raw(&rec, "writer", &raw, &rl) == -1)
			rc = wp_record_append(&rec, wp_decode_hit(d, &rec));
		else {
			if (strcmp(rec.type, "session") == 0)
				wp_decode_session(d, wp_record_obj(&rec));
			else if (strcmp(rec.type, "target") == 0 &&
			    wp_decode_target(d, wp_record_obj(&rec)) == -1)
				warnx("%s: line %ld: target record without id "
				    "or runtime_addr", name, rec.lineno);
			rc = wp_record_pass(&rec);
		}
		if (rc == -1)
			break;
	}
	if (rc == -1 || wp_record_out_flush() == -1) {
		warnx("stdout closed after line %ld of %s", rd.lineno, name);
		rc = WP_EXIT_ERROR;
	} else
		rc = rd.nbad ? WP_EXIT_MALFORMED : WP_EXIT_OK;
	wp_record_reader_free(&rd);
	wp_decode_free(d);
	if (in != stdin)
		fclose(in);
	return rc;
}
