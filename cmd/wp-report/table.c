/*
 * The report as a table for people: the process and the watch, then
 * per target its writers, threads and samples, then the follow chains.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

#define MAXWIDTH	1024	/* the widest table */
#define MINLAYOUT	60	/* columns are laid out for at least this */
#define MINCOL		8	/* a column given up to a writer's name */
/* duration_requested_ms of -d inf: INT64_MAX ns in ms (wp-records(7)) */
#define INF_MS		9223372036854LL

static size_t width = 100;	/* the table's columns at most */
static char line[MAXWIDTH + 2];
static size_t linelen;

/* A column: its width at 100 columns, what its cells need, its width. */
struct col {
	size_t		 def, need, w;
};

/*
 * printf to the table: a line longer than the width is cut there, the
 * cut shown by a final '~'.
 */
static void
out(FILE *f, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	size_t i, n;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	n = k < 0 ? 0 : (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1;
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (linelen < sizeof line - 1)
				line[linelen++] = buf[i];
			continue;
		}
		if (linelen > width) {
			linelen = width;
			line[width - 1] = '~';
		}
		fwrite(line, 1, linelen, f);
		putc('\n', f);
		linelen = 0;
	}
}

static const char *
str(json_object *o, const char *k)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v) || v == NULL)
		return "-";
	return json_object_get_string(v);
}

static int
has(json_object *o, const char *k)
{
	return strcmp(str(o, k), "-") != 0;
}

static int
flag(json_object *o, const char *k)
{
	return json_object_get_boolean(json_object_object_get(o, k));
}

static const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Copies s into buf, cut to width with a trailing '~'. */
static const char *
fit(char *buf, size_t sz, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (width >= sz)
		width = sz - 1;
	if (width == 0)
		width = 1;
	if (n <= width)
		return strcpy(buf, s);
	memcpy(buf, s, width - 1);
	buf[width - 1] = '~';
	buf[width] = '\0';
	return buf;
}

/* s for a terminal: control characters as '?'. */
static const char *
printable(char *buf, size_t sz, const char *s)
{
	size_t i;

	snprintf(buf, sz, "%s", s);
	for (i = 0; buf[i] != '\0'; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	return buf;
}

static void
value_text(json_object *v, char *buf, size_t sz)
{
	const char *kind = str(v, "kind");

	if (strcmp(kind, wp_vkind_names[WP_VALUE_UNKNOWN]) == 0)
		snprintf(buf, sz, "unknown: %s", str(v, "reason"));
	else if (strcmp(kind, wp_vkind_names[WP_VALUE_REGISTER]) == 0)
		snprintf(buf, sz, "%s = %s", str(v, "register"), str(v, "value"));
	else if (strcmp(kind, "-") == 0)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s", str(v, "value"));
}

static void
source_text(json_object *src, char *buf, size_t sz)
{
	if (src == NULL || json_object_get_type(src) != json_type_object)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s:%s", base(str(src, "file")),
		    str(src, "line"));
}

static json_object *
get(json_object *o, const char *k)
{
	return json_object_object_get(o, k);
}

