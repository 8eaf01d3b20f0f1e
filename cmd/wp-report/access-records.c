/*
 * The second question's records in (wp-records(7) site and access
 * records): each site, and the latest of each cumulative access record
 * per (site, address, thread), kept for accesses.c's view.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accesses.h"
#include "record.h"
#include "report.h"
#include "util.h"

void
access_site(struct report *r, const struct wp_record *rec)
{
	struct rasite *s;
	struct wp_site_spec sp;
	struct wp_error e;

	if (wp_rec_read_site(rec, &sp, &e) == -1)
		return;
	r->asites = wp_xrealloc(r->asites, (r->nasites + 1) *
	    sizeof *r->asites);
	s = &r->asites[r->nasites++];
	memset(s, 0, sizeof *s);
	s->id = sp.id;
	s->addr = sp.addr;
	s->rw = sp.rw;
	snprintf(s->insn, sizeof s->insn, "%s", sp.in.text);
	if (wp_json_str(rec->j, wp_rec_get(rec, "input"), s->input,
	    sizeof s->input) == -1)
		s->input[0] = '\0';
	if (r->acc.vsize == 0)
		wp_hmap_init(&r->acc, sizeof(struct racc));
	if (r->accaddr.vsize == 0)
		wp_hmap_init(&r->accaddr, 1);
}

/* The site of id, or NULL. */
static struct rasite *
site_of(struct report *r, int id)
{
	size_t i;

	for (i = 0; i < r->nasites; i++)
		if (r->asites[i].id == id)
			return &r->asites[i];
	return NULL;
}

#define EXECS(w, rd)	((w) > (rd) ? (w) : (rd))

/* s, kept once in r->aregions; NULL for "" (not known). */
static const char *
region(struct report *r, const char *s)
{
	size_t i;

	if (s[0] == '\0')
		return NULL;
	for (i = 0; i < r->naregions; i++)
		if (strcmp(r->aregions[i], s) == 0)
			return r->aregions[i];
	r->aregions = wp_xrealloc(r->aregions, (r->naregions + 1) *
	    sizeof *r->aregions);
	return r->aregions[r->naregions++] = wp_xstrdup(s);
}

void
access_add(struct report *r, const struct wp_record *rec)
{
	struct wp_access_rec a;
	struct wp_error e;
	struct rasite *s;
	struct racc *v;
	int isnew;

	if (wp_rec_read_access(rec, &a, &e) == -1)
		return;
	if (r->acc.vsize == 0)
		wp_hmap_init(&r->acc, sizeof(struct racc));
	if (r->accaddr.vsize == 0)
		wp_hmap_init(&r->accaddr, 1);
	/* cumulative: the latest replaces the one before */
	v = wp_hmap_put(&r->acc, a.addr, (uint64_t)a.site << 32 |
	    (uint32_t)a.tid, &isnew);
	if ((s = site_of(r, a.site)) != NULL) {
		s->execs += EXECS(a.writes, a.reads);
		if (!isnew)
			s->execs -= EXECS(v->writes, v->reads);
		wp_hmap_put(&r->accaddr, a.addr, (uint64_t)a.site, &isnew);
		s->naddrs += isnew != 0;
		if (a.backend != NULL)
			s->backend = a.backend;
	}
	v->addr = a.addr;
	v->site = a.site;
	v->tid = a.tid;
	v->writes = a.writes;
	v->reads = a.reads;
	v->region = region(r, a.region);
	v->map_start = a.map_start;
	v->has_values = a.has_values;
	v->first = a.first;
	v->last = a.last;
	v->name = region(r, a.name);
	v->nvals = a.nvals;
	memcpy(v->vals, a.vals, sizeof v->vals);
	memcpy(v->vn, a.vn, sizeof v->vn);
	v->vother = a.vother;
	v->stack_of = a.stack_of;
	v->tls_of = a.tls_of;
	v->tls_off = a.tls_off;
	v->has_match = a.has_match;
	v->matched = a.matched;
	v->match_unknown = a.match_unknown;
}

void
access_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->naregions; i++)
		free(r->aregions[i]);
	free(r->aregions);
	free(r->asites);
	if (r->acc.vsize != 0)
		wp_hmap_free(&r->acc);
	if (r->accaddr.vsize != 0)
		wp_hmap_free(&r->accaddr);
	r->asites = NULL;
	r->nasites = 0;
}
