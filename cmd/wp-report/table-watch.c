/*
 * A target's section of the table: its values and counts, its writers
 * (with their call chains), its threads and its samples.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "util.h"

#define SHOWN_BYTES	16	/* of a value wider than 8 bytes */

/* Whether sample sm's value is unknown. */
static int
value_unknown(const struct rsample *sm)
{
	return sm->has_value && sm->value.kind_word != NULL &&
	    strcmp(sm->value.kind_word, wp_vkind_names[WP_VALUE_UNKNOWN]) == 0;
}

/*
 * A written value: "eax = 0x2a", "unknown: why" ("unknown" when why is
 * why_said, said once for the table), the value, its first bytes in
 * memory order when it is wider than 8 (cut by '~'), or "-".
 */
static void
value_text(const struct rsample *sm, const char *why_said, char *buf,
    size_t sz)
{
	const struct wp_value_in *v = &sm->value;
	char hex[2 * SHOWN_BYTES + 2];
	const char *kind = sm->has_value && v->kind_word ? v->kind_word : "-";
	const char *val = "-";

	if (sm->has_value && v->has_value) {
		hex[wp_fmt_hex(hex, v->value)] = '\0';
		val = hex;
	} else if (sm->has_value && v->bytes != NULL)	/* memory order */
		val = fit(hex, sizeof hex, v->bytes, sizeof hex - 1);
	if (value_unknown(sm) && why_said != NULL && v->reason != NULL &&
	    strcmp(v->reason, why_said) == 0)
		snprintf(buf, sz, "unknown");
	else if (strcmp(kind, wp_vkind_names[WP_VALUE_UNKNOWN]) == 0)
		snprintf(buf, sz, "unknown: %s", v->reason ? v->reason : "-");
	else if (strcmp(kind, wp_vkind_names[WP_VALUE_REGISTER]) == 0)
		snprintf(buf, sz, "%s = %s", v->reg ? v->reg : "-", val);
	else if (strcmp(kind, "-") == 0)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s", val);
}

/* "file:line" of a writer's source, the file's base name, or "-". */
static void
source_text(const struct wp_writer_in *w, char *buf, size_t sz)
{
	if (w->source_file == NULL)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s:%lld", base(w->source_file),
		    (long long)w->source_line);
}

/* Whether any site is other than a write: then the KIND column. */
static int
kinds(const struct rtarget *t)
{
	size_t j;

	for (j = 0; j < t->nsorted; j++)
		if (t->sorted[j]->kind != WP_KIND_WRITE)
			return 1;
	return 0;
}

/* A table of writer sites. */
struct writers {
	struct rsite	**a;
	size_t		 n;
	int		 kind;		/* the KIND column */
	int		 matched;	/* the MATCHED column (--if) */
	int		 notes;		/* reasons and caveats */
	char		**names;
	struct col	 c[3];		/* WRITER, INSTRUCTION, SOURCE */
};

static const char *
or_dash(const char *s)
{
	return s != NULL ? s : "-";
}

/* The INSTRUCTION cell: the instruction, or why there is none. */
static const char *
insn_cell(const struct rsite *s, int notes)
{
	return or_dash(s->writer.insn != NULL || !notes ? s->writer.insn :
	    s->writer.reason);
}

static void
writers_layout(struct writers *t)
{
	char b[512], ip[24];
	const struct rsite *s;
	size_t j;

	t->names = names_new(t->n);
	t->c[0] = (struct col){ t->kind ? 22 : 26, strlen("WRITER"), 0 };
	t->c[1] = (struct col){ t->kind ? 29 : 35, strlen("INSTRUCTION"), 0 };
	t->c[2] = (struct col){ t->kind ? 14 : 16, strlen("SOURCE"), 0 };
	for (j = 0; j < t->n; j++) {
		s = t->a[j];
		ip[wp_fmt_hex(ip, s->trap)] = '\0';
		label_writer(&s->writer, s->writer.insn ? ip : "-", b,
		    sizeof b);
		t->names[j] = wp_xstrdup(b);
		need(&t->c[0], strlen(b));
		need(&t->c[1], strlen(insn_cell(s, t->notes)));
		source_text(&s->writer, b, sizeof b);
		need(&t->c[2], strlen(b));
	}
	layout(t->c, 3, room(21 + (t->kind ? 12 : 0) + (t->matched ? 11 : 0) +
	    2), t->names, t->n);
}

