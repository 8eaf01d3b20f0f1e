/* Fuzzes wp-report: aggregate, document, table, page (cmd/wp-report). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report.h"
#include "stream.h"

#define SAMPLES	4	/* small, for samples_truncated */

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static FILE *devnull;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((devnull = fopen("/dev/null", "we")) == NULL)
		abort();
	return 0;
}

/* The table's width, as COLUMNS may give it: one of these, by the input. */
static size_t
width_of(const uint8_t *data, size_t size)
{
	static const size_t w[] = { 1, 2, 8, 40, 59, 60, 61, 80, 100, 101,
	    132, 200, 1023, 1024, 1025, 4096, SIZE_MAX };
	size_t i, sum = 0;

	for (i = 0; i < size; i++)
		sum += data[i];
	return w[sum % (sizeof w / sizeof w[0])];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report r;
	struct timeline tl;
	struct wp_reader rd;
	struct wp_record rec;
	struct wp_jw doc = { 0 };
	FILE *in;
	int rc;

	if ((in = fmemopen((void *)(uintptr_t)data, size, "r")) == NULL)
		return 0;
	report_init(&r, SAMPLES, 5);
	timeline_init(&tl);
	wp_reader_init(&rd, in, "fuzz");
	while ((rc = wp_stream_read(&rd, &rec)) != 0)
		if (rc == 1) {
			report_add(&r, &rec);
			timeline_record(&tl, &r, &rec);
		}
	report_view(&r, rd.nbad);
	report_table(&r, devnull, width_of(data, size));
	report_html(&r, &tl, devnull);
	report_document(&r, &doc);
	if (doc.buf == NULL)
		abort();
	fputs(doc.buf, devnull);
	report_complete(&r);
	wp_jw_free(&doc);
	timeline_free(&tl);
	report_free(&r);
	wp_reader_free(&rd);
	fclose(in);
	return 0;
}
