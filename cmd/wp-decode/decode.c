#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "elf.h"
#include "proc.h"
#include "json.h"
#include "record.h"
#include "util.h"
#include "x86.h"

#define MAXCAND 4
#define MAXVAR 4

struct variant {
	int		 wi;
	const char	*conf;
	const char	*caveat;
	char		*text;
};

struct dmod {
	char		*path;		/* as mapped */
	char		*file;		/* where code and symbols are read */
	char		 build_id[128];
	uint64_t	 bias;
	struct wp_elf	*elf;
	int		 state;		/* 0 untried, 1 usable, -1 not */
};

struct dmap {
	uint64_t	 start, end;
	int		 mod;		/* -1: anonymous */
};

struct dtarget {
	int		 id;
	uint64_t	 addr;
	int		 len;
};

/* What one trap IP decodes to; per hit only the choice is left. */
struct site {
	uint64_t	 key;		/* trap IP, or writer IP | EXACT */
	int		 used;
	int		 mod;
	uint64_t	 bias;
	int		 sweep;		/* the function sweep landed */
	int		 at_trap;	/* rep string stopped mid-way */
	int		 ncand;
	struct wp_x86_insn cand[MAXCAND];
	char		*place;		/* JSON fields of module and function */
	char		*fname;		/* function symbol, or NULL */
	struct variant	 var[MAXVAR];
	int		 nvar;
	uint64_t	 faddr;
	const char	*reason;	/* why no candidate */
};

struct wp_decoder {
	struct dmod	*mods;
	size_t		 nmods;
	struct dmap	*maps;
	size_t		 nmaps;
	struct dtarget	*targets;
	size_t		 ntargets;
	int		 pid;
	unsigned long long start_time;
	int		 memfd;		/* -1 untried, -2 unusable */
	struct site	*sites;
	size_t		 cap, used;
	char		*out;
	size_t		 outcap;
};

#define EXACT_KEY (1ULL << 63)

struct wp_decoder *
wp_decode_new(void)
{
	struct wp_decoder *d = wp_xcalloc(1, sizeof *d);

	d->memfd = -1;
	d->cap = 1024;
	d->sites = wp_xcalloc(d->cap, sizeof *d->sites);
	d->outcap = 8192;
	d->out = wp_xmalloc(d->outcap);
	wp_x86_init();
	return d;
}

static void
clear_session(struct wp_decoder *d)
{
	size_t i, j;

	for (i = 0; i < d->nmods; i++) {
		free(d->mods[i].path);
		free(d->mods[i].file);
		wp_elf_close(d->mods[i].elf);
	}
	free(d->mods);
	free(d->maps);
	d->mods = NULL;
	d->maps = NULL;
	d->nmods = d->nmaps = 0;
	for (i = 0; i < d->cap; i++) {
		free(d->sites[i].place);
		free(d->sites[i].fname);
		for (j = 0; j < (size_t)d->sites[i].nvar; j++)
			free(d->sites[i].var[j].text);
	}
	memset(d->sites, 0, d->cap * sizeof *d->sites);
	d->used = 0;
	if (d->memfd >= 0)
		close(d->memfd);
	d->memfd = -1;
}

void
wp_decode_free(struct wp_decoder *d)
{
	clear_session(d);
	free(d->sites);
	free(d->targets);
	free(d->out);
	free(d);
}

int
wp_decode_session(struct wp_decoder *d, json_object *s)
{
	json_object *a, *o;
	const char *p, *f, *b;
	size_t i, j, n;
	int64_t v;

	clear_session(d);
	d->ntargets = 0;
	if (wp_json_get_int(s, "pid", &v) == 0)
		d->pid = (int)v;
	if (wp_json_get_int(s, "start_time", &v) == 0)
		d->start_time = (unsigned long long)v;
	if (json_object_object_get_ex(s, "modules", &a) &&
	    json_object_is_type(a, json_type_array)) {
		n = json_object_array_length(a);
		d->mods = wp_xcalloc(n, sizeof *d->mods);
		for (i = 0; i < n; i++) {
			o = json_object_array_get_idx(a, i);
			if ((p = wp_json_get_str(o, "path")) == NULL)
				continue;
			f = wp_json_get_str(o, "file");
			b = wp_json_get_str(o, "build_id");
			d->mods[d->nmods].path = wp_xstrdup(p);
			d->mods[d->nmods].file = wp_xstrdup(f ? f : p);
			snprintf(d->mods[d->nmods].build_id,
			    sizeof d->mods[0].build_id, "%s", b ? b : "");
			wp_json_get_hex(o, "load_bias", &d->mods[d->nmods].bias);
			d->nmods++;
		}
	}
	if (json_object_object_get_ex(s, "mappings", &a) &&
	    json_object_is_type(a, json_type_array)) {
		n = json_object_array_length(a);
		d->maps = wp_xcalloc(n, sizeof *d->maps);
		for (i = 0; i < n; i++) {
			o = json_object_array_get_idx(a, i);
			if (wp_json_get_hex(o, "start", &d->maps[d->nmaps].start) ||
			    wp_json_get_hex(o, "end", &d->maps[d->nmaps].end))
				continue;
			d->maps[d->nmaps].mod = -1;
			if ((p = wp_json_get_str(o, "path")) != NULL)
				for (j = 0; j < d->nmods; j++)
					if (strcmp(d->mods[j].path, p) == 0)
						d->maps[d->nmaps].mod = (int)j;
			d->nmaps++;
		}
	}
	return 0;
}