static void
writers_header(const struct writers *t, FILE *f)
{
	out(f, "  %9s  ", "HITS");
	if (t->matched)
		out(f, "%9s  ", "MATCHED");
	out(f, "%-7s ", "CONF");
	if (t->kind)
		out(f, "%-11s ", "KIND");
	out(f, "%-*s %-*s %s\n", (int)t->c[0].w, "WRITER", (int)t->c[2].w,
	    "SOURCE", "INSTRUCTION");
}

static void
writer_row(const struct writers *t, size_t j, FILE *f)
{
	const struct rsite *s = t->a[j];
	const struct wp_writer_in *w = &s->writer;
	char b1[MAXWIDTH + 1], b2[MAXWIDTH + 1], b3[MAXWIDTH + 1], src[512];

	source_text(w, src, sizeof src);
	label_shorten(t->names[j], t->c[0].w, b1, sizeof b1);
	out(f, "  %9llu  ", (unsigned long long)s->hits);
	if (t->matched)
		out(f, "%9llu  ", (unsigned long long)s->matched);
	out(f, "%-7s ", wp_conf_names[s->worst]);
	if (t->kind)
		out(f, "%-11s ", wp_kind_names[s->kind]);
	label_shorten_source(src, t->c[2].w, b2, sizeof b2);
	out(f, "%-*s %-*s %s\n", (int)t->c[0].w, b1, (int)t->c[2].w, b2,
	    fit(b3, sizeof b3, insn_cell(s, t->notes), t->c[1].w));
	if (t->notes && (w->caveat != NULL || (w->insn == NULL &&
	    w->reason != NULL)))
		out(f, "  %9s  %s\n", "", fit(b3, sizeof b3, w->caveat ?
		    w->caveat : w->reason, room(13)));
	if (t->notes)
		table_chains(s, f);
}

/*
 * A target's writer sites, one a row; header adds the column names,
 * notes the reasons, caveats and call chains.
 */
static void
writer_rows(const struct rtarget *rt, int header, int notes, FILE *f)
{
	struct writers t;
	size_t j;

	memset(&t, 0, sizeof t);
	t.a = rt->sorted;
	t.n = rt->nsorted;
	t.kind = kinds(rt);
	t.matched = rt->conditioned;
	t.notes = notes;
	writers_layout(&t);
	if (header && t.n > 0)
		writers_header(&t, f);
	for (j = 0; j < t.n; j++)
		writer_row(&t, j, f);
	names_free(t.names, t.n);
}

/* The column names only beside MATCHED: HITS alone needs none. */
void
table_leaf_writers(const struct rtarget *t, FILE *f)
{
	out(f, "  leaf writers: %zu\n", t->nsorted);
	writer_rows(t, t->conditioned, 0, f);
}

void
table_matched(const struct report *r, const struct rtarget *t,
    const char *split, FILE *f)
{
	out(f, "%llu tallied by writer%s; %llu matched --if '%s'",
	    (unsigned long long)t->tallied_hits, split,
	    (unsigned long long)t->matched_hits, r->armed.condition.text);
}

static void
threads(const struct report *r, const struct rtarget *t, FILE *f)
{
	char b[256], c[128];
	const char *comm;
	size_t j;

	out(f, "  threads:");
	for (j = 0; j < t->nthr && j < 8; j++) {
		/* "4242 worker (17)": the thread, its name, its hits */
		if ((comm = report_comm(r, t->thr[j].tid)) != NULL)
			snprintf(b, sizeof b, "%d %s (%llu)", t->thr[j].tid,
			    printable(c, sizeof c, comm),
			    (unsigned long long)t->thr[j].hits);
		else
			snprintf(b, sizeof b, "%d (%llu)", t->thr[j].tid,
			    (unsigned long long)t->thr[j].hits);
		item(f, b, strlen("  threads:"));
	}
	if (j < t->nthr) {
		snprintf(b, sizeof b, "and %zu more", t->nthr - j);
		item(f, b, strlen("  threads:"));
	}
	out(f, "%s\n", j == 0 ? " none" : "");
}

/* A table of samples, in time order. */
struct samples {
	struct rsample	*a;		/* copies of the report's */
	size_t		 n;
	const char	*why;		/* every unknown value's reason, or
					   NULL: said once, not per row */
	size_t		 cw;		/* the THREAD column; 0: none */
	size_t		 aw, lw;	/* AT and LEN; 0: none */
	char		**names;
	struct col	 c[2];		/* WRITER, VALUE */
};

