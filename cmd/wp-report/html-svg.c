/*
 * The report page's drawings, inline SVG: a target's lanes (a row per
 * writer site, or per thread) along the watch's time axis, each hit a
 * mark or each bin's count a bar, and the value written over time.
 */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "util.h"

#define SW	1000	/* the drawing's width */
#define LX	300	/* where the time axis starts */
#define PW	(SW - LX - 10)	/* the time axis's length */
#define LH	22	/* a lane's height */
#define BH	18	/* a bar's greatest height */
#define AXIS	34	/* the axis under the lanes */
#define VH	150	/* the value drawing's height */
#define VTOP	12
#define VBOT	(VH - AXIS)

/* One drawing of a target: its time axis and what its lanes draw. */
struct plot {
	FILE		*f;
	const struct tl_target *tt;
	const struct tl_set *set;
	int		 threads;
	int64_t		 width_ns, end_ns;
	int		 marks;		/* each hit drawn, not bins */
	uint64_t	 maxn;		/* the greatest bin */
	size_t		 row;
};

static double
xat(const struct plot *p, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	if (ns > p->end_ns)
		ns = p->end_ns;
	return LX + (double)PW * (double)ns / (double)p->end_ns;
}

/* The axis at y: ticks of a round step, labelled. */
static void
axis(const struct plot *p, int y)
{
	static const int64_t m[] = { 1, 2, 5 };
	int64_t step = 1, k, t;
	char b[32];
	size_t i;

	for (k = 1; step * 8 < p->end_ns; k *= 10)
		for (i = 0; i < 3 && step * 8 < p->end_ns; i++)
			step = m[i] * k;
	fprintf(p->f, "<g class=\"axis\" data-y=\"%d\"><line x1=\"%d\" "
	    "y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", y, LX, y, LX + PW, y);
	for (t = 0; t <= p->end_ns; t += step) {
		html_dur(b, sizeof b, t);
		fprintf(p->f, "<line class=\"t\" x1=\"%.1f\" y1=\"%d\" "
		    "x2=\"%.1f\" y2=\"%d\"/><text class=\"t tick\" "
		    "x=\"%.1f\" y=\"%d\">%s</text>", xat(p, t), y, xat(p, t),
		    y + 4, xat(p, t), y + 16, b);
	}
	fprintf(p->f, "<text class=\"axislabel\" x=\"%d\" y=\"%d\">time "
	    "since armed</text></g>\n", LX - 8, y + 16);
}

/* The marks of lane idx (each hit, a thin bar) in the lane at y. */
static void
lane_marks(const struct plot *p, uint32_t idx, int y)
{
	const struct tl_mark *m;
	size_t i;

	for (i = 0; i < p->tt->nmarks; i++) {
		m = &p->tt->marks[i];
		if ((p->threads ? m->thr : m->lane) == idx)
			fprintf(p->f, "<rect class=\"hit\" x=\"%.2f\" y=\"%d\" "
			    "width=\"1\" height=\"%d\" data-n=\"1\" "
			    "data-t=\"%lld\"/>", xat(p, m->time_ns),
			    y + LH - 2 - BH, BH, (long long)m->time_ns);
	}
}

/* The bins of lane l: a bar each, its height its count. */
static void
lane_bins(const struct plot *p, const struct tl_lane *l, int y)
{
	double w = (double)PW * (double)p->width_ns / (double)p->end_ns;
	int h;
	size_t i;

	for (i = 0; i < TL_NBINS; i++) {
		if (l->bins[i] == 0)
			continue;
		h = (int)(BH * (double)l->bins[i] / (double)p->maxn);
		h = h < 2 ? 2 : h;
		fprintf(p->f, "<rect class=\"bin\" x=\"%.2f\" y=\"%d\" "
		    "width=\"%.2f\" height=\"%d\" data-n=\"%llu\"/>",
		    xat(p, (int64_t)i * p->width_ns), y + LH - 2 - h,
		    w < 1 ? 1 : w, h, (unsigned long long)l->bins[i]);
	}
}

/*
 * A lane: its name (label, cut; title whole), its hits, and its marks
 * or bars.  attrs: the lane's own data attributes, written as given.
 */
