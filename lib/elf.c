/*
 * ELF facts libdwfl does not give: build-id, segments and load bias,
 * code bytes; and symbols by name (TLS ones too), through libdwfl.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwfl.h"
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
	wp_dwfl_build_id(e, w->build_id, sizeof w->build_id);
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
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1) {
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
wp_elf_open_file(const char *path, const char *build_id,
    struct wp_error *err)
{
	struct wp_elf *w;
	char magic[SELFMAG];
	int fd;

	init_libelf();
	if ((fd = wp_open_file(path, err)) == -1)
		return NULL;
	if (pread(fd, magic, SELFMAG, 0) != SELFMAG ||
	    memcmp(magic, ELFMAG, SELFMAG) != 0) {
		wp_error_set(err, WP_EXIT_ERROR, "not an ELF file");
		close(fd);
		return NULL;
	}
	if ((w = describe(elf_begin(fd, ELF_C_READ_MMAP, NULL), path, fd,
	    err)) == NULL) {
		close(fd);
		return NULL;
	}
	if (build_id != NULL && strcmp(build_id, w->build_id) != 0) {
		wp_error_set(err, WP_EXIT_ERROR, "build-id %s, not %s",
		    w->build_id[0] ? w->build_id : "(none)", build_id);
		wp_elf_close(w);
		return NULL;
	}
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
	elf_end(w->elf);
	wp_close_fd(&w->fd);
	free(w->mem);
	free(w->loads);
	free(w->path);
	wp_dwfl_close(w->dwfl);
	free(w);
}

int
wp_elf_symbol(struct wp_elf *w, const char *name, uint64_t *value,
    uint64_t *size, int *tls)
{
	struct wp_error e;

	*tls = 0;
	if (w->dwfl == NULL) {
		if ((w->dwfl = wp_dwfl_open(&e)) == NULL)
			return 0;
		w->dmod = wp_dwfl_add(w->dwfl, w->path, w->path, w->fd, w->mem,
		    w->memlen, 0);
	}
	if (w->dmod == NULL)
		return 0;
	return wp_dwfl_symbol(w->dmod, name, value, size, tls);
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
	struct wp_error e;
	struct wp_elf *d;
	char *path;
	int stripped = 1;

	if (has_section(w, SHT_SYMTAB))
		return 0;
	/* its debug file, found the way every debug file is (dwfl.h) */
	if (w->mem == NULL &&
	    (path = wp_dwfl_debug_path(w->path, w->elf)) != NULL) {
		if ((d = wp_elf_open(path, &e)) != NULL) {
			stripped = !has_section(d, SHT_SYMTAB);
			wp_elf_close(d);
		}
		free(path);
	}
	return stripped;
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
