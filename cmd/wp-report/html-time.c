/*
 * The timeline of the report page, gathered as the stream is read: per
 * target each writer site's and each thread's hits in TL_NBINS bins of
 * one width, which doubles (two bins merged into one) when a hit comes
 * past the last; the first TL_MAXMARKS hits each as itself; the written
 * values per bin.  A tally (bpf) adds the hits since the previous tally
 * of its writer, thread and chain, at the time it was read.  Hits and
 * tallies are counted where aggregate.c counts them (report_counts):
 * not a follow chain's pointer writes, not a spurious writer's.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "util.h"

void
timeline_init(struct timeline *tl)
{
	memset(tl, 0, sizeof *tl);
	tl->width_ns = 1000000;
	wp_hmap_init(&tl->prev, sizeof(uint64_t));
}

void
timeline_free(struct timeline *tl)
{
	size_t i, k;

	for (i = 0; i < tl->nt; i++) {
		for (k = 0; k < 2; k++) {
			free(tl->t[i].set[k].w);
			free(tl->t[i].set[k].th);
		}
		free(tl->t[i].marks);
	}
	free(tl->t);
	wp_hmap_free(&tl->prev);
	memset(tl, 0, sizeof *tl);
}

const struct tl_target *
timeline_target(const struct timeline *tl, int id)
{
	return wp_find_int(tl->t, tl->nt, sizeof *tl->t,
	    offsetof(struct tl_target, id), id);
}

static struct tl_target *
target(struct timeline *tl, int id)
{
	struct tl_target *t;

	if ((t = (struct tl_target *)timeline_target(tl, id)) != NULL)
		return t;
	tl->t = wp_xrealloc(tl->t, (tl->nt + 1) * sizeof *tl->t);
	t = &tl->t[tl->nt++];
	memset(t, 0, sizeof *t);
	t->id = id;
	return t;
}

/* Two bins into one, over n bins of a lane or of values. */
static void
merge_lane(struct tl_lane *l)
{
	size_t i;

	for (i = 0; i < TL_NBINS / 2; i++)
		l->bins[i] = l->bins[2 * i] + l->bins[2 * i + 1];
	memset(&l->bins[TL_NBINS / 2], 0, TL_NBINS / 2 * sizeof l->bins[0]);
}

static void
merge_values(struct tl_vbin *vb)
{
	struct tl_vbin a, b;
	size_t i;

	for (i = 0; i < TL_NBINS / 2; i++) {
		a = vb[2 * i];
		b = vb[2 * i + 1];
		if (a.have && b.have) {
			a.min = b.min < a.min ? b.min : a.min;
			a.max = b.max > a.max ? b.max : a.max;
			a.last = b.last;
		} else if (b.have)
			a = b;
		vb[i] = a;
	}
	memset(&vb[TL_NBINS / 2], 0, TL_NBINS / 2 * sizeof vb[0]);
}

static void
merge_set(struct tl_set *s)
{
	size_t i;

	for (i = 0; i < s->nw; i++)
		merge_lane(&s->w[i]);
	for (i = 0; i < s->nth; i++)
		merge_lane(&s->th[i]);
	merge_lane(&s->wother);
	merge_lane(&s->thother);
}

/* The bin of time ns, the bins widened until it fits (before 0: 0). */
static size_t
bin(struct timeline *tl, int64_t ns)
{
	size_t i;

	if (ns > tl->last_ns)
		tl->last_ns = ns;
	if (ns <= 0)
		return 0;
	while (ns / tl->width_ns >= TL_NBINS) {
		for (i = 0; i < tl->nt; i++) {
			merge_set(&tl->t[i].set[TL_HIT]);
			merge_set(&tl->t[i].set[TL_TALLY]);
			merge_values(tl->t[i].vb);
		}
		tl->width_ns *= 2;
	}
	return (size_t)(ns / tl->width_ns);
}

/*
 * The lane keyed k1, k2 of the n in *lanes (max at most), added when
 * absent; other when there are max already.  *idx: its index, or max.
 */
