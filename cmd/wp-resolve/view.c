#include <sys/types.h>

#include <elf.h>
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"
#include "record.h"
#include "util.h"
#include "view.h"

static int
is_file_path(const char *p)
{
	return p != NULL && p[0] == '/';
}

static void
add_modules(struct wp_view *v)
{
	size_t i, j;
	char eb[128], exe_link[64];
	struct wp_module *m;

	v->mods = wp_xcalloc(v->maps.n + 1, sizeof *v->mods);
	for (i = 0; i < v->maps.n; i++) {
		const struct wp_map *mp = &v->maps.v[i];
		struct wp_elf *e;
		uint64_t bias;
		int is_main;

		if (!is_file_path(mp->path))
			continue;
		for (j = 0; j < v->nmods; j++)
			if (strcmp(v->mods[j].path, mp->path) == 0)
				break;
		if (j < v->nmods)
			continue;
		is_main = strcmp(mp->path, v->exe) == 0;
		if (is_main) {
			snprintf(exe_link, sizeof exe_link, "/proc/%d/exe",
			    (int)v->pid);
			e = wp_elf_open(v->bin ? v->bin : exe_link, eb,
			    sizeof eb);
		} else
			e = wp_elf_open(mp->path, eb, sizeof eb);
		if (e == NULL && !is_main)
			continue;	/* not an ELF file: data mapping */
		bias = 0;
		if (e != NULL && wp_elf_bias(e, mp->start, mp->offset, &bias) == -1) {
			wp_elf_close(e);
			continue;
		}
		m = &v->mods[v->nmods++];
		m->path = wp_xstrdup(mp->path);
		m->elf = e;
		m->bias = bias;
		m->is_main = is_main;
		if (is_main)
			v->main = m;
	}
}

/*
 * Opens the process: checks it exists, can be read, is x86-64, and that
 * --bin (when given) is the same build as /proc/PID/exe.  Prints the
 * reason and returns -1 when it cannot be used.
 */
int
wp_view_open(struct wp_view *v, pid_t pid, const char *bin, int force_bin)
{
	char eb[128], exe_link[64];
	struct wp_elf *e;
	const char *del;

	memset(v, 0, sizeof *v);
	v->pid = pid;
	v->memfd = -1;
	v->warnings = json_object_new_array();
	if (pid <= 0 || (kill(pid, 0) == -1 && errno == ESRCH) ||
	    !wp_proc_exists(pid)) {
		warnx("pid %d: no such process", (int)pid);
		return -1;
	}
	if (wp_proc_starttime(pid, &v->start_time) == -1) {
		warn("pid %d: cannot read /proc/%d/stat", (int)pid, (int)pid);
		return -1;
	}
	if (wp_proc_exe(pid, v->exe, sizeof v->exe) == -1 ||
	    (v->memfd = wp_proc_mem_open(pid)) == -1) {
		if (errno == EACCES || errno == EPERM)
			warnx("pid %d: permission denied (run as the process's "
			    "user with ptrace allowed, or as root)", (int)pid);
		else if (errno == ENOENT)
			warnx("pid %d: no such process (or a kernel thread)",
			    (int)pid);
		else
			warn("pid %d", (int)pid);
		return -1;
	}
	if ((del = strstr(v->exe, " (deleted)")) != NULL &&
	    del[10] == '\0') {
		json_object_array_add(v->warnings, json_object_new_string(
		    "the executable was deleted or replaced after it started"));
		warnx("pid %d: warning: %s was deleted or replaced since the "
		    "process started", (int)pid, v->exe);
	}
	snprintf(exe_link, sizeof exe_link, "/proc/%d/exe", (int)pid);
	if ((e = wp_elf_open(exe_link, eb, sizeof eb)) == NULL) {
		warnx("pid %d: %s: %s", (int)pid, v->exe, eb);
		return -1;
	}
	if (e->machine != EM_X86_64 || !e->is64) {
		warnx("pid %d: %s is not an x86-64 program (ELF machine %d)",
		    (int)pid, v->exe, e->machine);
		wp_elf_close(e);
		return -1;
	}
	snprintf(v->exe_build_id, sizeof v->exe_build_id, "%s", e->build_id);
	wp_elf_close(e);
	v->binary_match = "not_checked";
	if (bin != NULL) {
		v->bin = bin;
		if ((e = wp_elf_open(bin, eb, sizeof eb)) == NULL) {
			warnx("--bin %s: %s", bin, eb);
			return -1;
		}
		snprintf(v->bin_build_id, sizeof v->bin_build_id, "%s",
		    e->build_id);
		wp_elf_close(e);
		if (v->exe_build_id[0] == '\0' || v->bin_build_id[0] == '\0') {
			v->binary_match = "unverified";
			json_object_array_add(v->warnings,
			    json_object_new_string("--bin or the executable has "
			    "no build-id: the match was not verified"));
			warnx("--bin %s: warning: no build-id to compare with "
			    "%s; not verified", bin, v->exe);
		} else if (strcmp(v->exe_build_id, v->bin_build_id) == 0)
			v->binary_match = "match";
		else if (force_bin) {
			v->binary_match = "mismatch_forced";
			json_object_array_add(v->warnings,
			    json_object_new_string("--bin build-id differs from "
			    "the running executable (--force-bin)"));
			warnx("--bin %s: warning: build-id %s differs from %s's "
			    "%s (--force-bin)", bin, v->bin_build_id, v->exe,
			    v->exe_build_id);
		} else {
			warnx("--bin %s: build-id %s differs from the running "
			    "%s (%s); use --force-bin to go on", bin,
			    v->bin_build_id, v->exe, v->exe_build_id);
			return -1;
		}
	}
	if (wp_proc_maps(pid, &v->maps) == -1) {
		warn("pid %d: cannot read /proc/%d/maps", (int)pid, (int)pid);
		return -1;
	}
	add_modules(v);
	if (v->main == NULL) {
		warnx("pid %d: %s is not mapped in the process", (int)pid,
		    v->exe);
		return -1;
	}
	return 0;
}