/* Where sample x's write landed: "+0x1f40" and its length, or "-". */
static void
store_text(const struct rsample *x, char *at, size_t asz, char *len,
    size_t lsz)
{
	char hex[24];

	if (!x->has_store) {
		snprintf(at, asz, "-");
		snprintf(len, lsz, "-");
		return;
	}
	hex[wp_fmt_hex(hex, x->store_off)] = '\0';
	snprintf(at, asz, "+%s", hex);
	snprintf(len, lsz, "%lld", (long long)x->store_len);
}

static void
samples_layout(const struct report *r, struct samples *t)
{
	char b[512], ip[24], at[32], len[24];
	const struct rsample *x;
	const char *comm;
	size_t j;

	t->names = names_new(t->n);
	for (j = 0; j < t->n; j++) {
		if (!t->a[j].has_store)
			continue;
		store_text(&t->a[j], at, sizeof at, len, sizeof len);
		t->aw = t->aw > strlen(at) ? t->aw : strlen(at);
		t->lw = t->lw > strlen(len) ? t->lw : strlen(len);
	}
	if (t->aw > 0) {
		t->aw = t->aw < strlen("AT") ? strlen("AT") : t->aw;
		t->lw = t->lw < strlen("LEN") ? strlen("LEN") : t->lw;
	}
	t->c[0] = (struct col){ 26, strlen("WRITER"), 0 };
	t->c[1] = (struct col){ 44, strlen("VALUE"), 0 };
	for (j = 0; j < t->n; j++) {
		x = &t->a[j];
		ip[wp_fmt_hex(ip, x->trap)] = '\0';
		label_writer(&x->writer, ip, b, sizeof b);
		t->names[j] = wp_xstrdup(b);
		need(&t->c[0], strlen(b));
		value_text(x, t->why, b, sizeof b);
		need(&t->c[1], strlen(b));
		if ((comm = report_comm(r, x->tid)) != NULL &&
		    t->cw < strlen(comm))
			t->cw = strlen(comm);
	}
	if (t->cw > 0)
		t->cw = t->cw < strlen("THREAD") ? strlen("THREAD") :
		    least(t->cw, 16);
	layout(t->c, 2, room(2 + 9 + 2 + 12 + 2 + 1 + (t->cw ? t->cw + 1 : 0) +
	    (t->aw ? t->aw + 1 + t->lw + 2 : 0)), t->names, t->n);
}

/*
 * TID, its name when any sample has one, TIME ms, and where the write
 * landed when any sample says.
 */
static void
sample_lead(const struct samples *t, const char *tid, const char *comm,
    const char *ms, const char *at, const char *len, FILE *f)
{
	char b[128], c[128];

	out(f, "  %9s", tid);
	if (t->cw > 0)
		out(f, " %-*s", (int)t->cw, fit(b, sizeof b,
		    printable(c, sizeof c, comm), t->cw));
	out(f, "  %12s  ", ms);
	if (t->aw > 0)
		out(f, "%-*s %*s  ", (int)t->aw, at, (int)t->lw, len);
}

static void
sample_row(const struct report *r, const struct samples *t, size_t j,
    FILE *f)
{
	const struct rsample *x = &t->a[j];
	char b1[MAXWIDTH + 1], b2[MAXWIDTH + 1], v[512], ms[64], tid[24];
	char at[32], len[24];
	const char *comm = report_comm(r, x->tid);

	value_text(x, t->why, v, sizeof v);
	snprintf(ms, sizeof ms, "%.3f", (double)x->time_ns / 1e6);
	snprintf(tid, sizeof tid, "%lld", (long long)x->tid);
	store_text(x, at, sizeof at, len, sizeof len);
	label_shorten(t->names[j], t->c[0].w, b1, sizeof b1);
	sample_lead(t, tid, comm ? comm : "-", ms, at, len, f);
	out(f, "%-*s %s\n", (int)t->c[0].w, b1,
	    fit(b2, sizeof b2, v, t->c[1].w));
}

static int
by_time(const void *a, const void *b)
{
	const struct rsample *x = a, *y = b;
	int c = WP_ORDER(x->time_ns, y->time_ns);

	return c != 0 ? c : WP_ORDER(x->tid, y->tid);
}