static struct tl_lane *
lane(struct tl_lane **lanes, size_t *n, size_t max, struct tl_lane *other,
    uint64_t k1, uint64_t k2, uint32_t *idx)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*lanes)[i].k1 == k1 && (*lanes)[i].k2 == k2)
			break;
	*idx = (uint32_t)i;
	if (i < *n)
		return &(*lanes)[i];
	if (*n == max)
		return other;
	if (*lanes == NULL)
		*lanes = wp_xcalloc(max, sizeof **lanes);
	(*lanes)[i].k1 = k1;
	(*lanes)[i].k2 = k2;
	(*n)++;
	return &(*lanes)[i];
}

const struct tl_lane *
timeline_site(const struct tl_set *set, const struct rsite *s, int tallied)
{
	uint64_t k1, k2;
	size_t i;

	report_site_key(s->trap, s->wip, tallied ? TALLY_TAG :
	    (uint64_t)s->kind << 56, &k1, &k2);
	for (i = 0; i < set->nw; i++)
		if (set->w[i].k1 == k1 && set->w[i].k2 == k2)
			return &set->w[i];
	return NULL;
}

int
timeline_cmp_lane(const void *a, const void *b)
{
	const struct tl_lane *x = *(const struct tl_lane *const *)a;
	const struct tl_lane *y = *(const struct tl_lane *const *)b;
	int c = WP_ORDER(y->hits, x->hits);

	return c != 0 ? c : WP_ORDER(x->k1, y->k1);
}

/* Counts n hits of writer lane k1, k2 and thread tid in set at bin b. */
static void
count(struct tl_set *set, uint64_t k1, uint64_t k2, int64_t tid, int thr,
    size_t b, uint64_t n, uint32_t *wi, uint32_t *ti)
{
	struct tl_lane *l;

	l = lane(&set->w, &set->nw, TL_MAXLANES, &set->wother, k1, k2, wi);
	l->hits += n;
	l->bins[b] += n;
	*ti = UINT32_MAX;	/* no thread's */
	if (!thr)
		return;
	l = lane(&set->th, &set->nth, TL_MAXTHR, &set->thother,
	    (uint64_t)tid, 0, ti);
	l->hits += n;
	l->bins[b] += n;
}

/* The value written by hit h: wp-decode's, else the record's own. */
static int
hit_value(const struct wp_hit_in *h, uint64_t *v)
{
	struct wp_value_in val;
	int have = 0;

	if (wp_rec_read_value(h, &val) == 0) {
		if ((have = val.has_value))
			*v = val.value;
		wp_value_in_free(&val);
	}
	if (!have && h->has_new_value) {
		*v = h->new_value;
		have = 1;
	}
	return have;
}

static void
add_value(struct tl_target *t, size_t b, uint64_t v)
{
	struct tl_vbin *vb = &t->vb[b];

	if (!vb->have || v < vb->min)
		vb->min = v;
	if (!vb->have || v > vb->max)
		vb->max = v;
	vb->last = v;
	vb->have = 1;
	t->vlast = v;
	if (!t->valued || v < t->vmin)
		t->vmin = v;
	if (!t->valued || v > t->vmax)
		t->vmax = v;
	t->valued = 1;
}

static void
add_mark(struct tl_target *t, int64_t ns, uint32_t wi, uint32_t ti,
    int has_value, uint64_t v)
{
	struct tl_mark *m;

	if (t->binned)
		return;
	if (t->nmarks == TL_MAXMARKS) {
		free(t->marks);
		t->marks = NULL;
		t->binned = 1;
		return;
	}
	if (t->marks == NULL)
		t->marks = wp_xcalloc(TL_MAXMARKS, sizeof *t->marks);
	m = &t->marks[t->nmarks++];
	m->time_ns = ns;
	m->lane = wi;
	m->thr = ti;
	m->has_value = has_value;
	m->value = v;
}

