/* Symbols, source lines and separate debug files, through libdwfl. */
#include <sys/mman.h>
#include <sys/stat.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwfl.h"
#include "util.h"

/* What wp keeps of each module: the module's userdata. */
struct modinfo {
	int	 debuginfod;	/* what debuginfod said: 0 not asked, -1 no
				   libdebuginfod, else an errno */
	char	*why;		/* why it has no DWARF */
};

struct given {
	char	*path;
	char	 id[128];	/* build-id, hex */
};

static const char *debug_dirs[16] = { "/usr/lib/debug" };
static size_t ndebug_dirs = 1;
static int dirs_given;
static const char *module_dirs[16];
static size_t nmodule_dirs;
static struct given *given;
static size_t ngiven;

void
wp_dwfl_module_dir(const char *dir)
{
	if (nmodule_dirs < sizeof module_dirs / sizeof module_dirs[0])
		module_dirs[nmodule_dirs++] = dir;
}

void
wp_dwfl_debug_dir(const char *dir)
{
	if (!dirs_given) {
		dirs_given = 1;
		ndebug_dirs = 0;
	}
	if (ndebug_dirs < sizeof debug_dirs / sizeof debug_dirs[0])
		debug_dirs[ndebug_dirs++] = dir;
}

static void
hex(const unsigned char *bits, int len, char *out, size_t outsz)
{
	int i;

	out[0] = '\0';
	for (i = 0; i < len && 2 * (size_t)i + 2 < outsz; i++)
		snprintf(out + 2 * i, 3, "%02x", bits[i]);
}

void
wp_dwfl_build_id(void *elf, char *out, size_t outsz)
{
	const void *bits;
	ssize_t n;

	out[0] = '\0';
	if ((n = dwelf_elf_gnu_build_id(elf, &bits)) > 0)
		hex(bits, (int)n, out, outsz);
}

/*
 * path opened, an ELF file, its build-id as hex into id ("" when none):
 * an fd, or -1 with *why set (valid until the next call).  Only a
 * regular file on disk (wp_open_file).
 */
static int
open_id(const char *path, char *id, size_t idsz, const char **why)
{
	static char msg[sizeof ((struct wp_error *)0)->msg];
	struct wp_error e;
	Elf *elf = NULL;
	int fd;

	if ((fd = wp_open_file(path, &e)) == -1) {
		snprintf(msg, sizeof msg, "%s", e.msg);
		*why = msg;
		return -1;
	}
	elf_version(EV_CURRENT);
	*why = "not an ELF file";
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL &&
	    elf_kind(elf) == ELF_K_ELF) {
		wp_dwfl_build_id(elf, id, idsz);
		elf_end(elf);
		return fd;
	}
	elf_end(elf);
	close(fd);
	return -1;
}

