/*
 * The process image of a session: its modules (read from their files
 * when they are the same build, as recorded or found by build-id) and
 * mappings, and with --live the live process's memory while it is
 * still the session's process.  A stream is data: it may name any path
 * and any pid, and neither is trusted.
 */
#include <dirent.h>
#include <err.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "dwfl.h"
#include "elf.h"
#include "proc.h"
#include "util.h"

static const char not_live[] = "not read: the stream is not live (--live)";
static const char gone[] =
    "no code bytes: anonymous memory of a process that is gone";

/* A module file found elsewhere than recorded, by its build-id. */
struct known {
	char	*path;
	char	 id[128];
};

static int live;
static const char *mdirs[16];
static size_t nmdirs;
static struct known *known;
static size_t nknown;
static int scanned;		/* the module directories' files are known */

void
image_allow_live(void)
{
	live = 1;
}

/* path as a module file of its build-id: 0, or -1 with err set. */
static int
know(const char *path, struct wp_error *err)
{
	struct wp_elf *elf;

	if ((elf = wp_elf_open_file(path, NULL, err)) == NULL)
		return -1;
	if (elf->build_id[0] == '\0') {
		wp_elf_close(elf);
		return wp_error_set(err, WP_EXIT_ERROR, "it has no build-id "
		    "to match a module by");
	}
	known = wp_xrealloc(known, (nknown + 1) * sizeof *known);
	known[nknown].path = wp_xstrdup(path);
	snprintf(known[nknown++].id, sizeof known[0].id, "%s", elf->build_id);
	wp_elf_close(elf);
	return 0;
}

int
image_add_bin(const char *path, struct wp_error *err)
{
	return know(path, err);
}

void
image_add_module_dir(const char *dir)
{
	if (nmdirs < sizeof mdirs / sizeof mdirs[0])
		mdirs[nmdirs++] = dir;
	wp_dwfl_module_dir(dir);
}

/* Every ELF file with a build-id directly in the module directories. */
static void
scan_dirs(void)
{
	struct wp_error e;
	struct dirent *de;
	char path[PATH_MAX];
	size_t i;
	DIR *d;

	scanned = 1;
	for (i = 0; i < nmdirs; i++) {
		if ((d = opendir(mdirs[i])) == NULL) {
			warn("--module-dir %s", mdirs[i]);
			continue;
		}
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.' && (size_t)snprintf(path,
			    sizeof path, "%s/%s", mdirs[i], de->d_name) <
			    sizeof path)
				know(path, &e);
		closedir(d);
	}
}

/* A --bin file or one of a module directory of build-id id, one with
 * code first (a debug file has the same build-id). */
static struct wp_elf *
open_known(const char *id)
{
	struct wp_error e;
	struct wp_elf *elf;
	size_t i;
	int pass;

	if (!scanned)
		scan_dirs();
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nknown; i++) {
			if (strcmp(known[i].id, id) != 0 ||
			    (elf = wp_elf_open_file(known[i].path, id, &e)) ==
			    NULL)
				continue;
			if (!elf->nocode || pass == 1)
				return elf;
			wp_elf_close(elf);
		}
	return NULL;
}

/*
 * The file of module m, the same build: as recorded, else one of its
 * build-id in a module directory's DIR/.build-id/xx/yyyy, among the
 * --bin files, or directly in a module directory.
 */
static struct wp_elf *
open_module(const struct dmod *m)
{
	const char *id = m->rec->build_id;
	struct wp_error e;
	struct wp_elf *elf;
	char path[PATH_MAX];
	size_t i;

	if ((elf = wp_elf_open_file(m->rec->file, id, &e)) != NULL ||
	    id == NULL ||
	    strlen(id) < 3 || id[strspn(id, "0123456789abcdef")] != '\0')
		return elf;
	for (i = 0; i < nmdirs; i++) {
		snprintf(path, sizeof path, "%s/.build-id/%.2s/%s", mdirs[i],
		    id, id + 2);
		if ((elf = wp_elf_open_file(path, id, &e)) != NULL)
			return elf;
	}
	return open_known(id);
}

