/*
 * sites-where: whose stack or thread-local storage an address a site
 * accessed is, for the access records of the backends that count sites
 * (backend-uprobe, backend-ptrace/ptrace-sites.c).
 */
#include <stdint.h>
#include <string.h>

#include "cond.h"
#include "elf.h"
#include "hmap.h"
#include "proc.h"
#include "record.h"
#include "regs.h"
#include "sites-where.h"
#include "watch.h"
#include "x86.h"

/*
 * The static TLS below a thread's pointer: the PT_TLS blocks of the
 * modules mapped now (glibc's x86-64 layout: each module's block below
 * the one before it, aligned), the surplus for later ones aside.
 */
uint64_t
sites_static_tls(const struct wp_maps *m)
{
	struct wp_elf *elf;
	struct wp_error e;
	uint64_t sz, al, sum = 0;
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		if (m->v[i].path == NULL || m->v[i].path[0] != '/')
			continue;
		for (j = 0; j < i; j++)		/* each file once */
			if (m->v[j].path != NULL &&
			    strcmp(m->v[j].path, m->v[i].path) == 0)
				break;
		if (j < i || (elf = wp_elf_open(m->v[i].path, &e)) == NULL)
			continue;
		if (wp_elf_tls(elf, &sz, &al) == 0 && sz > 0) {
			al = al > 1 ? al : 1;
			sum = (sum + sz + al - 1) / al * al;
		}
		wp_elf_close(elf);
	}
	return sum;
}

/*
 * Whose stack or TLS address a is, of the threads th (those that
 * executed a site, where they were then) into ac: a thread's TLS from
 * its static blocks below its pointer to its descriptor above it; its
 * stack, the mapping that held its stack pointer; the main thread's,
 * [stack].
 */
void
sites_whose(uint64_t tls_below, pid_t pid, const struct wp_hmap *th,
    const struct wp_map *mp, uint64_t a, struct wp_access_rec *ac)
{
	const struct site_thread *t;
	size_t i;

	for (i = 0; i < th->cap; i++) {
		if ((t = wp_hmap_slot(th, i)) == NULL || t->tp == 0)
			continue;
		if (a + tls_below >= t->tp && a < t->tp + TCB_BYTES) {
			ac->tls_of = t->tid;
			ac->tls_off = (int64_t)(a - t->tp);
			return;
		}
	}
	if (mp == NULL)
		return;
	for (i = 0; i < th->cap; i++)
		if ((t = wp_hmap_slot(th, i)) != NULL && t->stack != NULL &&
		    t->stack->start == mp->start) {
			ac->stack_of = t->tid;
			return;
		}
	if (mp->path != NULL && strcmp(mp->path, "[stack]") == 0)
		ac->stack_of = pid;
}

int
sites_if_check(const struct wp_cond *c, const struct wp_site_spec *s,
    size_t n, struct wp_error *e)
{
	unsigned u = wp_cond_uses(c);
	size_t i;

	if (u & (WP_COND_WRITER | WP_COND_COMM | WP_COND_PREV))
		return wp_error_set(e, WP_EXIT_USAGE, "--if '%s': a site's "
		    "executions are tested on addr, tid and value, not on %s",
		    wp_cond_text(c), (u & WP_COND_WRITER) ? "writer (the "
		    "site is the writer)" : (u & WP_COND_COMM) ? "comm" :
		    "changed or unchanged");
	if (!(u & WP_COND_VALUE))
		return 0;
	for (i = 0; i < n; i++)
		if (s[i].in.kind != WP_X86_REG_STORE)
			return wp_error_set(e, WP_EXIT_USAGE, "--if '%s': site "
			    "%d stores no register's value, so the value it "
			    "writes is not known before it runs: value cannot "
			    "be tested", wp_cond_text(c), s[i].id);
	return 0;
}

/* The condition's view of one execution of site s by tid at addr. */
static void
site_write(const struct wp_site_spec *s, pid_t tid, uint64_t addr,
    struct wp_cond_write *cw)
{
	memset(cw, 0, sizeof *cw);
	cw->tid = tid;
	cw->has_addr = 1;
	cw->addr = addr;
	cw->width = s->in.width >= 1 && s->in.width <= 8 ?
	    (size_t)s->in.width : 8;
}

int
sites_match_one(const struct wp_cond *c, const struct wp_site_spec *s,
    pid_t tid, uint64_t addr, int has_value, uint64_t value)
{
	struct wp_cond_write cw;

	if (c == NULL)
		return 1;
	site_write(s, tid, addr, &cw);
	cw.has_value = has_value;
	cw.value = value;
	return wp_cond_eval(c, &cw);
}

void
sites_match(const struct wp_cond *c, const struct wp_site_spec *s,
    struct wp_access_rec *ac)
{
	struct wp_cond_write cw;
	uint64_t n = ac->writes > ac->reads ? ac->writes : ac->reads;
	size_t i;

	if (c == NULL)
		return;
	site_write(s, ac->tid, ac->addr, &cw);
	ac->has_match = 1;
	if (!(wp_cond_uses(c) & WP_COND_VALUE)) {
		ac->matched = wp_cond_eval(c, &cw) ? n : 0;
		return;
	}
	cw.has_value = 1;
	for (i = 0; i < ac->nvals && i < WP_ACCESS_NVALS; i++) {
		cw.value = ac->vals[i];
		if (wp_cond_eval(c, &cw))
			ac->matched += ac->vn[i];
	}
	ac->match_unknown = ac->vother;
}

int
sites_known(struct watch *w, const char *who, struct wp_error *e)
{
	const struct wp_site_spec *s;
	size_t i;

	if (tr_decode_missing != NULL) {
		wp_error_set(e, WP_EXIT_ERROR, "the %s: %s", who,
		    tr_decode_missing);
		return 0;
	}
	for (i = 0; i < w->nsites; i++) {
		s = &w->sites[i];
		if (s->in.kind == WP_X86_STRING && !s->in.rep &&
		    s->in.width <= 0) {
			wp_error_set(e, WP_EXIT_ERROR, "site %d: '%s': the "
			    "bytes of its elements are not known", s->id,
			    s->in.text);
			return 0;
		}
	}
	return 1;
}
