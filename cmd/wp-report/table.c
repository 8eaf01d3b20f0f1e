/*
 * The report as a table for people: the process and the watch, then
 * per target its writers, threads and samples (table-watch.c), then the
 * follow chains.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* A duration of ms milliseconds in two digits: "399 ms", "5.2 ms", "13 us". */
static void
fmt_dur(char *b, size_t sz, double ms)
{
	if (ms >= 10)
		snprintf(b, sz, "%.0f ms", ms);
	else if (ms >= 0.01)
		snprintf(b, sz, "%.2g ms", ms);
	else
		snprintf(b, sz, "%.2g us", ms * 1000);
}

/* A pace n times slower than native. */
static void
fmt_pace(char *b, size_t sz, double n)
{
	if (n < 1.05)
		snprintf(b, sz, "about native speed");
	else
		snprintf(b, sz, n < 10 ? "1/%.1f of native speed" :
		    "1/%.0f of native speed", n);
}

/*
 * A page-backend target whose own time between two stops (a fault, a
 * step, a system call) is under this had its time inflated by the
 * stops themselves (the kernel charges part of their entry and return
 * to its user time, and the caches they cool slow it): an upper bound.
 */
#define STOP_OWN_US	100

/*
 * How much of the target's native run time (run, as the observation
 * estimates it: wp-records(7)) the watch covered in the time it took;
 * and, when the ptrace backend's target also waited in system calls,
 * which run at native speed, the pace of its own code apart.  stops:
 * the page backend's (0: none, or another backend).
 */
static void
native_note(const struct wp_obs_pass *o, const struct wp_field *run_us,
    int64_t stops, FILE *f)
{
	double run, took, blocked, code = 0;
	char rs[32], ps[64], bs[32], cs[32], cps[64];

	if (run_us->text == NULL)
		return;
	run = (double)wp_field_int(run_us) / 1000;
	took = (double)wp_field_int(&o->elapsed_ms);
	blocked = (double)wp_field_int(&o->blocked_us) / 1000;
	if (wp_field_int(&o->native_ips) > 0)
		code = (double)wp_field_int(&o->steps) * 1000 /
		    (double)wp_field_int(&o->native_ips);
	if (run <= 0 && wp_field_int(&o->steps) > 0) {
		out(f, "estimate under 1 us of the target's native run time in "
		    "%.1f s: %s instructions stepped\n", took / 1000,
		    wp_field_text(&o->steps));
		return;
	}
	if (run <= 0) {
		out(f, "estimate none of the target's native run time in "
		    "%.1f s: it did not run\n", took / 1000);
		return;
	}
	fmt_dur(rs, sizeof rs, run);
	fmt_pace(ps, sizeof ps, took / run);
	if (stops > 0 && run * 1000 / (double)stops < STOP_OWN_US) {
		out(f, "estimate at most %s of the target's native run time "
		    "in %.1f s (%s or slower)\n", rs, took / 1000, ps);
		out(f, "         it was stopped every %.1f us of its own time "
		    "(faults, steps, system calls): part of each stop's cost "
		    "counts as its own\n", run * 1000 / (double)stops);
		return;
	}
	out(f, "estimate about %s of the target's native run time in %.1f s "
	    "(%s)\n", rs, took / 1000, ps);
	if (blocked < 1 || code <= 0 || took <= blocked)
		return;
	fmt_dur(bs, sizeof bs, blocked);
	fmt_dur(cs, sizeof cs, code);
	fmt_pace(cps, sizeof cps, (took - blocked) / code);
	out(f, "         of which %s in system calls, %s running code at "
	    "%s\n", bs, cs, cps);
}

/*
 * The page backend's slowest second, which the whole watch's pace may
 * average away (a burst of faults in a quiet watch): as native_note
 * says that, an upper bound where the threads stopped more often than
 * once in STOP_OWN_US of their own time in it.
 */
