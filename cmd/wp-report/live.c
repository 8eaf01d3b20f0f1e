/*
 * The live view of wp-report (--live): every interval while the watch
 * runs, each target's hits so far, hits per second, latest value and
 * the writers with the most hits.  On a terminal it is a table redrawn
 * in place, cut to the terminal's width and height as they are at each
 * frame, whose first line is the progress line's ("wp: watching 1.2 s of
 * 5 s, 345 hits"); it is erased when the watch ends, before the report.
 * Otherwise it is one line per interval.  A thread of its own draws it,
 * from the aggregate and the timeline, which the reading loop changes
 * only while it holds live_lock.
 */
#include <sys/ioctl.h>

#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "html.h"
#include "table.h"
#include "util.h"

#define LIVE_WRITERS	5	/* writers shown per target */

static struct {
	pthread_t	 th;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	const struct report *r;
	const struct timeline *tl;
	int		 table;		/* redrawn in place, else lines */
	long		 interval_ms;
	int		 started, armed, stop;
	int		 kick;		/* draw now (armed) */
	struct timespec	 t0, tprev;	/* armed; the previous frame */
	long		 duration_ms;	/* -1: until a signal */
	uint64_t	*prev;		/* each target's hits at tprev */
	size_t		 nprev;
	uint64_t	*sprev;		/* each site's executions at tprev */
	size_t		 nsprev;
	size_t		 drawn;		/* the frame's lines on the terminal */
} L = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static double
since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The lanes that count a target's writers: the tallies', if any. */
static const struct tl_set *
counting(const struct tl_target *tt)
{
	return tt->set[TL_TALLY].nw > 0 ? &tt->set[TL_TALLY] :
	    &tt->set[TL_HIT];
}

static uint64_t
target_hits(const struct tl_target *tt)
{
	const struct tl_set *s;
	uint64_t n;
	size_t i;

	if (tt == NULL)
		return 0;
	s = counting(tt);
	for (n = s->wother.hits, i = 0; i < s->nw; i++)
		n += s->w[i].hits;
	return n;
}

/* The writer of lane l of target t: "function+0xOFF  file:line". */
static void
writer_name(const struct rtarget *t, const struct tl_lane *l, int tallied,
    char *buf, size_t sz)
{
	const struct wp_writer_in *w = NULL;
	const struct rsite *s;
	const struct rtally *y;
	char name[256], ip[24];
	uint64_t k1, k2;
	size_t i;

	if (!tallied && (s = wp_hmap_get(&t->sites, l->k1, l->k2)) != NULL)
		w = &s->writer;
	for (i = 0; tallied && w == NULL && i < t->tallies.cap; i++) {
		if ((y = wp_hmap_slot(&t->tallies, i)) == NULL)
			continue;
		report_site_key(y->ip, y->writer.has_writer_ip ?
		    y->writer.writer_ip : 0, TALLY_TAG, &k1, &k2);
		if (k1 == l->k1 && k2 == l->k2)
			w = &y->writer;
	}
	/* a lane keyed by its writer: its address */
	ip[wp_fmt_hex(ip, l->k1 != 0 ? l->k1 : l->k2 & ~TALLY_TAG)] = '\0';
	if (w == NULL) {
		snprintf(buf, sz, "%s", ip);
		return;
	}
	label_writer(w, ip, name, sizeof name);
	if (w->source_file != NULL)
		snprintf(buf, sz, "%-28s %s:%lld", name, base(w->source_file),
		    (long long)w->source_line);
	else
		snprintf(buf, sz, "%s", name);
}

