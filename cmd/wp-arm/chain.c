/*
 * --follow chains, for both backends: a chain of k pointers takes k+1
 * entries in the watch's target table (each pointer, then the leaf);
 * when a pointer is written the chain is read again and the entries
 * after it move.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "proc.h"
#include "util.h"
#include "watch.h"

int
wp_watch_add_chain(struct wp_watch *w, const struct wp_chain *c)
{
	struct wp_chain *n;
	size_t i;

	if (c->noffs == 0 || c->noffs > WP_CHAIN_MAXDEPTH)
		return -1;
	w->chains = wp_xrealloc(w->chains, (w->nchains + 1) * sizeof *w->chains);
	n = &w->chains[w->nchains];
	*n = *c;
	n->base = w->nt;
	n->binding = "unknown";
	w->t = wp_xrealloc(w->t, (w->nt + c->noffs + 1) * sizeof *w->t);
	for (i = 0; i <= c->noffs; i++) {
		struct wp_watch_target *t = &w->t[w->nt++];

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
	return 0;
}

/*
 * Reads chain ci again through memfd (after pointer `from` was written,
 * or from the slot when from is -1) and moves its entries.  Writes a
 * rebind record into buf when the leaf or its binding changed, and
 * returns its length (0 when nothing changed).
 */
int
wp_watch_chain_update(struct wp_watch *w, int memfd, size_t ci,
    int64_t time_ns, char *buf, size_t sz)
{
	struct wp_chain *c = &w->chains[ci];
	struct wp_watch_target *t = &w->t[c->base];
	uint64_t p = c->slot, val, old = c->leaf, addrs[WP_CHAIN_MAXDEPTH + 1];
	const char *state = "bound", *oldstate = c->binding;
	size_t i, k;
	int n;

	for (i = 0; i < c->noffs; i++) {
		addrs[i] = p;
		if (p % 8 != 0) {
			state = "misaligned";
			break;
		}
		if (wp_proc_read(memfd, p, &val, sizeof val) == -1) {
			state = "unmapped";
			break;
		}
		if (val == 0) {
			state = "null_pointer";
			break;
		}
		p = val + (uint64_t)c->offs[i];
	}
	if (i == c->noffs) {
		unsigned char b;

		addrs[i] = p;
		if (p % (uint64_t)c->len != 0)
			state = "misaligned";
		else if (wp_proc_read(memfd, p, &b, 1) == -1)
			state = "unmapped";
	}
	/* entries up to the one that failed are armed at their address */
	for (k = 0; k <= c->noffs; k++) {
		t[k].armed = k <= i && (k < i || strcmp(state, "bound") == 0);
		if (k == i && k < c->noffs)
			t[k].armed = strcmp(state, "misaligned") != 0 &&
			    strcmp(state, "unmapped") != 0;
		if (t[k].armed)
			t[k].addr = addrs[k];
	}
	c->binding = state;
	c->leaf = strcmp(state, "bound") == 0 ? addrs[c->noffs] : 0;
	if (c->leaf == old && strcmp(oldstate, state) == 0)
		return 0;
	c->generation++;
	c->rebinds++;
	n = snprintf(buf, sz, "{\"type\":\"rebind\",\"target\":%d,\"generation\":%"
	    PRIu64 ",\"binding\":\"%s\",\"old_leaf\":", c->id, c->generation,
	    state);
	n += old ? snprintf(buf + n, sz - (size_t)n, "\"0x%" PRIx64 "\"", old) :
	    snprintf(buf + n, sz - (size_t)n, "null");
	n += snprintf(buf + n, sz - (size_t)n, ",\"new_leaf\":");
	n += c->leaf ? snprintf(buf + n, sz - (size_t)n, "\"0x%" PRIx64 "\"",
	    c->leaf) : snprintf(buf + n, sz - (size_t)n, "null");
	n += snprintf(buf + n, sz - (size_t)n, ",\"pointers\":[");
	for (k = 0; k < c->noffs && k <= i; k++)
		n += snprintf(buf + n, sz - (size_t)n, "%s\"0x%" PRIx64 "\"",
		    k ? "," : "", addrs[k]);
	n += snprintf(buf + n, sz - (size_t)n, "],\"time_ns\":%" PRId64 "}",
	    time_ns);
	return n;
}

/* The fields a hit on entry ti adds: its role in a chain. */
int
wp_watch_hit_extra(const struct wp_watch *w, size_t ti, char *buf, size_t sz)
{
	const struct wp_watch_target *t = &w->t[ti];
	const struct wp_chain *c;

	if (t->chain < 0) {
		buf[0] = '\0';
		return 0;
	}
	c = &w->chains[t->chain];
	if ((size_t)t->level < c->noffs)
		return snprintf(buf, sz, ",\"role\":\"pointer\",\"level\":%d,"
		    "\"addr\":\"0x%" PRIx64 "\",\"len\":8", t->level, t->addr);
	return snprintf(buf, sz, ",\"role\":\"leaf\",\"generation\":%" PRIu64
	    ",\"addr\":\"0x%" PRIx64 "\",\"len\":%d", c->generation, t->addr,
	    t->len);
}
