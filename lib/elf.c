/* ELF files: build-id, segments, symbols, code bytes, source lines. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"
#include "util.h"

static void
init_libelf(void)
{
	static int done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = 1;
	}
}

static void
read_build_id(Elf *e, char *out, size_t outsz)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off, noff, doff, i;
	const unsigned char *p;

	out[0] = '\0';
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			continue;
		off = 0;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) != 0)
				continue;
			p = (const unsigned char *)d->d_buf + doff;
			for (i = 0; i < nh.n_descsz && 2 * i + 2 < outsz; i++)
				snprintf(out + 2 * i, 3, "%02x", p[i]);
			return;
		}
	}
}

/* The wp_elf of an opened Elf: its header, build-id and segments. */
static struct wp_elf *
describe(Elf *e, const char *path, int fd, struct wp_error *err)
{
	struct wp_elf *w;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n, i;

	if (e == NULL || elf_kind(e) != ELF_K_ELF ||
	    gelf_getehdr(e, &eh) == NULL) {
		wp_error_set(err, WP_EXIT_ERROR, "not an ELF file");
		if (e != NULL)
			elf_end(e);
		return NULL;
	}
	w = wp_xcalloc(1, sizeof *w);
	w->path = wp_xstrdup(path);
	w->fd = fd;
	w->elf = e;
	w->type = eh.e_type;
	w->machine = eh.e_machine;
	w->is64 = gelf_getclass(e) == ELFCLASS64;
	read_build_id(e, w->build_id, sizeof w->build_id);
	if (elf_getphdrnum(e, &n) == 0) {
		w->loads = wp_xcalloc(n, sizeof *w->loads);
		for (i = 0; i < n; i++) {
			if (gelf_getphdr(e, (int)i, &ph) == NULL ||
			    ph.p_type != PT_LOAD)
				continue;
			w->loads[w->nloads].vaddr = ph.p_vaddr;
			w->loads[w->nloads].memsz = ph.p_memsz;
			w->loads[w->nloads].offset = ph.p_offset;
			w->loads[w->nloads].filesz = ph.p_filesz;
			w->loads[w->nloads].flags = (int)ph.p_flags;
			w->nloads++;
		}
	}
	return w;
}

struct wp_elf *
wp_elf_open(const char *path, struct wp_error *err)
{
	struct wp_elf *w;
	struct stat st;
	int fd;

	init_libelf();
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		wp_error_set(err, WP_EXIT_ERROR, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		wp_error_set(err, WP_EXIT_ERROR, "not a regular file");
		close(fd);
		return NULL;
	}
	if ((w = describe(elf_begin(fd, ELF_C_READ_MMAP, NULL), path, fd,
	    err)) == NULL)
		close(fd);
	return w;
}

struct wp_elf *
wp_elf_open_mem(const void *image, size_t len, const char *name,
    struct wp_error *err)
{
	struct wp_elf *w;
	unsigned char *copy;

	init_libelf();
	copy = wp_xmalloc(len);
	memcpy(copy, image, len);
	if ((w = describe(elf_memory((char *)copy, len), name, -1, err)) ==
	    NULL) {
		free(copy);
		return NULL;
	}
	w->mem = copy;
	w->memlen = len;
	return w;
}

void
wp_elf_close(struct wp_elf *w)
{
	if (w == NULL)
		return;
	if (w->dwarf != NULL)
		dwarf_end(w->dwarf);
	elf_end(w->elf);
	if (w->fd != -1)
		close(w->fd);
	free(w->mem);
	free(w->loads);
	free(w->funcs);
	free(w->path);
	free(w);
}

/*
 * Looks NAME up in .symtab and .dynsym.  Returns the number of distinct
 * addresses found: 0 (unknown), 1 (value and size set), more (ambiguous).
 */
int
wp_elf_symbol(struct wp_elf *w, const char *name, uint64_t *value,
    uint64_t *size)
{
	Elf *e = w->elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	uint64_t vals[16];
	size_t i, j, n, nvals = 0;
	const char *s;
	int found = 0;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL || sh.sh_entsize == 0)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			if (gelf_getsym(d, (int)i, &sym) == NULL ||
			    sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
			    GELF_ST_TYPE(sym.st_info) == STT_FILE ||
			    GELF_ST_TYPE(sym.st_info) == STT_TLS)
				continue;
			s = elf_strptr(e, sh.sh_link, sym.st_name);
			if (s == NULL || strcmp(s, name) != 0)
				continue;
			for (j = 0; j < nvals; j++)
				if (vals[j] == sym.st_value)
					break;
			if (j < nvals)
				continue;
			if (nvals < sizeof vals / sizeof vals[0])
				vals[nvals++] = sym.st_value;
			if (!found) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = 1;
			}
		}
	}
	return (int)nvals;
}