int
wp_decode_target(struct wp_decoder *d, json_object *t)
{
	struct dtarget x;
	int64_t v;

	if (wp_json_get_int(t, "id", &v) == -1 ||
	    wp_json_get_hex(t, "runtime_addr", &x.addr) == -1)
		return -1;
	x.id = (int)v;
	x.len = wp_json_get_int(t, "len", &v) == 0 ? (int)v : 1;
	d->targets = wp_xrealloc(d->targets,
	    (d->ntargets + 1) * sizeof *d->targets);
	d->targets[d->ntargets++] = x;
	return 0;
}

static struct dmod *
usable(struct wp_decoder *d, int mi)
{
	struct dmod *m = &d->mods[mi];
	char eb[256];

	if (m->state == 0) {
		m->state = -1;
		if ((m->elf = wp_elf_open(m->file, eb, sizeof eb)) == NULL)
			warnx("%s: %s; its writers are unknown", m->file, eb);
		else if (m->build_id[0] && strcmp(m->build_id,
		    m->elf->build_id) != 0)
			warnx("%s: build-id %s differs from the capture's %s "
			    "(the file changed); its writers are unknown",
			    m->file, m->elf->build_id[0] ? m->elf->build_id :
			    "(none)", m->build_id);
		else
			m->state = 1;
	}
	return m->state == 1 ? m : NULL;
}

/* Reads code of the live process, when it is still the same process. */
static size_t
read_live(struct wp_decoder *d, uint64_t addr, void *buf, size_t len)
{
	unsigned long long st;

	if (d->memfd == -1) {
		d->memfd = -2;
		if (d->pid > 0 && wp_proc_starttime(d->pid, &st) == 0 &&
		    st == d->start_time)
			if ((d->memfd = wp_proc_mem_open(d->pid)) < 0)
				d->memfd = -2;
	}
	if (d->memfd < 0 || wp_proc_read(d->memfd, addr, buf, len) == -1)
		return 0;
	return len;
}

static const struct dmap *
map_at(struct wp_decoder *d, uint64_t a)
{
	size_t i;

	for (i = 0; i < d->nmaps; i++)
		if (a >= d->maps[i].start && a < d->maps[i].end)
			return &d->maps[i];
	return NULL;
}

