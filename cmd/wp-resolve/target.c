#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "elf.h"
#include "proc.h"
#include "record.h"
#include "target.h"
#include "util.h"
#include "view.h"

static int
module_matches(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(name);

	base = base ? base + 1 : path;
	if (strcmp(path, name) == 0 || strcmp(base, name) == 0)
		return 1;
	/* "libc" names libc.so.6, "libfoo" libfoo-1.2.so */
	return strncmp(base, name, n) == 0 &&
	    (base[n] == '.' || base[n] == '-');
}

static int
lookup_in(struct wp_module *m, const char *sym, uint64_t *val, uint64_t *sz)
{
	if (m->elf == NULL)
		return 0;
	return wp_elf_symbol(m->elf, sym, val, sz);
}

/*
 * Turns any ADDR form into a runtime address.  *symsize is the symbol's
 * size for a symbol without offset, else 0.
 */
int
wp_target_locate(struct wp_view *v, const struct wp_addr *a, uint64_t *addr,
    uint64_t *symsize, char *err, size_t errsz)
{
	struct wp_module *found = NULL, *m;
	uint64_t val = 0, sz = 0, val1, sz1;
	size_t i;
	int n, nmods = 0;

	*symsize = 0;
	switch (a->kind) {
	case WP_ADDR_RUNTIME:
		*addr = a->value;
		return 0;
	case WP_ADDR_STATIC:
		if (v->main->elf == NULL ||
		    wp_elf_load_at(v->main->elf, a->value) == NULL) {
			snprintf(err, errsz, "static address 0x%" PRIx64
			    " is in no loadable segment of %s", a->value,
			    v->bin ? v->bin : v->exe);
			return -1;
		}
		*addr = a->value + v->main->bias;
		return 0;
	case WP_ADDR_SYMBOL:
		break;
	}
	if (a->module != NULL) {
		for (i = 0; i < v->nmods; i++)
			if (module_matches(v->mods[i].path, a->module)) {
				if (found != NULL) {
					snprintf(err, errsz, "module '%s' is "
					    "ambiguous: %s and %s", a->module,
					    found->path, v->mods[i].path);
					return -1;
				}
				found = &v->mods[i];
			}
		if (found == NULL) {
			snprintf(err, errsz, "no module '%s' is loaded",
			    a->module);
			return -1;
		}
		n = lookup_in(found, a->symbol, &val, &sz);
		if (n == 0) {
			snprintf(err, errsz, "unknown symbol '%s' in %s",
			    a->symbol, found->path);
			return -1;
		}
		if (n > 1) {
			snprintf(err, errsz, "ambiguous symbol '%s': %d "
			    "definitions in %s", a->symbol, n, found->path);
			return -1;
		}
	} else if ((n = lookup_in(v->main, a->symbol, &val, &sz)) > 1) {
		snprintf(err, errsz, "ambiguous symbol '%s': %d definitions "
		    "in %s", a->symbol, n, v->main->path);
		return -1;
	} else if (n == 1)
		found = v->main;
	else {
		for (i = 0; i < v->nmods; i++) {
			m = &v->mods[i];
			if (m == v->main ||
			    (n = lookup_in(m, a->symbol, &val1, &sz1)) == 0)
				continue;
			if (n > 1 || ++nmods > 1 || found != NULL) {
				const char *p1 = found ? found->path : m->path;
				const char *p2 = m->path;

				if (strcmp(p1, p2) > 0) {
					p2 = p1;
					p1 = m->path;
				}
				snprintf(err, errsz, "ambiguous symbol '%s': "
				    "defined in %s and %s; write MODULE:%s",
				    a->symbol, p1, p2, a->symbol);
				return -1;
			}
			found = m;
			val = val1;
			sz = sz1;
		}
		if (found == NULL) {
			snprintf(err, errsz, "unknown symbol '%s' (not in %s%s)",
			    a->symbol, v->main->path,
			    v->nmods > 1 ? " or its shared objects" : "");
			return -1;
		}
	}
	*addr = val + found->bias + (uint64_t)a->off;
	if (a->off == 0)
		*symsize = sz;
	return 0;
}

