/*
 * The stream into wp-arm: every record is passed on as it comes, and
 * the session, target and follow records say what to watch.
 */
#include <err.h>
#include <errno.h>
#include <string.h>

#include "record.h"
#include "stream.h"
#include "util.h"
#include "watch.h"

static void
add_target(struct watch *w, const struct wp_spec *sp)
{
	struct wtarget *t;

	w->t = wp_xrealloc(w->t, (w->nt + 1) * sizeof *w->t);
	t = &w->t[w->nt++];
	memset(t, 0, sizeof *t);
	t->id = sp->id;
	t->addr = sp->addr;
	t->len = (int)sp->len;
	t->rw = sp->rw;
	t->chain = -1;
	t->armed = 1;
}

/* The session: the first, or one that says the same; -1 (e set). */
static int
take_session(struct watch *w, const struct wp_session *s, int *have_session,
    struct wp_error *e)
{
	if (*have_session && (s->pid != w->pid ||
	    s->start_time != w->start_time))
		return wp_error_set(e, WP_EXIT_ERROR, "a second session "
		    "record (pid %d): wp-arm watches one process, pid %d's "
		    "(two streams of wp-resolve joined?)", (int)s->pid,
		    (int)w->pid);
	w->pid = s->pid;
	w->start_time = s->start_time;
	*have_session = 1;
	return 0;
}

/* -1 (e set) when a target or follow record already took id. */
static int
id_taken(const struct watch *w, int id, struct wp_error *e)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].id == id)
			return wp_error_set(e, WP_EXIT_ERROR, "id %d again: "
			    "each target and follow record of a session has "
			    "its own", id);
	return 0;
}

/* Takes what one record says; -1 when it is wrong (reported). */
static int
take(struct watch *w, const struct wp_record *rec, int *have_session)
{
	struct wp_session s;
	struct wp_spec sp;
	struct wp_error err;
	int rc = 0;

	if (rec->kind == WP_REC_SESSION) {
		if ((rc = wp_rec_read_session(rec, &s, &err)) == 0) {
			rc = take_session(w, &s, have_session, &err);
			wp_session_free(&s);
		}
	} else if (rec->kind == WP_REC_TARGET) {
		if ((rc = wp_rec_read_target(rec, &sp, &err)) == 0 &&
		    (rc = id_taken(w, sp.id, &err)) == 0)
			add_target(w, &sp);
	} else if (rec->kind == WP_REC_SITE) {
		w->sites = wp_xrealloc(w->sites, (w->nsites + 1) *
		    sizeof *w->sites);
		if ((rc = wp_rec_read_site(rec, &w->sites[w->nsites],
		    &err)) == 0)
			w->nsites++;
	} else if (rec->kind == WP_REC_FOLLOW) {
		if ((rc = wp_rec_read_follow(rec, &sp, &err)) == 0 &&
		    (rc = id_taken(w, sp.id, &err)) == 0)
			follow_add(w, &sp);
	}
	if (rc == -1)
		warnx("stdin: line %ld: %s", rec->lineno, err.msg);
	return rc;
}

/*
 * Reads the stream to its end, passing every record on.  Returns 0, or
 * -1 with e set when there is nothing to watch, -2 when a record was
 * wrong (each named as it came), or -1 when the output is closed (e->status is then
 * WP_EXIT_ERROR and nothing more can be written); *nbad is the number
 * of lines that were not records.
 */
int
input_read(struct watch *w, long *nbad, struct wp_error *e)
{
	struct wp_reader rd;
	struct wp_record rec;
	int have_session = 0, bad = 0, rc;

	wp_reader_init(&rd, stdin, "stdin");
	while ((rc = wp_stream_read(&rd, &rec)) != 0) {
		if (rc == -1) {
			warnx("%s", rd.err.msg);
			continue;
		}
		if (emit_pass(&rec) == -1) {
			wp_error_set(e, WP_EXIT_ERROR, "stdout: %s",
			    strerror(errno));
			wp_reader_free(&rd);
			return -1;
		}
		if (take(w, &rec, &have_session) == -1)
			bad = 1;
	}
	*nbad = rd.nbad;
	wp_reader_free(&rd);
	if (emit_flush(w) == -1)
		return wp_error_set(e, WP_EXIT_ERROR, "stdout: %s",
		    strerror(errno));
	if (!have_session)
		return wp_error_set(e, WP_EXIT_ERROR, "stdin: no session "
		    "record: nothing to watch (feed it the output of "
		    "wp-resolve)");
	if (w->nt == 0 && w->nsites == 0 && !bad)
		return wp_error_set(e, WP_EXIT_ERROR, "stdin: no target "
		    "records: nothing to watch");
	if (bad) {
		/* each was named as it came */
		wp_error_set(e, WP_EXIT_ERROR, "stdin: a session, target or "
		    "follow record is wrong: nothing is watched");
		return -2;
	}
	return 0;
}
