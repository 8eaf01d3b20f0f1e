/*
 * The stream into wp-arm: every record is passed on as it comes, and
 * the session, target and follow records say what to watch.
 */
#include <err.h>
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

/* Takes what one record says; -1 when it is wrong (reported). */
static int
take(struct watch *w, const struct wp_record *rec, int *have_session)
{
	struct wp_session s;
	struct wp_spec sp;
	struct wp_error err;
	int rc = 0;

	if (strcmp(rec->type, "session") == 0 && !*have_session) {
		if ((rc = wp_rec_read_session(rec, &s, &err)) == 0) {
			w->pid = s.pid;
			w->start_time = s.start_time;
			*have_session = 1;
			wp_session_free(&s);
		}
	} else if (strcmp(rec->type, "target") == 0) {
		if ((rc = wp_rec_read_target(rec, &sp, &err)) == 0)
			add_target(w, &sp);
	} else if (strcmp(rec->type, "follow") == 0) {
		if ((rc = wp_rec_read_follow(rec, &sp, &err)) == 0)
			follow_add(w, &sp);
	}
	if (rc == -1)
		warnx("stdin: line %ld: %s", rec->lineno, err.msg);
	return rc;
}

/*
 * Reads the stream to its end, passing every record on.  Returns 0, or
 * -1 when there is nothing to watch or the output is closed; *nbad is
 * the number of lines that were not records.
 */
int
input_read(struct watch *w, long *nbad)
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
		if (wp_stream_pass(&rec) == -1) {
			warn("stdout");
			wp_reader_free(&rd);
			return -1;
		}
		if (take(w, &rec, &have_session) == -1)
			bad = 1;
	}
	*nbad = rd.nbad;
	wp_reader_free(&rd);
	if (wp_stream_flush() == -1) {
		warn("stdout");
		return -1;
	}
	if (!have_session) {
		warnx("stdin: no session record: nothing to watch "
		    "(feed it the output of wp-resolve)");
		return -1;
	}
	if (w->nt == 0 && !bad) {
		warnx("stdin: no target records: nothing to watch");
		return -1;
	}
	return bad ? -1 : 0;
}