void
wp_view_close(struct wp_view *v)
{
	size_t i;

	for (i = 0; i < v->nmods; i++) {
		wp_elf_close(v->mods[i].elf);
		free(v->mods[i].path);
	}
	free(v->mods);
	wp_proc_maps_free(&v->maps);
	if (v->memfd != -1)
		close(v->memfd);
	if (v->warnings != NULL)
		json_object_put(v->warnings);
	memset(v, 0, sizeof *v);
	v->memfd = -1;
}

/* The module whose loaded segments hold addr, and the static address. */
struct wp_module *
wp_view_module_at(struct wp_view *v, uint64_t addr, uint64_t *saddr)
{
	size_t i;

	for (i = 0; i < v->nmods; i++) {
		struct wp_module *m = &v->mods[i];

		if (m->elf == NULL || addr < m->bias)
			continue;
		if (wp_elf_load_at(m->elf, addr - m->bias) != NULL) {
			*saddr = addr - m->bias;
			return m;
		}
	}
	return NULL;
}

const char *
wp_view_region(const struct wp_map *mp)
{
	return mp->path != NULL ? mp->path : "[anon]";
}

static const char *
elf_kind(const struct wp_module *m)
{
	if (m->elf == NULL)
		return "unknown";
	if (m->elf->type == ET_EXEC)
		return "exec";
	if (m->elf->type == ET_DYN)
		return "dyn";
	return "other";
}

json_object *
wp_view_session_record(struct wp_view *v, int slot_limit)
{
	json_object *o, *a, *m;
	size_t i, j;

	o = json_object_new_object();
	json_object_object_add(o, "type", json_object_new_string("session"));
	json_object_object_add(o, "schema_version",
	    json_object_new_int(WP_SCHEMA_VERSION));
	json_object_object_add(o, "tool", json_object_new_string("wp-resolve"));
	json_object_object_add(o, "tool_version",
	    json_object_new_string(WP_VERSION));
	json_object_object_add(o, "pid", json_object_new_int(v->pid));
	json_object_object_add(o, "start_time",
	    json_object_new_uint64(v->start_time));
	json_object_object_add(o, "exe", json_object_new_string(v->exe));
	json_object_object_add(o, "exe_build_id", v->exe_build_id[0] ?
	    json_object_new_string(v->exe_build_id) : NULL);
	json_object_object_add(o, "bin",
	    v->bin ? json_object_new_string(v->bin) : NULL);
	json_object_object_add(o, "bin_build_id", v->bin && v->bin_build_id[0] ?
	    json_object_new_string(v->bin_build_id) : NULL);
	json_object_object_add(o, "binary_match",
	    json_object_new_string(v->binary_match));
	json_object_object_add(o, "arch", json_object_new_string("x86_64"));
	json_object_object_add(o, "pie", json_object_new_boolean(
	    v->main->elf != NULL && v->main->elf->type == ET_DYN));
	json_object_object_add(o, "pie_slide", wp_json_hex(v->main->bias));
	json_object_object_add(o, "slot_limit",
	    slot_limit ? json_object_new_int(4) : NULL);
	a = json_object_new_array();
	for (i = 0; i < v->nmods; i++) {
		m = json_object_new_object();
		json_object_object_add(m, "path",
		    json_object_new_string(v->mods[i].path));
		json_object_object_add(m, "file", json_object_new_string(
		    v->mods[i].is_main && v->bin ? v->bin : v->mods[i].path));
		json_object_object_add(m, "build_id",
		    v->mods[i].elf && v->mods[i].elf->build_id[0] ?
		    json_object_new_string(v->mods[i].elf->build_id) : NULL);
		json_object_object_add(m, "load_bias",
		    wp_json_hex(v->mods[i].bias));
		json_object_object_add(m, "kind",
		    json_object_new_string(elf_kind(&v->mods[i])));
		json_object_object_add(m, "main",
		    json_object_new_boolean(v->mods[i].is_main));
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "modules", a);
	a = json_object_new_array();
	for (i = 0; i < v->maps.n; i++) {
		const struct wp_map *mp = &v->maps.v[i];

		if (!is_file_path(mp->path) &&
		    !(mp->path == NULL && mp->perms[2] == 'x'))
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "start", wp_json_hex(mp->start));
		json_object_object_add(m, "end", wp_json_hex(mp->end));
		json_object_object_add(m, "perms",
		    json_object_new_string(mp->perms));
		json_object_object_add(m, "offset", wp_json_hex(mp->offset));
		json_object_object_add(m, "path",
		    mp->path ? json_object_new_string(mp->path) : NULL);
		for (j = 0; j < v->nmods; j++)
			if (mp->path && strcmp(v->mods[j].path, mp->path) == 0)
				break;
		json_object_object_add(m, "load_bias", j < v->nmods ?
		    wp_json_hex(v->mods[j].bias) : NULL);
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "mappings", a);
	json_object_object_add(o, "warnings", json_object_get(v->warnings));
	return o;
}