void
image_load(struct image *im, struct wp_session *s)
{
	size_t i, j;

	image_clear(im);
	im->session = *s;
	memset(s, 0, sizeof *s);
	s = &im->session;
	im->mods = wp_xcalloc(s->nmods, sizeof *im->mods);
	for (i = 0; i < s->nmods; i++)
		im->mods[i].rec = &s->mods[i];
	im->nmods = s->nmods;
	im->maps = wp_xcalloc(s->nmaps, sizeof *im->maps);
	for (i = 0; i < s->nmaps; i++) {
		im->maps[i].start = s->maps[i].start;
		im->maps[i].end = s->maps[i].end;
		im->maps[i].mod = -1;
		for (j = 0; s->maps[i].path != NULL && j < im->nmods; j++)
			if (strcmp(im->mods[j].rec->path, s->maps[i].path) == 0)
				im->maps[i].mod = (int)j;
	}
	im->nmaps = s->nmaps;
}

void
image_clear(struct image *im)
{
	size_t i;

	for (i = 0; i < im->nmods; i++)
		wp_elf_close(im->mods[i].elf);
	free(im->mods);
	free(im->maps);
	wp_session_free(&im->session);
	wp_dwfl_close(im->dwfl);
	wp_close_fd(&im->memfd);
	memset(im, 0, sizeof *im);
	im->memfd = -1;
}

/*
 * This process's own vDSO: the kernel's, the same image as the
 * session's where the build-ids agree (image_module checks).
 */
static struct wp_elf *
own_vdso(struct wp_error *e)
{
	struct wp_maps maps;
	struct wp_elf *elf = NULL;
	size_t i;

	if (wp_proc_maps(getpid(), &maps) == -1)
		return NULL;
	for (i = 0; i < maps.n; i++)
		if (maps.v[i].path != NULL &&
		    strcmp(maps.v[i].path, "[vdso]") == 0)
			elf = wp_elf_open_mem((void *)(uintptr_t)maps.v[i].start,
			    (size_t)(maps.v[i].end - maps.v[i].start), "[vdso]",
			    e);
	wp_proc_maps_free(&maps);
	return elf;
}

/*
 * A module only in memory (the vDSO): read from the live process, or,
 * once it is gone, this process's own.
 */
static struct wp_elf *
open_mapped(struct image *im, int mi, struct wp_error *e)
{
	struct wp_elf *elf = NULL;
	unsigned char *img;
	size_t i, len;

	for (i = 0; i < im->nmaps; i++)
		if (im->maps[i].mod == mi)
			break;
	if (i == im->nmaps || (len = (size_t)(im->maps[i].end -
	    im->maps[i].start)) > (1 << 20)) {
		wp_error_set(e, WP_EXIT_ERROR, "not mapped in the session");
		return NULL;
	}
	img = wp_xmalloc(len);
	if (image_read_live(im, im->maps[i].start, img, len) == len)
		elf = wp_elf_open_mem(img, len, im->mods[mi].rec->path, e);
	else if (strcmp(im->mods[mi].rec->path, "[vdso]") == 0)
		elf = own_vdso(e);
	else
		wp_error_set(e, WP_EXIT_ERROR, "its image is in memory only, "
		    "and %s", image_live_why(im) == not_live ? "the stream is "
		    "not live (--live)" : "the process is gone");
	free(img);
	return elf;
}

/*
 * The module's file is a debug file (--bin pointed at one): code comes
 * from the file mapped, when it is the same build, with debug as its
 * debug file (for every lookup, as --debug-file would); else the debug
 * file stays, and code is read live.
 */
static struct wp_elf *
code_beside(struct dmod *m, struct wp_elf *debug)
{
	struct wp_elf *code;
	struct wp_error e;

	if (m->rec->path == NULL || strcmp(m->rec->path, m->rec->file) == 0 ||
	    (code = wp_elf_open_file(m->rec->path, debug->build_id,
	    &e)) == NULL)
		return debug;
	if (wp_dwfl_debug_file(debug->path, &e) == -1) {
		wp_elf_close(code);
		return debug;
	}
	wp_elf_close(debug);
	return code;
}

/* Adds m to the session's Dwfl, where its names and lines are: 1. */
static int
report(struct image *im, struct dmod *m)
{
	struct wp_error e;

	if (im->dwfl == NULL && (im->dwfl = wp_dwfl_open(&e)) == NULL)
		errx(WP_EXIT_ERROR, "%s", e.msg);
	if (wp_dwfl_add(im->dwfl, m->rec->path, m->elf->path, m->elf->fd,
	    m->elf->mem, m->elf->memlen, m->rec->load_bias) == NULL)
		warnx("%s: %s; its names and lines are unknown", m->elf->path,
		    dwfl_errmsg(-1));
	return 1;
}

