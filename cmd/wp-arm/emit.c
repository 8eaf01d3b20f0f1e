/*
 * The one place where records leave wp-arm: the records read on stdin,
 * passed on, and every record a watch makes.  The records are built by
 * lib/record.c (wp_rec_*) from what the callers filled in; each is
 * written here as a line, and a closed output is noted once
 * (w->output_closed), for the loop to stop on.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "record.h"
#include "stream.h"
#include "util.h"
#include "watch.h"

/* rc of a write: -1 notes the output closed. */
static int
written(struct watch *w, int rc)
{
	if (rc == -1)
		w->output_closed = 1;
	return rc;
}

/* How put writes a record: a hit gives way first, the last ones wait. */
enum put_how { PUT_RECORD, PUT_HIT, PUT_LAST };

/*
 * Writes w->jw as a line; -1 (and output_closed set) when it cannot, 1
 * when the output did not take it in time (counted).  Hits are what a
 * slow reader loses: the other records keep the room that hits leave
 * (wp_stream_write_bulk).  Once the watch stops, the last records wait
 * for the reader.
 */
static int
put(struct watch *w, enum put_how how)
{
	int rc;

	if (w->output_closed)
		return -1;
	if (how == PUT_LAST && watch_stopping(w) && written(w,
	    wp_stream_nonblock(0)) == -1)
		return -1;
	rc = how == PUT_HIT ? wp_stream_write_bulk(&w->jw) :
	    wp_stream_write_jw(&w->jw);
	if (rc == 1)
		w->undelivered++;
	return written(w, rc);
}

/* Hit h, dropped: its target's, counted as lost. */
static void
undelivered_hit(struct watch *w, const struct wp_hit_rec *h)
{
	size_t i;
	int role, level;

	w->undelivered_hits++;
	for (i = 0; i < w->nt; i++) {
		watch_role(w, i, &role, &level);
		if (w->t[i].id == h->target && role == h->role &&
		    (role == WP_ROLE_NONE || level == h->level)) {
			w->t[i].undelivered++;
			return;
		}
	}
}

int
emit_flush(struct watch *w)
{
	return written(w, wp_stream_flush());
}

int
emit_pass(const struct wp_record *rec)
{
	return wp_stream_pass(rec);
}

int
emit_armed(struct watch *w)
{
	struct wp_armed_initial *in = wp_xcalloc(w->nt + 1, sizeof *in);
	size_t i, n = 0;
	int rc;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].chain < 0) {
			in[n].id = w->t[i].id;
			in[n].known = w->t[i].has_initial;
			in[n++].value = w->t[i].initial;
		}
	w->armed.initial = in;
	w->armed.ninitial = n;
	w->armed.backend = BK_NAME(w->backend);
	w->armed.pid = w->pid;
	w->armed.targets = w->nt;
	w->armed.regs = w->regs;
	w->armed.time_base_ns = w->t0;
	w->armed.duration_ms = w->duration_ms >= DURATION_INF_MS ? -1 :
	    (long)w->duration_ms;
	wp_rec_armed(&w->jw, &w->armed);
	w->armed.initial = NULL;
	w->armed.ninitial = 0;
	free(in);
	if ((rc = put(w, PUT_RECORD)) == -1)
		return -1;
	if (emit_flush(w) == -1)
		return -1;
	wp_stream_nonblock(1);
	return 0;
}

int
emit_hit(struct watch *w, const struct wp_hit_rec *h)
{
	int rc;

	wp_rec_hit(&w->jw, h);
	if ((rc = put(w, PUT_HIT)) == 1)
		undelivered_hit(w, h);
	return rc == -1 ? -1 : 0;
}

int
emit_thread(struct watch *w, const struct wp_thread_rec *t)
{
	struct wp_thread_rec named = *t;
	char comm[64];

	/* named when first seen: as it starts, is seeded, or fails */
	if (named.comm == NULL && strcmp(t->event, "exit") != 0 &&
	    strcmp(t->event, "fork_process") != 0 &&
	    wp_proc_comm(w->pid, t->tid, comm, sizeof comm) == 0)
		named.comm = comm;
	wp_rec_thread(&w->jw, &named);
	return put(w, PUT_RECORD);
}

/*
 * emit_NAME(w, r): the record wp_rec_NAME builds from r, put as how says
 * (emit_count, emit_tally, emit_last_write).
 */
#define EMIT_PLAIN(name, how)						\
int									\
emit_##name(struct watch *w, const struct wp_##name##_rec *r)		\
{									\
	wp_rec_##name(&w->jw, r);					\
	return put(w, how);						\
}

EMIT_PLAIN(count, PUT_RECORD)
EMIT_PLAIN(tally, PUT_LAST)	/* the last records wait for the reader */
EMIT_PLAIN(last_write, PUT_LAST)
EMIT_PLAIN(access, PUT_LAST)

int
emit_lost(struct watch *w, uint64_t n, int cpu, int64_t time_ns)
{
	wp_rec_lost(&w->jw, n, cpu, time_ns);
	return put(w, PUT_RECORD);
}

int
emit_rebind(struct watch *w, const struct wp_rebind_rec *r)
{
	wp_rec_rebind(&w->jw, r);
	if (put(w, PUT_RECORD) == -1)
		return -1;
	wp_stream_flush();	/* scripts may wait on it */
	return 0;
}

int
emit_observation(struct watch *w, const struct wp_observation *o)
{
	wp_rec_observation(&w->jw, o);
	if (written(w, wp_stream_nonblock(0)) == -1 ||
	    put(w, PUT_RECORD) == -1 || wp_stream_flush() == -1)
		return -1;
	return 0;
}

int
emit_wait_reader(struct watch *w)
{
	return written(w, wp_stream_nonblock(0));
}

void
emit_hold(void)
{
	wp_stream_hold();
}

int
emit_release(struct watch *w)
{
	return written(w, wp_stream_release());
}