static void
lane(struct plot *p, const struct tl_lane *l, uint32_t idx,
    const char *label, const char *attrs)
{
	char cut[64];
	int y = (int)(p->row++ * LH);

	label_shorten(label, 36, cut, sizeof cut);
	fprintf(p->f, "<g class=\"lane\" %s data-hits=\"%llu\"><title>",
	    attrs, (unsigned long long)l->hits);
	html_fmt(p->f, "%s: %llu hits", label, (unsigned long long)l->hits);
	fprintf(p->f, "</title><rect class=\"row\" x=\"0\" y=\"%d\" "
	    "width=\"%d\" height=\"%d\"/><text class=\"name\" x=\"4\" "
	    "y=\"%d\">", y, SW, LH, y + 15);
	html_text(p->f, cut);
	fprintf(p->f, "</text><text class=\"n\" x=\"%d\" y=\"%d\">%llu"
	    "</text>", LX - 8, y + 15, (unsigned long long)l->hits);
	if (p->marks)
		lane_marks(p, idx, y);
	else
		lane_bins(p, l, y);
	fprintf(p->f, "</g>\n");
}

static uint64_t
lane_max(const struct tl_lane *l, uint64_t max)
{
	size_t i;

	for (i = 0; i < TL_NBINS; i++)
		max = l->bins[i] > max ? l->bins[i] : max;
	return max;
}

/* A writer site's lane (of the view's site s), or the other writers'. */
static void
writer_lane(struct plot *p, const struct rsite *s)
{
	char name[512], ip[24], wip[24], attrs[160];
	const struct tl_lane *l = timeline_site(p->set, s, p->set ==
	    &p->tt->set[TL_TALLY]);

	if (l == NULL)
		return;		/* among the other writers */
	ip[wp_fmt_hex(ip, s->trap)] = '\0';
	wip[wp_fmt_hex(wip, s->wip)] = '\0';
	label_writer(&s->writer, s->writer.insn ? ip : "-", name,
	    sizeof name);
	snprintf(attrs, sizeof attrs, "data-lane=\"writer\" data-trap=\"%s\" "
	    "data-writer-ip=\"%s\" data-kind=\"%s\"", ip, s->wip ? wip : "",
	    wp_kind_names[s->kind]);
	lane(p, l, (uint32_t)(l - p->set->w), name, attrs);
}

/* The thread lanes, most hits first. */
static void
thread_lanes(struct plot *p, const struct report *r)
{
	const struct tl_lane *sorted[TL_MAXTHR], *l;
	char name[128], attrs[64];
	const char *comm;
	size_t i;

	for (i = 0; i < p->set->nth; i++)
		sorted[i] = &p->set->th[i];
	qsort(sorted, p->set->nth, sizeof sorted[0], timeline_cmp_lane);
	for (i = 0; i < p->set->nth; i++) {
		l = sorted[i];
		comm = report_comm(r, (int64_t)l->k1);
		snprintf(name, sizeof name, "%lld%s%s", (long long)l->k1,
		    comm ? " " : "", comm ? comm : "");
		snprintf(attrs, sizeof attrs, "data-lane=\"thread\" "
		    "data-tid=\"%lld\"", (long long)l->k1);
		lane(p, l, (uint32_t)(l - p->set->th), name, attrs);
	}
	if (p->set->thother.hits > 0)
		lane(p, &p->set->thother, TL_MAXTHR, "other threads",
		    "data-lane=\"thread\" data-tid=\"other\"");
}

int
svg_tallies(const struct report *r, const struct rtarget *t)
{
	return t->tallied && r->kernel_tallies;
}

void
svg_lanes(const struct report *r, const struct rtarget *t,
    const struct timeline *tl, int threads, int64_t end_ns, FILE *f)
{
	const struct tl_target *tt = timeline_target(tl, t->id);
	struct plot p = { f, tt, NULL, threads, tl->width_ns, end_ns, 0, 1,
	    0 };
	size_t i, n;

	if (tt == NULL)
		return;
	p.set = &tt->set[svg_tallies(r, t) ? TL_TALLY : TL_HIT];
	p.marks = !svg_tallies(r, t) && !tt->binned;
	n = threads ? p.set->nth + (p.set->thother.hits > 0) :
	    p.set->nw + (p.set->wother.hits > 0);
	for (i = 0; i < (threads ? p.set->nth : p.set->nw); i++)
		p.maxn = lane_max(threads ? &p.set->th[i] : &p.set->w[i],
		    p.maxn);
	p.maxn = lane_max(threads ? &p.set->thother : &p.set->wother, p.maxn);
	fprintf(f, "<svg class=\"lanes %s\" viewBox=\"0 0 %d %zu\" "
	    "data-end-ns=\"%lld\" data-bin-ns=\"%lld\" role=\"img\">\n",
	    threads ? "threads" : "writers", SW, n * LH + AXIS,
	    (long long)end_ns, (long long)tl->width_ns);
	if (threads)
		thread_lanes(&p, r);
	else {
		for (i = 0; i < t->nsorted; i++)
			writer_lane(&p, t->sorted[i]);
		if (p.set->wother.hits > 0)
			lane(&p, &p.set->wother, TL_MAXLANES, "other writers",
			    "data-lane=\"writer\" data-trap=\"other\"");
	}
	axis(&p, (int)(n * LH) + 4);
	fprintf(f, "</svg>\n");
}

