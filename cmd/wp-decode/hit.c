/*
 * For each hit: which candidate wrote, how sure that is, and the value
 * written, added to the record.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dwfl.h"
#include "machine.h"
#include "util.h"

static const char rep_stopped[] =
    "rep string instruction trapped between iterations: the IP is the "
    "writer itself";
static const char no_overlap[] =
    "its store address does not overlap the watched range";
static const char masked[] =
    "masked store: its mask register is not sampled, so whether it wrote "
    "the watched bytes is not known";
void
decoder_init(struct decoder *d)
{
	memset(d, 0, sizeof *d);
	d->img.memfd = -1;
	wp_hmap_init(&d->sites, sizeof(struct site));
	frames_init(&d->frames);
}

void
decoder_free(struct decoder *d)
{
	site_free_all(&d->sites);
	wp_hmap_free(&d->sites);
	frames_clear(&d->frames);
	wp_hmap_free(&d->frames);
	ustack_clear(&d->ustack);
	image_clear(&d->img);
	free(d->targets);
	wp_jw_free(&d->out);
}

int
decoder_session(struct decoder *d, const struct wp_record *rec,
    struct wp_error *err)
{
	struct wp_session s;

	site_free_all(&d->sites);
	frames_clear(&d->frames);
	ustack_clear(&d->ustack);
	d->chain_depth = 0;
	d->ntargets = 0;
	if (wp_rec_read_session(rec, &s, err) == -1) {
		image_clear(&d->img);
		return -1;
	}
	image_load(&d->img, &s);
	return 0;
}

int
decoder_target(struct decoder *d, const struct wp_record *rec,
    struct wp_error *err)
{
	struct wp_spec sp;

	if (wp_rec_read_target(rec, &sp, err) == -1)
		return -1;
	d->targets = wp_xrealloc(d->targets,
	    (d->ntargets + 1) * sizeof *d->targets);
	d->targets[d->ntargets].id = sp.id;
	d->targets[d->ntargets].addr = sp.addr;
	d->targets[d->ntargets++].len = sp.len;
	return 0;
}

/* The registers a copied stack is unwound from: all but the flags. */
static uint32_t
stack_regs(const struct wp_hit_in *h)
{
	if (!h->has_stack)
		return 0;
	return ((1u << WP_NGPREGS) - 1) & ~(1u << WP_RFLAGS);
}

/* The registers a site's candidates are placed and valued by. */
static uint32_t
site_regs(const struct site *st)
{
	const struct wp_x86_insn *in;
	uint32_t m = 1u << WP_RFLAGS;
	int i;

	for (i = 0; i < st->ncand; i++) {
		in = &st->cand[i];
		if (in->mem.base >= 0)
			m |= 1u << in->mem.base;
		if (in->mem.index >= 0)
			m |= 1u << in->mem.index;
		if (in->mem.seg > 0)
			m |= 1u << in->mem.seg;
		if (in->src_reg >= 0)
			m |= 1u << in->src_reg;
	}
	return m;
}

/* The range the hit watched: the target's, or where a chain was. */
static int
watched(struct decoder *d, const struct wp_hit_in *h, struct dtarget *t)
{
	int id = h->has_target ? h->target : -1;
	size_t i;

	if (h->has_addr) {
		t->addr = h->addr;
		t->id = id;
		t->len = h->len > 0 ? (size_t)h->len : 1;
		return 1;
	}
	for (i = 0; i < d->ntargets; i++)
		if (d->targets[i].id == id) {
			*t = d->targets[i];
			return 1;
		}
	return 0;
}

static const char *
kind_caveat(const struct wp_x86_insn *in)
{
	switch (in->kind) {
	case WP_X86_PUSH:
		return "stack write by push or call";
	case WP_X86_STRING:
		return in->rep ? "rep string instruction: one hit per element "
		    "stepped, or per trap of a data breakpoint"
		    : "string instruction";
	case WP_X86_XCHG:
		return "atomic exchange: reads and writes in one instruction";
	default:
		return NULL;
	}
}

/*
 * Where candidate in's access is, by the registers r: 1 on t, 0 provably
 * elsewhere, -1 not known (registers missing, or the instruction writes
 * one its address is computed from, or loads from another place).
 */
static int
placed(const struct wp_x86_insn *in, int reader, const struct dtarget *t,
    const struct wp_x86_regs *r)
{
	uint64_t lo, hi;

	if (reader)
		return wp_x86_load_range(in, r, &lo, &hi) == -1 ? -1 :
		    lo < t->addr + t->len && t->addr < hi;
	if (wp_x86_store_range(in, r, 1, &lo, &hi) == -1)
		return -1;
	if (lo < t->addr + t->len && t->addr < hi)
		return 1;
	if (in->addr_clobbered || (in->reads &&
	    wp_x86_load_range(in, r, &lo, &hi) == -1))
		return -1;
	return lo < t->addr + t->len && t->addr < hi;
}

