/*
 * The report document: one JSON object with the process, the
 * observation, whether the counts are a lower bound and why, and per
 * watch its writer sites, threads and samples (field names after the
 * reference tool's live_watch report), written from the view.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

static void
collected(struct wp_jw *w, const char *k, int yes)
{
	wp_jw_obj(w, k);
	wp_jw_bool(w, "collected", yes);
	wp_jw_end(w);
}

static void
capabilities(const struct report *r, struct wp_jw *w)
{
	const struct wp_obs_pass *o = &r->observation;

	wp_jw_obj(w, "capabilities");
	collected(w, "per_thread_watchpoints", r->armed.present || o->present);
	collected(w, "registers", r->regs_seen ||
	    wp_field_bool(&r->armed.regs));
	collected(w, "memory_snapshots", o->present &&
	    o->target_alive_after.text != NULL);
	wp_jw_end(w);
}

static void
process(const struct report *r, struct wp_jw *w)
{
	const struct wp_session_pass *s = &r->session;
	const char *stop = wp_field_str(&r->observation.stop_reason);

	wp_jw_obj(w, "process");
	wp_session_pass_write(w, s);
	wp_field_write(w, "alive_after", &r->observation.target_alive_after);
	if (stop != NULL)
		wp_jw_bool(w, "changed", strcmp(stop,
		    wp_stop_names[WP_STOP_EXEC]) == 0);
	else
		wp_jw_null(w, "changed");
	if (s->warnings.text != NULL)
		wp_field_write(w, "warnings", &s->warnings);
	else {
		wp_jw_arr(w, "warnings");
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

/* The members of "stream", by enum rstream. */
static const char *const stream_keys[RS_N] = {
	"records", "hits", "hits_of_unknown_targets", "lost_records",
	"thread_records", "other_records"
};

static void
stream(const struct report *r, struct wp_jw *w)
{
	size_t i;

	wp_jw_obj(w, "stream");
	for (i = 0; i < RS_N; i++)
		wp_jw_uint(w, stream_keys[i], r->stream[i]);
	wp_jw_int(w, "malformed_lines", r->malformed);
	wp_jw_end(w);
}

static void
watches(const struct report *r, const char *k, int follows,
    struct wp_jw *w)
{
	size_t i;

	wp_jw_arr(w, k);
	for (i = 0; i < r->nt; i++)
		if (r->t[i].follow == follows) {
			if (follows)
				doc_follow(r, &r->t[i], w);
			else
				doc_watch(r, &r->t[i], w);
		}
	wp_jw_end(w);
}

/* What the chains shown tell: each note's name and text, one line. */
static void
notes(const struct report *r, struct wp_jw *w)
{
	char text[512], *p;
	int n;

	wp_jw_arr(w, "notes");
	for (n = 0; n < RN_N; n++) {
		if (!r->notes[n])
			continue;
		snprintf(text, sizeof text, "%s", report_note_text(r, n));
		for (p = text; (p = strchr(p, '\n')) != NULL;)
			*p = ' ';
		wp_jw_obj(w, NULL);
		wp_jw_str(w, "note", report_note_names[n]);
		wp_jw_str(w, "text", text);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

void
report_document(const struct report *r, struct wp_jw *w)
{
	const struct wp_obs_pass *o = &r->observation;
	size_t i;

	wp_jw_obj(w, NULL);
	wp_rec_made_by(w, "wp");
	wp_jw_str(w, "operation", "live_watch");
	wp_jw_str(w, "backend", r->backend);
	wp_jw_bool(w, "complete", o->present);
	wp_jw_str(w, "incomplete_reason", o->present ? NULL :
	    "the stream ended without an observation record: the watch was "
	    "killed or is still running");
	capabilities(r, w);
	process(r, w);
	if (o->present)
		wp_jw_raw(w, "observation", o->json, strlen(o->json));
	else
		wp_jw_null(w, "observation");
	wp_jw_bool(w, "counts_are_lower_bound", r->nreasons > 0);
	wp_jw_arr(w, "lower_bound_reasons");
	for (i = 0; i < r->nreasons; i++)
		wp_jw_str(w, NULL, wp_bound_names[r->reasons[i]]);
	wp_jw_end(w);
	notes(r, w);
	watches(r, "watches", 0, w);
	watches(r, "dependent_watches", 1, w);
	access_document(r, w);
	stream(r, w);
	wp_jw_end(w);
}