static void
add_hit(struct timeline *tl, const struct rtarget *rt,
    const struct wp_hit_in *h)
{
	struct wp_writer_in w;
	struct tl_target *t;
	uint64_t wip, v = 0, k1, k2;
	int64_t ns = h->has_time ? h->time_ns : 0;
	uint32_t wi, ti;
	int has_w, has_v;
	size_t b;

	if (!report_counts(rt, h))
		return;
	has_w = wp_rec_read_writer(h, &w, 0) == 0;
	if (has_w && w.kind == WP_KIND_SPURIOUS)
		return;
	wip = w.has_writer_ip ? w.writer_ip : 0;
	t = target(tl, rt->id);
	b = bin(tl, ns);
	report_site_key(h->ip, wip, (uint64_t)w.kind << 56, &k1, &k2);
	count(&t->set[TL_HIT], k1, k2, h->has_tid ? h->tid : -1, !(h->flags & WP_HIT_UNEXPLAINED), b, 1,
	    &wi, &ti);
	if ((has_v = hit_value(h, &v)))
		add_value(t, b, v);
	add_mark(t, ns, wi, ti, has_v, v);
}

/* A tally's key: its writer, thread and chain (the return addresses). */
static void
tally_key(const struct wp_hit_in *h, int id, uint64_t *k1, uint64_t *k2)
{
	uint64_t k = h->ip;
	size_t i;

	for (i = 0; i < h->nchain; i++)
		k = (k ^ h->chain[i]) * 0x9e3779b97f4a7c15ULL + i;
	if (h->status_json != NULL)
		for (i = 0; i < h->nstatus_json; i++)
			k = (k ^ (unsigned char)h->status_json[i]) * 31;
	*k1 = k;
	*k2 = (uint64_t)(uint32_t)(h->has_tid ? h->tid : -1) |
	    (uint64_t)(uint32_t)id << 32;
}

static void
add_tally(struct timeline *tl, const struct rtarget *rt,
    const struct wp_hit_in *h)
{
	struct wp_writer_in w;
	uint64_t *prev, k1, k2, n, wip, s1, s2;
	uint32_t wi, ti;
	int isnew;

	if (!report_counts(rt, h) || (wp_rec_read_writer(h, &w, 0) == 0 &&
	    w.kind == WP_KIND_SPURIOUS))
		return;
	tally_key(h, rt->id, &k1, &k2);
	prev = wp_hmap_put(&tl->prev, k1, k2, &isnew);
	n = h->hits > *prev ? h->hits - *prev : 0;
	*prev = h->hits;
	wip = w.has_writer_ip ? w.writer_ip : 0;
	report_site_key(h->ip, wip, TALLY_TAG, &s1, &s2);
	count(&target(tl, rt->id)->set[TL_TALLY], s1, s2, h->has_tid ? h->tid : -1, 1, bin(tl, h->has_time ? h->time_ns :
	    0), n, &wi, &ti);
}

void
timeline_record(struct timeline *tl, const struct report *r,
    const struct wp_record *rec)
{
	struct wp_hit_in *h = &tl->hit;
	const struct rtarget *rt = NULL;
	struct wp_armed_in a;
	int tally;
	size_t i;

	if (rec->kind == WP_REC_ARMED && tl->nt == 0) {
		/* bins that span the watch's duration and a little more, in
		   whole microseconds */
		wp_rec_read_armed(rec, &a);
		if (a.duration_ms > 0 && a.duration_ms < INT64_MAX / 2000000)
			tl->width_ns = (a.duration_ms * 1050000 / TL_NBINS /
			    1000 + 1) * 1000;
		return;
	}
	tally = rec->kind == WP_REC_TALLY;
	if (!tally && rec->kind != WP_REC_HIT)
		return;
	wp_rec_read_hit(rec, h);
	for (i = 0; h->has_target && i < r->nt && rt == NULL; i++)
		if (r->t[i].id == h->target)
			rt = &r->t[i];
	if (rt == NULL)
		return;
	if (tally)
		add_tally(tl, rt, h);
	else
		add_hit(tl, rt, h);
}
