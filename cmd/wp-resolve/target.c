/*
 * Addresses to watch: each ADDR form turned into a runtime address,
 * checked against the mappings and the debug-register rules, and
 * written as a target or follow record.
 */
#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "elf.h"
#include "hwbp.h"
#include "proc.h"
#include "record.h"
#include "target.h"
#include "tls.h"
#include "util.h"

/* What a symbol lookup found. */
struct sym {
	uint64_t	 val, size;
	int		 tls;		/* val is an offset in the TLS block */
};

/* Definitions of name in module m: 0, 1 (*s set), or more. */
static int
lookup_in(struct module *m, const char *name, struct sym *s)
{
	if (m->elf == NULL)
		return 0;
	return wp_elf_symbol(m->elf, name, &s->val, &s->size, &s->tls);
}

static struct module *
find_module(struct view *v, const char *name, char *err, size_t errsz)
{
	struct module *found = NULL;
	size_t i;

	for (i = 0; i < v->nmods; i++) {
		if (!view_module_named(v, &v->mods[i], name))
			continue;
		if (found != NULL) {
			snprintf(err, errsz, "module '%s' is ambiguous: %s and %s",
			    name, found->path, v->mods[i].path);
			return NULL;
		}
		found = &v->mods[i];
	}
	if (found == NULL)
		snprintf(err, errsz, "no module '%s' is loaded", name);
	return found;
}

/*
 * Why sym is not found in m (the main program: nor elsewhere).  A bare
 * word is never taken for a module's base: say how to name what was
 * meant.
 */
static void
unknown(struct view *v, struct module *m, const char *sym, char *err,
    size_t errsz)
{
	char e2[256];
	const char *minus;
	uint64_t off;
	int n;

	if (m->elf != NULL && wp_elf_stripped(m->elf)) {
		snprintf(err, errsz, "unknown symbol '%s': %s is stripped (no "
		    "symbol table); name it with --bin (an unstripped build), "
		    "--debug-file, static:0xADDR or MODULE+0xOFF", sym,
		    m->path);
		return;
	}
	if (m == v->main)
		n = snprintf(err, errsz, "unknown symbol '%s' (not in %s%s)",
		    sym, m->path, v->nmods > 1 ? " or its shared objects" : "");
	else
		n = snprintf(err, errsz, "unknown symbol '%s' in %s", sym,
		    m->path);
	if (m == v->main && n > 0 && (size_t)n < errsz &&
	    find_module(v, sym, e2, sizeof e2) != NULL)
		snprintf(err + n, errsz - (size_t)n, "; '%s' is a module: "
		    "write %s+0xOFF or %s:SYMBOL", sym, sym, sym);
	else if (n > 0 && (size_t)n < errsz && (minus = strrchr(sym, '-')) !=
	    NULL && minus > sym && wp_parse_u64(minus + 1, &off) == 0)
		snprintf(err + n, errsz - (size_t)n, "; an offset is added "
		    "(SYMBOL+0xOFF): bytes before a symbol are named by their "
		    "address (static:0xADDR or 0xADDR)");
}

/* The one module other than the main binary that defines sym. */
static struct module *
find_elsewhere(struct view *v, const char *sym, struct sym *out, char *err,
    size_t errsz)
{
	struct module *found = NULL, *m;
	const char *p1, *p2;
	struct sym s1;
	size_t i;
	int n;

	for (i = 0; i < v->nmods; i++) {
		m = &v->mods[i];
		if (m == v->main || (n = lookup_in(m, sym, &s1)) == 0)
			continue;
		if (n > 1 || found != NULL) {
			p1 = found ? found->path : m->path;
			p2 = m->path;
			if (strcmp(p1, p2) > 0) {
				p2 = p1;
				p1 = m->path;
			}
			snprintf(err, errsz, "ambiguous symbol '%s': defined in "
			    "%s and %s; write MODULE:%s", sym, p1, p2, sym);
			return NULL;
		}
		found = m;
		*out = s1;
	}
	if (found == NULL)
		unknown(v, v->main, sym, err, errsz);
	return found;
}