static void
json_str(char *buf, size_t sz, const char *s)
{
	size_t n = 0;

	buf[n++] = '"';
	for (; *s != '\0' && n + 8 < sz; s++) {
		if (*s == '"' || *s == '\\') {
			buf[n++] = '\\';
			buf[n++] = *s;
		} else if ((unsigned char)*s < 0x20)
			n += (size_t)snprintf(buf + n, sz - n, "\\u%04x", *s);
		else
			buf[n++] = *s;
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

/* Sweeps from the function start, then scans backwards. */
static void
find_writers(struct site *st, const uint8_t *code, size_t ncode,
    uint64_t code_addr, uint64_t trap, int from_func)
{
	struct wp_x86_insn in;
	uint64_t a = code_addr;
	size_t k;

	if (from_func) {
		while (a < trap) {
			if (wp_x86_decode(code + (a - code_addr),
			    (size_t)(trap - a), a, &in) == -1)
				break;
			a += (uint64_t)in.size;
			if (a == trap) {
				st->sweep = 1;
				if (in.writes)
					st->cand[st->ncand++] = in;
			}
		}
		if (st->sweep)
			return;		/* the boundaries are known */
	}
	for (k = 1; k <= 15 && k <= trap - code_addr && k <= ncode; k++) {
		if (wp_x86_decode(code + ncode - k, k, trap - k, &in) == -1 ||
		    in.size != (int)k || !in.writes)
			continue;
		if (st->ncand < MAXCAND)
			st->cand[st->ncand++] = in;
	}
}

/*
 * A rep string store traps between iterations with the IP still on the
 * instruction itself.
 */
static void
rep_at_trap(struct wp_decoder *d, struct dmod *m, struct site *st,
    uint64_t trap)
{
	struct wp_x86_insn in;
	uint8_t code[16];
	size_t n;

	if (m != NULL)
		n = wp_elf_read(m->elf, trap - st->bias, code, sizeof code);
	else
		n = read_live(d, trap, code, sizeof code);
	if (n > 0 && wp_x86_decode(code, n, trap, &in) == 0 && in.rep &&
	    in.kind == WP_X86_STRING) {
		st->cand[st->ncand++] = in;
		st->sweep = 1;
		st->at_trap = 1;
	}
}

static void
build_site(struct wp_decoder *d, struct site *st, uint64_t trap, int exact)
{
	const struct dmap *mp;
	const struct wp_elf_func *fn = NULL;
	struct dmod *m = NULL;
	uint8_t *code;
	uint64_t look = exact ? trap + 1 : trap, from, sip;
	size_t n, want;
	char place[1024], name[512];
	int len;

	st->mod = -1;
	st->bias = 0;
	mp = map_at(d, look - 1);
	if (mp == NULL) {
		st->reason = "trap IP is in no mapping of the session";
		st->place = wp_xstrdup("\"module\":null,\"function\":null");
		return;
	}
	if (mp->mod >= 0) {
		st->mod = mp->mod;
		st->bias = d->mods[mp->mod].bias;
		m = usable(d, mp->mod);
	}
	sip = trap - st->bias;
	if (mp->mod >= 0 && m == NULL) {
		st->reason = "module file missing or changed";
		json_str(name, sizeof name, d->mods[mp->mod].path);
		snprintf(place, sizeof place, "\"module\":%s,\"function\":null",
		    name);
		st->place = wp_xstrdup(place);
		return;
	}
	if (m != NULL)
		fn = wp_elf_func_at(m->elf, exact ? sip : sip - 1);
	if (exact) {
		from = sip;
		want = 16;
	} else if (fn != NULL && sip - fn->addr <= 65536) {
		from = fn->addr;
		want = (size_t)(sip - fn->addr);
	} else {
		from = sip >= 15 ? sip - 15 : 0;
		if (from + st->bias < mp->start)	/* not before the mapping */
			from = mp->start - st->bias;
		want = (size_t)(sip - from);
	}
	code = wp_xmalloc(want + 1);
	if (m != NULL)
		n = wp_elf_read(m->elf, from, code, want);
	else
		n = read_live(d, from + st->bias, code, want);
	if (exact) {
		if (n > 0 && wp_x86_decode(code, n, trap, &st->cand[0]) == 0) {
			st->ncand = 1;
			st->sweep = 1;
		} else
			st->reason = "no code bytes at the writer IP";
	} else if (n == want && want > 0) {
		find_writers(st, code, n, from + st->bias, trap,
		    fn != NULL && from == fn->addr);
		if (st->ncand == 0)
			rep_at_trap(d, m, st, trap);
	} else
		st->reason = m ? "no code bytes in the module file" :
		    "no code bytes: anonymous memory of a process that is gone";
	if (!st->reason && st->ncand == 0)
		st->reason = st->sweep ? "the instruction before the trap IP "
		    "writes no memory" : "no memory-writing instruction ends "
		    "at the trap IP";
	free(code);
	len = 0;
	if (mp->mod >= 0) {
		json_str(name, sizeof name, d->mods[mp->mod].path);
		len = snprintf(place, sizeof place, "\"module\":%s", name);
	} else
		len = snprintf(place, sizeof place, "\"module\":null");
	if (fn != NULL) {
		st->fname = wp_xstrdup(fn->name);
		st->faddr = fn->addr;
		json_str(name, sizeof name, fn->name);
		snprintf(place + len, sizeof place - (size_t)len,
		    ",\"function\":%s,\"function_static\":\"0x%" PRIx64 "\"",
		    name, fn->addr);
	} else
		snprintf(place + len, sizeof place - (size_t)len,
		    ",\"function\":null,\"function_static\":null");
	st->place = wp_xstrdup(place);
}

static struct site *
site_get(struct wp_decoder *d, uint64_t trap, int exact)
{
	uint64_t key = exact ? trap | EXACT_KEY : trap;
	size_t i, h, ncap;
	struct site *old;

	if (d->used * 2 >= d->cap) {
		old = d->sites;
		ncap = d->cap * 2;
		d->sites = wp_xcalloc(ncap, sizeof *d->sites);
		for (i = 0; i < d->cap; i++) {
			if (!old[i].used)
				continue;
			h = (size_t)((old[i].key * 0x9E3779B97F4A7C15ULL) >> 20) &
			    (ncap - 1);
			while (d->sites[h].used)
				h = (h + 1) & (ncap - 1);
			d->sites[h] = old[i];
		}
		free(old);
		d->cap = ncap;
	}
	h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (d->cap - 1);
	while (d->sites[h].used) {
		if (d->sites[h].key == key)
			return &d->sites[h];
		h = (h + 1) & (d->cap - 1);
	}
	d->sites[h].used = 1;
	d->sites[h].key = key;
	d->used++;
	build_site(d, &d->sites[h], trap, exact);
	return &d->sites[h];
}

/* The registers of a hit, from its "regs" object. */
static int
read_regs(const struct wp_record *rec, struct wp_x86_regs *r)
{
	struct wp_json_field f[WP_JSON_MAXFIELDS];
	const char *raw, *err;
	size_t n, nf, col, i;
	uint64_t v;
	int k;

	r->have = 0;
	if (wp_record_raw(rec, "regs", &raw, &n) == -1 || n < 2 ||
	    raw[0] != '{' || wp_json_scan(raw, n, f, &nf, &err, &col) == -1)
		return 0;
	for (i = 0; i < nf; i++) {
		for (k = 0; k < WP_NREGS; k++)
			if (strlen(wp_x86_reg_names[k]) == f[i].klen &&
			    memcmp(wp_x86_reg_names[k], f[i].key,
			    f[i].klen) == 0)
				break;
		if (k == WP_NREGS)
			continue;
		if (wp_json_hexval(f[i].val, f[i].vlen, &v) == 0) {
			r->v[k] = v;
			r->have |= 1u << k;
		}
	}
	return r->have != 0;
}

static const struct dtarget *
target_by_id(struct wp_decoder *d, int id)
{
	size_t i;

	for (i = 0; i < d->ntargets; i++)
		if (d->targets[i].id == id)
			return &d->targets[i];
	return NULL;
}

static const char *
kind_caveat(const struct wp_x86_insn *in)
{
	switch (in->kind) {
	case WP_X86_PUSH:
		return "stack write by push or call";
	case WP_X86_STRING:
		return in->rep ? "rep string instruction: one hit per element"
		    : "string instruction";
	case WP_X86_XCHG:
		return "atomic exchange: reads and writes in one instruction";
	default:
		return NULL;
	}
}

static int
value_json(char *buf, size_t sz, const struct wp_x86_insn *in,
    const struct wp_x86_regs *r, int have_regs)
{
	const char *why;
	uint64_t v, mask;

	switch (in->kind) {
	case WP_X86_REG_STORE:
		if (!have_regs || !(r->have & (1u << in->src_reg))) {
			why = "no registers sampled (watch with --regs)";
			break;
		}
		v = r->v[in->src_reg] >> in->src_shift;
		mask = in->width >= 8 ? ~0ULL : (1ULL << (8 * in->width)) - 1;
		return snprintf(buf, sz, "{\"kind\":\"register_store\","
		    "\"register\":\"%s\",\"width\":%d,\"value\":\"0x%" PRIx64
		    "\"}", in->src_name, in->width, v & mask);
	case WP_X86_IMM_STORE:
		mask = in->width >= 8 ? ~0ULL : (1ULL << (8 * in->width)) - 1;
		return snprintf(buf, sz, "{\"kind\":\"immediate_store\","
		    "\"width\":%d,\"value\":\"0x%" PRIx64 "\"}", in->width,
		    in->imm & mask);
	case WP_X86_RMW:
		why = "read-modify-write";
		break;
	case WP_X86_XCHG:
		why = "source register overwritten by the same instruction";
		break;
	case WP_X86_PUSH:
		why = "stack write by push or call";
		break;
	case WP_X86_STRING:
		why = "string instruction";
		break;
	case WP_X86_SIMD:
		why = "SIMD or x87 register (not sampled)";
		break;
	default:
		why = "instruction not modelled";
		break;
	}
	return snprintf(buf, sz, "{\"kind\":\"unknown\",\"reason\":\"%s\"}", why);
}

/* The writer object after its trap addresses, cached per choice. */
static const char *
writer_rest(struct wp_decoder *d, struct site *st, int wi, const char *conf,
    const char *caveat, const char *reason)
{
	const struct wp_x86_insn *w = wi >= 0 ? &st->cand[wi] : NULL;
	struct variant *v;
	char ins[300], src[600], sym[600], nm[512], buf[4096], fj[512];
	const char *file;
	int i, line, n;

	for (i = 0; i < st->nvar; i++) {
		v = &st->var[i];
		if (v->wi == wi && v->conf == conf && v->caveat == caveat)
			return v->text;
	}
	n = snprintf(buf, sizeof buf, ",%s", st->place);
	if (w != NULL) {
		json_str(ins, sizeof ins, w->text);
		snprintf(src, sizeof src, "null");
		if (st->mod >= 0 && d->mods[st->mod].elf != NULL &&
		    wp_elf_srcline(d->mods[st->mod].elf, w->addr - st->bias,
		    &file, &line) == 0) {
			json_str(fj, sizeof fj, file);
			snprintf(src, sizeof src, "{\"file\":%s,\"line\":%d}",
			    fj, line);
		}
		snprintf(sym, sizeof sym, "null");
		if (st->fname != NULL) {
			json_str(nm, sizeof nm, st->fname);
			nm[strlen(nm) - 1] = '\0';
			snprintf(sym, sizeof sym, "%s+0x%" PRIx64 "\"", nm,
			    w->addr - st->bias - st->faddr);
		}
		n += snprintf(buf + n, sizeof buf - (size_t)n,
		    ",\"writer_ip\":\"0x%" PRIx64 "\",\"writer_static_ip\":",
		    w->addr);
		if (st->mod >= 0)
			n += snprintf(buf + n, sizeof buf - (size_t)n,
			    "\"0x%" PRIx64 "\"", w->addr - st->bias);
		else
			n += snprintf(buf + n, sizeof buf - (size_t)n, "null");
		n += snprintf(buf + n, sizeof buf - (size_t)n,
		    ",\"symbol\":%s,\"source\":%s,\"insn\":%s,\"confidence\":"
		    "\"%s\",\"candidates\":%d,\"reason\":null", sym, src, ins,
		    conf, st->ncand);
	} else
		n += snprintf(buf + n, sizeof buf - (size_t)n,
		    ",\"writer_ip\":null,\"writer_static_ip\":null,\"symbol\":"
		    "null,\"source\":null,\"insn\":null,\"confidence\":"
		    "\"unknown\",\"candidates\":0,\"reason\":\"%s\"",
		    reason ? reason : "unknown");
	if (caveat != NULL)
		snprintf(buf + n, sizeof buf - (size_t)n, ",\"caveat\":\"%s\"}",
		    caveat);
	else
		snprintf(buf + n, sizeof buf - (size_t)n, ",\"caveat\":null}");
	if (st->nvar == MAXVAR) {
		free(st->var[MAXVAR - 1].text);
		st->nvar--;
	}
	v = &st->var[st->nvar++];
	v->wi = wi;
	v->conf = conf;
	v->caveat = caveat;
	v->text = wp_xstrdup(buf);
	return v->text;
}

static const char *const no_overlap =
    "its store address does not overlap the watched range";

/*
 * Returns the text to append to a hit record: ,"writer":{...},
 * "written_value":{...}.  The text stays valid until the next call.
 */
const char *
wp_decode_hit(struct wp_decoder *d, const struct wp_record *rec)
{
	struct wp_x86_regs r;
	struct dtarget here;
	const struct dtarget *t;
	const struct wp_x86_insn *w = NULL;
	struct site *st;
	uint64_t ip, wip, lo, hi, vbytes;
	int64_t tid = -1;
	const char *conf = "unknown", *caveat = NULL, *rest, *raw;
	char val[512], head[128];
	size_t need, rl;
	int have_regs, exact, i, matched = 0, computable = 0, first = -1;
	int wi = -1, hn, vn;

	if (wp_record_hex(rec, "ip", &ip) == -1)
		return ",\"writer\":{\"confidence\":\"unknown\",\"reason\":"
		    "\"hit without ip\"},\"written_value\":{\"kind\":\"unknown\","
		    "\"reason\":\"hit without ip\"}";
	exact = wp_record_hex(rec, "writer_ip", &wip) == 0;
	have_regs = read_regs(rec, &r);
	wp_record_int(rec, "target", &tid);
	t = target_by_id(d, (int)tid);
	/* a hit on a follow chain says where it watched at that moment */
	if (wp_record_hex(rec, "addr", &here.addr) == 0) {
		int64_t hl = 1;

		wp_record_int(rec, "len", &hl);
		here.id = (int)tid;
		here.len = (int)hl;
		t = &here;
	}
	st = site_get(d, exact ? wip : ip, exact);

	if (st->ncand > 0) {
		/* candidates of the backward scan are in order of length */
		for (i = 0; i < st->ncand; i++) {
			if (t == NULL || !have_regs || exact ||
			    wp_x86_store_range(&st->cand[i], &r, 1, &lo, &hi) == -1)
				continue;
			computable++;
			if (lo < t->addr + (uint64_t)t->len && t->addr < hi) {
				first = i;
				matched++;
			}
		}
		if (exact) {
			wi = 0;
			conf = "exact";
		} else if (st->sweep) {
			wi = 0;
			conf = "high";
			if (computable > 0 && matched == 0) {
				conf = "low";
				caveat = no_overlap;
			}
		} else if (matched > 0) {
			wi = first;
			conf = matched > 1 ? "medium" : computable == st->ncand ?
			    "high" : "medium";
		} else {
			wi = st->ncand - 1;
			conf = st->ncand == 1 && computable == 0 ? "medium" :
			    "low";
		}
		w = &st->cand[wi];
		if (caveat == NULL && st->at_trap)
			caveat = "rep string instruction trapped between "
			    "iterations: the IP is the writer itself";
		if (caveat == NULL)
			caveat = kind_caveat(w);
	}

	if (exact) {
		const char *nb = NULL;
		size_t nbl = 0;

		if (wp_record_raw(rec, "new_bytes", &raw, &rl) == 0 &&
		    rl >= 2 && raw[0] == '"') {
			nb = raw;
			nbl = rl;
		}
		if (wp_record_hex(rec, "new_value", &vbytes) == 0)
			vn = snprintf(val, sizeof val, "{\"kind\":\"observed\","
			    "\"width\":%d,\"value\":\"0x%" PRIx64 "\",\"bytes\":"
			    "%.*s}", t ? t->len : 0, vbytes, nb ? (int)nbl : 4,
			    nb ? nb : "null");
		else if (nb != NULL)
			vn = snprintf(val, sizeof val, "{\"kind\":\"observed\","
			    "\"width\":%d,\"value\":null,\"bytes\":%.*s}",
			    t ? t->len : 0, (int)nbl, nb);
		else
			vn = snprintf(val, sizeof val, "{\"kind\":\"unknown\","
			    "\"reason\":\"no value in the hit\"}");
	} else if (w != NULL)
		vn = value_json(val, sizeof val, w, &r, have_regs);
	else
		vn = snprintf(val, sizeof val, "{\"kind\":\"unknown\","
		    "\"reason\":\"writer unknown\"}");
	if (vn < 0 || (size_t)vn >= sizeof val)
		vn = (int)strlen(val);

	rest = writer_rest(d, st, wi, conf, caveat, st->reason);
	if (st->mod >= 0)
		hn = snprintf(head, sizeof head, ",\"writer\":{\"trap_ip\":"
		    "\"0x%" PRIx64 "\",\"trap_static_ip\":\"0x%" PRIx64 "\"",
		    ip, ip - st->bias);
	else
		hn = snprintf(head, sizeof head, ",\"writer\":{\"trap_ip\":"
		    "\"0x%" PRIx64 "\",\"trap_static_ip\":null", ip);
	rl = strlen(rest);
	need = (size_t)hn + rl + 20 + (size_t)vn + 1;
	if (need > d->outcap) {
		d->outcap = need;
		d->out = wp_xrealloc(d->out, d->outcap);
	}
	memcpy(d->out, head, (size_t)hn);
	memcpy(d->out + hn, rest, rl);
	memcpy(d->out + hn + rl, ",\"written_value\":", 17);
	memcpy(d->out + hn + rl + 17, val, (size_t)vn + 1);
	return d->out;
}
