/*
 * The second question's answer (wp-records(7) site and access records):
 * per site, an instruction, the distinct addresses it accessed, each
 * with its writes and reads per thread (the latest of each cumulative
 * access record), where it lies, and the summary a person reads first:
 * how many addresses, where most of them are, their stride.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accesses.h"
#include "html.h"
#include "record.h"
#include "report.h"
#include "util.h"

#define ACC_COLUMNS	100	/* the table's width, as the watches' */
#define THREADS_COL	71	/* where an address's threads begin */
#define HTML_ROWS	5000	/* addresses a page shows per site */

/* A distinct address of a site, over its threads. */
struct raddr {
	uint64_t	 addr;
	uint64_t	 writes, reads;
	uint64_t	 matched, match_unknown;	/* --if */
	const char	*region;
	const struct racc *what;	/* its name, stack or TLS */
	const struct racc **thr;
	size_t		 nthr;
};

struct rval;

/* What the report says of a site. */
struct rview {
	struct raddr	*a;
	size_t		 n;
	uint64_t	 writes, reads;
	size_t		 threads;
	const struct racc *top;		/* one of the place most are in */
	size_t		 top_count;
	int		 has_stride;
	uint64_t	 stride;
	size_t		 stride_count;
	struct racc	*acc;		/* its tallies, by address, thread */
	/* a register store's values, over its value budgets: each
	   distinct value kept and its writes, most first */
	struct rval	*vals;
	size_t		 nvals;
	uint64_t	 vother;	/* writes of values past a budget */
	int		 valued;
	/* wp-arm --if: the executions that matched, those not known, the
	   addresses and threads of the matches */
	int		 has_match;
	uint64_t	 matched, match_unknown;
	size_t		 match_addrs, match_threads;
};

struct rval {
	uint64_t	 value, count;
};


static int
by_addr_tid(const void *pa, const void *pb)
{
	const struct racc *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static int
by_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* The most common of n sorted values into *v, how often. */
static size_t
most_common(const uint64_t *d, size_t n, uint64_t *v)
{
	size_t i, run = 0, best = 0;

	for (i = 0; i < n; i++) {
		run = i > 0 && d[i] == d[i - 1] ? run + 1 : 1;
		if (run > best) {
			best = run;
			*v = d[i];
		}
	}
	return best;
}

static int
by_count(const void *pa, const void *pb)
{
	const struct rval *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->value > b->value) - (a->value < b->value);
}

/* The values of v's k tallies, over their budgets, into v->vals. */
static void
view_values(struct rview *v, size_t k)
{
	struct wp_hmap h;
	uint64_t *n;
	size_t i, j;
	int isnew;

	wp_hmap_init(&h, sizeof(uint64_t));
	for (i = 0; i < k; i++) {
		v->valued |= v->acc[i].nvals > 0;
		v->vother += v->acc[i].vother;
		for (j = 0; j < v->acc[i].nvals; j++) {
			n = wp_hmap_put(&h, v->acc[i].vals[j], 0, &isnew);
			*n += v->acc[i].vn[j];
		}
	}
	v->vals = wp_xcalloc(h.n + 1, sizeof *v->vals);
	for (i = 0; i < h.cap; i++)
		if ((n = wp_hmap_slot(&h, i)) != NULL) {
			v->vals[v->nvals].value = h.keys[2 * i];
			v->vals[v->nvals++].count = *n;
		}
	qsort(v->vals, v->nvals, sizeof *v->vals, by_count);
	wp_hmap_free(&h);
}

/*
 * The place of c that the summary counts, as a key: a thread's TLS, a
 * thread's stack, else its mapping (its region, and for anonymous
 * memory, of which there are many, where it starts).
 */
static void
place(const struct racc *c, uint64_t *k1, uint64_t *k2)
{
	*k1 = c->tls_of > 0 ? 1 : c->stack_of > 0 ? 2 :
	    (uint64_t)(uintptr_t)c->region;
	*k2 = c->tls_of > 0 || c->stack_of > 0 || c->region == NULL ||
	    strcmp(c->region, "[anon]") != 0 ? 0 : c->map_start;
}