/* [MODULE:]SYMBOL: the module that defines it, its value and size. */
static struct module *
find_symbol(struct view *v, const struct addr *a, struct sym *s, char *err,
    size_t errsz)
{
	struct module *m;
	int n;

	m = a->module ? find_module(v, a->module, err, errsz) : v->main;
	if (m == NULL)
		return NULL;
	n = lookup_in(m, a->symbol, s);
	if (n > 1) {
		snprintf(err, errsz, "ambiguous symbol '%s': %d definitions in %s",
		    a->symbol, n, m->path);
		return NULL;
	}
	if (n == 1)
		return m;
	if (a->module != NULL) {
		unknown(v, m, a->symbol, err, errsz);
		return NULL;
	}
	return find_elsewhere(v, a->symbol, s, err, errsz);
}

/* Static address sa of module m (NULL: the main program) at runtime. */
static int
static_in(struct view *v, struct module *m, uint64_t sa, uint64_t *addr,
    char *err, size_t errsz)
{
	if (m == NULL)
		m = v->main;
	if (m->elf == NULL || wp_elf_load_at(m->elf, sa) == NULL) {
		snprintf(err, errsz, "static address 0x%" PRIx64 " is in no "
		    "loadable segment of %s", sa, m == v->main && v->bin ?
		    v->bin : m == v->main ? v->exe : m->path);
		return -1;
	}
	*addr = sa + m->bias;
	return 0;
}

/*
 * MODULE+0xOFF when no symbol is named MODULE: the module, or NULL.  The
 * offset must be written: a bare MODULE is no address.
 */
static struct module *
module_plus(struct view *v, const struct addr *a)
{
	char err[256];

	if (a->module != NULL || !a->has_off || a->off < 0)
		return NULL;
	return find_module(v, a->symbol, err, sizeof err);
}

/* The address of thread o->tid's copy of thread-local s in m. */
static int
thread_local(struct view *v, struct module *m, const struct addr *a,
    const struct sym *s, const struct target_opts *o, uint64_t *addr,
    char *err, size_t errsz)
{
	if (o->tid == 0) {
		snprintf(err, errsz, "'%s' is thread-local (each thread has its "
		    "own copy): give --tid TID to watch one thread's",
		    a->symbol);
		return -1;
	}
	if (tls_address(v, m, s->val + (uint64_t)a->off, o->tid, addr, err,
	    errsz) == -1)
		return -1;
	v->tls_resolved = 1;
	return 0;
}

/*
 * Turns any ADDR form into a runtime address.  *symsize is the symbol's
 * size for a symbol, else 0.
 */
int
target_locate(struct view *v, const struct addr *a,
    const struct target_opts *o, uint64_t *addr, uint64_t *symsize,
    char *err, size_t errsz)
{
	struct module *m;
	struct sym s = { 0, 0, 0 };

	*symsize = 0;
	switch (a->kind) {
	case ADDR_RUNTIME:
		*addr = a->value;
		return 0;
	case ADDR_STATIC:
		m = NULL;
		if (a->module != NULL &&
		    (m = find_module(v, a->module, err, errsz)) == NULL)
			return -1;
		return static_in(v, m, a->value, addr, err, errsz);
	case ADDR_SYMBOL:
		break;
	}
	if ((m = find_symbol(v, a, &s, err, errsz)) == NULL) {
		if ((m = module_plus(v, a)) == NULL)
			return -1;
		return static_in(v, m, (uint64_t)a->off, addr, err, errsz);
	}
	*symsize = s.size;
	if (s.tls)
		return thread_local(v, m, a, &s, o, addr, err, errsz);
	*addr = s.val + m->bias + (uint64_t)a->off;
	return 0;
}