/* A target's writers with the most hits, a line each. */
static void
writers(FILE *f, const struct rtarget *t, const struct tl_target *tt)
{
	const struct tl_set *s = counting(tt);
	const struct tl_lane *sorted[TL_MAXLANES];
	char name[512], shown[512];
	size_t i;

	for (i = 0; i < s->nw; i++)
		sorted[i] = &s->w[i];
	qsort(sorted, s->nw, sizeof sorted[0], timeline_cmp_lane);
	for (i = 0; i < s->nw && i < LIVE_WRITERS; i++) {
		writer_name(t, sorted[i], s == &tt->set[TL_TALLY], name,
		    sizeof name);
		/* names from the stream: no control character reaches the
		   terminal */
		fprintf(f, "  %10llu  %s\n",
		    (unsigned long long)sorted[i]->hits,
		    printable(shown, sizeof shown, name));
	}
	if (s->nw > LIVE_WRITERS || s->wother.hits > 0)
		fprintf(f, "  %10s  and %zu more writers\n", "",
		    s->nw - i + (s->wother.hits > 0));
}

/*
 * Whether a watch with --if has had no write of t match yet: no hit,
 * and no tally counts a match.
 */
static int
none_matched(const struct rtarget *t)
{
	const struct rtally *y;
	size_t i;

	if (L.r->armed.condition.text == NULL || t->hits > 0)
		return 0;
	for (i = 0; i < t->tallies.cap; i++)
		if ((y = wp_hmap_slot(&t->tallies, i)) != NULL &&
		    y->matched > 0)
			return 0;
	return 1;
}

/*
 * Where the backend counted more writes so far (its count records) than
 * the hits the rows count, and no tally has come: "of 6000 counted so
 * far", and whether the writers' counts are provisional (a tracer's
 * tallies, which hold every write, come at the end) or sampled.
 */
static void
provisional(FILE *f, const struct rtarget *t, const struct tl_target *tt,
    uint64_t n)
{
	if (!t->has_live_counted || t->live_counted <= n ||
	    (tt != NULL && tt->set[TL_TALLY].nw > 0))
		return;
	/* the table's on a line of its own, within 80 columns */
	fprintf(f, "%sof %llu counted so far (%s)", L.table ? "\n    " : "  ",
	    (unsigned long long)t->live_counted,
	    report_tallies_at_end(L.r) ? "provisional: the writers' tallies "
	    "come at the end" : "the rest not sampled");
}

/*
 * A target's counts: "score  1345 hits  120/s  latest 0x2a"; the latest
 * value a hit wrote, "-" when none said it, "none matched" while no
 * write matched --if.
 */
static void
target_counts(FILE *f, const struct rtarget *t, const struct tl_target *tt,
    uint64_t n, double secs, size_t k)
{
	char name[128], v[24] = "-";
	uint64_t before = k < L.nprev ? L.prev[k] : 0;

	printable(name, sizeof name, wp_field_text(&t->rec.input));
	if (tt != NULL && tt->valued)
		v[wp_fmt_hex(v, tt->vlast)] = '\0';
	else if (none_matched(t))
		snprintf(v, sizeof v, "none matched");
	fprintf(f, "%s %d %s  %llu hits  %.0f/s  latest %s",
	    t->follow ? "follow" : "target", t->id, name,
	    (unsigned long long)n, secs > 0 && n > before ?
	    (double)(n - before) / secs : 0, v);
	provisional(f, t, tt, n);
}

/*
 * A site's counts: "site 0 wpt_walk_store  6000 executions  2000/s  1000
 * addresses", as its access records have said so far (each interval).
 */
static void
site_counts(FILE *f, const struct rasite *s, double secs, size_t k)
{
	char name[128];
	uint64_t before = k < L.nsprev ? L.sprev[k] : 0;

	printable(name, sizeof name, s->input);
	fprintf(f, "site %d %s  %llu executions  %.0f/s  %llu address%s",
	    s->id, name, (unsigned long long)s->execs, secs > 0 &&
	    s->execs > before ? (double)(s->execs - before) / secs : 0,
	    (unsigned long long)s->naddrs, s->naddrs == 1 ? "" : "es");
}

