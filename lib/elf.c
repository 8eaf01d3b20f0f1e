/* ELF files: build-id, segments, symbols, code bytes, source lines. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
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

/* Whether the file's code sections are NOBITS: a debug-only file. */
static int
nocode(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int code = 0, empty = 0;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
			continue;
		if (sh.sh_type == SHT_NOBITS)
			empty++;
		else
			code++;
	}
	return empty > 0 && code == 0;
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
	w->nocode = nocode(e);
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
	free(w->debug_why);
	wp_elf_close(w->debug);
	free(w);
}

/* ---- separate debug files ---- */

static Dwarf	*dwarf_of(struct wp_elf *);

static const char *debug_dirs[16] = { "/usr/lib/debug" };
static size_t ndebug_dirs = 1;
static int dirs_given;
static struct wp_elf **given;
static size_t ngiven;

void
wp_elf_debug_dir(const char *dir)
{
	if (!dirs_given) {
		dirs_given = 1;
		ndebug_dirs = 0;
	}
	if (ndebug_dirs < sizeof debug_dirs / sizeof debug_dirs[0])
		debug_dirs[ndebug_dirs++] = dir;
}

int
wp_elf_debug_file(const char *path, struct wp_error *err)
{
	struct wp_elf *d;

	if ((d = wp_elf_open(path, err)) == NULL)
		return -1;
	if (d->build_id[0] == '\0') {
		wp_error_set(err, WP_EXIT_ERROR, "it has no build-id to match "
		    "a module by");
		wp_elf_close(d);
		return -1;
	}
	given = wp_xrealloc(given, (ngiven + 1) * sizeof *given);
	given[ngiven++] = d;
	return 0;
}

/* path opened as w's debug file when it is the same build, else NULL. */
static struct wp_elf *
try_debug(struct wp_elf *w, const char *path)
{
	struct wp_error e;
	struct wp_elf *d;

	if (access(path, R_OK) != 0 || (d = wp_elf_open(path, &e)) == NULL)
		return NULL;
	if (w->build_id[0] != '\0' && strcmp(d->build_id, w->build_id) != 0) {
		wp_elf_close(d);
		return NULL;
	}
	return d;
}

static struct wp_elf *
by_build_id(struct wp_elf *w)
{
	char path[4096];
	struct wp_elf *d;
	size_t i;

	if (strlen(w->build_id) < 3)
		return NULL;
	for (i = 0; i < ndebug_dirs; i++) {
		snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug",
		    debug_dirs[i], w->build_id, w->build_id + 2);
		if ((d = try_debug(w, path)) != NULL)
			return d;
	}
	return NULL;
}

static struct wp_elf *
by_debuglink(struct wp_elf *w)
{
	char real[PATH_MAX], dir[4096], path[8192];
	const char *link, *slash, *file;
	struct wp_elf *d;
	GElf_Word crc;
	size_t i;

	if (w->mem != NULL ||
	    (link = dwelf_elf_gnu_debuglink(w->elf, &crc)) == NULL ||
	    strchr(link, '/') != NULL)
		return NULL;
	/* where the file is (/proc/PID/exe is a link to it) */
	file = realpath(w->path, real) != NULL ? real : w->path;
	slash = strrchr(file, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1,
	    slash ? file : ".");
	snprintf(path, sizeof path, "%s/%s", dir, link);
	if (strcmp(path, file) != 0 && (d = try_debug(w, path)) != NULL)
		return d;
	snprintf(path, sizeof path, "%s/.debug/%s", dir, link);
	if ((d = try_debug(w, path)) != NULL)
		return d;
	for (i = 0; i < ndebug_dirs; i++) {
		snprintf(path, sizeof path, "%s%s/%s", debug_dirs[i], dir, link);
		if ((d = try_debug(w, path)) != NULL)
			return d;
	}
	return NULL;
}

/*
 * Through libdebuginfod, loaded when DEBUGINFOD_URLS asks for it; what
 * it said is kept in w->debuginfod.
 */