void
target_place(struct view *v, uint64_t addr, struct wp_place *p)
{
	const struct wp_map *mp = wp_proc_maps_find(&v->maps, addr);
	struct module *m = view_module_at(v, addr, &p->static_addr);

	p->has_static = m != NULL;
	p->module = m ? m->path : NULL;
	p->region = view_region(mp);
	p->perms = mp->perms;
}

static int
check_place(struct view *v, const struct addr *a, uint64_t addr,
    size_t len, int slotted, const char *what, char *err, size_t errsz)
{
	char at[64] = "";
	int n;

	if (a->kind != ADDR_RUNTIME)
		snprintf(at, sizeof at, "at 0x%" PRIx64 ": ", addr);
	n = snprintf(err, errsz, "%s%s", what, at);
	if (n < 0 || (size_t)n >= errsz)
		return -1;
	err += n;
	errsz -= (size_t)n;
	if (wp_proc_maps_find(&v->maps, addr) == NULL) {
		snprintf(err, errsz, "not mapped in pid %d", (int)v->pid);
		return -1;
	}
	if (wp_proc_maps_find(&v->maps, addr + len - 1) == NULL) {
		snprintf(err, errsz, "%zu bytes run past the end of the "
		    "mapping", len);
		return -1;
	}
	if (slotted && !wp_hwbp_aligned(addr, len)) {
		snprintf(err, errsz, "not aligned to its length %zu (debug "
		    "registers need natural alignment)", len);
		return -1;
	}
	return 0;
}

static size_t
default_len(const struct target_opts *o, uint64_t symsize)
{
	if (o->len != 0)
		return o->len;
	if (symsize != 0)
		return (size_t)symsize;	/* all of it: never cut silently */
	return 4;
}

/* The len bytes at addr, allocated, or NULL when unreadable. */
static unsigned char *
read_bytes(struct view *v, uint64_t addr, size_t len)
{
	unsigned char *b = wp_xmalloc(len);

	if (wp_proc_read(v->memfd, addr, b, len) == -1) {
		free(b);
		return NULL;
	}
	return b;
}

void
target_keep_line(struct target *t, const struct wp_jw *w)
{
	char *line = wp_xmalloc(w->len + 1);

	memcpy(line, w->buf, w->len + 1);
	t->lines = wp_xrealloc(t->lines, (t->nlines + 1) * sizeof *t->lines);
	t->lines[t->nlines++] = line;
}

int
target_resolve(struct view *v, const char *input, const struct addr *a,
    const struct target_opts *o, struct target *t, char *err, size_t errsz)
{
	uint64_t symsize;

	memset(t, 0, sizeof *t);
	t->input = input;
	t->a = a;
	if (target_locate(v, a, o, &t->addr, &symsize, err, errsz) == -1)
		return -1;
	t->len = default_len(o, a->off == 0 ? symsize : 0);
	if (a->kind == ADDR_SYMBOL && a->off > 0 && symsize > 0 &&
	    (uint64_t)a->off + t->len > symsize)
		snprintf(t->past, sizeof t->past, "%zu bytes at offset 0x%"
		    PRIx64 " reach past the end of %s (%" PRIu64 " bytes)",
		    t->len, (uint64_t)a->off, a->symbol, symsize);
	if (check_place(v, a, t->addr, t->len, o->limits == LIMITS_DR &&
	    t->len <= 8, "", err, errsz) == -1)
		return -1;
	if (t->past[0] != '\0')	/* once, though its pieces carry it */
		warnx("%s: warning: %s", input, t->past);
	return 0;
}

/* The address form of piece off bytes into t, as the user wrote t. */
static char *
piece_input(const struct target *t, uint64_t off)
{
	const struct addr *a = t->a;
	char buf[512];

	switch (a->kind) {
	case ADDR_RUNTIME:
		snprintf(buf, sizeof buf, "0x%" PRIx64, t->addr + off);
		break;
	case ADDR_STATIC:
		snprintf(buf, sizeof buf, "%s%s0x%" PRIx64, a->module ?
		    a->module : "static", ":", a->value + off);
		break;
	case ADDR_SYMBOL:
	default:
		snprintf(buf, sizeof buf, "%s%s%s+0x%" PRIx64, a->module ?
		    a->module : "", a->module ? ":" : "", a->symbol,
		    (uint64_t)a->off + off);
		break;
	}
	return wp_xstrdup(buf);
}

