/*
 * The writer and written value of a hit on AArch64: a watchpoint
 * reports the address of the storing instruction itself (not the next
 * one, as x86 does), with the registers before it ran, so the
 * instruction at the hit's IP is the writer; its operand and those
 * registers say where it wrote and what.
 */
#include <string.h>

#include "decode.h"

static const char *
a64_caveat(const struct wp_a64_insn *in)
{
	switch (in->kind) {
	case WP_A64_EXCLUSIVE:
		return "store-exclusive: it writes only while its exclusive "
		    "monitor holds (then its status register is 0)";
	case WP_A64_CAS:
		return "compare and swap: it writes only where memory held "
		    "the compared value";
	case WP_A64_SWAP:
		return "atomic exchange: reads and writes in one instruction";
	case WP_A64_ATOMIC:
		return "atomic read-modify-write: reads and writes in one "
		    "instruction";
	default:
		return NULL;
	}
}

/* The instruction at the IP: what it did, placed by the registers. */
static void
choose_at(const struct wp_a64_insn *in, const struct dtarget *t,
    const struct wp_a64_regs *r, unsigned flags, struct choice *c)
{
	uint64_t lo, hi;

	choose_named(in->writes, in->reads, a64_caveat(in),
	    flags & ~WP_HIT_UNMODELED, c);
	if (c->kind == WP_KIND_WRITE && c->conf == WP_CONF_EXACT &&
	    t != NULL && wp_a64_store_range(in, r, &lo, &hi) == 0 &&
	    !(lo < t->addr + t->len && t->addr < hi)) {
		c->kind = WP_KIND_SPURIOUS;
		c->caveat = spurious_caveat;
	}
}

const struct wp_jw *
decoder_hit_a64(struct decoder *d, const struct wp_hit_in *h,
    const struct dtarget *t)
{
	struct wp_a64_regs r;
	struct wp_value_rec v;
	struct choice c;
	struct site *st;
	const char *text;
	size_t tlen;
	unsigned flags = h->exact ? h->flags : h->flags & WP_HIT_READ;

	memset(&v, 0, sizeof v);
	st = site_get(&d->sites, &d->img, h->exact ? h->writer_ip : h->ip, 1);
	wp_rec_hit_regs_a64(h, st->ncand > 0 ? wp_a64_needs(&st->a64insn) :
	    0, &r);
	if (st->ncand > 0)
		choose_at(&st->a64insn, t, &r, flags, &c);
	else {
		c.wi = -1;
		c.kind = WP_KIND_WRITE;
		c.conf = WP_CONF_UNKNOWN;
		c.caveat = NULL;
	}
	v.kind = WP_VALUE_UNKNOWN;
	if (c.wi >= 0 && (c.kind == WP_KIND_WRITE ||
	    c.kind == WP_KIND_SPURIOUS) && !h->exact)
		wp_a64_value_of(&st->a64insn, &r, t != NULL ? t->addr : 0, &v);
	if (v.kind == WP_VALUE_UNKNOWN && (h->exact || h->has_value_members))
		observed(h, t, t != NULL, &v);
	if (v.kind == WP_VALUE_UNKNOWN && v.reason == NULL)
		v.reason = c.wi < 0 ? "writer unknown" : "not a write";
	text = writer_text(d, st, &c, h->ip, &tlen);
	wp_jw_append(&d->out, text, tlen);
	if (!h->tally)
		wp_rec_value(&d->out, &v);
	frames_append(d, h, NULL);
	return &d->out;
}
