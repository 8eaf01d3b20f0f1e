/*
 * wp-arm --last: the last writes to each target before the process
 * died or exited (last_write records), kept per target; the table
 * prints them first (table_last), the JSON document too (doc_last).
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "report.h"
#include "util.h"

#define MAXLAST	256	/* the last writes kept per target */

/* Its "end" member ("SIGSEGV", "exit 0") into t->last_end. */
static void
last_end(const struct wp_hit_in *h, struct rtarget *t)
{
	if (wp_json_str(h->rec->j, h->end_tok, t->last_end,
	    sizeof t->last_end) == -1)
		snprintf(t->last_end, sizeof t->last_end, "the end");
}

void
last_add(struct report *r, const struct wp_hit_in *h, struct rtarget *t)
{
	struct rsample *sm;

	(void)r;
	if (!h->has_seq || !h->has_of || h->of - h->seq > MAXLAST)
		return;
	if (t->lasts == NULL)
		t->lasts = wp_xcalloc(MAXLAST, sizeof *t->lasts);
	if (t->nlasts == MAXLAST) {
		wp_writer_in_free(&t->lasts[0].writer);
		wp_value_in_free(&t->lasts[0].value);
		memmove(t->lasts, t->lasts + 1, --t->nlasts * sizeof *t->lasts);
	}
	sm = &t->lasts[t->nlasts++];
	memset(sm, 0, sizeof *sm);
	sm->trap = h->ip;
	sm->wip = h->exact ? h->writer_ip : 0;
	sm->tid = h->has_tid ? h->tid : -1;
	sm->time_ns = h->time_ns;
	sm->has_writer = wp_rec_read_writer(h, &sm->writer, 1) == 0;
	sm->has_value = wp_rec_read_value(h, &sm->value) == 0;
	last_end(h, t);
}

void
last_free(struct rtarget *t)
{
	size_t j;

	for (j = 0; j < t->nlasts; j++) {
		wp_writer_in_free(&t->lasts[j].writer);
		wp_value_in_free(&t->lasts[j].value);
	}
	free(t->lasts);
}