struct dmod *
image_module(struct image *im, int mi)
{
	struct dmod *m = &im->mods[mi];
	struct wp_error e;

	if (m->state == 0) {
		m->state = -1;
		/* one message whatever the reason: a stream's paths may
		 * name any file, and say nothing of which exist */
		if (m->rec->file != NULL && (m->elf = open_module(m)) == NULL)
			warnx("%s: not usable as recorded (give it with "
			    "--module-dir or --bin); its writers are unknown",
			    m->rec->file);
		else if (m->rec->file == NULL && (m->elf = open_mapped(im, mi,
		    &e)) == NULL)
			warnx("%s: %s; its writers are unknown", m->rec->path,
			    e.msg);
		if (m->elf != NULL && m->elf->nocode)
			m->elf = code_beside(m, m->elf);
		if (m->elf != NULL && m->rec->file == NULL && m->rec->build_id &&
		    strcmp(m->rec->build_id, m->elf->build_id) != 0)
			warnx("%s: build-id %s differs from the capture's %s; "
			    "its writers are unknown", m->rec->path,
			    m->elf->build_id[0] ? m->elf->build_id : "(none)",
			    m->rec->build_id);
		else if (m->elf != NULL)
			m->state = report(im, m);
	}
	return m->state == 1 ? m : NULL;
}

/* Whether the executable of process directory dir is the session's. */
static int
same_exe(const struct image *im, int dir)
{
	char link[PATH_MAX], id[128] = "";
	ssize_t n;
	Elf *elf;
	int fd;

	if (im->session.exe == NULL ||
	    (n = readlinkat(dir, "exe", link, sizeof link - 1)) == -1)
		return 0;
	link[n] = '\0';
	if (strcmp(link, im->session.exe) != 0 ||
	    (fd = openat(dir, "exe", O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL)
		wp_dwfl_build_id(elf, id, sizeof id);
	elf_end(elf);
	close(fd);
	return strcmp(id, im->session.exe_build_id ? im->session.exe_build_id : "") == 0;
}

/*
 * The session's process memory, opened: only with --live, and only the
 * process of the session's pid, start time, exe and build-id, whose
 * memory the kernel lets this process read (the ptrace access check of
 * /proc/PID/mem: the caller's uid and a dumpable process, or root).
 * Everything is read through one /proc/PID directory, so a process that
 * took the pid since is never the one read.
 */
static void
live_open(struct image *im)
{
	int dir, fd;

	im->memfd = -2;
	im->live_why = not_live;
	if (!live)
		return;
	im->live_why = gone;
	if (im->session.pid <= 0 || (dir = wp_proc_dir(im->session.pid)) == -1)
		return;
	fd = openat(dir, "mem", O_RDONLY | O_CLOEXEC);
	if (!wp_proc_alive_at(dir, im->session.start_time))
		;
	else if (fd == -1)
		im->live_why = "not read: the process may not be traced by "
		    "this user";
	else if (!same_exe(im, dir))
		im->live_why = "not read: the process runs another program "
		    "than the session's";
	else {
		im->memfd = fd;
		im->live_why = NULL;
	}
	if (im->memfd != fd && fd != -1)
		close(fd);
	close(dir);
}

size_t
image_read_live(struct image *im, uint64_t addr, void *buf, size_t len)
{
	if (im->memfd == -1)
		live_open(im);
	if (im->memfd < 0 || wp_proc_read(im->memfd, addr, buf, len) == -1)
		return 0;
	return len;
}

const char *
image_live_why(const struct image *im)
{
	return im->live_why != NULL ? im->live_why : gone;
}

const struct dmap *
image_map_at(const struct image *im, uint64_t a)
{
	return wp_find_range(im->maps, im->nmaps, sizeof *im->maps,
	    offsetof(struct dmap, start), a);
}

const char *
image_module_of(const struct image *im, uint64_t addr, uint64_t *bias)
{
	const struct dmap *mp = image_map_at(im, addr);

	if (mp == NULL || mp->mod < 0)
		return NULL;
	*bias = im->mods[mp->mod].rec->load_bias;
	return im->mods[mp->mod].rec->path;
}