/* path opened, when its build-id is id ("" takes any): an fd, or -1. */
static int
open_debug(const char *path, const char *id)
{
	const char *why;
	char got[128];
	int fd;

	if ((fd = open_id(path, got, sizeof got, &why)) != -1 &&
	    id[0] != '\0' && strcmp(got, id) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
wp_dwfl_debug_file(const char *path, struct wp_error *err)
{
	const char *why;
	char id[128];
	size_t i;
	int fd;

	if ((fd = open_id(path, id, sizeof id, &why)) == -1)
		return wp_error_set(err, WP_EXIT_ERROR, "%s", why);
	close(fd);
	if (id[0] == '\0')
		return wp_error_set(err, WP_EXIT_ERROR, "it has no build-id to "
		    "match a module by");
	for (i = 0; i < ngiven; i++)
		if (strcmp(given[i].path, path) == 0)
			return 0;
	given = wp_xrealloc(given, (ngiven + 1) * sizeof *given);
	given[ngiven].path = wp_xstrdup(path);
	snprintf(given[ngiven++].id, sizeof given[0].id, "%s", id);
	return 0;
}

static int
by_build_id(const char *id, char **found)
{
	char path[4096];
	size_t i;
	int fd;

	for (i = 0; i < ngiven; i++)
		if (strcmp(given[i].id, id) == 0 &&
		    (fd = open_debug(given[i].path, id)) != -1) {
			*found = wp_xstrdup(given[i].path);
			return fd;
		}
	for (i = 0; i < ndebug_dirs + nmodule_dirs; i++) {
		snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug",
		    i < ndebug_dirs ? debug_dirs[i] :
		    module_dirs[i - ndebug_dirs], id, id + 2);
		if ((fd = open_debug(path, id)) != -1) {
			*found = wp_xstrdup(path);
			return fd;
		}
	}
	return -1;
}

/* The debug link's name in a module directory, or in its .debug/. */
static int
in_module_dirs(const char *link, const char *id, char **found)
{
	char path[8192];
	size_t i, k;
	int fd;

	for (i = 0; i < nmodule_dirs; i++)
		for (k = 0; k < 2; k++) {
			snprintf(path, sizeof path, "%s/%s%s", module_dirs[i],
			    k ? ".debug/" : "", link);
			if ((fd = open_debug(path, id)) != -1) {
				*found = wp_xstrdup(path);
				return fd;
			}
		}
	return -1;
}

static int
by_debuglink(const char *file, const char *link, const char *id,
    char **found)
{
	char real[PATH_MAX], dir[4096], path[3][8192];
	const char *slash;
	size_t i, k;
	int fd;

	if (link == NULL || strchr(link, '/') != NULL || file[0] == '[')
		return -1;
	/* where the file is (/proc/PID/exe is a link to it) */
	file = realpath(file, real) != NULL ? real : file;
	slash = strrchr(file, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1,
	    slash ? file : ".");
	snprintf(path[0], sizeof path[0], "%s/%s", dir, link);
	snprintf(path[1], sizeof path[1], "%s/.debug/%s", dir, link);
	for (k = strcmp(path[0], file) == 0 ? 1 : 0; k < 2; k++)
		if ((fd = open_debug(path[k], id)) != -1) {
			*found = wp_xstrdup(path[k]);
			return fd;
		}
	for (i = 0; i < ndebug_dirs; i++) {
		snprintf(path[2], sizeof path[2], "%s%s/%s", debug_dirs[i], dir,
		    link);
		if ((fd = open_debug(path[2], id)) != -1) {
			*found = wp_xstrdup(path[2]);
			return fd;
		}
	}
	return in_module_dirs(link, id, found);
}

/*
 * Through libdebuginfod, loaded when DEBUGINFOD_URLS asks for it; what
 * it said is kept in *said.
 */
static int
by_debuginfod(const char *id, int *said, char **found)
{
	static void *client;
	static int loaded;
	static int (*find)(void *, const unsigned char *, int, char **);
	void *(*begin)(void);
	void *lib;
	char *path = NULL;
	int fd;

	if (getenv("DEBUGINFOD_URLS") == NULL ||
	    *getenv("DEBUGINFOD_URLS") == '\0' || id[0] == '\0')
		return -1;
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
		*said = -1;
		return -1;
	}
	/* a length of 0: the build-id as hex */
	if ((fd = find(client, (const unsigned char *)id, 0, &path)) < 0) {
		*said = -fd;
		return -1;
	}
	close(fd);
	if ((fd = open_debug(path, id)) == -1)
		*said = ENOEXEC;
	else
		*found = path;
	if (fd == -1)
		free(path);
	return fd;
}

/* The search, for the file of build-id id: an fd and *found, or -1. */
static int
search(const char *file, const char *link, const char *id, int *said,
    char **found)
{
	int fd = -1;

	*found = NULL;
	if (strlen(id) >= 3)
		fd = by_build_id(id, found);
	if (fd == -1)
		fd = by_debuglink(file, link, id, found);
	if (fd == -1)
		fd = by_debuginfod(id, said, found);
	return fd;
}

char *
wp_dwfl_debug_path(const char *path, void *elf)
{
	GElf_Word crc;
	char id[128], *found;
	int fd, said = 0;

	wp_dwfl_build_id(elf, id, sizeof id);
	fd = search(path, dwelf_elf_gnu_debuglink(elf, &crc), id, &said,
	    &found);
	if (fd == -1)
		return NULL;
	close(fd);
	return found;
}

static struct modinfo *
modinfo(void **userdata)
{
	if (*userdata == NULL)
		*userdata = wp_xcalloc(1, sizeof(struct modinfo));
	return *userdata;
}

/* libdwfl's find_debuginfo callback: wp's search. */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file, const char *link, GElf_Word crc,
    char **found)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char id[128] = "";
	int n;

	(void)modname;
	(void)base;
	(void)crc;
	if ((n = dwfl_module_build_id(mod, &bits, &vaddr)) > 0)
		hex(bits, n, id, sizeof id);
	return search(file != NULL ? file : modname, link, id,
	    &modinfo(userdata)->debuginfod, found);
}