/* That place, named into buf: "[heap]", "[anon] at 0x7f0a2c000000". */
static const char *
place_name(const struct racc *c, char *buf, size_t sz)
{
	uint64_t k1, k2;

	place(c, &k1, &k2);
	if (c->tls_of > 0)
		snprintf(buf, sz, "threads' TLS");
	else if (c->stack_of > 0)
		snprintf(buf, sz, "threads' stacks");
	else if (c->region == NULL)
		snprintf(buf, sz, "an unknown mapping");
	else if (k2 != 0)
		snprintf(buf, sz, "%s at 0x%" PRIx64, c->region, k2);
	else
		snprintf(buf, sz, "%s", c->region);
	return buf;
}

/* Site id's addresses, threads and summary into v (freed by view_free). */
static void
view_site(const struct report *r, int id, struct rview *v)
{
	const struct racc *c;
	struct raddr *a = NULL;
	uint64_t *d, *tids;
	struct wp_hmap places;
	size_t i, k, na = 0, nt, nd, *cnt;
	int isnew;

	memset(v, 0, sizeof *v);
	v->acc = wp_xcalloc(r->acc.n + 1, sizeof *v->acc);
	for (i = 0, k = 0; i < r->acc.cap; i++)
		if ((c = wp_hmap_slot(&r->acc, i)) != NULL && c->site == id)
			v->acc[k++] = *c;
	qsort(v->acc, k, sizeof *v->acc, by_addr_tid);
	v->a = wp_xcalloc(k + 1, sizeof *v->a);
	tids = wp_xcalloc(k + 1, sizeof *tids);
	for (i = 0; i < k; i++) {
		c = &v->acc[i];
		if (na == 0 || v->a[na - 1].addr != c->addr) {
			a = &v->a[na++];
			a->addr = c->addr;
			a->region = c->region;
			a->what = c;
			a->thr = wp_xcalloc(1, sizeof *a->thr);
		} else
			a->thr = wp_xrealloc(a->thr, (a->nthr + 1) *
			    sizeof *a->thr);
		a->thr[a->nthr++] = c;
		a->writes += c->writes;
		a->reads += c->reads;
		v->writes += c->writes;
		v->reads += c->reads;
		tids[i] = (uint64_t)c->tid;
		if (c->has_match) {
			v->has_match = 1;
			v->match_addrs += a->matched == 0 && c->matched > 0;
			a->matched += c->matched;
			a->match_unknown += c->match_unknown;
			v->matched += c->matched;
			v->match_unknown += c->match_unknown;
		}
	}
	v->n = na;
	qsort(tids, k, sizeof *tids, by_u64);
	for (i = 0, nt = 0; i < k; i++)
		nt += i == 0 || tids[i] != tids[i - 1];
	v->threads = nt;
	for (i = 0, nt = 0; i < k; i++)
		if (v->acc[i].matched > 0)
			tids[nt++] = (uint64_t)v->acc[i].tid;
	qsort(tids, nt, sizeof *tids, by_u64);
	for (i = 0; i < nt; i++)
		v->match_threads += i == 0 || tids[i] != tids[i - 1];
	free(tids);
	/* where most of them lie: counted per place, in one pass */
	wp_hmap_init(&places, sizeof(size_t));
	for (i = 0; i < na; i++) {
		const struct racc *c = v->a[i].what;
		uint64_t k1, k2;

		place(c, &k1, &k2);
		cnt = wp_hmap_put(&places, k1, k2, &isnew);
		if (++*cnt > v->top_count) {
			v->top_count = *cnt;
			v->top = c;
		}
	}
	wp_hmap_free(&places);
	/* the stride: the most common step between neighbours */
	nd = na > 1 ? na - 1 : 0;
	d = wp_xcalloc(nd + 1, sizeof *d);
	for (i = 0; i < nd; i++)
		d[i] = v->a[i + 1].addr - v->a[i].addr;
	qsort(d, nd, sizeof *d, by_u64);
	if (nd > 0) {
		v->has_stride = 1;
		v->stride_count = most_common(d, nd, &v->stride);
	}
	free(d);
	view_values(v, k);
}

static void
view_free(struct rview *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->a[i].thr);
	free(v->a);
	free(v->acc);
	free(v->vals);
}

/*
 * What address a is, into buf: its name (SYMBOL+0xOFF, as wp watch
 * takes it), a thread's TLS (where from its fs base) or stack, else the
 * mapping that holds it; "-" when not known.
 */
