/* Fuzzes wp-decode's loop: sessions, targets, hits (cmd/wp-decode). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "stream.h"
#include "util.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *out;

	(void)argc;
	(void)argv;
	/* build-ids from the input are never asked of a server */
	unsetenv("DEBUGINFOD_URLS");
	if ((out = fopen("/dev/null", "we")) == NULL)
		abort();
	wp_stream_out_init(out);
	return 0;
}

/* cmd/wp-decode/main.c's one(), less its message. */
static void
one(struct decoder *d, const struct wp_record *rec)
{
	const struct wp_jw *add;
	struct wp_error err;

	if (strcmp(rec->type, "hit") == 0 || strcmp(rec->type, "tally") == 0) {
		wp_rec_read_hit(rec, &d->hit);
		if (d->hit.has_writer) {
			wp_stream_pass(rec);
			return;
		}
		add = decoder_hit(d, &d->hit);
		wp_stream_append(rec, add->buf, add->len);
		return;
	}
	if (strcmp(rec->type, "session") == 0)
		decoder_session(d, rec, &err);
	else if (strcmp(rec->type, "target") == 0)
		decoder_target(d, rec, &err);
	wp_stream_pass(rec);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decoder d;
	struct wp_reader rd;
	struct wp_record rec;
	FILE *in;
	int rc;

	if ((in = fmemopen((void *)(uintptr_t)data, size, "r")) == NULL)
		return 0;
	wp_reader_init(&rd, in, "fuzz");
	decoder_init(&d);
	while ((rc = wp_stream_read(&rd, &rec)) != 0)
		if (rc == 1)
			one(&d, &rec);
	wp_stream_flush();
	wp_reader_free(&rd);
	decoder_free(&d);
	fclose(in);
	return 0;
}