static void
choose(const struct site *st, const struct dtarget *t,
    const struct wp_x86_regs *r, struct choice *c)
{
	int i, at, matched = 0, computable = 0, first = -1;

	c->wi = -1;
	c->kind = st->reader ? WP_KIND_READ : WP_KIND_WRITE;
	c->conf = WP_CONF_UNKNOWN;
	c->caveat = NULL;
	if (st->ncand == 0)
		return;
	/* candidates of the backward scan are in order of length */
	for (i = 0; i < st->ncand; i++) {
		/* without registers, rip-relative stores still say where */
		if (t == NULL || (at = placed(&st->cand[i], st->reader, t,
		    r)) == -1)
			continue;
		computable++;
		if (at == 1) {
			first = i;
			matched++;
		}
	}
	/* what ends at the trap IP accessed elsewhere, or the registers
	   place the rep string at the IP on the target: it stopped there */
	if (st->rep_alt && t != NULL && (placed(&st->cand[st->ncand], 0, t,
	    r) == 1 || (matched == 0 && computable == st->ncand))) {
		c->wi = st->ncand;
		c->kind = WP_KIND_WRITE;
		c->conf = WP_CONF_HIGH;
		c->caveat = rep_stopped;
		return;
	}
	if (st->sweep) {
		c->wi = 0;
		c->conf = WP_CONF_HIGH;
		if (computable > 0 && matched == 0) {
			c->conf = WP_CONF_LOW;
			c->caveat = no_overlap;
		}
	} else if (matched > 0) {
		c->wi = first;
		c->conf = matched > 1 ? WP_CONF_MEDIUM : computable ==
		    st->ncand ? WP_CONF_HIGH : WP_CONF_MEDIUM;
	} else {
		c->wi = st->ncand - 1;
		c->conf = st->ncand == 1 && computable == 0 ? WP_CONF_MEDIUM :
		    WP_CONF_LOW;
		c->caveat = computable > 0 ? no_overlap : "several instructions "
		    "end at the trap IP and no registers place their stores: "
		    "the longest was taken";
		if (st->ncand == 1 && computable == 0)
			c->caveat = NULL;
	}
	/* every candidate accessed elsewhere: no access of the target */
	if (matched == 0 && computable == (st->sweep ? 1 : st->ncand) &&
	    !st->at_trap) {
		c->kind = WP_KIND_SPURIOUS;
		c->caveat = spurious_caveat;
	}
	if (c->caveat == NULL && st->at_trap)
		c->caveat = rep_stopped;
	if (c->caveat == NULL && st->cand[c->wi].mask != WP_X86_MASK_NONE &&
	    c->kind == WP_KIND_WRITE) {
		/* the mask registers are not sampled */
		if (c->conf < WP_CONF_MEDIUM)
			c->conf = WP_CONF_MEDIUM;
		c->caveat = masked;
	}
	if (c->caveat == NULL)
		c->caveat = kind_caveat(&st->cand[c->wi]);
}

/*
 * The value of a trap's hit: the store's, where its registers say it;
 * else what the backend read in memory at the trap, which another
 * thread may have written since.
 */
static void
trapped_value(const struct wp_hit_in *h, const struct dtarget *t,
    int have_t, const struct site *st, const struct choice *c,
    const struct wp_x86_regs *r, struct wp_value_rec *v)
{
	if (c->wi >= 0 && c->kind == WP_KIND_WRITE) {
		wp_value_of(&st->cand[c->wi], r, v);
		if (v->kind != WP_VALUE_UNKNOWN || !h->has_value_members)
			return;
	}
	if (h->has_value_members)
		observed(h, t, have_t, v);
	else if (c->wi >= 0)
		wp_value_of(&st->cand[c->wi], r, v);
	else {
		v->kind = WP_VALUE_UNKNOWN;
		v->reason = "writer unknown";
	}
}

/* A change no instruction of the process made: the kernel's, or none's. */
static void
no_writer(struct decoder *d, const struct wp_hit_in *h)
{
	struct wp_writer_rec r;
	char why[128];
	uint64_t ip = h->ip;
	int sig = h->signal;

	memset(&r, 0, sizeof r);
	r.has_trap = 1;
	r.trap_ip = ip;
	r.trap_module = image_module_of(&d->img, ip, &r.trap_static);
	r.has_trap_static = r.trap_module != NULL;
	r.trap_static = ip - r.trap_static;
	if (h->flags & WP_HIT_KERNEL) {
		r.kind = WP_KIND_KERNEL;
		if (sig > 0)
			snprintf(why, sizeof why, "the kernel wrote: the frame "
			    "of signal %d (%s), delivered on this thread",
			    (int)sig, sigabbrev_np((int)sig) ?
			    sigabbrev_np((int)sig) : "?");
		else
			snprintf(why, sizeof why, "the kernel wrote");
		r.reason = why;
	} else {
		r.kind = WP_KIND_UNEXPLAINED;
		r.reason = "no instruction of this process explains the change "
		    "(another process through shared memory, a device, or an "
		    "instruction wp does not model)";
	}
	wp_rec_writer(&d->out, &r);
}