static int
forget(Dwfl_Module *mod, void *userdata, const char *name, Dwarf_Addr base,
    void *arg)
{
	struct modinfo *mi = userdata;

	(void)mod;
	(void)name;
	(void)base;
	(void)arg;
	if (mi != NULL)
		free(mi->why);
	free(mi);
	return DWARF_CB_OK;
}

static int
forget_each(Dwfl_Module *mod, void **userdata, const char *name,
    Dwarf_Addr base, void *arg)
{
	forget(mod, *userdata, name, base, arg);
	*userdata = NULL;
	return DWARF_CB_OK;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_debuginfo,
};

struct wp_dwfl *
wp_dwfl_open(struct wp_error *err)
{
	struct wp_dwfl *d;

	d = wp_xcalloc(1, sizeof *d);
	if ((d->dwfl = dwfl_begin(&offline_callbacks)) == NULL) {
		wp_error_set(err, WP_EXIT_ERROR, "%s", dwfl_errmsg(-1));
		free(d);
		return NULL;
	}
	return d;
}

Dwfl_Module *
wp_dwfl_add(struct wp_dwfl *d, const char *name, const char *file,
    int file_fd, const void *image, size_t len, uint64_t bias)
{
	Dwfl_Module *mod;
	int fd = -1;

	if (image == NULL && (fd = fcntl(file_fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return NULL;
	if (image != NULL) {
		if ((fd = memfd_create("wp-image", MFD_CLOEXEC)) == -1)
			return NULL;
		if (write(fd, image, len) != (ssize_t)len) {
			close(fd);
			return NULL;
		}
		file = name;
	}
	dwfl_report_begin_add(d->dwfl);
	/* add_p_vaddr: the base given is the load bias; fd is libdwfl's */
	mod = dwfl_report_elf(d->dwfl, name, file, fd, bias, true);
	if (mod == NULL && fd != -1)
		close(fd);
	dwfl_report_end(d->dwfl, forget, NULL);
	return mod;
}

struct wp_dwfl *
wp_dwfl_open_pid(pid_t pid, struct wp_error *err)
{
	struct wp_dwfl *d;

	d = wp_xcalloc(1, sizeof *d);
	d->pid = pid;
	if ((d->dwfl = dwfl_begin(&proc_callbacks)) == NULL ||
	    wp_dwfl_refresh(d) == -1 ||
	    dwfl_linux_proc_attach(d->dwfl, pid, true) != 0) {
		wp_error_set(err, WP_EXIT_ERROR, "%s", dwfl_errmsg(-1));
		wp_dwfl_close(d);
		return NULL;
	}
	return d;
}

int
wp_dwfl_refresh(struct wp_dwfl *d)
{
	dwfl_report_begin(d->dwfl);
	if (dwfl_linux_proc_report(d->dwfl, d->pid) != 0) {
		dwfl_report_end(d->dwfl, forget, NULL);
		return -1;
	}
	return dwfl_report_end(d->dwfl, forget, NULL) != 0 ? -1 : 0;
}

void
wp_dwfl_close(struct wp_dwfl *d)
{
	if (d == NULL)
		return;
	if (d->dwfl != NULL) {
		dwfl_getmodules(d->dwfl, forget_each, NULL, 0);
		dwfl_end(d->dwfl);
	}
	while (d->nnames > 0)
		free(d->names[--d->nnames]);
	free(d->names);
	free(d);
}

/* name less its "@VERSION" of len bytes, kept in d. */
static const char *
unversioned(struct wp_dwfl *d, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < d->nnames; i++)
		if (strncmp(d->names[i], name, len) == 0 &&
		    d->names[i][len] == '\0')
			return d->names[i];
	d->names = wp_xrealloc(d->names, (d->nnames + 1) * sizeof *d->names);
	d->names[d->nnames] = wp_xmalloc(len + 1);
	memcpy(d->names[d->nnames], name, len);
	d->names[d->nnames][len] = '\0';
	return d->names[d->nnames++];
}

/* The symbol of type (STT_FUNC, STT_OBJECT) that holds addr: 0, or -1. */
static int
symbol_at(struct wp_dwfl *d, uint64_t addr, int type, struct wp_func *f)
{
	Dwfl_Module *mod;
	const char *name, *at;
	GElf_Off off;
	GElf_Sym sym;

	if ((mod = dwfl_addrmodule(d->dwfl, addr)) == NULL ||
	    (name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL,
	    NULL)) == NULL || GELF_ST_TYPE(sym.st_info) != type ||
	    (type == STT_FUNC && sym.st_value == 0) ||
	    off >= (sym.st_size ? sym.st_size : 1))
		return -1;
	f->name = name;
	if ((at = strchr(name, '@')) != NULL && at != name)
		f->name = unversioned(d, name, (size_t)(at - name));
	f->addr = addr - off;
	f->size = sym.st_size;
	return 0;
}

int
wp_dwfl_func(struct wp_dwfl *d, uint64_t addr, struct wp_func *f)
{
	return symbol_at(d, addr, STT_FUNC, f);
}

int
wp_dwfl_object(struct wp_dwfl *d, uint64_t addr, struct wp_func *f)
{
	return symbol_at(d, addr, STT_OBJECT, f);
}

int
wp_dwfl_srcline(struct wp_dwfl *d, uint64_t addr, const char **file,
    int *line)
{
	Dwfl_Module *mod;
	Dwfl_Line *l;

	if ((mod = dwfl_addrmodule(d->dwfl, addr)) == NULL ||
	    (l = dwfl_module_getsrc(mod, addr)) == NULL ||
	    (*file = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL)) == NULL)
		return -1;
	return 0;
}