/* The time so far: "1.2 s of 5 s", or "1.2 s" (until a signal). */
static void
elapsed(FILE *f, double secs)
{
	long ds = (long)(secs * 10);

	fprintf(f, "%ld.%ld", ds / 10, ds % 10);
	if (L.duration_ms >= 0)
		fprintf(f, " s of %.10g", (double)L.duration_ms / 1000);
	fprintf(f, " s");
}

/*
 * The frame at now into f: the table (its lines) or the line; each
 * target's hits are kept for the next frame's rate.
 */
static void
frame(FILE *f, const struct timespec *now)
{
	const struct report *r = L.r;
	const struct tl_target *tt;
	double secs = since(&L.t0, now), dt = since(&L.tprev, now);
	uint64_t n, total;
	size_t k;

	if (L.table) {
		/* the targets' hits as their lines count them (the tallies
		   where there are any), not the hit records read: the rows
		   add up to it */
		for (total = 0, k = 0; k < r->nt; k++)
			total += target_hits(timeline_target(L.tl, r->t[k].id));
		fprintf(f, "wp: watching ");
		elapsed(f, secs);
		/* a watch of instructions only: their executions */
		if (r->nt == 0 && r->nasites > 0) {
			for (k = 0; k < r->nasites; k++)
				total += r->asites[k].execs;
			fprintf(f, ", %llu executions  \n",
			    (unsigned long long)total);
		} else
			fprintf(f, ", %llu hits  \n",
			    (unsigned long long)total);
		if (L.duration_ms >= 0)
			fprintf(f, "  %.1f s left\n", secs * 1000 >
			    (double)L.duration_ms ? 0 : (double)L.duration_ms /
			    1000 - secs);
	} else {
		fprintf(f, "wp: ");
		elapsed(f, secs);
		fprintf(f, ":");
	}
	L.prev = wp_xrealloc(L.prev, (r->nt + 1) * sizeof *L.prev);
	for (k = 0; k < r->nt; k++) {
		tt = timeline_target(L.tl, r->t[k].id);
		n = target_hits(tt);
		fprintf(f, L.table ? "  " : k ? "; " : " ");
		target_counts(f, &r->t[k], tt, n, dt, k);
		if (L.table)
			fprintf(f, "\n");
		if (L.table && tt != NULL)
			writers(f, &r->t[k], tt);
		L.prev[k] = n;
	}
	L.sprev = wp_xrealloc(L.sprev, (r->nasites + 1) * sizeof *L.sprev);
	for (k = 0; k < r->nasites; k++) {
		fprintf(f, L.table ? "  " : k || r->nt ? "; " : " ");
		site_counts(f, &r->asites[k], dt, k);
		if (L.table)
			fprintf(f, "\n");
		L.sprev[k] = r->asites[k].execs;
	}
	L.nsprev = r->nasites;
	if (!L.table)
		fprintf(f, "\n");
	L.nprev = r->nt;
	L.tprev = *now;
}

/* Moves the cursor back over the frame drawn, and clears from there. */
static void
erase(FILE *out)
{
	if (L.drawn > 0)
		fprintf(out, "\033[%zuA", L.drawn);
	fprintf(out, "\033[J\r");
	L.drawn = 0;
}

/* The table of text on the terminal, its lines cut to its size. */
static void
draw(const char *text)
{
	struct winsize ws;
	size_t cols = 80, rows = 24, n, len;
	const char *p, *nl;
	char *buf = NULL;
	FILE *out;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
	    ws.ws_row > 1) {
		cols = ws.ws_col;
		rows = ws.ws_row;
	}
	if ((out = open_memstream(&buf, &len)) == NULL)
		wp_fatal_nomem();
	erase(out);
	for (p = text, n = 0; *p != '\0' && n + 1 < rows; p = nl + 1, n++) {
		nl = strchr(p, '\n');
		fprintf(out, "%.*s\n", (int)((size_t)(nl - p) < cols - 1 ?
		    (size_t)(nl - p) : cols - 1), p);
	}
	L.drawn = n;
	if (fclose(out) == EOF)
		wp_fatal_nomem();
	(void)!write(STDERR_FILENO, buf, len);
	free(buf);
}