const struct wp_elf_load *
wp_elf_load_at(struct wp_elf *w, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < w->nloads; i++)
		if (vaddr >= w->loads[i].vaddr &&
		    vaddr - w->loads[i].vaddr < w->loads[i].memsz)
			return &w->loads[i];
	return NULL;
}

/*
 * The load bias of a module from one of its file mappings: the PT_LOAD
 * segment whose page holds that file offset was placed at map_start.
 */
int
wp_elf_bias(struct wp_elf *w, uint64_t map_start, uint64_t map_offset,
    uint64_t *bias)
{
	const uint64_t pg = 4096;
	size_t i;

	for (i = 0; i < w->nloads; i++) {
		const struct wp_elf_load *l = &w->loads[i];

		if ((l->offset & ~(pg - 1)) == map_offset) {
			*bias = map_start - (l->vaddr & ~(pg - 1));
			return 0;
		}
	}
	return -1;
}

static int
cmp_func(const void *a, const void *b)
{
	const struct wp_elf_func *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->size < y->size) - (x->size > y->size);
}

static void
load_funcs(struct wp_elf *w)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i, n, cap = 0, j, k;
	const char *name;

	w->funcs_done = 1;
	while ((scn = elf_nextscn(w->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			if (gelf_getsym(d, (int)i, &sym) == NULL ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
				continue;
			name = elf_strptr(w->elf, sh.sh_link, sym.st_name);
			if (name == NULL)
				continue;
			if (w->nfuncs == cap) {
				cap = cap ? cap * 2 : 256;
				w->funcs = wp_xrealloc(w->funcs,
				    cap * sizeof *w->funcs);
			}
			w->funcs[w->nfuncs].addr = sym.st_value;
			w->funcs[w->nfuncs].size = sym.st_size;
			w->funcs[w->nfuncs++].name = name;
		}
	}
	if (w->nfuncs == 0)
		return;
	qsort(w->funcs, w->nfuncs, sizeof *w->funcs, cmp_func);
	/* one entry per address: .symtab and .dynsym repeat each other */
	for (j = 0, k = 1; k < w->nfuncs; k++)
		if (w->funcs[k].addr != w->funcs[j].addr)
			w->funcs[++j] = w->funcs[k];
	w->nfuncs = j + 1;
}

/* The function symbol whose [addr, addr+size) holds vaddr. */
const struct wp_elf_func *
wp_elf_func_at(struct wp_elf *w, uint64_t vaddr)
{
	size_t lo = 0, hi, mid;
	const struct wp_elf_func *f;

	if (!w->funcs_done)
		load_funcs(w);
	hi = w->nfuncs;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (w->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	f = &w->funcs[lo - 1];
	if (vaddr - f->addr < (f->size ? f->size : 1))
		return f;
	return NULL;
}

/* Reads file bytes backing [vaddr, vaddr+len); returns bytes read. */
size_t
wp_elf_read(struct wp_elf *w, uint64_t vaddr, void *buf, size_t len)
{
	const struct wp_elf_load *l = wp_elf_load_at(w, vaddr);
	uint64_t off;
	ssize_t n;

	if (l == NULL || vaddr - l->vaddr >= l->filesz)
		return 0;
	if (len > l->filesz - (vaddr - l->vaddr))
		len = (size_t)(l->filesz - (vaddr - l->vaddr));
	off = l->offset + (vaddr - l->vaddr);
	if (w->mem != NULL) {
		if (off >= w->memlen)
			return 0;
		if (len > w->memlen - off)
			len = (size_t)(w->memlen - off);
		memcpy(buf, w->mem + off, len);
		return len;
	}
	n = pread(w->fd, buf, len, (off_t)off);
	return n > 0 ? (size_t)n : 0;
}

/* Source file and line of vaddr from DWARF, when there is any. */
int
wp_elf_srcline(struct wp_elf *w, uint64_t vaddr, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (!w->dwarf_done) {
		w->dwarf_done = 1;
		w->dwarf = dwarf_begin_elf(w->elf, DWARF_C_READ, NULL);
	}
	if (w->dwarf == NULL || dwarf_addrdie(w->dwarf, vaddr, &cu) == NULL ||
	    (l = dwarf_getsrc_die(&cu, vaddr)) == NULL)
		return -1;
	*file = dwarf_linesrc(l, NULL, NULL);
	if (*file == NULL || dwarf_lineno(l, line) != 0)
		return -1;
	return 0;
}