static void
worst_second(const struct wp_obs_pass *o, FILE *f)
{
	double run, span, from;
	int64_t stops;
	char rs[32], ps[64];

	if (o->worst_span_us.text == NULL || o->worst_native_us.text == NULL)
		return;
	run = (double)wp_field_int(&o->worst_native_us) / 1000;
	span = (double)wp_field_int(&o->worst_span_us) / 1000;
	from = (double)wp_field_int(&o->worst_from_us) / 1000;
	stops = wp_field_int(&o->worst_stops);
	if (span <= 0)
		return;
	if (run <= 0) {
		out(f, "         slowest second, from %.1f s: none of the "
		    "target's native run time in %.1f s\n", from / 1000,
		    span / 1000);
		return;
	}
	fmt_dur(rs, sizeof rs, run);
	fmt_pace(ps, sizeof ps, span / run);
	if (stops > 0 && run * 1000 / (double)stops < STOP_OWN_US)
		out(f, "         slowest second, from %.1f s: at most %s of "
		    "its native run time in %.1f s (%s or slower)\n",
		    from / 1000, rs, span / 1000, ps);
	else
		out(f, "         slowest second, from %.1f s: about %s of its "
		    "native run time in %.1f s (%s)\n", from / 1000, rs,
		    span / 1000, ps);
}

/*
 * The page backend's faults: on the watched ranges and by page
 * neighbours (other variables on the watched pages, whose writes fault
 * too and cost as much), and how each was made.
 */
static void
page_note(const struct wp_obs_pass *o, FILE *f)
{
	int64_t nw = wp_field_int(&o->faults_watched);
	int64_t nn = wp_field_int(&o->faults_neighbour);

	out(f, "page     %lld faults: %lld watched, %lld by page "
	    "neighbours (%.1f%%)\n", (long long)(nw + nn), (long long)nw,
	    (long long)nn, nw + nn > 0 ? 100.0 * (double)nn /
	    (double)(nn + nw) : 0.0);
	out(f, "         %s emulated, %s stepped, %s kernel writes\n",
	    wp_field_text(&o->emulated), wp_field_text(&o->stepped),
	    wp_field_text(&o->kernel_writes));
	/* every fault is resolved by the tracer; where it follows the
	   writer's CPU, how often it moved there */
	if (o->tracer_moves.text != NULL)
		out(f, "         each resolved by wp-arm's tracer, which moved "
		    "to the writer's CPU %s times\n", o->tracer_moves.text);
	if (nn > 0 && nn >= nw)
		out(f, "note     most faults were page neighbours': writes to "
		    "other variables on the watched pages\n");
	/* streams of earlier versions count no stops but the faults */
	native_note(o, &o->page_native_run_us, o->page_stops.text != NULL ?
	    wp_field_int(&o->page_stops) : nw + nn, f);
	worst_second(o, f);
}

/* The ptrace and page backends' pace, and the child processes not followed. */
static void
watch_notes(const struct wp_obs_pass *o, FILE *f)
{
	if (o->has_ptrace) {
		out(f, "ptrace   %s steps/s: the target ran one instruction a "
		    "step, one thread at a time\n",
		    wp_field_text(&o->steps_per_second));
		native_note(o, &o->native_run_us, 0, f);
	}
	if (o->lost_undelivered.text != NULL)
		out(f, "note     %s records dropped: the reader did not take "
		    "them in time (output_blocked)\n",
		    o->lost_undelivered.text);
	if (o->has_page)
		page_note(o, f);
	if (wp_field_int(&o->forked) > 0)
		out(f, "note     forked children were not followed: %s\n",
		    wp_field_text(&o->forked));
}

static void
process(const struct report *r, FILE *f)
{
	const struct wp_session_pass *s = &r->session;
	const char *exe = base(wp_field_text(&s->exe));
	char name[PATH_MAX + 80], comm[64];
	size_t i;

	/* started through a link: the name it was started by, then the file
	   (comm is cut to 15 bytes) */
	if (s->comm.text != NULL && strncmp(exe, s->comm.text,
	    strlen(s->comm.text)) != 0)
		snprintf(name, sizeof name, "%s (%s)", printable(comm,
		    sizeof comm, s->comm.text), exe);
	else
		snprintf(name, sizeof name, "%s", exe);
	out(f, "process  pid %s  %s  start %s  binary %s  slide %s\n",
	    wp_field_text(&s->pid), name,
	    wp_field_text(&s->start_time), wp_field_text(&s->binary_match),
	    wp_field_text(&s->pie_slide));
	/* of addresses: sites (instructions) take no slot */
	if (s->pid.text != NULL && s->slot_limit.text == NULL && r->nt > 0)
		out(f, "note     no slot limit: any length and number of "
		    "targets (the page and ptrace backends)\n");
	for (i = 0; i < s->nwarn; i++)
		out(f, "warning  %s\n", s->warn[i]);
}

