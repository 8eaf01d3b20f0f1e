/*
 * What hit.c and hit-a64.c share: the choice where the backend named
 * the instruction, the writer object and the value observed in memory.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dwfl.h"
#include "util.h"

const char spurious_caveat[] =
    "spurious: its address (its operand, the sampled registers) lies "
    "outside the watched range; not counted as an access there";
static const char unmodeled[] =
    "wp cannot tell which bytes this instruction writes: the watched "
    "bytes changed as it ran";

void
choose_named(int writes, int reads, const char *caveat, unsigned flags,
    struct choice *c)
{
	c->wi = 0;
	c->kind = flags & WP_HIT_SYSCALL ? WP_KIND_SYSCALL : flags &
	    WP_HIT_READ ? WP_KIND_READ : WP_KIND_WRITE;
	if (flags & WP_HIT_SYSCALL) {
		c->conf = flags & WP_HIT_UNVERIFIED ? WP_CONF_MEDIUM :
		    WP_CONF_EXACT;
		c->caveat = flags & WP_HIT_UNVERIFIED ? "the kernel wrote "
		    "during this system call, and wp does not know what it "
		    "writes: the change may not be its" : "the kernel wrote "
		    "during this system call";
	} else if (flags & WP_HIT_UNMODELED) {
		c->conf = WP_CONF_HIGH;
		c->caveat = unmodeled;
	} else if (flags & WP_HIT_READ ? reads : writes) {
		c->conf = WP_CONF_EXACT;
		c->caveat = caveat;
	} else {
		c->conf = WP_CONF_LOW;
		c->caveat = flags & WP_HIT_READ ? "this instruction reads no "
		    "memory" : "this instruction writes no memory";
	}
}

/* The source line of address ip of module m, or why none, once. */
static void
source_of(struct image *im, struct dmod *m, uint64_t ip,
    struct wp_writer_rec *r)
{
	const char *file, *why;
	int line;

	if (wp_dwfl_srcline(im->dwfl, ip, &file, &line) == 0) {
		r->source_file = file;
		r->source_line = line;
	} else if (!m->told) {
		m->told = 1;
		if ((why = wp_dwfl_debug_why(im->dwfl, ip)) != NULL)
			warnx("%s: source lines unknown", why);
	}
}

const char *
writer_text(struct decoder *d, struct site *st, const struct choice *c,
    uint64_t trap, size_t *len)
{
	struct wp_writer_rec r;
	struct wp_jw w = { 0 };
	struct variant *v;
	int i;

	for (i = 0; i < st->nvar; i++) {
		v = &st->var[i];
		if (v->wi == c->wi && v->conf == c->conf && v->kind == c->kind &&
		    v->caveat == c->caveat && v->trap == trap) {
			*len = v->len;
			return v->text;
		}
	}
	memset(&r, 0, sizeof r);
	r.kind = c->kind;
	r.has_trap = 1;
	r.trap_ip = trap;
	r.trap_module = image_module_of(&d->img, trap, &r.trap_static);
	r.has_trap_static = r.trap_module != NULL;
	r.trap_static = trap - r.trap_static;
	r.module = st->mod >= 0 ? d->img.mods[st->mod].rec->path : NULL;
	r.function = st->fname;
	r.function_static = st->faddr;
	if (c->wi >= 0) {
		r.has_writer = 1;
		r.writer_ip = st->a64 ? st->a64insn.addr : st->cand[c->wi].addr;
		r.has_writer_static = st->mod >= 0;
		r.writer_static = r.writer_ip - st->bias;
		if (st->mod >= 0 && d->img.mods[st->mod].state == 1)
			source_of(&d->img, &d->img.mods[st->mod], r.writer_ip,
			    &r);
		r.insn = st->a64 ? st->a64insn.text : st->cand[c->wi].text;
		r.confidence = c->conf;
		r.candidates = st->ncand;
	}
	r.reason = st->reason;
	r.caveat = c->caveat;
	wp_jw_resume(&w);
	wp_rec_writer(&w, &r);
	if (st->nvar == MAXVAR) {
		free(st->var[MAXVAR - 1].text);
		st->nvar--;
	}
	v = &st->var[st->nvar++];
	v->wi = c->wi;
	v->kind = c->kind;
	v->conf = c->conf;
	v->caveat = c->caveat;
	v->trap = trap;
	v->text = w.buf;
	v->len = w.len;
	*len = v->len;
	return v->text;
}

void
observed(const struct wp_hit_in *h, const struct dtarget *t, int have_t,
    struct wp_value_rec *v)
{
	unsigned char b[8];
	size_t n;

	v->kind = WP_VALUE_OBSERVED;
	v->width = have_t ? (int)t->len : 0;
	v->has_value = h->has_new_value;
	v->value = h->new_value;
	v->bytes = h->new_bytes;
	v->nbytes = h->nnew_bytes;
	if (!v->has_value && h->has_store && h->store_bytes != NULL) {
		v->width = (int)h->store_len;
		v->bytes = h->store_bytes;
		v->nbytes = h->nstore_bytes;
		v->has_value = h->store_len <= 8 && wp_json_bytes(h->rec->j,
		    h->store_bytes_tok, b, sizeof b, &n) == 0 &&
		    n == (size_t)h->store_len;
		v->value = v->has_value ? wp_le64(b, n) : 0;
	}
	if (!v->has_value && v->bytes == NULL) {
		v->kind = WP_VALUE_UNKNOWN;
		v->reason = "no value in the hit";
	}
}