static void
hexbytes(char *out, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* Adds region, module and static address of addr to o. */
static const struct wp_map *
add_place(struct wp_view *v, json_object *o, const char *prefix, uint64_t addr)
{
	const struct wp_map *mp;
	struct wp_module *m;
	uint64_t saddr;
	char key[64];

	mp = wp_proc_maps_find(&v->maps, addr);
	m = wp_view_module_at(v, addr, &saddr);
	snprintf(key, sizeof key, "%sstatic_addr", prefix);
	json_object_object_add(o, key, m ? wp_json_hex(saddr) : NULL);
	snprintf(key, sizeof key, "%smodule", prefix);
	json_object_object_add(o, key, m ? json_object_new_string(m->path) :
	    NULL);
	snprintf(key, sizeof key, "%sregion", prefix);
	json_object_object_add(o, key,
	    json_object_new_string(wp_view_region(mp)));
	snprintf(key, sizeof key, "%sperms", prefix);
	json_object_object_add(o, key, json_object_new_string(mp->perms));
	return mp;
}

static int
check_place(struct wp_view *v, const struct wp_addr *a, uint64_t addr,
    size_t len, int slotted, const char *what, char *err, size_t errsz)
{
	char at[64] = "";
	int n;

	if (a->kind != WP_ADDR_RUNTIME)
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
	if (slotted && addr % len != 0) {
		snprintf(err, errsz, "not aligned to its length %zu (debug "
		    "registers need natural alignment)", len);
		return -1;
	}
	return 0;
}

static size_t
default_len(const struct wp_target_opts *o, uint64_t symsize)
{
	if (o->len != 0)
		return o->len;
	if (symsize == 1 || symsize == 2 || symsize == 4 || symsize == 8)
		return (size_t)symsize;
	return 4;
}

static void
add_value(struct wp_view *v, json_object *o, const char *vkey,
    const char *bkey, uint64_t addr, size_t len)
{
	unsigned char *b;
	char *hex;
	uint64_t x = 0;
	size_t i;

	b = wp_xmalloc(len);
	if (wp_proc_read(v->memfd, addr, b, len) == -1) {
		json_object_object_add(o, vkey, NULL);
		json_object_object_add(o, bkey, NULL);
		free(b);
		return;
	}
	hex = wp_xmalloc(2 * len + 1);
	hexbytes(hex, b, len);
	if (len <= 8) {
		for (i = len; i > 0; i--)
			x = (x << 8) | b[i - 1];
		json_object_object_add(o, vkey, wp_json_hex(x));
	} else
		json_object_object_add(o, vkey, NULL);
	json_object_object_add(o, bkey, json_object_new_string(hex));
	free(hex);
	free(b);
}

static void
warn_ro(json_object *warnings, const struct wp_map *mp,
    const struct wp_target_opts *o)
{
	(void)o;
	if (mp->perms[1] != 'w')
		json_object_array_add(warnings, json_object_new_string(
		    "region is not writable: a write there would fault"));
}

json_object *
wp_target_record(struct wp_view *v, int id, const char *input,
    const struct wp_addr *a, const struct wp_target_opts *o,
    struct wp_target *t, char *err, size_t errsz)
{
	json_object *r, *w;
	const struct wp_map *mp;
	uint64_t addr, symsize;
	size_t len;

	if (wp_target_locate(v, a, &addr, &symsize, err, errsz) == -1)
		return NULL;
	len = default_len(o, symsize);
	if (check_place(v, a, addr, len, !o->no_slot_limit, "", err,
	    errsz) == -1)
		return NULL;
	t->addr = addr;
	t->len = len;
	r = json_object_new_object();
	json_object_object_add(r, "type", json_object_new_string("target"));
	json_object_object_add(r, "id", json_object_new_int(id));
	json_object_object_add(r, "input", json_object_new_string(input));
	json_object_object_add(r, "runtime_addr", wp_json_hex(addr));
	mp = add_place(v, r, "", addr);
	json_object_object_add(r, "len", json_object_new_int((int)len));
	json_object_object_add(r, "access",
	    json_object_new_string(o->rw ? "rw" : "w"));
	json_object_object_add(r, "slots", json_object_new_int(1));
	add_value(v, r, "initial_value", "initial_bytes", addr, len);
	w = json_object_new_array();
	warn_ro(w, mp, o);
	json_object_object_add(r, "warnings", w);
	return r;
}

/*
 * Walks a pointer chain from slot: pointer i is read at p[i], the next
 * address is *p[i] + offs[i].  Fills ptrs[0..noffs] (ptrs[noffs] is the
 * leaf) and returns the binding state.
 */
const char *
wp_target_chain(struct wp_view *v, uint64_t slot, const int64_t *offs,
    size_t noffs, size_t leaflen, uint64_t *ptrs, uint64_t *vals)
{
	uint64_t p = slot, val;
	size_t i;

	for (i = 0; i < noffs; i++) {
		ptrs[i] = p;
		if (p % 8 != 0)
			return "misaligned";
		if (wp_proc_maps_find(&v->maps, p) == NULL ||
		    wp_proc_read(v->memfd, p, &val, sizeof val) == -1)
			return "unmapped";
		vals[i] = val;
		if (val == 0)
			return "null_pointer";
		p = val + (uint64_t)offs[i];
	}
	ptrs[noffs] = p;
	if (wp_proc_maps_find(&v->maps, p) == NULL)
		return "unmapped";
	if (p % leaflen != 0)
		return "misaligned";
	return "bound";
}

static json_object *
signed_hex(int64_t v)
{
	char buf[32];

	if (v < 0)
		snprintf(buf, sizeof buf, "-0x%" PRIx64, -(uint64_t)v);
	else
		snprintf(buf, sizeof buf, "0x%" PRIx64, (uint64_t)v);
	return json_object_new_string(buf);
}

json_object *
wp_target_follow_record(struct wp_view *v, int id, const char *input,
    const struct wp_follow *f, const struct wp_target_opts *o,
    struct wp_target *t, char *err, size_t errsz)
{
	json_object *r, *a, *c;
	uint64_t slot, symsize, ptrs[WP_FOLLOW_MAXDEPTH + 1];
	uint64_t vals[WP_FOLLOW_MAXDEPTH];
	const char *state;
	size_t i, len;

	if (wp_target_locate(v, &f->slot, &slot, &symsize, err, errsz) == -1)
		return NULL;
	if (check_place(v, &f->slot, slot, 8, 1, "pointer slot ", err,
	    errsz) == -1)
		return NULL;
	len = o->len ? o->len : 4;
	t->addr = slot;
	t->len = 8;
	memset(ptrs, 0, sizeof ptrs);
	memset(vals, 0, sizeof vals);
	state = wp_target_chain(v, slot, f->offs, f->noffs, len, ptrs, vals);
	r = json_object_new_object();
	json_object_object_add(r, "type", json_object_new_string("follow"));
	json_object_object_add(r, "id", json_object_new_int(id));
	json_object_object_add(r, "input", json_object_new_string(input));
	json_object_object_add(r, "slot_addr", wp_json_hex(slot));
	add_place(v, r, "slot_", slot);
	a = json_object_new_array();
	for (i = 0; i < f->noffs; i++)
		json_object_array_add(a, signed_hex(f->offs[i]));
	json_object_object_add(r, "offsets", a);
	json_object_object_add(r, "len", json_object_new_int((int)len));
	json_object_object_add(r, "access",
	    json_object_new_string(o->rw ? "rw" : "w"));
	json_object_object_add(r, "slots",
	    json_object_new_int((int)f->noffs + 1));
	a = json_object_new_array();
	for (i = 0; i < f->noffs && ptrs[i] != 0; i++) {
		c = json_object_new_object();
		json_object_object_add(c, "addr", wp_json_hex(ptrs[i]));
		json_object_object_add(c, "value", wp_json_hex(vals[i]));
		json_object_array_add(a, c);
		if (vals[i] == 0)
			break;
	}
	json_object_object_add(r, "chain", a);
	json_object_object_add(r, "binding", json_object_new_string(state));
	json_object_object_add(r, "leaf_addr", strcmp(state, "bound") == 0 ?
	    wp_json_hex(ptrs[f->noffs]) : NULL);
	if (strcmp(state, "bound") == 0)
		add_value(v, r, "initial_value", "initial_bytes",
		    ptrs[f->noffs], len);
	return r;
}
