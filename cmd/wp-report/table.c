/*
 * The report as a table for people: the process and the watch, then
 * per target its writers, threads and samples, then the follow chains.
 */
#include <stdarg.h>
#include <string.h>

#include "report.h"

static size_t width = 100;	/* the table's columns at most */
static char line[4096];
static size_t linelen;

/*
 * printf to the table: a line longer than the width is cut there, the
 * cut shown by a final '~'.
 */
static void
out(FILE *f, const char *fmt, ...)
{
	char buf[2048];
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
	if (n <= width)
		return strcpy(buf, s);
	memcpy(buf, s, width - 1);
	buf[width - 1] = '~';
	buf[width] = '\0';
	return buf;
}

static void
value_text(json_object *v, char *buf, size_t sz)
{
	const char *kind = str(v, "kind");

	if (strcmp(kind, "unknown") == 0)
		snprintf(buf, sz, "unknown: %s", str(v, "reason"));
	else if (strcmp(kind, "register_store") == 0)
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
	    str(obs, "duration_requested_ms"), str(obs, "stop_reason"),
	    has(obs, "stop_detail") ? " " : "",
	    has(obs, "stop_detail") ? str(obs, "stop_detail") : "",
	    str(get(obs, "lost_events"), "total"));
	out(f, "threads  %s seeded, %s inherited, %s attached late, "
	    "%s unattached, %s exited\n", str(tc, "seeded_tids"),
	    str(tc, "inherited_tids"), str(tc, "dynamically_attached_tids"),
	    str(tc, "unattached_tids"), str(tc, "exited_tids"));
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

/*
 * A writer row, 100 columns at most; named says to fall back on its
 * address; kind adds the KIND column.
 */
static void
writer_row(json_object *x, int named, int kind, FILE *f)
{
	char b1[128], b2[128], b3[128], b4[256], b5[256];
	int ww = kind ? 22 : 26, sw = kind ? 14 : 16, iw = kind ? 29 : 35;

	source_text(get(x, "source"), b5, sizeof b5);
	snprintf(b3, sizeof b3, "%s", str(x, "writer_symbol"));
	if (named && strcmp(b3, "-") == 0)
		snprintf(b3, sizeof b3, "%s", has(x, "writer_static_ip") ?
		    str(x, "writer_static_ip") : has(x, "insn") ?
		    str(x, "trap_runtime_ip") : "-");
	out(f, "  %9s  %-7s ", str(x, "hits"), str(x, "confidence"));
	if (kind)
		out(f, "%-11s ", str(x, "kind"));
	out(f, "%-*s %-*s %s\n", ww, fit(b1, sizeof b1, b3, (size_t)ww),
	    sw, fit(b2, sizeof b2, b5, (size_t)sw), has(x, "insn") || !named ?
	    fit(b4, sizeof b4, str(x, "insn"), (size_t)iw) :
	    fit(b4, sizeof b4, str(x, "reason"), (size_t)iw));
	if (named && (has(x, "caveat") || (!has(x, "insn") &&
	    has(x, "reason"))))
		out(f, "  %9s  %s\n", "", fit(b4, sizeof b4,
		    has(x, "caveat") ? str(x, "caveat") : str(x, "reason"), 87));
}

/* Whether any site is other than a write: then the KIND column. */
static int
kinds(json_object *a)
{
	size_t j;

	for (j = 0; j < json_object_array_length(a); j++)
		if (strcmp(str(json_object_array_get_idx(a, j), "kind"),
		    "write") != 0)
			return 1;
	return 0;
}

static void
writers(json_object *w, FILE *f)
{
	json_object *a = get(w, "writer_sites");
	size_t j, n = json_object_array_length(a);
	int k = kinds(a);

	out(f, "  writers: %zu\n", n);
	if (n > 0 && k)
		out(f, "  %9s  %-7s %-11s %-22s %-14s %s\n", "HITS", "CONF",
		    "KIND", "WRITER", "SOURCE", "INSTRUCTION");
	else if (n > 0)
		out(f, "  %9s  %-7s %-26s %-16s %s\n", "HITS", "CONF",
		    "WRITER", "SOURCE", "INSTRUCTION");
	for (j = 0; j < n; j++)
		writer_row(json_object_array_get_idx(a, j), 1, k, f);
}