static const char *
what(const struct raddr *a, char *buf, size_t sz)
{
	const struct racc *c = a->what;

	if (c->name != NULL)
		snprintf(buf, sz, "%s", c->name);
	else if (c->tls_of > 0)
		snprintf(buf, sz, "TLS of %d, fs%s0x%" PRIx64, (int)c->tls_of,
		    c->tls_off < 0 ? "-" : "+", c->tls_off < 0 ?
		    -(uint64_t)c->tls_off : (uint64_t)c->tls_off);
	else if (c->stack_of > 0)
		snprintf(buf, sz, "stack of %d", (int)c->stack_of);
	else if (c->region != NULL && strcmp(c->region, "[anon]") == 0 &&
	    c->map_start != 0)
		snprintf(buf, sz, "[anon] at 0x%" PRIx64, c->map_start);
	else
		snprintf(buf, sz, "%s", a->region != NULL ? a->region : "-");
	return buf;
}

/* 1234567 as "1,234,567" into buf. */
static const char *
grouped(uint64_t n, char *buf, size_t sz)
{
	char d[32];
	size_t len, i, o = 0;

	len = (size_t)snprintf(d, sizeof d, "%" PRIu64, n);
	for (i = 0; i < len && o + 2 < sz; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
	return buf;
}

/* The line a person reads first: "wrote 1,000 distinct addresses, 100%
   in [heap], stride 0x8; 6,000 writes by 3 threads". */
static void
summary(const struct rasite *s, const struct rview *v, char *buf,
    size_t sz)
{
	char n[32], w[32], rd[32], where[320] = "", stride[96] = "";
	char pl[300];
	char reads[64] = "";

	if (v->n > 0 && v->top != NULL)
		snprintf(where, sizeof where, ", %zu%% in %s",
		    (size_t)(v->top_count * 100 / v->n), place_name(v->top, pl,
		    sizeof pl));
	if (v->has_stride && v->stride_count * 10 >= (v->n - 1) * 9)
		snprintf(stride, sizeof stride, ", stride 0x%" PRIx64,
		    v->stride);
	else if (v->has_stride)
		snprintf(stride, sizeof stride, ", most often 0x%" PRIx64
		    " apart (%zu of %zu)", v->stride, v->stride_count,
		    v->n - 1);
	if (s->rw)
		snprintf(reads, sizeof reads, " and %s reads",
		    grouped(v->reads, rd, sizeof rd));
	snprintf(buf, sz, "%s %s distinct address%s%s%s; %s writes%s by %zu "
	    "thread%s", v->writes > 0 || !s->rw ? "wrote" : "read",
	    grouped(v->n, n, sizeof n), v->n == 1 ? "" : "es", where, stride,
	    grouped(v->writes, w, sizeof w), reads, v->threads,
	    v->threads == 1 ? "" : "s");
}

#define SHOWN_VALUES	4	/* the values the table and page name */

/*
 * Which backend counted site s (its access records say; a stream of
 * before they did, the watch's), or NULL.
 */
static const char *
counter_of(const struct report *r, const struct rasite *s)
{
	return s->backend != NULL ? s->backend : r->backend;
}

/* What counted site s, as a line says it; "" when not known. */
static const char *
counted_line(const struct report *r, const struct rasite *s, char *buf,
    size_t sz)
{
	const char *b = counter_of(r, s);

	buf[0] = '\0';
	if (b == NULL)
		return buf;
	if (strcmp(b, wp_backend_names[WP_BK_UPROBE]) == 0)
		snprintf(buf, sz, "counted in the kernel by a uprobe (the "
		    "uprobe backend), every execution");
	else if (strcmp(b, wp_backend_names[WP_BK_BPF]) == 0)
		snprintf(buf, sz, "counted in the kernel at an execute "
		    "breakpoint (the bpf backend), every execution");
	else if (strcmp(b, wp_backend_names[WP_BK_PTRACE]) == 0)
		snprintf(buf, sz, "counted by wp-arm at an int3 (the ptrace "
		    "backend), every execution");
	else
		snprintf(buf, sz, "counted by %s", b);
	return buf;
}

/* Where the value budget of site s was kept: "in the kernel". */
static const char *
kept_where(const struct report *r, const struct rasite *s)
{
	const char *b = counter_of(r, s);

	if (b != NULL && (strcmp(b, wp_backend_names[WP_BK_UPROBE]) == 0 ||
	    strcmp(b, wp_backend_names[WP_BK_BPF]) == 0))
		return " in the kernel";
	if (b != NULL && strcmp(b, wp_backend_names[WP_BK_PTRACE]) == 0)
		return " by wp-arm";
	return "";
}

/*
 * The values a register store wrote, into buf: "values 0x1d2f 3,000,
 * 0x1d30 2,000" (as many as fit a table's line, most written first,
 * then how many more), and into note what budget kept them, and where
 * (kept): "(the first 4 distinct per address and thread, kept in the
 * kernel; 0 writes of others)"; "" for other instructions.
 */
static const char *
values_line(const struct rview *v, const char *kept, char *buf, size_t sz,
    char *note, size_t nsz)
{
	char c[32], one[64];
	size_t i, o, len;

	buf[0] = note[0] = '\0';
	if (!v->valued)
		return buf;
	o = (size_t)snprintf(buf, sz, "values");
	for (i = 0; i < v->nvals; i++) {
		len = (size_t)snprintf(one, sizeof one, "%s 0x%" PRIx64 " %s",
		    i ? "," : "", v->vals[i].value, grouped(v->vals[i].count,
		    c, sizeof c));
		/* room left for ", 99 more" within the table's width */
		if (o + len + 16 > ACC_COLUMNS - 2 || o + len >= sz)
			break;
		memcpy(buf + o, one, len + 1);
		o += len;
	}
	if (i < v->nvals)
		snprintf(buf + o, sz - o, "%s %zu more", i ? "," : "",
		    v->nvals - i);
	snprintf(note, nsz, "(the first %d distinct per address and thread, "
	    "kept%s; %s write%s of others)", WP_ACCESS_NVALS, kept,
	    grouped(v->vother, c, sizeof c), v->vother == 1 ? "" : "s");
	return buf;
}

/*
 * wp-arm --if: "--if matched 300 of 6,000 executions, at 100 addresses
 * by 3 threads[; 12 not known (values past the budget)]"; "" without.
 */
static const char *
match_line(const struct rview *v, char *buf, size_t sz)
{
	char m[32], n[32], a[32], u[96] = "";

	if (!v->has_match) {
		buf[0] = '\0';
		return buf;
	}
	if (v->match_unknown > 0)
		snprintf(u, sizeof u, "; %s not known (values past the "
		    "budget)", grouped(v->match_unknown, n, sizeof n));
	snprintf(buf, sz, "--if matched %s of %s executions, at %s "
	    "address%s by %zu thread%s%s", grouped(v->matched, m, sizeof m),
	    grouped(v->writes > v->reads ? v->writes : v->reads, n, sizeof n),
	    grouped(v->match_addrs, a, sizeof a), v->match_addrs == 1 ?
	    "" : "es", v->match_threads,
	    v->match_threads == 1 ? "" : "s", u);
	return buf;
}

void
access_table(const struct report *r, FILE *f)
{
	const struct rasite *s;
	const struct raddr *a;
	struct rview v;
	char line[1024], note[160], tv[48], wh[300], *semi;
	size_t i, k, j, col;

	for (i = 0; i < r->nasites; i++) {
		s = &r->asites[i];
		view_site(r, s->id, &v);
		summary(s, &v, line, sizeof line);
		fprintf(f, "\nsite %d  %s  0x%" PRIx64 "  %s\n", s->id,
		    s->input, s->addr, s->insn);
		/* within the table's width: the counts on a line of their own */
		if (strlen(line) + 2 > ACC_COLUMNS &&
		    (semi = strstr(line, "; ")) != NULL) {
			*semi = '\0';
			fprintf(f, "  %s;\n  %s\n", line, semi + 2);
		} else
			fprintf(f, "  %s\n", line);
		if (counted_line(r, s, line, sizeof line)[0] != '\0')
			fprintf(f, "  %s\n", line);
		if (values_line(&v, kept_where(r, s), line, sizeof line, note,
		    sizeof note)[0] != '\0')
			fprintf(f, "  %s\n  %s\n", line, note);
		if (match_line(&v, line, sizeof line)[0] != '\0')
			fprintf(f, "  %s\n", line);
		if (v.n > 0)
			fprintf(f, "  %-18s  %10s  %10s  %-24s  %s\n", "ADDRESS",
			    "WRITES", "READS", "WHERE", "THREADS (TID:WRITES)");
		for (k = 0; k < v.n; k++) {
			a = &v.a[k];
			what(a, wh, sizeof wh);
			fprintf(f, "  0x%-16" PRIx64 "  %10" PRIu64 "  %10"
			    PRIu64 "  %-24s ", a->addr, a->writes, a->reads, wh);
			/* a longer name whole: copyable, the threads after */
			col = THREADS_COL + (strlen(wh) > 24 ?
			    strlen(wh) - 24 : 0);
			for (j = 0; j < a->nthr; j++) {
				snprintf(tv, sizeof tv, " %d:%" PRIu64,
				    (int)a->thr[j]->tid, s->rw &&
				    a->thr[j]->writes == 0 ? a->thr[j]->reads :
				    a->thr[j]->writes);
				/* more threads than a line holds: go on below */
				if (j > 0 && col + strlen(tv) > ACC_COLUMNS) {
					fprintf(f, "\n%*s", THREADS_COL, "");
					col = THREADS_COL;
				}
				fputs(tv, f);
				col += strlen(tv);
			}
			fputc('\n', f);
		}
		view_free(&v);
	}
}

void
access_document(const struct report *r, struct wp_jw *w)
{
	const struct rasite *s;
	const struct raddr *a;
	struct rview v;
	char line[1024], wh[300];
	size_t i, k, j;

	if (r->nasites == 0)
		return;
	wp_jw_arr(w, "sites");
	for (i = 0; i < r->nasites; i++) {
		s = &r->asites[i];
		view_site(r, s->id, &v);
		summary(s, &v, line, sizeof line);
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", s->id);
		wp_jw_str(w, "input", s->input);
		wp_jw_hex(w, "runtime_addr", s->addr);
		wp_jw_str(w, "insn", s->insn);
		wp_jw_str(w, "summary", line);
		WP_JW_OR_NULL(wp_jw_str, w, "counted_by",
		    counter_of(r, s) != NULL, counter_of(r, s));
		wp_jw_uint(w, "distinct_addresses", v.n);
		wp_jw_uint(w, "writes", v.writes);
		wp_jw_uint(w, "reads", v.reads);
		wp_jw_uint(w, "threads", v.threads);
		WP_JW_OR_NULL(wp_jw_hex, w, "stride", v.has_stride, v.stride);
		if (v.has_match) {
			wp_jw_uint(w, "matched", v.matched);
			wp_jw_uint(w, "match_unknown", v.match_unknown);
		}
		if (v.valued) {
			wp_jw_uint(w, "value_budget", WP_ACCESS_NVALS);
			wp_jw_arr(w, "values");
			for (k = 0; k < v.nvals; k++) {
				wp_jw_obj(w, NULL);
				wp_jw_hex(w, "value", v.vals[k].value);
				wp_jw_uint(w, "count", v.vals[k].count);
				wp_jw_end(w);
			}
			wp_jw_end(w);
			wp_jw_uint(w, "values_other", v.vother);
		}
		wp_jw_arr(w, "addresses");
		for (k = 0; k < v.n; k++) {
			a = &v.a[k];
			wp_jw_obj(w, NULL);
			wp_jw_hex(w, "addr", a->addr);
			wp_jw_str(w, "region", a->region);
			wp_jw_str(w, "what", what(a, wh, sizeof wh));
			if (a->what->name != NULL)
				wp_jw_str(w, "name", a->what->name);
			if (a->what->stack_of > 0)
				wp_jw_int(w, "stack_of", a->what->stack_of);
			if (a->what->tls_of > 0) {
				wp_jw_int(w, "tls_of", a->what->tls_of);
				wp_jw_shex(w, "tls_offset", a->what->tls_off);
			}
			wp_jw_uint(w, "writes", a->writes);
			wp_jw_uint(w, "reads", a->reads);
			if (v.has_match) {
				wp_jw_uint(w, "matched", a->matched);
				wp_jw_uint(w, "match_unknown",
				    a->match_unknown);
			}
			wp_jw_arr(w, "threads");
			for (j = 0; j < a->nthr; j++) {
				wp_jw_obj(w, NULL);
				wp_jw_int(w, "tid", a->thr[j]->tid);
				wp_jw_uint(w, "writes", a->thr[j]->writes);
				wp_jw_uint(w, "reads", a->thr[j]->reads);
				if (a->thr[j]->has_match)
					wp_jw_uint(w, "matched",
					    a->thr[j]->matched);
				if (a->thr[j]->has_values) {
					wp_jw_hex(w, "first_value",
					    a->thr[j]->first);
					wp_jw_hex(w, "last_value",
					    a->thr[j]->last);
				}
				wp_jw_end(w);
			}
			wp_jw_end(w);
			wp_jw_end(w);
		}
		wp_jw_end(w);
		wp_jw_end(w);
		view_free(&v);
	}
	wp_jw_end(w);
}

/*
 * The page's section per site (wp-report --html): the instruction, its
 * summary, then a row per address, the first HTML_ROWS in address order
 * (the JSON document has them all).
 */
void
access_html(const struct report *r, FILE *f)
{
	const struct rasite *s;
	const struct raddr *a;
	struct rview v;
	char line[1024], note[160], wh[300];
	size_t i, k, j;

	for (i = 0; i < r->nasites; i++) {
		s = &r->asites[i];
		view_site(r, s->id, &v);
		summary(s, &v, line, sizeof line);
		fprintf(f, "<section class=\"site\" id=\"site-%d\" "
		    "data-site=\"%d\" data-addresses=\"%zu\">\n<h2>site %d: ",
		    s->id, s->id, v.n, s->id);
		html_text(f, s->input);
		fprintf(f, "</h2>\n<p class=\"where mono\">");
		html_fmt(f, "0x%" PRIx64 "  %s", s->addr, s->insn);
		fprintf(f, "</p>\n<p class=\"summary\">");
		html_text(f, line);
		fprintf(f, "</p>\n");
		if (counted_line(r, s, line, sizeof line)[0] != '\0') {
			fprintf(f, "<p class=\"counted\">");
			html_text(f, line);
			fprintf(f, "</p>\n");
		}
		if (values_line(&v, kept_where(r, s), line, sizeof line, note,
		    sizeof note)[0] != '\0') {
			fprintf(f, "<p class=\"values\">");
			html_fmt(f, "%s %s", line, note);
			fprintf(f, "</p>\n");
		}
		if (match_line(&v, line, sizeof line)[0] != '\0') {
			fprintf(f, "<p class=\"matched\">");
			html_text(f, line);
			fprintf(f, "</p>\n");
		}
		if (v.n > HTML_ROWS)
			fprintf(f, "<p class=\"note\">The first %d addresses of "
			    "%zu; the JSON report (--json) has every one.</p>\n",
			    HTML_ROWS, v.n);
		if (v.n > 0)
			fprintf(f, "<table class=\"accesses\"><thead><tr>"
			    "<th>ADDRESS</th><th>WRITES</th><th>READS</th>"
			    "<th>WHAT</th><th>THREADS (TID:COUNT)</th></tr>"
			    "</thead><tbody>\n");
		for (k = 0; k < v.n && k < HTML_ROWS; k++) {
			a = &v.a[k];
			fprintf(f, "<tr data-addr=\"0x%" PRIx64 "\"><td class="
			    "\"mono\">0x%" PRIx64 "</td><td class=\"num\">%"
			    PRIu64 "</td><td class=\"num\">%" PRIu64 "</td>"
			    "<td class=\"mono\">", a->addr, a->addr, a->writes,
			    a->reads);
			html_text(f, what(a, wh, sizeof wh));
			fprintf(f, "</td><td class=\"mono\">");
			for (j = 0; j < a->nthr; j++)
				fprintf(f, "%s%d:%" PRIu64, j ? " " : "",
				    (int)a->thr[j]->tid, s->rw &&
				    a->thr[j]->writes == 0 ?
				    a->thr[j]->reads : a->thr[j]->writes);
			fprintf(f, "</td></tr>\n");
		}
		if (v.n > 0)
			fprintf(f, "</tbody></table>\n");
		fprintf(f, "</section>\n");
		view_free(&v);
	}
}
