/* Fuzzes the stream reader: lib/stream.c, lib/json.c, the record check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "record.h"
#include "stream.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *out;

	(void)argc;
	(void)argv;
	if ((out = fopen("/dev/null", "we")) == NULL)
		abort();
	wp_stream_out_init(out);
	return 0;
}

/*
 * What the writer makes of a string read is one valid JSON object that
 * reads back as the same string.
 */
static void
rewrite(const struct wp_json *j, int v)
{
	struct wp_jw w;
	struct wp_json back;
	char *s, *t;
	size_t n;

	memset(&w, 0, sizeof w);
	memset(&back, 0, sizeof back);
	s = wp_json_strdup(j, v);
	n = strlen(s);
	wp_jw_obj(&w, NULL);
	wp_jw_strn(&w, "s", s, n);
	wp_jw_end(&w);
	if (wp_json_parse(&back, w.buf, w.len) == -1)
		abort();
	t = wp_json_strdup(&back, wp_json_get(&back, 0, "s"));
	if (t == NULL || strcmp(s, t) != 0)
		abort();
	free(t);
	free(s);
	wp_json_free(&back);
	wp_jw_free(&w);
}

/* Every typed read of every value, as the tools make them. */
static void
walk(const struct wp_json *j)
{
	uint64_t u;
	int64_t i;
	size_t k, len;
	char buf[64];
	int b;

	for (k = 0; k < j->nt; k++) {
		wp_json_int(j, (int)k, &i);
		wp_json_hex(j, (int)k, &u);
		wp_json_shex(j, (int)k, &i);
		wp_json_bool(j, (int)k, &b);
		wp_json_str(j, (int)k, buf, sizeof buf);
		wp_json_count(j, (int)k);
		wp_json_raw(j, (int)k, &len);
		if (j->t[k].type == WP_JSTRING)
			rewrite(j, (int)k);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char extra[] = ",\"fuzz\":true";
	struct wp_reader rd;
	struct wp_record rec;
	struct wp_session s;
	struct wp_spec sp;
	struct wp_error e;
	FILE *in;
	int rc;

	if ((in = fmemopen((void *)(uintptr_t)data, size, "r")) == NULL)
		return 0;
	wp_reader_init(&rd, in, "fuzz");
	while ((rc = wp_stream_read(&rd, &rec)) != 0) {
		if (rc == -1)
			continue;
		walk(rec.j);
		if (wp_rec_read_session(&rec, &s, &e) == 0)
			wp_session_free(&s);
		wp_rec_read_target(&rec, &sp, &e);
		wp_rec_read_follow(&rec, &sp, &e);
		wp_stream_pass(&rec);
		wp_stream_append(&rec, extra, sizeof extra - 1);
	}
	wp_stream_flush();
	wp_reader_free(&rd);
	fclose(in);
	return 0;
}