/*
 * The stopped writer's name, as wp-decode gave it to the writer site of
 * that instruction (function+0xOFF), with its address; else the address.
 */
static void
stopped_writer(const struct report *r, char *buf, size_t sz)
{
	const char *ip = wp_field_text(&r->observation.stopped_writer_ip);
	const struct rsite *s;
	char name[512];
	uint64_t wip;
	size_t i, j;

	snprintf(buf, sz, "%s", ip);
	if (wp_parse_hexn(ip, strlen(ip), &wip) == -1)
		return;
	for (i = 0; i < r->nt; i++)
		for (j = 0; j < r->t[i].nsorted; j++) {
			s = r->t[i].sorted[j];
			if (!s->has_writer || s->wip != wip)
				continue;
			label_writer(&s->writer, ip, name, sizeof name);
			if (strcmp(name, ip) != 0)
				snprintf(buf, sz, "%s at %s", name, ip);
			return;
		}
}

/* wp-arm --stop: where the process was left stopped, or its core. */
static void
stopped_note(const struct report *r, FILE *f)
{
	const struct wp_obs_pass *o = &r->observation;
	const char *left = wp_field_str(&o->stopped_process);
	char writer[600];

	if (o->stopped_tid.text == NULL)
		return;
	stopped_writer(r, writer, sizeof writer);
	out(f, "stopped  at the first match: thread %s, writer %s, next "
	    "instruction %s\n", o->stopped_tid.text, writer,
	    wp_field_text(&o->stopped_ip));
	if (left != NULL && strcmp(left, wp_left_names[WP_LEFT_ENDED]) == 0)
		out(f, "         but the process ended before it stopped: "
		    "there is nothing to attach to\n");
	else if (left != NULL &&
	    strcmp(left, wp_left_names[WP_LEFT_RUNNING]) == 0)
		out(f, "         but the process did not stop: it ran on\n");
	else if (o->stopped_core.text != NULL)
		out(f, "         its core: %s (gdb -c %s); the process ran on\n",
		    o->stopped_core.text, o->stopped_core.text);
	else
		out(f, "         the process was left stopped: gdb -p %s\n",
		    wp_field_text(&r->session.pid));
}

/*
 * A watch that max events ended before its duration: when, and what
 * watches longer (the stop reason alone reads as if it had run out).
 */
static void
cut_note(const struct wp_obs_pass *o, FILE *f)
{
	const char *stop = wp_field_str(&o->stop_reason);

	if (stop == NULL ||
	    strcmp(stop, wp_stop_names[WP_STOP_MAX_EVENTS]) != 0 ||
	    wp_field_int(&o->elapsed_ms) >=
	    wp_field_int(&o->duration_requested_ms))
		return;
	out(f, "stopped  early, at %s of %s ms: -n %s hit records reached (a "
	    "larger -n watches longer)\n", wp_field_text(&o->elapsed_ms),
	    wp_field_int(&o->duration_requested_ms) >=
	    (int64_t)WP_DURATION_INF_MS ? "inf" :
	    wp_field_text(&o->duration_requested_ms),
	    wp_field_text(&o->max_events));
}

static void
header(const struct report *r, FILE *f)
{
	const struct wp_obs_pass *o = &r->observation;

	process(r, f);
	if (!o->present) {
		out(f, "INCOMPLETE  the stream ended without an observation "
		    "record: the watch was killed or is still running\n");
		return;
	}
	out(f, "watch    %s  %s/%s ms  stop %s%s%s  lost %s\n",
	    r->backend ? r->backend : "-", wp_field_text(&o->elapsed_ms),
	    wp_field_int(&o->duration_requested_ms) >=
	    (int64_t)WP_DURATION_INF_MS ? "inf" :
	    wp_field_text(&o->duration_requested_ms),
	    wp_field_text(&o->stop_reason),
	    o->stop_detail.text ? " " : "", o->stop_detail.text ?
	    o->stop_detail.text : "", wp_field_text(&o->lost_total));
	out(f, "threads  %s seeded, %s inherited, %s attached late, "
	    "%s unattached, %s exited\n", wp_field_text(&o->seeded),
	    wp_field_text(&o->inherited), wp_field_text(&o->attached_late),
	    wp_field_text(&o->unattached), wp_field_text(&o->exited));
	cut_note(o, f);
	watch_notes(o, f);
	stopped_note(r, f);
	if (o->error.text != NULL)
		out(f, "error    %s\n", o->error.text);
}