static struct wp_elf *
by_debuginfod(struct wp_elf *w)
{
	static void *client;
	static int loaded;
	static int (*find)(void *, const unsigned char *, int, char **);
	void *(*begin)(void);
	void *lib;
	char *path = NULL;
	struct wp_elf *d = NULL;
	int fd;

	if (getenv("DEBUGINFOD_URLS") == NULL ||
	    *getenv("DEBUGINFOD_URLS") == '\0' || w->build_id[0] == '\0')
		return NULL;
	if (!loaded) {
		loaded = 1;
		if ((lib = dlopen("libdebuginfod.so.1", RTLD_LAZY)) != NULL) {
			*(void **)&begin = dlsym(lib, "debuginfod_begin");
			*(void **)&find = dlsym(lib,
			    "debuginfod_find_debuginfo");
			if (begin != NULL && find != NULL)
				client = begin();
		}
	}
	if (client == NULL) {
		w->debuginfod = -1;
		return NULL;
	}
	/* a length of 0: the build-id as hex */
	if ((fd = find(client, (const unsigned char *)w->build_id, 0,
	    &path)) < 0) {
		w->debuginfod = -fd;
		return NULL;
	}
	close(fd);
	if ((d = try_debug(w, path)) == NULL)
		w->debuginfod = ENOEXEC;
	free(path);
	return d;
}

struct wp_elf *
wp_elf_debug(struct wp_elf *w)
{
	size_t i;

	if (w->debug_done)
		return w->debug;
	w->debug_done = 1;
	for (i = 0; i < ngiven && w->debug == NULL; i++)
		if (w->build_id[0] != '\0' &&
		    strcmp(given[i]->build_id, w->build_id) == 0)
			w->debug = try_debug(w, given[i]->path);
	if (w->debug == NULL)
		w->debug = by_build_id(w);
	if (w->debug == NULL)
		w->debug = by_debuglink(w);
	if (w->debug == NULL)
		w->debug = by_debuginfod(w);
	return w->debug;
}

void
wp_elf_set_debug(struct wp_elf *w, struct wp_elf *debug)
{
	wp_elf_close(w->debug);
	w->debug = debug;
	w->debug_done = 1;
}

const char *
wp_elf_debug_why(struct wp_elf *w)
{
	char b[1024], d[128] = "";

	if (w->debug_why != NULL)
		return w->debug_why;
	if (dwarf_of(w) != NULL ||
	    (wp_elf_debug(w) != NULL && dwarf_of(w->debug) != NULL))
		return NULL;
	if (w->debuginfod == -1)
		snprintf(d, sizeof d, ", and no libdebuginfod.so.1 to ask "
		    "DEBUGINFOD_URLS");
	else if (w->debuginfod != 0)
		snprintf(d, sizeof d, " nor from debuginfod (%s)",
		    w->debuginfod == ENOENT ? "not found" :
		    w->debuginfod == ENOEXEC ? "not a debug file of this build" :
		    strerror(w->debuginfod));
	if (w->build_id[0] == '\0')
		snprintf(b, sizeof b, "no debug info in %s, and no build-id to "
		    "find a separate debug file by", w->path);
	else
		snprintf(b, sizeof b, "no debug info for %s (build-id %s; "
		    "none under %s%s/.build-id/%s, give it with --debug-file)",
		    w->path, w->build_id, debug_dirs[0], ndebug_dirs > 1 ?
		    " and the other debug directories" : "", d);
	w->debug_why = wp_xstrdup(b);
	return w->debug_why;
}

/* Looks name up in w's own .symtab and .dynsym. */
static int
symbol_in(struct wp_elf *w, const char *name, uint64_t *value,
    uint64_t *size, int *tls)
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
			    GELF_ST_TYPE(sym.st_info) == STT_FILE)
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
				*tls = GELF_ST_TYPE(sym.st_info) == STT_TLS;
				found = 1;
			}
		}
	}
	return (int)nvals;
}

int
wp_elf_symbol(struct wp_elf *w, const char *name, uint64_t *value,
    uint64_t *size, int *tls)
{
	struct wp_elf *d;
	int n;

	*tls = 0;
	if ((n = symbol_in(w, name, value, size, tls)) > 0)
		return n;
	if ((d = wp_elf_debug(w)) != NULL)
		return symbol_in(d, name, value, size, tls);
	return 0;
}

/* Whether w has a section of type. */
static int
has_section(struct wp_elf *w, unsigned type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(w->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == type)
			return 1;
	return 0;
}