/* A hit without an ip: nothing to decode. */
static const struct wp_jw *
no_ip(struct decoder *d)
{
	struct wp_writer_rec nr;
	struct wp_value_rec v;

	memset(&nr, 0, sizeof nr);
	memset(&v, 0, sizeof v);
	nr.kind = -1;
	nr.reason = "hit without ip";
	wp_rec_writer(&d->out, &nr);
	v.kind = WP_VALUE_UNKNOWN;
	v.reason = "hit without ip";
	wp_rec_value(&d->out, &v);
	return &d->out;
}

const struct wp_jw *
decoder_hit(struct decoder *d, const struct wp_hit_in *h)
{
	struct wp_x86_regs r;
	struct wp_value_rec v;
	struct dtarget t;
	struct choice c;
	struct site *st;
	const char *text;
	size_t tlen;
	int have_t;

	wp_jw_resume(&d->out);
	memset(&v, 0, sizeof v);
	if (!h->has_ip)
		return no_ip(d);
	have_t = watched(d, h, &t);
	if (h->flags & (WP_HIT_KERNEL | WP_HIT_UNEXPLAINED)) {
		observed(h, &t, have_t, &v);
		no_writer(d, h);
		if (!h->tally)
			wp_rec_value(&d->out, &v);
		wp_rec_hit_regs(h, stack_regs(h), &r);
		frames_append(d, h, d->img.session.machine == WP_MACH_AARCH64 ?
		    NULL : &r);
		return &d->out;
	}
	if (d->img.session.machine == WP_MACH_AARCH64)
		return decoder_hit_a64(d, h, have_t ? &t : NULL);
	st = site_get(&d->sites, &d->img, h->exact ? h->writer_ip : h->ip,
	    h->exact);
	wp_rec_hit_regs(h, site_regs(st) | stack_regs(h), &r);
	if (h->exact && st->ncand > 0)
		choose_named(st->cand[0].writes, st->cand[0].reads,
		    kind_caveat(&st->cand[0]), h->flags, &c);
	else
		choose(st, have_t ? &t : NULL, &r, &c);
	if (h->exact)
		observed(h, &t, have_t, &v);
	else
		trapped_value(h, &t, have_t, st, &c, &r, &v);
	text = writer_text(d, st, &c, h->ip, &tlen);
	wp_jw_append(&d->out, text, tlen);
	if (!h->tally)
		wp_rec_value(&d->out, &v);
	frames_append(d, h, &r);
	return &d->out;
}

const struct wp_jw *
decoder_access(struct decoder *d, uint64_t addr)
{
	const struct dmap *mp;
	const struct wp_module_rec *mr;
	const char *base;
	struct wp_func f;
	char name[512], mod[256] = "";

	if ((mp = image_map_at(&d->img, addr)) == NULL || mp->mod < 0 ||
	    image_module(&d->img, mp->mod) == NULL)
		return NULL;
	mr = d->img.mods[mp->mod].rec;
	base = strrchr(mr->path, '/') != NULL ? strrchr(mr->path, '/') + 1 :
	    mr->path;
	/* the main program's symbols are found first, without a module */
	if (d->img.session.exe == NULL ||
	    strcmp(mr->path, d->img.session.exe) != 0)
		snprintf(mod, sizeof mod, "%s:", base);
	if (wp_dwfl_object(d->img.dwfl, addr, &f) == 0 && addr == f.addr)
		snprintf(name, sizeof name, "%s%s", mod, f.name);
	else if (wp_dwfl_object(d->img.dwfl, addr, &f) == 0)
		snprintf(name, sizeof name, "%s%s+0x%llx", mod, f.name,
		    (unsigned long long)(addr - f.addr));
	else
		snprintf(name, sizeof name, "%s+0x%llx", base,
		    (unsigned long long)(addr - mr->load_bias));
	wp_jw_resume(&d->out);
	wp_jw_str(&d->out, "name", name);
	return &d->out;
}

void
decoder_armed(struct decoder *d, const struct wp_record *rec)
{
	struct wp_armed_in a;

	wp_rec_read_armed(rec, &a);
	if (a.callchain_depth > 0)
		d->chain_depth = (size_t)a.callchain_depth;
}