/* One target record: len bytes at addr, named input. */
static void
one_record(struct view *v, int id, const char *input, uint64_t addr,
    size_t len, const struct target_opts *o, struct target *t)
{
	static const char ro[] = "region is not writable: a write there "
	    "would fault";
	struct wp_target_rec r;
	struct wp_jw w = { 0 };
	unsigned char *initial;
	const char *warns[2];

	memset(&r, 0, sizeof r);
	r.id = id;
	r.input = input;
	r.addr = addr;
	target_place(v, addr, &r.place);
	r.len = len;
	r.rw = o->rw;
	r.initial = initial = read_bytes(v, addr, len);
	if (r.place.perms[1] != 'w') {
		warnx("%s: warning: %s", input, ro);
		warns[r.nwarnings++] = ro;
	}
	if (t->past[0] != '\0')
		warns[r.nwarnings++] = t->past;
	r.warnings = warns;
	wp_rec_target(&w, &r);
	target_keep_line(t, &w);
	wp_jw_free(&w);
	free(initial);
}

void
target_records(struct view *v, int *id, const struct target_opts *o,
    struct target *t, const size_t *plen, size_t npieces)
{
	uint64_t off = 0;
	size_t i;
	char *in;

	if (npieces <= 1) {
		one_record(v, (*id)++, t->input, t->addr, t->len, o, t);
		return;
	}
	for (i = 0; i < npieces; i++) {
		in = piece_input(t, off);
		one_record(v, (*id)++, in, t->addr + off, plen[i], o, t);
		free(in);
		off += plen[i];
	}
}

int
target_follow(struct view *v, int id, const char *input,
    const struct follow *f, const struct target_opts *o, struct target *t,
    char *err, size_t errsz)
{
	struct wp_follow_rec r;
	struct wp_walk walk;
	struct wp_jw w = { 0 };
	unsigned char *initial = NULL;
	uint64_t symsize;
	size_t i;

	memset(t, 0, sizeof *t);
	t->input = input;
	if (target_locate(v, &f->slot, o, &t->addr, &symsize, err, errsz) == -1 ||
	    check_place(v, &f->slot, t->addr, 8, 1, "pointer slot ", err,
	    errsz) == -1)
		return -1;
	t->len = 8;
	memset(&r, 0, sizeof r);
	r.id = id;
	r.input = input;
	r.slot = t->addr;
	target_place(v, t->addr, &r.place);
	memcpy(r.offs, f->offs, sizeof r.offs);
	r.noffs = f->noffs;
	r.len = o->len ? o->len : 4;
	r.rw = o->rw;
	wp_chain_walk(v->memfd, r.slot, f->offs, f->noffs, r.len, &walk);
	if (strcmp(walk.binding, "exited") == 0) {
		snprintf(err, errsz, "the process has exited");
		return -1;
	}
	for (i = 0; i < walk.nread; i++) {
		r.ptr_addr[i] = walk.addr[i];
		r.ptr_value[i] = walk.value[i];
	}
	r.nptrs = walk.nread;
	r.binding = walk.binding;
	r.leaf = walk.addr[f->noffs];
	if (strcmp(walk.binding, "bound") == 0)
		r.initial = initial = read_bytes(v, r.leaf, r.len);
	wp_rec_follow(&w, &r);
	target_keep_line(t, &w);
	wp_jw_free(&w);
	free(initial);
	return 0;
}

void
target_free(struct target *t)
{
	size_t i;

	for (i = 0; i < t->nlines; i++)
		free(t->lines[i]);
	free(t->lines);
	t->lines = NULL;
	t->nlines = 0;
}
