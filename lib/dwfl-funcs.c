/*
 * A module's functions, for decoding from their starts: its function
 * symbols, and where those give none (a stripped module has .dynsym's
 * exported functions at most), the ranges of its unwind table's FDEs,
 * found from .eh_frame_hdr's sorted table of their initial locations.
 */
#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "dwfl.h"
#include "util.h"

/* The run-time ranges the symbols gave, sorted, for the FDEs to skip. */
struct ranges {
	struct wp_func	*v;
	size_t		 n, cap;
};

static int
by_addr(const void *a, const void *b)
{
	const struct wp_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Whether a symbol's range holds addr (r sorted, disjoint). */
static int
covered(const struct ranges *r, uint64_t addr)
{
	size_t lo = 0, hi = r->n, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (r->v[m].addr <= addr)
			lo = m + 1;
		else
			hi = m;
	}
	return lo > 0 && addr - r->v[lo - 1].addr < r->v[lo - 1].size;
}

/* r sorted, its overlapping ranges (aliases, nested ones) merged. */
static void
merge(struct ranges *r)
{
	uint64_t end;
	size_t i, k = 0;

	if (r->n == 0)		/* none: r->v may be NULL, which qsort refuses */
		return;
	qsort(r->v, r->n, sizeof *r->v, by_addr);
	for (i = 1; i < r->n; i++) {
		end = r->v[k].addr + r->v[k].size;
		if (r->v[i].addr <= end) {
			if (r->v[i].addr + r->v[i].size > end)
				r->v[k].size = r->v[i].addr + r->v[i].size -
				    r->v[k].addr;
		} else
			r->v[++k] = r->v[i];
	}
	r->n = k + 1;
}

/* The function symbols to fn, kept in r: 0, or -1 when fn stopped. */
static int
symbols(Dwfl_Module *mod, struct ranges *r,
    int (*fn)(void *, const struct wp_func *), void *arg)
{
	struct wp_func f;
	GElf_Addr a;
	GElf_Sym sym;
	int i, n;

	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		if ((f.name = dwfl_module_getsym_info(mod, i, &sym, &a, NULL,
		    NULL, NULL)) == NULL || GELF_ST_TYPE(sym.st_info) !=
		    STT_FUNC || sym.st_value == 0 || sym.st_size == 0)
			continue;
		f.addr = a;
		f.size = sym.st_size;
		if (fn(arg, &f) == -1)
			return -1;
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 256;
			r->v = wp_xrealloc(r->v, r->cap * sizeof *r->v);
		}
		r->v[r->n++] = f;
	}
	merge(r);
	return 0;
}

/*
 * The module's file as its segments map it, for its unwind tables: the
 * loaded segments, .eh_frame_hdr's (PT_GNU_EH_FRAME), and the CIE whose
 * FDE pointer encoding was read last.
 */
struct image {
	const uint8_t	*raw;
	size_t		 size, n;
	GElf_Phdr	 load[16], hdr;
	uint64_t	 cie;
	int		 enc;
};

/* Bytes read from [p, end); bad once a read would pass end. */
struct rd {
	const uint8_t	*p, *end;
	int		 bad;
};

static int
image_open(Elf *elf, struct image *im)
{
	GElf_Phdr ph;
	size_t i, np;

	memset(im, 0, sizeof *im);
	if ((im->raw = (const uint8_t *)elf_rawfile(elf, &im->size)) == NULL ||
	    elf_getphdrnum(elf, &np) != 0)
		return -1;
	for (i = 0; i < np; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME)
			im->hdr = ph;
		else if (ph.p_type == PT_LOAD &&
		    im->n < sizeof im->load / sizeof im->load[0])
			im->load[im->n++] = ph;
	}
	return im->hdr.p_type == PT_GNU_EH_FRAME ? 0 : -1;
}

/* A reader of the file's bytes at file address a, to its segment's end. */
static struct rd
at(const struct image *im, uint64_t a)
{
	struct rd r = { NULL, NULL, 1 };
	const GElf_Phdr *p;
	size_t i;

	for (i = 0; i < im->n; i++) {
		p = &im->load[i];
		if (a - p->p_vaddr < p->p_filesz &&
		    p->p_offset + p->p_filesz <= im->size) {
			r.p = im->raw + p->p_offset + (a - p->p_vaddr);
			r.end = im->raw + p->p_offset + p->p_filesz;
			r.bad = 0;
			break;
		}
	}
	return r;
}

/* n bytes (at most 8), little-endian, as x86-64's tables are. */
static uint64_t
rd_n(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, n);
	r->p += n;
	return v;
}

/* A LEB128 number, skipped (its value is not needed). */
static void
rd_leb(struct rd *r)
{
	while (!r->bad && r->p < r->end && (*r->p & 0x80))
		r->p++;
	rd_n(r, 1);
}

/* The bytes of a pointer of encoding enc: 0 for one not fixed. */
static size_t
enc_size(uint64_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	}
	return 0;
}

/* The encoding of the FDE pointers of the CIE at file address a (its
 * augmentation's 'R'): -1 where it cannot be read. */
