/*
 * The process image of a session: its modules (read from their files
 * when they are the same build) and mappings, and the live process's
 * memory while it is still the same process.
 */
#include <err.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "dwfl.h"
#include "elf.h"
#include "proc.h"
#include "util.h"

void
image_load(struct image *im, struct wp_session *s)
{
	size_t i, j;

	image_clear(im);
	im->pid = s->pid;
	im->start_time = s->start_time;
	im->mods = wp_xcalloc(s->nmods, sizeof *im->mods);
	for (i = 0; i < s->nmods; i++) {
		im->mods[i].path = s->mods[i].path;
		im->mods[i].file = s->mods[i].file;
		im->mods[i].build_id = s->mods[i].build_id;
		im->mods[i].bias = s->mods[i].load_bias;
		s->mods[i].path = s->mods[i].file = s->mods[i].build_id = NULL;
	}
	im->nmods = s->nmods;
	im->maps = wp_xcalloc(s->nmaps, sizeof *im->maps);
	for (i = 0; i < s->nmaps; i++) {
		im->maps[i].start = s->maps[i].start;
		im->maps[i].end = s->maps[i].end;
		im->maps[i].mod = -1;
		for (j = 0; s->maps[i].path != NULL && j < im->nmods; j++)
			if (strcmp(im->mods[j].path, s->maps[i].path) == 0)
				im->maps[i].mod = (int)j;
	}
	im->nmaps = s->nmaps;
	wp_session_free(s);
}

void
image_clear(struct image *im)
{
	size_t i;

	for (i = 0; i < im->nmods; i++) {
		free(im->mods[i].path);
		free(im->mods[i].file);
		free(im->mods[i].build_id);
		wp_elf_close(im->mods[i].elf);
	}
	free(im->mods);
	free(im->maps);
	wp_dwfl_close(im->dwfl);
	if (im->memfd >= 0)
		close(im->memfd);
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
		elf = wp_elf_open_mem(img, len, im->mods[mi].path, e);
	else if (strcmp(im->mods[mi].path, "[vdso]") == 0)
		elf = own_vdso(e);
	else
		wp_error_set(e, WP_EXIT_ERROR, "its image is in memory only, "
		    "and the process is gone");
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

	if (m->path == NULL || strcmp(m->path, m->file) == 0 ||
	    (code = wp_elf_open(m->path, &e)) == NULL)
		return debug;
	if (strcmp(code->build_id, debug->build_id) != 0 ||
	    wp_dwfl_debug_file(debug->path, &e) == -1) {
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
	if (wp_dwfl_add(im->dwfl, m->path, m->elf->path, m->elf->mem,
	    m->elf->memlen, m->bias) == NULL)
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
		m->elf = m->file ? wp_elf_open(m->file, &e) :
		    open_mapped(im, mi, &e);
		if (m->elf != NULL && m->elf->nocode)
			m->elf = code_beside(m, m->elf);
		if (m->elf == NULL)
			warnx("%s: %s; its writers are unknown",
			    m->file ? m->file : m->path, e.msg);
		else if (m->build_id && strcmp(m->build_id,
		    m->elf->build_id) != 0)
			warnx("%s: build-id %s differs from the capture's %s "
			    "(the file changed); its writers are unknown",
			    m->file ? m->file : m->path, m->elf->build_id[0] ?
			    m->elf->build_id : "(none)", m->build_id);
		else
			m->state = report(im, m);
	}
	return m->state == 1 ? m : NULL;
}

size_t
image_read_live(struct image *im, uint64_t addr, void *buf, size_t len)
{
	if (im->memfd == -1) {
		im->memfd = -2;
		if (im->pid > 0 && wp_proc_alive(im->pid, im->start_time))
			if ((im->memfd = wp_proc_mem_open(im->pid)) < 0)
				im->memfd = -2;
	}
	if (im->memfd < 0 || wp_proc_read(im->memfd, addr, buf, len) == -1)
		return 0;
	return len;
}

const struct dmap *
image_map_at(const struct image *im, uint64_t a)
{
	size_t i;

	for (i = 0; i < im->nmaps; i++)
		if (a >= im->maps[i].start && a < im->maps[i].end)
			return &im->maps[i];
	return NULL;
}

const char *
image_module_of(const struct image *im, uint64_t addr, uint64_t *bias)
{
	const struct dmap *mp = image_map_at(im, addr);

	if (mp == NULL || mp->mod < 0)
		return NULL;
	*bias = im->mods[mp->mod].bias;
	return im->mods[mp->mod].path;
}