/* A frame, once the watch is armed. */
static void
tick(void)
{
	struct timespec now;
	char *text = NULL;
	size_t len;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((f = open_memstream(&text, &len)) == NULL)
		wp_fatal_nomem();
	frame(f, &now);
	if (fclose(f) == EOF)
		wp_fatal_nomem();
	if (L.table)
		draw(text);
	else
		(void)!write(STDERR_FILENO, text, len);
	free(text);
}

/* due: interval_ms from now, on the clock of the condition's waits. */
static void
next_due(struct timespec *due)
{
	clock_gettime(CLOCK_REALTIME, due);
	due->tv_sec += L.interval_ms / 1000;
	due->tv_nsec += L.interval_ms % 1000 * 1000000;
	if (due->tv_nsec >= 1000000000) {
		due->tv_sec++;
		due->tv_nsec -= 1000000000;
	}
}

/* The drawing thread: a frame when the watch is armed, then each
   interval_ms until the watch ends. */
static void *
run(void *arg)
{
	struct timespec due;
	int rc = 0, timed = 0;

	(void)arg;
	pthread_mutex_lock(&L.mu);
	while (!L.stop) {
		if (L.armed && !L.kick && !timed) {
			next_due(&due);		/* the first, a line's */
			timed = 1;
		}
		rc = timed && !L.kick ? pthread_cond_timedwait(&L.cv, &L.mu,
		    &due) : L.kick ? 0 : pthread_cond_wait(&L.cv, &L.mu);
		if (L.stop || !L.armed || (!L.kick && rc != ETIMEDOUT))
			continue;
		timed = 1;
		L.kick = 0;
		tick();
		next_due(&due);
	}
	pthread_mutex_unlock(&L.mu);
	return NULL;
}

void
live_start(const struct report *r, const struct timeline *tl, int table,
    long interval_ms)
{
	sigset_t all, old;

	L.r = r;
	L.tl = tl;
	L.table = table;
	L.interval_ms = interval_ms > 0 ? interval_ms : 1000;
	L.duration_ms = -1;
	/* signals are the reading thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	L.started = pthread_create(&L.th, NULL, run, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!L.started)
		warnx("--live: no thread to draw with: no live view");
}

void
live_lock(void)
{
	pthread_mutex_lock(&L.mu);
}

void
live_unlock(void)
{
	pthread_mutex_unlock(&L.mu);
}

/* Called with the lock held: the record just added. */
void
live_record(const struct wp_record *rec)
{
	struct wp_armed_in a;

	if (rec->kind == WP_REC_ARMED && !L.armed) {
		wp_rec_read_armed(rec, &a);
		L.duration_ms = a.duration_ms >= 0 ? (long)a.duration_ms : -1;
		clock_gettime(CLOCK_MONOTONIC, &L.t0);
		L.tprev = L.t0;
		L.armed = 1;
		L.kick = L.table;	/* the table at once; lines from 1 s */
		pthread_cond_signal(&L.cv);
	} else if (rec->kind == WP_REC_OBSERVATION)
		L.stop = 1;
}

void
live_stop(void)
{
	char *buf = NULL;
	size_t len;
	FILE *out;

	if (!L.started)
		return;
	pthread_mutex_lock(&L.mu);
	L.stop = 1;
	pthread_cond_signal(&L.cv);
	pthread_mutex_unlock(&L.mu);
	pthread_join(L.th, NULL);
	L.started = 0;
	/* the counts at the end, the table then erased for the report */
	if (L.table && L.armed)
		tick();
	if (L.table && L.drawn > 0) {
		if ((out = open_memstream(&buf, &len)) == NULL)
			wp_fatal_nomem();
		erase(out);
		if (fclose(out) == EOF)
			wp_fatal_nomem();
		(void)!write(STDERR_FILENO, buf, len);
		free(buf);
	}
	free(L.prev);
	free(L.sprev);
	L.prev = NULL;
}