static void
threads(json_object *w, FILE *f)
{
	json_object *a = get(w, "threads"), *x;
	size_t j;

	out(f, "  threads:");
	for (j = 0; j < json_object_array_length(a) && j < 8; j++) {
		x = json_object_array_get_idx(a, j);
		out(f, " %s (%s)", str(x, "tid"), str(x, "hits"));
	}
	if (j < json_object_array_length(a))
		out(f, " and %zu more", json_object_array_length(a) - j);
	out(f, "%s\n", j == 0 ? " none" : "");
}

static void
samples(json_object *w, FILE *f)
{
	json_object *a = get(w, "samples"), *x, *r;
	char b1[128], b2[128], b3[128], b4[256];
	size_t j, n = json_object_array_length(a);

	if (n == 0)
		return;
	out(f, "  samples: %zu of %s%s\n", n, str(w, "accepted_hits"),
	    flag(w, "samples_truncated") ? " (truncated)" : "");
	out(f, "  %9s  %12s  %-26s %s\n", "TID", "TIME ms", "WRITER",
	    "VALUE");
	for (j = 0; j < n; j++) {
		x = json_object_array_get_idx(a, j);
		value_text(get(x, "written_value"), b4, sizeof b4);
		snprintf(b3, sizeof b3, "%.3f", (double)json_object_get_int64(
		    get(x, "time_ns")) / 1e6);
		r = get(x, "writer_symbol");
		out(f, "  %9s  %12s  %-26s %s\n", str(x, "tid"), b3,
		    fit(b1, sizeof b1, r ? json_object_get_string(r) :
		    str(x, "trap_runtime_ip"), 26), fit(b2, sizeof b2, b4, 44));
	}
}

static void
watch_section(json_object *doc, json_object *w, FILE *f)
{
	out(f, "\ntarget %s  %s  %s", str(w, "id"), str(w, "input"),
	    str(w, "runtime_addr"));
	if (has(w, "static_addr"))
		out(f, " (static %s in %s)", str(w, "static_addr"),
		    base(str(w, "module")));
	out(f, "  %s  %s bytes  %s\n", str(w, "perms"), str(w, "len"),
	    str(w, "access"));
	if (has(w, "counted") && strcmp(str(w, "writer_counts"),
	    "tallied") == 0)
		out(f, "  %s writes counted by the kernel; %s tallied by "
		    "writer in the kernel; %s sampled\n  initial %s  latest "
		    "%s%s\n", str(w, "counted"), str(w, "tallied_hits"),
		    str(w, "accepted_hits"), str(w, "initial_value"),
		    str(w, "latest_value"), flag(w, "changed") ? "  changed" : "");
	else if (has(w, "counted"))
		out(f, "  %s writes counted by %s; %s attributed to a "
		    "writer%s\n  initial %s  latest %s%s\n", str(w, "counted"),
		    strcmp(str(doc, "backend"), "ptrace_singlestep") == 0 ?
		    "single-stepping" : "the kernel", str(w, "accepted_hits"),
		    flag(doc, "counts_are_lower_bound") ? " (lower bound)" : "",
		    str(w, "initial_value"), str(w, "latest_value"),
		    flag(w, "changed") ? "  changed" : "");
	else
		out(f, "  %s hits%s  initial %s  latest %s%s\n",
		    str(w, "accepted_hits"), flag(doc, "counts_are_lower_bound") ?
		    " (lower bound)" : "", str(w, "initial_value"),
		    str(w, "latest_value"), flag(w, "changed") ? "  changed" : "");
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
	n = json_object_array_length(a);
	out(f, "  leaf writers: %zu\n", n);
	for (j = 0; j < n; j++)
		writer_row(json_object_array_get_idx(a, j), 0, kinds(a), f);
}

int
report_table(json_object *doc, FILE *f)
{
	json_object *ws;
	size_t i;

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