int
wp_elf_stripped(struct wp_elf *w)
{
	struct wp_elf *d;

	if (has_section(w, SHT_SYMTAB))
		return 0;
	return (d = wp_elf_debug(w)) == NULL || !has_section(d, SHT_SYMTAB);
}

/* The first program header of type in *ph: 0, or -1. */
static int
phdr_of(struct wp_elf *w, unsigned type, GElf_Phdr *ph)
{
	size_t n, i;

	if (elf_getphdrnum(w->elf, &n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(w->elf, (int)i, ph) != NULL &&
		    ph->p_type == type)
			return 0;
	return -1;
}

int
wp_elf_dynamic(struct wp_elf *w, uint64_t *vaddr)
{
	GElf_Phdr ph;

	if (phdr_of(w, PT_DYNAMIC, &ph) == -1)
		return -1;
	*vaddr = ph.p_vaddr;
	return 0;
}

int
wp_elf_tls(struct wp_elf *w, uint64_t *memsz, uint64_t *align)
{
	GElf_Phdr ph;

	if (phdr_of(w, PT_TLS, &ph) == -1)
		return -1;
	*memsz = ph.p_memsz;
	*align = ph.p_align ? ph.p_align : 1;
	return 0;
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

/* The function symbol of w's own whose [addr, addr+size) holds vaddr. */
static const struct wp_elf_func *
func_in(struct wp_elf *w, uint64_t vaddr)
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

const struct wp_elf_func *
wp_elf_func_at(struct wp_elf *w, uint64_t vaddr)
{
	const struct wp_elf_func *f;
	struct wp_elf *d;

	if ((f = func_in(w, vaddr)) == NULL && (d = wp_elf_debug(w)) != NULL)
		f = func_in(d, vaddr);
	return f;
}

/* Reads file bytes backing [vaddr, vaddr+len); returns bytes read. */
size_t
wp_elf_read(struct wp_elf *w, uint64_t vaddr, void *buf, size_t len)
{
	const struct wp_elf_load *l = wp_elf_load_at(w, vaddr);
	uint64_t off;
	ssize_t n;

	if (w->nocode || l == NULL || vaddr - l->vaddr >= l->filesz)
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

static Dwarf *
dwarf_of(struct wp_elf *w)
{
	if (!w->dwarf_done) {
		w->dwarf_done = 1;
		w->dwarf = dwarf_begin_elf(w->elf, DWARF_C_READ, NULL);
	}
	return w->dwarf;
}

static int
srcline_in(struct wp_elf *w, uint64_t vaddr, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (dwarf_of(w) == NULL || dwarf_addrdie(w->dwarf, vaddr, &cu) == NULL ||
	    (l = dwarf_getsrc_die(&cu, vaddr)) == NULL)
		return -1;
	*file = dwarf_linesrc(l, NULL, NULL);
	if (*file == NULL || dwarf_lineno(l, line) != 0)
		return -1;
	return 0;
}

static int
inlined_in(struct wp_elf *w, uint64_t vaddr, const char **names, int max)
{
	Dwarf_Die cu, *scopes = NULL;
	const char *nm;
	int n, i, k = 0;

	if (dwarf_of(w) == NULL || dwarf_addrdie(w->dwarf, vaddr, &cu) == NULL)
		return -1;
	if ((n = dwarf_getscopes(&cu, vaddr, &scopes)) <= 0)
		return n == 0 ? 0 : -1;
	for (i = 0; i < n && k < max; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			nm = dwarf_diename(&scopes[i]);
			names[k++] = nm != NULL ? nm : "?";
		}
	free(scopes);
	return k;
}

int
wp_elf_inlined(struct wp_elf *w, uint64_t vaddr, const char **names, int max)
{
	struct wp_elf *d;
	int n;

	if ((n = inlined_in(w, vaddr, names, max)) >= 0)
		return n;
	if ((d = wp_elf_debug(w)) != NULL && (n = inlined_in(d, vaddr, names,
	    max)) >= 0)
		return n;
	return 0;
}

/* Source file and line of vaddr from DWARF, when there is any. */
int
wp_elf_srcline(struct wp_elf *w, uint64_t vaddr, const char **file, int *line)
{
	struct wp_elf *d;

	if (srcline_in(w, vaddr, file, line) == 0)
		return 0;
	if ((d = wp_elf_debug(w)) != NULL)
		return srcline_in(d, vaddr, file, line);
	return -1;
}