static void
lower_bound_note(const struct report *r, FILE *f)
{
	size_t i;

	if (r->nreasons == 0)
		return;
	out(f, "note     counts are a lower bound:");
	for (i = 0; i < r->nreasons; i++)
		out(f, "%s %s", i ? "," : "", wp_bound_names[r->reasons[i]]);
	out(f, "\n");
}

static void
bindings(const struct rtarget *t, FILE *f)
{
	const struct rbind *b;
	char ms[128], leaf[24];
	size_t j;

	out(f, "  bindings: %zu%s\n", t->nbinds, t->binds_truncated ?
	    " (the first and the latest kept)" : "");
	for (j = 0; j < t->nbinds; j++) {
		b = &t->binds[j];
		snprintf(ms, sizeof ms, "%.3f", (double)b->time_ns / 1e6);
		if (b->leaf != 0)
			leaf[wp_fmt_hex(leaf, b->leaf)] = '\0';
		else
			snprintf(leaf, sizeof leaf, "-");
		out(f, "  %9s  gen %-5llu %-13s leaf %-18s %llu hits\n", ms,
		    (unsigned long long)b->generation, b->binding, leaf,
		    (unsigned long long)b->leaf_hits);
	}
}

/* How long the leaf went unwatched at each re-arm, when measured. */
static void
rearm(const struct rrearm *a, FILE *f)
{
	if (a->measured == 0)
		return;
	out(f, "  re-arm: %zu measured, %zu with the writer held, %zu "
	    "missed a write\n", a->measured, a->held, a->missed);
	out(f, "  re-arm us: min %.1f median %.1f p90 %.1f max %.1f\n",
	    a->min / 1e3, a->median / 1e3, a->p90 / 1e3, a->max / 1e3);
}

static void
follow_section(const struct report *r, const struct rtarget *t, FILE *f)
{
	const struct rbind *b = t->nbinds ? &t->binds[t->nbinds - 1] : NULL;
	char gen[24], leaf[24];
	const char *state = b ? b->binding : wp_field_text(&t->rec.binding);

	snprintf(gen, sizeof gen, "-");
	snprintf(leaf, sizeof leaf, "%s", b ? "-" :
	    wp_field_text(&t->rec.leaf_addr));
	if (b != NULL)
		snprintf(gen, sizeof gen, "%llu",
		    (unsigned long long)b->generation);
	if (b != NULL && b->leaf != 0)
		leaf[wp_fmt_hex(leaf, b->leaf)] = '\0';
	out(f, "\nfollow %d  %s  slot %s  %s  gen %s  leaf %s\n", t->id,
	    wp_field_text(&t->rec.input), wp_field_text(&t->rec.slot_addr),
	    state, gen,
	    leaf);
	out(f, "  %llu pointer writes, %llu leaf hits%s, %s slots\n",
	    (unsigned long long)t->ptr_hits, (unsigned long long)t->hits,
	    t->lower ? " (lower bound)" : "",
	    wp_field_text(&t->rec.slots));
	if (t->conditioned) {
		/* every leaf write, matched or not */
		out(f, "  leaf writes: ");
		table_matched(r, t, "", f);
		out(f, "\n");
	}
	bindings(t, f);
	rearm(&t->rearm, f);
	table_leaf_writers(t, f);
}

int
report_table(const struct report *r, FILE *f, size_t columns)
{
	size_t i;

	table_begin(columns);
	header(r, f);
	lower_bound_note(r, f);
	table_last(r, f);
	for (i = 0; i < r->nt; i++)
		if (!r->t[i].follow)
			table_watch(r, &r->t[i], f);
	for (i = 0; i < r->nt; i++)
		if (r->t[i].follow)
			follow_section(r, &r->t[i], f);
	table_chain_notes(r, f);
	access_table(r, f);
	return ferror(f) ? -1 : 0;
}