/* The reason every unknown value has, when two or more share it. */
static const char *
shared_why(const struct samples *t)
{
	const char *why = NULL;
	size_t j, n = 0;

	for (j = 0; j < t->n; j++) {
		if (!value_unknown(&t->a[j]))
			continue;
		if (t->a[j].value.reason == NULL || (why != NULL &&
		    strcmp(why, t->a[j].value.reason) != 0))
			return NULL;
		why = t->a[j].value.reason;
		n++;
	}
	return n > 1 ? why : NULL;
}

/*
 * Samples (or last writes) a[0..n): TID, THREAD, TIME ms, WRITER, VALUE,
 * a header line and a row each.
 */
static void
table_samples(const struct report *r, const struct rsample *a, size_t n,
    FILE *f)
{
	struct samples t;
	size_t j;

	memset(&t, 0, sizeof t);
	if ((t.n = n) == 0)
		return;
	/* kept by thread and by chance, shown as they happened */
	t.a = wp_xcalloc(t.n, sizeof *t.a);
	memcpy(t.a, a, t.n * sizeof *t.a);
	qsort(t.a, t.n, sizeof *t.a, by_time);
	t.why = shared_why(&t);
	samples_layout(r, &t);
	if (t.why != NULL)
		out(f, "  values unknown: %s\n", t.why);
	sample_lead(&t, "TID", "THREAD", "TIME ms", "AT", "LEN", f);
	out(f, "%-*s %s\n", (int)t.c[0].w, "WRITER", "VALUE");
	for (j = 0; j < t.n; j++)
		sample_row(r, &t, j, f);
	names_free(t.names, t.n);
	free(t.a);
}

/* Why the value changed with no write counted. */
static void
unwatched_change(const struct report *r, FILE *f)
{
	if (r->tracer != NULL)
		out(f, "  changed, no write counted: another process wrote "
		    "it (shared memory)\n");
	else
		out(f, "  changed, no write counted: a system call or another "
		    "process wrote it (--backend ptrace sees calls)\n");
}

/* Whether a watch counted nothing where its breakpoints may be quiet. */
static int
quiet(const struct report *r)
{
	size_t i;

	for (i = 0; i < r->nreasons; i++)
		if (r->reasons[i] == WP_BOUND_QUIET)
			return 1;
	return 0;
}

static void
samples(const struct report *r, const struct rtarget *rt, FILE *f)
{
	if (rt->nsamples == 0)
		return;
	out(f, "  samples: %zu of %llu%s\n", rt->nsamples,
	    (unsigned long long)rt->hits,
	    rt->samples_truncated ? " (truncated)" : "");
	table_samples(r, rt->samples, rt->nsamples, f);
}

/* Who counted the writes. */
static const char *
counter(const struct report *r)
{
	return r->tracer != NULL ? r->tracer : "the kernel";
}

/* What lost.c found: updates lost, per value. */
static void
lost_updates(const struct report *r, const struct rtarget *t, FILE *f)
{
	struct rlost a[MAXFIELDS];
	ssize_t i, n = report_lost(r, t, a);

	for (i = 0; i < n; i++)
		if (a[i].whole)
			out(f, "  lost updates: the value moved by %lld, but "
			    "the %llu writes, each the step most of its\n  "
			    "writer's make, add up to %lld: %lld less, as "
			    "where a non-atomic read-modify-write\n  (x += "
			    "d) on one thread overwrote another thread's "
			    "update\n", (long long)a[i].moved,
			    (unsigned long long)a[i].writes,
			    (long long)a[i].sum, (long long)a[i].less);
		else
			out(f, "  lost updates at +0x%llx (%lld bytes): from "
			    "its first write the field moved by %lld, but "
			    "the %llu\n  writes since, each the step most of "
			    "its writer's make, add up to %lld: %lld less, "
			    "as where a\n  non-atomic read-modify-write (x "
			    "+= d) on one thread overwrote another thread's "
			    "update\n", (unsigned long long)a[i].off,
			    (long long)a[i].len, (long long)a[i].moved,
			    (unsigned long long)a[i].writes,
			    (long long)a[i].sum, (long long)a[i].less);
}

