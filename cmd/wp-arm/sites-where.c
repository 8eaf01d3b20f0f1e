/*
 * sites-where: whose stack or thread-local storage an address a site
 * accessed is, for the access records of the backends that count sites
 * (backend-uprobe, backend-ptrace/ptrace-sites.c).
 */
#include <stdint.h>
#include <string.h>

#include "elf.h"
#include "hmap.h"
#include "proc.h"
#include "record.h"
#include "sites-where.h"

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