static double
yat(const struct tl_target *tt, uint64_t v)
{
	if (tt->vmax == tt->vmin)
		return (VTOP + VBOT) / 2.0;
	return VBOT - (double)(VBOT - VTOP) * (double)(v - tt->vmin) /
	    (double)(tt->vmax - tt->vmin);
}

static int
cmp_mark(const void *a, const void *b)
{
	const struct tl_mark *x = a, *y = b;

	return WP_ORDER(x->time_ns, y->time_ns);
}

/* Each value written, a step at its time, and a dot. */
static void
value_marks(const struct plot *p)
{
	struct tl_mark *m = wp_xcalloc(p->tt->nmarks + 1, sizeof *m);
	size_t i, n = 0;

	for (i = 0; i < p->tt->nmarks; i++)
		if (p->tt->marks[i].has_value)
			m[n++] = p->tt->marks[i];
	qsort(m, n, sizeof *m, cmp_mark);
	fprintf(p->f, "<path class=\"value\" d=\"");
	for (i = 0; i < n; i++)
		fprintf(p->f, i ? " H%.2f V%.1f" : "M%.2f %.1f",
		    xat(p, m[i].time_ns), yat(p->tt, m[i].value));
	fprintf(p->f, "\"/>\n");
	for (i = 0; i < n; i++)
		fprintf(p->f, "<circle class=\"v\" cx=\"%.2f\" cy=\"%.1f\" "
		    "r=\"2\" data-t=\"%lld\"/>", xat(p, m[i].time_ns),
		    yat(p->tt, m[i].value), (long long)m[i].time_ns);
	free(m);
}

/* Per bin the values' range, a band, and the latest, a step. */
static void
value_bins(const struct plot *p)
{
	const struct tl_vbin *vb = p->tt->vb;
	double w = (double)PW * (double)p->width_ns / (double)p->end_ns;
	size_t i, n = 0;

	for (i = 0; i < TL_NBINS; i++)
		if (vb[i].have && vb[i].max != vb[i].min)
			fprintf(p->f, "<rect class=\"vband\" x=\"%.2f\" "
			    "y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"/>",
			    xat(p, (int64_t)i * p->width_ns),
			    yat(p->tt, vb[i].max), w < 1 ? 1 : w,
			    yat(p->tt, vb[i].min) - yat(p->tt, vb[i].max));
	fprintf(p->f, "\n<path class=\"value\" d=\"");
	for (i = 0; i < TL_NBINS; i++)
		if (vb[i].have)
			fprintf(p->f, n++ ? " H%.2f V%.1f" : "M%.2f %.1f",
			    xat(p, (int64_t)i * p->width_ns),
			    yat(p->tt, vb[i].last));
	fprintf(p->f, "\"/>\n");
}

/* A value's label: "0x136 (310)". */
static void
value_label(FILE *f, double y, uint64_t v)
{
	char hex[24];

	hex[wp_fmt_hex(hex, v)] = '\0';
	fprintf(f, "<text class=\"vlabel\" x=\"%d\" y=\"%.1f\">%s (%llu)"
	    "</text>", LX - 8, y + 4, hex, (unsigned long long)v);
}

void
svg_values(const struct tl_target *tt, const struct timeline *tl,
    int64_t end_ns, FILE *f)
{
	struct plot p = { f, tt, NULL, 0, tl->width_ns, end_ns, 0, 1, 0 };

	if (tt == NULL || !tt->valued)
		return;
	fprintf(f, "<svg class=\"values\" viewBox=\"0 0 %d %d\" "
	    "data-end-ns=\"%lld\" data-bin-ns=\"%lld\" role=\"img\">\n",
	    SW, VH, (long long)end_ns, (long long)tl->width_ns);
	value_label(f, yat(tt, tt->vmax), tt->vmax);
	if (tt->vmax != tt->vmin)
		value_label(f, yat(tt, tt->vmin), tt->vmin);
	/* the plot clipped to its area, out of which a zoom moves points */
	fprintf(f, "<defs><clipPath id=\"plot-%d\"><rect x=\"%d\" y=\"0\" "
	    "width=\"%d\" height=\"%d\"/></clipPath></defs><g clip-path=\""
	    "url(#plot-%d)\">\n", tt->id, LX - 3, PW + 6, VH, tt->id);
	if (tt->binned)
		value_bins(&p);
	else
		value_marks(&p);
	fprintf(f, "</g>\n");
	axis(&p, VBOT + 4);
	fprintf(f, "</svg>\n");
}