int
wp_dwfl_inlined(struct wp_dwfl *d, uint64_t addr, const char **names,
    int max)
{
	Dwfl_Module *mod;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias;
	const char *nm;
	int n, i, k = 0;

	if ((mod = dwfl_addrmodule(d->dwfl, addr)) == NULL ||
	    (cu = dwfl_module_addrdie(mod, addr, &bias)) == NULL ||
	    (n = dwarf_getscopes(cu, addr - bias, &scopes)) <= 0)
		return 0;
	for (i = 0; i < n && k < max; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			nm = dwarf_diename(&scopes[i]);
			names[k++] = nm != NULL ? nm : "?";
		}
	free(scopes);
	return k;
}

/* Why mod (file, of build-id id) has no DWARF, as a sentence. */
static char *
why(const char *file, const char *id, int said)
{
	char b[1024], d[128] = "";

	if (said == -1)
		snprintf(d, sizeof d, ", and no libdebuginfod.so.1 to ask "
		    "DEBUGINFOD_URLS");
	else if (said != 0)
		snprintf(d, sizeof d, " nor from debuginfod (%s)",
		    said == ENOENT ? "not found" :
		    said == ENOEXEC ? "not a debug file of this build" :
		    strerror(said));
	if (strcmp(file, "[vdso]") == 0)
		snprintf(b, sizeof b, "no debug info for [vdso], the kernel's "
		    "(build-id %s; its vdso64.so.dbg comes with the kernel's "
		    "debug package, give it with --debug-file)", id);
	else if (id[0] == '\0')
		snprintf(b, sizeof b, "no debug info in %s, and no build-id to "
		    "find a separate debug file by", file);
	else
		snprintf(b, sizeof b, "no debug info for %s (build-id %s; "
		    "none under %s%s/.build-id/%s, give it with --debug-file)",
		    file, id, debug_dirs[0], ndebug_dirs > 1 ?
		    " and the other debug directories" : "", d);
	return wp_xstrdup(b);
}

const char *
wp_dwfl_debug_why(struct wp_dwfl *d, uint64_t addr)
{
	Dwfl_Module *mod;
	const unsigned char *bits;
	const char *name, *file;
	struct modinfo *mi;
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	void **ud;
	char id[128] = "";
	int n;

	if ((mod = dwfl_addrmodule(d->dwfl, addr)) == NULL ||
	    dwfl_module_getdwarf(mod, &bias) != NULL)
		return NULL;
	name = dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, &file,
	    NULL);
	mi = modinfo(ud);
	if (mi->why == NULL) {
		if ((n = dwfl_module_build_id(mod, &bits, &vaddr)) > 0)
			hex(bits, n, id, sizeof id);
		mi->why = why(file != NULL ? file : name, id, mi->debuginfod);
	}
	return mi->why;
}