/* The counts: by the kernel, tallied, sampled, and the values. */
static void
counts(const struct report *r, const struct rtarget *t, FILE *f)
{
	const struct wp_field *init = t->initial;
	const struct wp_field *latest = t->obs ? &t->obs->latest_value : NULL;
	const char *counted = t->obs ? t->obs->counted.text : NULL;
	const char *lower = t->lower ? " (lower bound)" : "";
	const char *changed = init->text != NULL && latest != NULL &&
	    latest->text != NULL && strcmp(init->text, latest->text) != 0 ?
	    "  changed" : "";
	const char *ls = latest != NULL ? wp_field_text(latest) : "-";
	unsigned long long hits = t->hits;
	/* with -a rw the kernel counts reads too */
	int rw = strcmp(wp_field_text(&t->rec.access), "rw") == 0;
	const char *what = rw ? "accesses" : "writes";
	char split[96] = "";

	if (rw)
		snprintf(split, sizeof split, " (%llu reads, %llu writes)",
		    (unsigned long long)t->read_hits,
		    (unsigned long long)t->write_hits);
	if (counted != NULL && t->conditioned) {
		out(f, "  %s %s counted by %s; ", counted, what, counter(r));
		table_matched(r, t, split, f);
		out(f, "\n  initial %s  latest %s%s\n", wp_field_text(init),
		    ls, changed);
	} else if (counted != NULL && t->tallied)
		out(f, "  %s %s counted by the kernel; %llu tallied by "
		    "writer in the kernel%s; %llu sampled\n  initial %s  "
		    "latest %s%s\n", counted, what,
		    (unsigned long long)t->tallied_hits, split, hits,
		    wp_field_text(init), ls, changed);
	else if (counted != NULL)
		out(f, "  %s %s counted by %s; %llu attributed to a "
		    "writer%s%s\n  initial %s  latest %s%s\n", counted, what,
		    counter(r), hits, split, lower,
		    wp_field_text(init), ls, changed);
	else
		out(f, "  %llu hits%s%s  initial %s  latest %s%s\n", hits,
		    split, lower, wp_field_text(init), ls, changed);
	if (r->snapshot_caveat != NULL)
		out(f, "  %s\n", r->snapshot_caveat);
	if (counted == NULL && quiet(r))
		out(f, "  count unknown: the breakpoints may have gone quiet: "
		    "another breakpoint was on these threads,\n  and on this "
		    "machine a second breakpoint on an address does not fire "
		    "(an emulator's limit)\n");
	else if (*changed && hits == 0 && (counted == NULL ||
	    strcmp(counted, "0") == 0))
		unwatched_change(r, f);
	lost_updates(r, t, f);
	if (t->spurious_hits > 0)
		out(f, "  spurious %llu: hits whose instruction accessed "
		    "elsewhere, not among the writers\n",
		    (unsigned long long)t->spurious_hits);
}

void
table_watch(const struct report *r, const struct rtarget *t, FILE *f)
{
	const struct wp_watch_pass *x = &t->rec;

	char b[PATH_MAX + 96];

	/* never cut: what does not fit goes on the next line */
	table_whole(1);
	out(f, "\ntarget %d  %s  %s", t->id, wp_field_text(&x->input),
	    wp_field_text(&x->runtime_addr));
	if (x->static_addr.text != NULL) {
		snprintf(b, sizeof b, "(static %s in %s)",
		    x->static_addr.text, base(wp_field_text(&x->module)));
		item(f, b, 9);
	}
	snprintf(b, sizeof b, " %s  %s bytes  %s", wp_field_text(&x->perms),
	    wp_field_text(&x->len), wp_field_text(&x->access));
	item(f, b, 8);
	out(f, "\n");
	table_whole(0);
	counts(r, t, f);
	out(f, "  writers: %zu\n", t->nsorted);
	writer_rows(t, 1, 1, f);
	threads(r, t, f);
	samples(r, t, f);
}

void
table_last(const struct report *r, FILE *f)
{
	const struct rtarget *t;
	size_t i;

	for (i = 0; i < r->nt; i++) {
		t = &r->t[i];
		if (t->nlasts == 0)
			continue;
		out(f, "\nthe last %zu writes to %s (target %d, %s) before %s, "
		    "the last one last:\n", t->nlasts,
		    wp_field_text(&t->rec.input), t->id,
		    wp_field_text(&t->rec.runtime_addr), t->last_end);
		table_samples(r, t->lasts, t->nlasts, f);
	}
}