static int
cie_enc(struct image *im, uint64_t a)
{
	struct rd r = at(im, a);
	uint64_t enc = DW_EH_PE_absptr, ver;
	const char *aug;
	size_t i, len;

	if (a == im->cie)
		return im->enc;
	if (rd_n(&r, 4) == 0xffffffff || rd_n(&r, 4) != 0 || r.bad)
		return -1;
	ver = rd_n(&r, 1);
	aug = (const char *)r.p;
	if ((len = strnlen(aug, (size_t)(r.end - r.p))) == (size_t)(r.end - r.p))
		return -1;
	r.p += len + 1;
	rd_leb(&r);
	rd_leb(&r);
	if (ver == 1)
		rd_n(&r, 1);
	else
		rd_leb(&r);
	if (aug[0] == 'z')
		rd_leb(&r);
	else if (aug[0] != '\0')
		return -1;
	for (i = 1; i < len && !r.bad; i++) {
		if (aug[i] == 'R')
			enc = rd_n(&r, 1);
		else if (aug[i] == 'P')
			rd_n(&r, enc_size(rd_n(&r, 1)));
		else if (aug[i] == 'L')
			rd_n(&r, 1);
		else if (aug[i] != 'S' && aug[i] != 'B')
			return -1;
	}
	if (r.bad)
		return -1;
	im->cie = a;
	return im->enc = (int)enc;
}

/* The bytes of code the FDE at file address a covers: 0 where it
 * cannot be read. */
static uint64_t
fde_range(struct image *im, uint64_t a)
{
	struct rd r = at(im, a);
	uint64_t cie, v;
	size_t sz;
	int enc;

	if (rd_n(&r, 4) == 0xffffffff)
		return 0;
	cie = rd_n(&r, 4);
	if (r.bad || cie == 0 || (enc = cie_enc(im, a + 4 - cie)) == -1 ||
	    (sz = enc_size((uint64_t)enc)) == 0)
		return 0;
	rd_n(&r, sz);
	v = rd_n(&r, sz);
	return r.bad ? 0 : v;
}

/*
 * .eh_frame_hdr's table: n pairs of 4-byte offsets from *base (its file
 * address), an FDE's initial location and the FDE.  NULL where its
 * encoding is not gcc's and ld's usual (a udata4 count, a datarel
 * sdata4 table).
 */
static const int32_t *
hdr_table(const struct image *im, uint64_t *base, size_t *n)
{
	struct rd r = at(im, im->hdr.p_vaddr);
	uint64_t cnt;

	if (rd_n(&r, 1) != 1 || (rd_n(&r, 1) & 0x0f) != DW_EH_PE_sdata4 ||
	    rd_n(&r, 1) != DW_EH_PE_udata4 ||
	    rd_n(&r, 1) != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return NULL;
	rd_n(&r, 4);
	cnt = rd_n(&r, 4);
	if (r.bad || cnt > (size_t)(r.end - r.p) / 8)
		return NULL;
	*base = im->hdr.p_vaddr;
	*n = (size_t)cnt;
	return (const int32_t *)(const void *)r.p;
}

/* Each FDE's range that no symbol's holds, to fn: 0, or -1. */
static int
fdes(Dwfl_Module *mod, const struct ranges *r,
    int (*fn)(void *, const struct wp_func *), void *arg)
{
	struct image im;
	struct wp_func f;
	const int32_t *t;
	Dwarf_Addr bias;
	uint64_t base, prev = 0;
	int32_t loc[2];
	size_t i, n;
	Elf *elf;

	if ((elf = dwfl_module_getelf(mod, &bias)) == NULL ||
	    image_open(elf, &im) == -1 ||
	    (t = hdr_table(&im, &base, &n)) == NULL)
		return 0;
	f.name = NULL;
	for (i = 0; i < n; i++) {
		memcpy(loc, t + 2 * i, sizeof loc);
		f.addr = base + (uint64_t)(int64_t)loc[0];
		if ((i > 0 && f.addr == prev) || covered(r, f.addr + bias))
			continue;
		prev = f.addr;
		if ((f.size = fde_range(&im, base + (uint64_t)(int64_t)loc[1]))
		    == 0)
			continue;
		f.addr += bias;
		if (fn(arg, &f) == -1)
			return -1;
	}
	return 0;
}

int
wp_dwfl_module_funcs(struct wp_dwfl *d, uint64_t addr,
    int (*fn)(void *, const struct wp_func *), void *arg)
{
	struct ranges r = { NULL, 0, 0 };
	Dwfl_Module *mod;

	if ((mod = dwfl_addrmodule(d->dwfl, addr)) == NULL)
		return -1;
	if (symbols(mod, &r, fn, arg) == 0)
		fdes(mod, &r, fn, arg);
	free(r.v);
	return 0;
}

int
wp_dwfl_fde_func(struct wp_dwfl *d, uint64_t addr, struct wp_func *f)
{
	struct image im;
	const int32_t *t;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	uint64_t base, a;
	int32_t loc[2];
	size_t lo, hi, mid, n;
	Elf *elf;

	if ((mod = dwfl_addrmodule(d->dwfl, addr)) == NULL ||
	    (elf = dwfl_module_getelf(mod, &bias)) == NULL ||
	    image_open(elf, &im) == -1 ||
	    (t = hdr_table(&im, &base, &n)) == NULL)
		return -1;
	/* the last FDE that starts at or below a: the table is sorted */
	a = addr - bias;
	for (lo = 0, hi = n; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		memcpy(loc, t + 2 * mid, sizeof loc);
		if (base + (uint64_t)(int64_t)loc[0] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	memcpy(loc, t + 2 * (lo - 1), sizeof loc);
	f->name = NULL;
	f->addr = base + (uint64_t)(int64_t)loc[0];
	f->size = fde_range(&im, base + (uint64_t)(int64_t)loc[1]);
	if (a - f->addr >= f->size)
		return -1;
	f->addr += bias;
	return 0;
}
