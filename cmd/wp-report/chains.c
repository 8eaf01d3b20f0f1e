/*
 * Call chains (--callchain), typed: a hit's status and callers, read
 * once per distinct chain of a site by lib's reader, kept per site with
 * their hits.  Chains are told apart by two hashes of the hit's text.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* reused by chain_read: one parse at a time */
static struct wp_json cj;

static uint64_t
fnv(const char *p, size_t n, uint64_t h)
{
	while (n-- > 0)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

int
chain_keys(const struct wp_hit_in *h, uint64_t *k1, uint64_t *k2)
{
	const char *raw = h->chain_json, *st = h->status_json;
	size_t n = h->nchain_json, sn = h->nstatus_json;

	if (raw == NULL)
		return 0;
	if (st == NULL) {
		st = "null";
		sn = 4;
	}
	*k1 = fnv(st, sn, fnv(raw, n, 0xcbf29ce484222325ULL));
	*k2 = fnv(raw, n, fnv(st, sn, 0x84222325cbf29ce4ULL));
	return 1;
}

void
chain_read(const struct wp_hit_in *h, struct rchain *c)
{
	const char *callers = h->callers_json ? h->callers_json :
	    h->chain_json, *st = h->status_json ? h->status_json : "null";
	size_t n = h->callers_json ? h->ncallers_json : h->nchain_json;
	size_t sn = h->status_json ? h->nstatus_json : 4;
	char *text;
	int st_tok;

	memset(c, 0, sizeof *c);
	if (callers == NULL)
		return;
	/* the parser takes objects: the two as one */
	text = wp_xmalloc(sn + n + 16);
	snprintf(text, sn + n + 16, "{\"s\":%.*s,\"c\":%.*s}", (int)sn, st,
	    (int)n, callers);
	if (wp_json_parse(&cj, text, strlen(text)) == 0) {
		st_tok = wp_json_first(&cj, 0);
		(void)wp_json_str(&cj, st_tok, c->status, sizeof c->status);
		c->nfr = wp_rec_read_frames(&cj, wp_json_next(&cj, 0, st_tok),
		    &c->fr);
	}
	free(text);
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? wp_xstrdup(s) : NULL;
}

static void
chain_copy(struct rchain *to, const struct rchain *from)
{
	const struct wp_frame_in *f;
	struct wp_frame_in *t;
	size_t i, k;

	*to = *from;
	to->hits = 0;
	to->fr = from->nfr ? wp_xcalloc(from->nfr, sizeof *to->fr) : NULL;
	for (i = 0; i < from->nfr; i++) {
		f = &from->fr[i];
		t = &to->fr[i];
		*t = *f;
		t->ip = dup_or_null(f->ip);
		t->module = dup_or_null(f->module);
		t->static_ip = dup_or_null(f->static_ip);
		t->symbol = dup_or_null(f->symbol);
		t->source_file = dup_or_null(f->source_file);
		t->inlined = f->ninlined ? wp_xcalloc(f->ninlined,
		    sizeof *t->inlined) : NULL;
		for (k = 0; k < f->ninlined; k++)
			t->inlined[k] = wp_xstrdup(f->inlined[k]);
	}
}

void
chain_free(struct rchain *c)
{
	wp_frames_in_free(c->fr, c->nfr);
	c->fr = NULL;
	c->nfr = 0;
}

static int
strcmp_null(const char *x, const char *y)
{
	if (x == NULL || y == NULL)
		return (x != NULL) - (y != NULL);
	return strcmp(x, y);
}

int
chain_cmp(const struct rchain *x, const struct rchain *y)
{
	size_t i;
	int c;

	if ((c = strcmp(x->status, y->status)) != 0)
		return c;
	for (i = 0; i < x->nfr && i < y->nfr; i++)
		if ((c = strcmp_null(x->fr[i].ip, y->fr[i].ip)) != 0 ||
		    (c = strcmp_null(x->fr[i].symbol, y->fr[i].symbol)) != 0)
			return c;
	/* the longer first */
	return WP_ORDER(y->nfr, x->nfr);
}

void
site_add_chain(struct rsite *s, uint64_t k1, uint64_t k2,
    const struct rchain *from, uint64_t hits)
{
	struct rchain *c;
	int isnew;

	if (s->chains.cap == 0)
		wp_hmap_init(&s->chains, sizeof(struct rchain));
	if (wp_hmap_get(&s->chains, k1, k2) == NULL &&
	    s->chains.n >= MAXCHAINS) {
		s->chains_other += hits;
		return;
	}
	c = wp_hmap_put(&s->chains, k1, k2, &isnew);
	if (isnew)
		chain_copy(c, from);
	c->hits += hits;
}

void
site_add_hit_chain(struct rsite *s, const struct wp_hit_in *h)
{
	struct rchain *c;
	uint64_t k1, k2;
	int isnew;

	if (!chain_keys(h, &k1, &k2))
		return;
	if (s->chains.cap == 0)
		wp_hmap_init(&s->chains, sizeof(struct rchain));
	if (wp_hmap_get(&s->chains, k1, k2) == NULL &&
	    s->chains.n >= MAXCHAINS) {
		s->chains_other++;
		return;
	}
	c = wp_hmap_put(&s->chains, k1, k2, &isnew);
	if (isnew)
		chain_read(h, c);
	c->hits++;
}

void
site_chains_free(struct rsite *s)
{
	struct rchain *c;
	size_t i;

	for (i = 0; i < s->chains.cap; i++)
		if ((c = wp_hmap_slot(&s->chains, i)) != NULL)
			chain_free(c);
	wp_hmap_free(&s->chains);
}

void
chains_done(void)
{
	wp_json_free(&cj);
}