static size_t
least(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The columns left after fixed ones. */
static size_t
room(size_t fixed)
{
	size_t lw = width < MINLAYOUT ? MINLAYOUT : width;

	return lw > fixed ? lw - fixed : 1;
}

static void
need(struct col *c, size_t n)
{
	if (c->need < n)
		c->need = n;
}

/*
 * Lays out columns c[0..n), the most wanted first, in avail columns:
 * each gets its width at 100 columns (less, in proportion, when avail
 * is short), then each in turn, while its cells need more, takes what
 * is spare and what the others do not need of theirs.
 */
static void
spread(struct col *c, size_t n, size_t avail)
{
	size_t i, k, sum = 0, spare = avail, more;

	for (i = 0; i < n; i++)
		sum += c[i].def;
	for (i = 0; i < n; i++) {
		c[i].w = sum > avail ? c[i].def * avail / sum : c[i].def;
		if (c[i].w == 0)
			c[i].w = 1;
		spare -= least(spare, c[i].w);
	}
	for (i = 0; i < n; i++) {
		if (c[i].need <= c[i].w)
			continue;
		more = least(spare, c[i].need - c[i].w);
		c[i].w += more;
		spare -= more;
		for (k = 0; k < n && c[i].w < c[i].need; k++) {
			if (k == i || c[k].w <= c[k].need)
				continue;
			more = least(c[k].w - c[k].need, c[i].need - c[i].w);
			c[k].w -= more;
			c[i].w += more;
		}
	}
}

/* How wide c[0] can get, the others giving up to MINCOL each. */
static size_t
widest(const struct col *c, size_t n)
{
	size_t k, w = c[0].w;

	for (k = 1; k < n; k++)
		if (c[k].w > MINCOL)
			w += c[k].w - MINCOL;
	return w;
}

/* Widens c[0] to w, taking from the others in turn. */
static void
widen(struct col *c, size_t n, size_t w)
{
	size_t k, more;

	for (k = 1; k < n && c[0].w < w; k++) {
		if (c[k].w <= MINCOL)
			continue;
		more = least(c[k].w - MINCOL, w - c[0].w);
		c[k].w -= more;
		c[0].w += more;
	}
}

/* Lays out columns whose first holds the nn names, kept apart. */
static void
layout(struct col *c, size_t n, size_t avail, char *const *names,
    size_t nn)
{
	spread(c, n, avail);
	widen(c, n, label_distinct_width(names, nn, c[0].w,
	    least(widest(c, n), c[0].need)));
}

static char **
names_new(size_t n)
{
	return wp_xcalloc(n + 1, sizeof(char *));
}

static void
names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

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
 * How much of the target's native run time the ptrace backend covered
 * in the time the watch took, as the observation estimates it
 * (wp-records(7)); and, when the target also waited in system calls,
 * which run at native speed, the pace of its own code apart.
 */
static void
native_note(json_object *obs, json_object *p, FILE *f)
{
	double run, took, blocked, code;
	char rs[32], ps[64], bs[32], cs[32], cps[64];

	if (!has(p, "native_run_us"))
		return;
	run = (double)json_object_get_int64(get(p, "native_run_us")) / 1000;
	took = (double)json_object_get_int64(get(obs, "elapsed_ms"));
	blocked = (double)json_object_get_int64(get(p, "blocked_us")) / 1000;
	code = (double)json_object_get_int64(get(p, "steps")) * 1000 /
	    (double)json_object_get_int64(get(p,
	    "native_instructions_per_second"));
	if (run <= 0) {
		out(f, "estimate none of the target's native run time in "
		    "%.1f s: it did not run\n", took / 1000);
		return;
	}
	fmt_dur(rs, sizeof rs, run);
	fmt_pace(ps, sizeof ps, took / run);
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

/* The ptrace backend's pace, and the child processes not followed. */
static void
watch_notes(json_object *obs, FILE *f)
{
	json_object *p = get(obs, "ptrace"), *tc;

	if (p != NULL) {
		out(f, "ptrace   %s steps/s: the target ran one instruction a "
		    "step, one thread at a time\n", str(p, "steps_per_second"));
		native_note(obs, p, f);
	}
	tc = get(obs, "thread_coverage");
	if (json_object_get_int64(get(tc, "forked_processes")) > 0)
		out(f, "note     forked children were not followed: %s\n",
		    str(tc, "forked_processes"));
}

static void
header(json_object *doc, FILE *f)
{
	json_object *p = get(doc, "process"), *obs = get(doc, "observation");
	json_object *tc, *a;
	size_t i;

	out(f, "process  pid %s  %s  start %s  binary %s  slide %s\n",
	    str(p, "pid"), base(str(p, "exe")), str(p, "start_time"),
	    str(p, "binary_match"), str(p, "pie_slide"));
	if (get(p, "pid") != NULL && get(p, "slot_limit") == NULL)
		out(f, "note     no slot limit (--no-slot-limit): any length "
		    "and number of targets, for the ptrace backend\n");
	a = get(p, "warnings");
	for (i = 0; a && i < json_object_array_length(a); i++)
		out(f, "warning  %s\n",
		    json_object_get_string(json_object_array_get_idx(a, i)));
	if (obs == NULL) {
		out(f, "INCOMPLETE  %s\n", str(doc, "incomplete_reason"));
		return;
	}
	tc = get(obs, "thread_coverage");
	out(f, "watch    %s  %s/%s ms  stop %s%s%s  lost %s\n",
	    str(doc, "backend"), str(obs, "elapsed_ms"),
	    json_object_get_int64(get(obs, "duration_requested_ms")) >= INF_MS ?
	    "inf" : str(obs, "duration_requested_ms"), str(obs, "stop_reason"),
	    has(obs, "stop_detail") ? " " : "",
	    has(obs, "stop_detail") ? str(obs, "stop_detail") : "",
	    str(get(obs, "lost_events"), "total"));
	out(f, "threads  %s seeded, %s inherited, %s attached late, "
	    "%s unattached, %s exited\n", str(tc, "seeded_tids"),
	    str(tc, "inherited_tids"), str(tc, "dynamically_attached_tids"),
	    str(tc, "unattached_tids"), str(tc, "exited_tids"));
	watch_notes(obs, f);
	if (has(obs, "error"))
		out(f, "error    %s\n", str(obs, "error"));
}

static void
lower_bound_note(json_object *doc, FILE *f)
{
	json_object *a;
	size_t i;

	if (!flag(doc, "counts_are_lower_bound"))
		return;
	out(f, "note     counts are a lower bound:");
	a = get(doc, "lower_bound_reasons");
	for (i = 0; i < json_object_array_length(a); i++)
		out(f, "%s %s", i ? "," : "",
		    json_object_get_string(json_object_array_get_idx(a, i)));
	out(f, "\n");
}

/* Whether any site is other than a write: then the KIND column. */
static int
kinds(json_object *a)
{
	size_t j;

	for (j = 0; j < json_object_array_length(a); j++)
		if (strcmp(str(json_object_array_get_idx(a, j), "kind"),
		    wp_kind_names[WP_KIND_WRITE]) != 0)
			return 1;
	return 0;
}

/* A table of writer sites. */
struct writers {
	json_object	*a;
	size_t		 n;
	int		 kind;		/* the KIND column */
	int		 notes;		/* reasons and caveats */
	char		**names;
	struct col	 c[3];		/* WRITER, INSTRUCTION, SOURCE */
};

/* The INSTRUCTION cell: the instruction, or why there is none. */
static const char *
insn_cell(json_object *x, int notes)
{
	return has(x, "insn") || !notes ? str(x, "insn") : str(x, "reason");
}

static void
writers_layout(struct writers *t)
{
	char b[512];
	json_object *x;
	size_t j;

	t->n = json_object_array_length(t->a);
	t->kind = kinds(t->a);
	t->names = names_new(t->n);
	t->c[0] = (struct col){ t->kind ? 22 : 26, strlen("WRITER"), 0 };
	t->c[1] = (struct col){ t->kind ? 29 : 35, strlen("INSTRUCTION"), 0 };
	t->c[2] = (struct col){ t->kind ? 14 : 16, strlen("SOURCE"), 0 };
	for (j = 0; j < t->n; j++) {
		x = json_object_array_get_idx(t->a, j);
		label_writer(x, has(x, "insn") ? str(x, "trap_runtime_ip") : "-",
		    b, sizeof b);
		t->names[j] = wp_xstrdup(b);
		need(&t->c[0], strlen(b));
		need(&t->c[1], strlen(insn_cell(x, t->notes)));
		source_text(get(x, "source"), b, sizeof b);
		need(&t->c[2], strlen(b));
	}
	layout(t->c, 3, room(21 + (t->kind ? 12 : 0) + 2), t->names, t->n);
}

static void
writers_header(const struct writers *t, FILE *f)
{
	out(f, "  %9s  %-7s ", "HITS", "CONF");
	if (t->kind)
		out(f, "%-11s ", "KIND");
	out(f, "%-*s %-*s %s\n", (int)t->c[0].w, "WRITER", (int)t->c[2].w,
	    "SOURCE", "INSTRUCTION");
}

/* A caller: the functions inlined at the call, marked, then its symbol,
 * else module+0xOFF, else its address. */
static void
frame_label(json_object *fr, char *buf, size_t sz)
{
	json_object *inl = get(fr, "inlined");
	const char *m;
	size_t i, n = 0;
	int k;

	/* functions inlined at the call first, each marked */
	for (i = 0; inl != NULL && json_object_is_type(inl, json_type_array) &&
	    i < json_object_array_length(inl) && n < sz; i++) {
		k = snprintf(buf + n, sz - n, "%s (inline) < ",
		    json_object_get_string(json_object_array_get_idx(inl, i)));
		n += k > 0 ? (size_t)k : 0;
	}
	if (n >= sz)
		return;
	buf += n;
	sz -= n;
	if (has(fr, "symbol"))
		snprintf(buf, sz, "%s", str(fr, "symbol"));
	else if (has(fr, "module") && has(fr, "static_ip")) {
		m = strrchr(str(fr, "module"), '/');
		snprintf(buf, sz, "%s+%s", m ? m + 1 : str(fr, "module"),
		    str(fr, "static_ip"));
	} else if (json_object_is_type(fr, json_type_string))
		snprintf(buf, sz, "%s", json_object_get_string(fr));
	else
		snprintf(buf, sz, "%s", str(fr, "ip"));
}

/*
 * The site's call chains, a line each: hits, then the callers, the
 * innermost (with its source line) first; a chain that is not whole
 * says so first.
 */
static void
chain_rows(json_object *x, FILE *f)
{
	json_object *a = get(x, "call_chains"), *c, *fr, *callers;
	char line[1024], b[512], src[512];
	size_t i, k, n;
	int len;

	for (i = 0; a != NULL && i < json_object_array_length(a); i++) {
		c = json_object_array_get_idx(a, i);
		len = 0;
		if (strcmp(str(c, "status"), "complete") != 0)
			len = snprintf(line, sizeof line, "[%s] ",
			    str(c, "status"));
		callers = get(c, "callers");
		n = callers ? json_object_array_length(callers) : 0;
		for (k = 0; k < n && len < (int)sizeof line - 1; k++) {
			fr = json_object_array_get_idx(callers, k);
			frame_label(fr, b, sizeof b);
			len += snprintf(line + len, sizeof line - (size_t)len,
			    "%s%s", k ? " < " : "by ", b);
			if (k == 0 && has(fr, "source") &&
			    len < (int)sizeof line - 1) {
				source_text(get(fr, "source"), src, sizeof src);
				len += snprintf(line + len, sizeof line -
				    (size_t)len, " (%s)", src);
			}
		}
		if (n == 0)
			snprintf(line + len, sizeof line - (size_t)len,
			    "no callers");
		out(f, "  %9s  %9s  %s\n", "", str(c, "hits"), line);
	}
	if (has(x, "other_call_chains_hits") &&
	    strcmp(str(x, "other_call_chains_hits"), "0") != 0)
		out(f, "  %9s  %9s  in other call chains\n", "",
		    str(x, "other_call_chains_hits"));
	if (has(x, "hits_without_call_chain") &&
	    strcmp(str(x, "hits_without_call_chain"), "0") != 0)
		out(f, "  %9s  %9s  without a call chain (not sampled)\n", "",
		    str(x, "hits_without_call_chain"));
}

static void
writer_row(const struct writers *t, size_t j, FILE *f)
{
	json_object *x = json_object_array_get_idx(t->a, j);
	char b1[MAXWIDTH + 1], b2[MAXWIDTH + 1], b3[MAXWIDTH + 1], src[512];

	source_text(get(x, "source"), src, sizeof src);
	label_shorten(t->names[j], t->c[0].w, b1, sizeof b1);
	out(f, "  %9s  %-7s ", str(x, "hits"), str(x, "confidence"));
	if (t->kind)
		out(f, "%-11s ", str(x, "kind"));
	label_shorten_source(src, t->c[2].w, b2, sizeof b2);
	out(f, "%-*s %-*s %s\n", (int)t->c[0].w, b1, (int)t->c[2].w, b2,
	    fit(b3, sizeof b3, insn_cell(x, t->notes), t->c[1].w));
	if (t->notes && (has(x, "caveat") || (!has(x, "insn") &&
	    has(x, "reason"))))
		out(f, "  %9s  %s\n", "", fit(b3, sizeof b3, has(x, "caveat") ?
		    str(x, "caveat") : str(x, "reason"), room(13)));
	if (t->notes)
		chain_rows(x, f);
}

/*
 * The writer sites a, one a row; header adds the column names, notes
 * the reasons and caveats.
 */
static void
writer_rows(json_object *a, int header, int notes, FILE *f)
{
	struct writers t;
	size_t j;

	memset(&t, 0, sizeof t);
	t.a = a;
	t.notes = notes;
	writers_layout(&t);
	if (header && t.n > 0)
		writers_header(&t, f);
	for (j = 0; j < t.n; j++)
		writer_row(&t, j, f);
	names_free(t.names, t.n);
}

static void
writers(json_object *w, FILE *f)
{
	json_object *a = get(w, "writer_sites");

	out(f, "  writers: %zu\n", json_object_array_length(a));
	writer_rows(a, 1, 1, f);
}

/* "4242 worker (17)": the thread, its name when known, its hits. */
static void
thread_text(json_object *x, char *buf, size_t sz)
{
	char c[128];

	if (get(x, "comm") != NULL)
		snprintf(buf, sz, "%s %s (%s)", str(x, "tid"),
		    printable(c, sizeof c, str(x, "comm")), str(x, "hits"));
	else
		snprintf(buf, sz, "%s (%s)", str(x, "tid"), str(x, "hits"));
}

/* " s" on the line, or on the next, indented, when it would not fit. */
static void
item(FILE *f, const char *s, size_t indent)
{
	if (linelen > indent && linelen + 1 + strlen(s) > width)
		out(f, "\n%*s", (int)indent, "");
	out(f, " %s", s);
}

static void
threads(json_object *w, FILE *f)
{
	json_object *a = get(w, "threads");
	char b[256];
	size_t j, n = json_object_array_length(a);

	out(f, "  threads:");
	for (j = 0; j < n && j < 8; j++) {
		thread_text(json_object_array_get_idx(a, j), b, sizeof b);
		item(f, b, strlen("  threads:"));
	}
	if (j < n) {
		snprintf(b, sizeof b, "and %zu more", n - j);
		item(f, b, strlen("  threads:"));
	}
	out(f, "%s\n", j == 0 ? " none" : "");
}

/* A table of samples. */
struct samples {
	json_object	*a;
	size_t		 n;
	size_t		 cw;		/* the THREAD column; 0: none */
	char		**names;
	struct col	 c[2];		/* WRITER, VALUE */
};

static void
samples_layout(struct samples *t)
{
	char b[512];
	json_object *x;
	size_t j;

	t->names = names_new(t->n);
	t->c[0] = (struct col){ 26, strlen("WRITER"), 0 };
	t->c[1] = (struct col){ 44, strlen("VALUE"), 0 };
	for (j = 0; j < t->n; j++) {
		x = json_object_array_get_idx(t->a, j);
		label_writer(x, str(x, "trap_runtime_ip"), b, sizeof b);
		t->names[j] = wp_xstrdup(b);
		need(&t->c[0], strlen(b));
		value_text(get(x, "written_value"), b, sizeof b);
		need(&t->c[1], strlen(b));
		if (get(x, "comm") != NULL && t->cw < strlen(str(x, "comm")))
			t->cw = strlen(str(x, "comm"));
	}
	if (t->cw > 0)
		t->cw = t->cw < strlen("THREAD") ? strlen("THREAD") :
		    least(t->cw, 16);
	layout(t->c, 2, room(2 + 9 + 2 + 12 + 2 + 1 + (t->cw ? t->cw + 1 : 0)),
	    t->names, t->n);
}

/* TID, its name when any sample has one, TIME ms. */
static void
sample_lead(const struct samples *t, const char *tid, const char *comm,
    const char *ms, FILE *f)
{
	char b[128], c[128];

	out(f, "  %9s", tid);
	if (t->cw > 0)
		out(f, " %-*s", (int)t->cw, fit(b, sizeof b,
		    printable(c, sizeof c, comm), t->cw));
	out(f, "  %12s  ", ms);
}

static void
sample_row(const struct samples *t, size_t j, FILE *f)
{
	json_object *x = json_object_array_get_idx(t->a, j);
	char b1[MAXWIDTH + 1], b2[MAXWIDTH + 1], v[512], ms[64];

	value_text(get(x, "written_value"), v, sizeof v);
	snprintf(ms, sizeof ms, "%.3f", (double)json_object_get_int64(
	    get(x, "time_ns")) / 1e6);
	label_shorten(t->names[j], t->c[0].w, b1, sizeof b1);
	sample_lead(t, str(x, "tid"), str(x, "comm"), ms, f);
	out(f, "%-*s %s\n", (int)t->c[0].w, b1,
	    fit(b2, sizeof b2, v, t->c[1].w));
}

static void
samples(json_object *w, FILE *f)
{
	struct samples t;
	size_t j;

	memset(&t, 0, sizeof t);
	t.a = get(w, "samples");
	if ((t.n = json_object_array_length(t.a)) == 0)
		return;
	samples_layout(&t);
	out(f, "  samples: %zu of %s%s\n", t.n, str(w, "accepted_hits"),
	    flag(w, "samples_truncated") ? " (truncated)" : "");
	sample_lead(&t, "TID", "THREAD", "TIME ms", f);
	out(f, "%-*s %s\n", (int)t.c[0].w, "WRITER", "VALUE");
	for (j = 0; j < t.n; j++)
		sample_row(&t, j, f);
	names_free(t.names, t.n);
}

static void
watch_section(json_object *doc, json_object *w, FILE *f)
{
	char split[96];
	int rw;

	out(f, "\ntarget %s  %s  %s", str(w, "id"), str(w, "input"),
	    str(w, "runtime_addr"));
	if (has(w, "static_addr"))
		out(f, " (static %s in %s)", str(w, "static_addr"),
		    base(str(w, "module")));
	out(f, "  %s  %s bytes  %s\n", str(w, "perms"), str(w, "len"),
	    str(w, "access"));
	/* with -a rw the kernel counts reads too */
	rw = strcmp(str(w, "access"), "rw") == 0;
	snprintf(split, sizeof split, " (%s reads, %s writes)",
	    str(w, "read_hits"), str(w, "write_hits"));
	if (has(w, "counted") && strcmp(str(w, "writer_counts"),
	    "tallied") == 0)
		out(f, "  %s %s counted by the kernel; %s tallied by "
		    "writer in the kernel%s; %s sampled\n  initial %s  latest "
		    "%s%s\n", str(w, "counted"), rw ? "accesses" : "writes",
		    str(w, "tallied_hits"), rw ? split : "",
		    str(w, "accepted_hits"), str(w, "initial_value"),
		    str(w, "latest_value"), flag(w, "changed") ? "  changed" : "");
	else if (has(w, "counted"))
		out(f, "  %s %s counted by %s; %s attributed to a "
		    "writer%s%s\n  initial %s  latest %s%s\n", str(w, "counted"),
		    rw ? "accesses" : "writes",
		    strcmp(str(doc, "backend"), "ptrace_singlestep") == 0 ?
		    "single-stepping" : "the kernel", str(w, "accepted_hits"),
		    rw ? split : "",
		    flag(doc, "counts_are_lower_bound") ? " (lower bound)" : "",
		    str(w, "initial_value"), str(w, "latest_value"),
		    flag(w, "changed") ? "  changed" : "");
	else
		out(f, "  %s hits%s%s  initial %s  latest %s%s\n",
		    str(w, "accepted_hits"), rw ? split : "",
		    flag(doc, "counts_are_lower_bound") ? " (lower bound)" : "",
		    str(w, "initial_value"), str(w, "latest_value"),
		    flag(w, "changed") ? "  changed" : "");
	if (json_object_get_int64(get(w, "spurious_hits")) > 0)
		out(f, "  spurious %s: hits whose instruction accessed "
		    "elsewhere, not among the writers\n",
		    str(w, "spurious_hits"));
	writers(w, f);
	threads(w, f);
	samples(w, f);
}

static void
follow_section(json_object *doc, json_object *w, FILE *f)
{
	json_object *a, *x;
	char b3[128];
	size_t j, n;

	out(f, "\nfollow %s  %s  slot %s  %s  gen %s  leaf %s\n",
	    str(w, "id"), str(w, "input"), str(w, "ptr_slot_addr"),
	    str(w, "binding_state"), str(w, "generation"),
	    str(w, "active_leaf_addr"));
	out(f, "  %s pointer writes, %s leaf hits%s, %s slots\n",
	    str(w, "pointer_slot_hits"), str(w, "leaf_hits"),
	    flag(doc, "counts_are_lower_bound") ? " (lower bound)" : "",
	    str(w, "slots_reserved"));
	a = get(w, "bindings");
	n = json_object_array_length(a);
	out(f, "  bindings: %zu%s\n", n, flag(w, "bindings_truncated") ?
	    " (the first and the latest kept)" : "");
	for (j = 0; j < n; j++) {
		x = json_object_array_get_idx(a, j);
		snprintf(b3, sizeof b3, "%.3f", (double)json_object_get_int64(
		    get(x, "time_ns")) / 1e6);
		out(f, "  %9s  gen %-5s %-13s leaf %-18s %s hits\n", b3,
		    str(x, "generation"), str(x, "binding"),
		    str(x, "leaf_addr"), str(x, "leaf_hits"));
	}
	x = get(w, "rearm");
	if (json_object_get_int64(get(x, "measured")) > 0) {
		out(f, "  re-arm: %s measured, %s with the writer held, %s "
		    "missed a write\n", str(x, "measured"), str(x, "held"),
		    str(x, "missed_in_window"));
		out(f, "  re-arm us: min %.1f median %.1f p90 %.1f max %.1f\n",
		    json_object_get_int64(get(x, "min_ns")) / 1e3,
		    json_object_get_int64(get(x, "median_ns")) / 1e3,
		    json_object_get_int64(get(x, "p90_ns")) / 1e3,
		    json_object_get_int64(get(x, "max_ns")) / 1e3);
	}
	a = get(w, "writer_sites");
	out(f, "  leaf writers: %zu\n", json_object_array_length(a));
	writer_rows(a, 0, 0, f);
}

int
report_table(json_object *doc, FILE *f, size_t columns)
{
	json_object *ws;
	size_t i;

	width = columns < 1 ? 1 : columns > MAXWIDTH ? MAXWIDTH : columns;
	linelen = 0;
	header(doc, f);
	lower_bound_note(doc, f);
	ws = get(doc, "watches");
	for (i = 0; i < json_object_array_length(ws); i++)
		watch_section(doc, json_object_array_get_idx(ws, i), f);
	ws = get(doc, "dependent_watches");
	for (i = 0; i < json_object_array_length(ws); i++)
		follow_section(doc, json_object_array_get_idx(ws, i), f);
	return ferror(f) ? -1 : 0;
}
