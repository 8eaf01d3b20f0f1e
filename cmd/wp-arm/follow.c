/*
 * --follow chains in wp-arm, for every backend: a chain of k pointers
 * takes k + 1 entries of the target table (each pointer, then the
 * leaf); when a pointer is written (watch_hit marks its chain) the
 * backend reads the chain again, and the entries after it move: the
 * backend re-arms each that moved (its rearm).
 */
#include <string.h>

#include "chain.h"
#include "filter.h"
#include "util.h"
#include "watch.h"

void
follow_add(struct watch *w, const struct wp_spec *f)
{
	struct chain *c;
	struct wtarget *t;
	size_t i;

	w->chains = wp_xrealloc(w->chains, (w->nchains + 1) * sizeof *w->chains);
	c = &w->chains[w->nchains];
	memset(c, 0, sizeof *c);
	c->id = f->id;
	c->slot = f->addr;
	memcpy(c->offs, f->offs, sizeof c->offs);
	c->noffs = f->noffs;
	c->len = (int)f->len;
	c->rw = f->rw;
	c->base = w->nt;
	c->binding = "unknown";
	w->t = wp_xrealloc(w->t, (w->nt + c->noffs + 1) * sizeof *w->t);
	for (i = 0; i <= c->noffs; i++) {
		t = &w->t[w->nt++];
		memset(t, 0, sizeof *t);
		t->id = c->id;
		t->chain = (int)w->nchains;
		t->level = (int)i;
		t->len = i < c->noffs ? 8 : c->len;
		t->rw = i < c->noffs ? 0 : c->rw;
		t->addr = c->slot;	/* a valid address until resolved */
		t->armed = i == 0;
	}
	w->nchains++;
}

/*
 * Reads chain ci again through memfd and moves its entries.  Returns 1
 * when the leaf or the binding changed.
 */
static int
walk(struct watch *w, int memfd, size_t ci)
{
	struct chain *c = &w->chains[ci];
	struct wtarget *t = &w->t[c->base];
	struct wp_walk walk;
	uint64_t old = c->leaf;
	const char *oldstate = c->binding;
	size_t k;

	wp_chain_walk(memfd, c->slot, c->offs, c->noffs, (size_t)c->len,
	    &walk);
	if (strcmp(walk.binding, "exited") == 0)
		return 0;	/* the watch ends with the target */
	for (k = 0; k <= c->noffs; k++)
		if ((t[k].armed = wp_chain_armed(&walk, k)))
			t[k].addr = walk.addr[k];
	c->binding = walk.binding;
	c->leaf = strcmp(walk.binding, "bound") == 0 ? walk.addr[c->noffs] : 0;
	if (c->leaf == old && strcmp(oldstate, c->binding) == 0)
		return 0;
	c->generation++;
	c->rebinds++;
	c->old_leaf = old;
	c->npointers = walk.at < c->noffs ? walk.at + 1 : c->noffs;
	memcpy(c->pointers, walk.addr, c->npointers * sizeof *c->pointers);
	return 1;
}

void
follow_record(struct watch *w, size_t ci, int64_t rearm_ns, int held,
    int missed)
{
	struct chain *c = &w->chains[ci];
	struct wp_rebind_rec r;

	memset(&r, 0, sizeof r);
	r.target = c->id;
	r.generation = c->generation;
	r.binding = c->binding;
	r.old_leaf = c->old_leaf;
	r.new_leaf = c->leaf;
	r.pointers = c->pointers;
	r.npointers = c->npointers;
	r.time_ns = watch_time(w, wp_now_ns());
	r.rearm_ns = rearm_ns;
	r.held = held;
	r.missed = missed;
	emit_rebind(w, &r);
}

int
follow_rebind(struct watch *w, int memfd, size_t ci)
{
	struct chain *c = &w->chains[ci];
	struct wtarget old[WP_CHAIN_MAXDEPTH + 1], *t;
	size_t k;
	int changed;

	memcpy(old, &w->t[c->base], (c->noffs + 1) * sizeof *old);
	changed = walk(w, memfd, ci);
	for (k = 0; k <= c->noffs; k++) {
		t = &w->t[c->base + k];
		if (t->addr != old[k].addr || t->armed != old[k].armed) {
			w->backend->rearm(w, c->base + k);
			filter_moved(w, c->base + k, memfd);
		}
	}
	return changed;
}

void
follow_update(struct watch *w, int memfd)
{
	size_t ci;

	for (ci = 0; ci < w->nchains; ci++)
		if (follow_rebind(w, memfd, ci))
			follow_record(w, ci, -1, 0, -1);
}

int
follow_dirty(struct watch *w, size_t ci)
{
	int d = w->chains[ci].dirty;

	w->chains[ci].dirty = 0;
	return d;
}
