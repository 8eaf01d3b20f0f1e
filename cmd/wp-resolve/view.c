/*
 * The process as wp-resolve sees it: its executable and build-id, the
 * --bin check, its mappings and the ELF modules in them.
 */
#include <sys/types.h>

#include <elf.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"
#include "hwbp.h"
#include "machine.h"
#include "record.h"
#include "util.h"
#include "view.h"

static int
is_file_path(const char *p)
{
	return p != NULL && p[0] == '/';
}

static void
warning(struct view *v, const char *w)
{
	if (v->nwarnings < sizeof v->warnings / sizeof v->warnings[0])
		v->warnings[v->nwarnings++] = w;
}

static int
known(const struct view *v, const char *path)
{
	size_t j;

	for (j = 0; j < v->nmods; j++)
		if (strcmp(v->mods[j].path, path) == 0)
			return 1;
	return 0;
}

/* The vDSO: an ELF image the kernel maps, read from the process. */
static void
add_vdso(struct view *v, const struct wp_map *mp)
{
	struct wp_error e;
	struct wp_elf *elf;
	struct module *m;
	unsigned char *img;
	size_t len = (size_t)(mp->end - mp->start);
	uint64_t bias;

	if (len > (1 << 20))
		return;
	img = wp_xmalloc(len);
	if (wp_proc_read(v->memfd, mp->start, img, len) == 0 &&
	    (elf = wp_elf_open_mem(img, len, "[vdso]", &e)) != NULL) {
		if (wp_elf_bias(elf, mp->start, 0, &bias) == 0) {
			m = &v->mods[v->nmods++];
			m->path = wp_xstrdup("[vdso]");
			m->elf = elf;
			m->bias = bias;
		} else
			wp_elf_close(elf);
	}
	free(img);
}

/* The ELF files mapped, each once, with their load bias. */
static void
add_modules(struct view *v)
{
	const struct wp_map *mp;
	struct wp_error e;
	struct wp_elf *elf;
	struct module *m;
	char exe_link[64];
	uint64_t bias;
	size_t i;
	int is_main;

	wp_proc_path(exe_link, sizeof exe_link, v->pid, 0, "exe");
	v->mods = wp_xcalloc(v->maps.n + 1, sizeof *v->mods);
	for (i = 0; i < v->maps.n; i++) {
		mp = &v->maps.v[i];
		if (mp->path != NULL && strcmp(mp->path, "[vdso]") == 0 &&
		    !known(v, mp->path)) {
			add_vdso(v, mp);
			continue;
		}
		if (!is_file_path(mp->path) || known(v, mp->path))
			continue;
		is_main = strcmp(mp->path, v->exe) == 0;
		elf = wp_elf_open(!is_main ? mp->path : v->bin ? v->bin :
		    exe_link, &e);
		if (elf == NULL && !is_main)
			continue;	/* not an ELF file: data mapping */
		bias = 0;
		if (elf != NULL &&
		    wp_elf_bias(elf, mp->start, mp->offset, &bias) == -1) {
			wp_elf_close(elf);
			continue;
		}
		m = &v->mods[v->nmods++];
		m->path = wp_xstrdup(mp->path);
		m->elf = elf;
		m->bias = bias;
		m->is_main = is_main;
		if (is_main)
			v->main = m;
	}
}

/* The process exists, can be read, and is x86-64. */
static void	read_text(const char *, char *, size_t);

static int
check_process(struct view *v)
{
	char exe_link[64];
	struct wp_error e;
	struct wp_elf *elf;
	const char *del;
	pid_t pid = v->pid;

	if (pid <= 0 || (kill(pid, 0) == -1 && errno == ESRCH) ||
	    !wp_proc_exists(pid)) {
		warnx("pid %d: no such process", (int)pid);
		return -1;
	}
	errno = 0;
	if (wp_proc_starttime(pid, &v->start_time) == -1) {
		/* read, but not as a stat line: no errno to tell */
		warnx("pid %d: cannot read /proc/%d/stat: %s", (int)pid,
		    (int)pid, errno ? strerror(errno) : "not what the kernel "
		    "writes there");
		return -1;
	}
	if (!wp_proc_alive(pid, v->start_time)) {
		warnx("pid %d: the process has exited (a zombie its parent "
		    "has not reaped)", (int)pid);
		return -1;
	}
	if (wp_proc_exe(pid, v->exe, sizeof v->exe) == -1 ||
	    (v->memfd = wp_proc_mem_open(pid)) == -1) {
		if ((errno == EACCES || errno == EPERM) && geteuid() == 0)
			warnx("pid %d: permission denied even to root (%s)",
			    (int)pid, wp_proc_trace_denied());
		else if (errno == EACCES || errno == EPERM)
			warnx("pid %d: permission denied (run as the process's "
			    "user with ptrace allowed, or as root)", (int)pid);
		else if (errno == ENOENT)
			warnx("pid %d: no such process (or a kernel thread)",
			    (int)pid);
		else
			warn("pid %d: cannot open /proc/%d/mem", (int)pid,
			    (int)pid);
		return -1;
	}
	if ((del = strstr(v->exe, " (deleted)")) != NULL && del[10] == '\0') {
		warning(v, "the executable was deleted or replaced after it "
		    "started");
		warnx("pid %d: warning: %s was deleted or replaced since the "
		    "process started", (int)pid, v->exe);
	}
	wp_proc_path(exe_link, sizeof exe_link, pid, 0, "exe");
	if ((elf = wp_elf_open(exe_link, &e)) == NULL) {
		warnx("pid %d: %s: %s", (int)pid, v->exe, e.msg);
		return -1;
	}
	if ((v->machine = wp_machine_here()) == -1)
		v->machine = WP_MACH_X86_64;	/* its programs are refused */
	if (elf->machine != wp_machine_elf(v->machine) || !elf->is64) {
		warnx("pid %d: %s is not an %s program (ELF machine %d)",
		    (int)pid, v->exe, wp_machine_titles[v->machine],
		    elf->machine);
		wp_elf_close(elf);
		return -1;
	}
	snprintf(v->exe_build_id, sizeof v->exe_build_id, "%s", elf->build_id);
	wp_elf_close(elf);
	return 0;
}

/* --bin is the same build as the running executable, or forced. */
static int
check_bin(struct view *v, const char *bin, int force_bin)
{
	struct wp_error e;
	struct wp_elf *elf;

	v->bin = bin;
	if ((elf = wp_elf_open(bin, &e)) == NULL) {
		warnx("--bin %s: %s", bin, e.msg);
		return -1;
	}
	snprintf(v->bin_build_id, sizeof v->bin_build_id, "%s", elf->build_id);
	wp_elf_close(elf);
	if (v->exe_build_id[0] == '\0' || v->bin_build_id[0] == '\0') {
		v->binary_match = "unverified";
		warning(v, "--bin or the executable has no build-id: the match "
		    "was not verified");
		warnx("--bin %s: warning: no build-id to compare with %s; not "
		    "verified", bin, v->exe);
	} else if (strcmp(v->exe_build_id, v->bin_build_id) == 0)
		v->binary_match = "match";
	else if (force_bin) {
		v->binary_match = "mismatch_forced";
		warning(v, "--bin build-id differs from the running executable "
		    "(--force-bin)");
		warnx("--bin %s: warning: build-id %s differs from %s's %s "
		    "(--force-bin)", bin, v->bin_build_id, v->exe,
		    v->exe_build_id);
	} else {
		warnx("--bin %s: build-id %s differs from the running %s (%s); "
		    "use --force-bin to go on", bin, v->bin_build_id, v->exe,
		    v->exe_build_id);
		return -1;
	}
	return 0;
}

/* The first line or string of file path into buf ("" if none). */
static void
read_text(const char *path, char *buf, size_t sz)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, sz - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The names the process was started by: comm, argv[0]'s base name. */
static void
start_names(struct view *v)
{
	char a0[PATH_MAX], path[64];
	const char *b;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)v->pid);
	read_text(path, v->comm, sizeof v->comm);
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)v->pid);
	read_text(path, a0, sizeof a0);
	b = strrchr(a0, '/');
	snprintf(v->argv0, sizeof v->argv0, "%s", b ? b + 1 : a0);
}

int
view_module_named(const struct view *v, const struct module *m,
    const char *name)
{
	const char *base = strrchr(m->path, '/');
	size_t n = strlen(name);

	base = base ? base + 1 : m->path;
	if (strcmp(m->path, name) == 0 || strcmp(base, name) == 0)
		return 1;
	if (m->is_main && ((v->comm[0] && strcmp(v->comm, name) == 0) ||
	    (v->argv0[0] && strcmp(v->argv0, name) == 0)))
		return 1;
	/* "libc" names libc.so.6, "libfoo" libfoo-1.2.so */
	return strncmp(base, name, n) == 0 &&
	    (base[n] == '.' || base[n] == '-');
}

int
view_open(struct view *v, pid_t pid, const char *bin, int force_bin)
{
	memset(v, 0, sizeof *v);
	v->pid = pid;
	v->memfd = -1;
	v->binary_match = "not_checked";
	if (check_process(v) == -1 ||
	    (bin != NULL && check_bin(v, bin, force_bin) == -1))
		return -1;
	errno = 0;
	if (wp_proc_maps(pid, &v->maps) == -1) {
		warnx("pid %d: cannot read /proc/%d/maps: %s", (int)pid,
		    (int)pid, errno ? strerror(errno) : "read error");
		return -1;
	}
	add_modules(v);
	start_names(v);
	if (v->main == NULL) {
		warnx("pid %d: %s is not mapped in the process", (int)pid,
		    v->exe);
		return -1;
	}
	return 0;
}

void
view_close(struct view *v)
{
	size_t i;

	for (i = 0; i < v->nmods; i++) {
		wp_elf_close(v->mods[i].elf);
		free(v->mods[i].path);
	}
	free(v->mods);
	wp_proc_maps_free(&v->maps);
	wp_close_fd(&v->memfd);
	memset(v, 0, sizeof *v);
	v->memfd = -1;
}

/* The module whose loaded segments hold addr, and the static address. */
struct module *
view_module_at(struct view *v, uint64_t addr, uint64_t *saddr)
{
	size_t i;

	for (i = 0; i < v->nmods; i++) {
		struct module *m = &v->mods[i];

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
view_region(const struct wp_map *mp)
{
	return mp->path != NULL ? mp->path : "[anon]";
}

static const char *
elf_kind(const struct module *m)
{
	if (m->elf == NULL)
		return "unknown";
	if (strcmp(m->path, "[vdso]") == 0)
		return "vdso";
	if (m->elf->type == ET_EXEC)
		return "exec";
	if (m->elf->type == ET_DYN)
		return "dyn";
	return "other";
}

/* The session record: the process, its modules and its mappings. */
void
view_session_record(struct view *v, enum wp_limits limits, struct wp_jw *w)
{
	struct wp_session s;
	struct wp_mapping_rec *m;
	size_t i, j;

	memset(&s, 0, sizeof s);
	s.pid = v->pid;
	s.start_time = v->start_time;
	s.exe = v->exe;
	s.comm = v->comm[0] ? v->comm : NULL;
	s.exe_build_id = v->exe_build_id[0] ? v->exe_build_id : NULL;
	s.bin = (char *)v->bin;
	s.bin_build_id = v->bin && v->bin_build_id[0] ? v->bin_build_id : NULL;
	s.binary_match = v->binary_match;
	s.machine = v->machine;
	s.pie = v->main->elf != NULL && v->main->elf->type == ET_DYN;
	s.pie_slide = v->main->bias;
	s.slot_limit = limits == WP_LIMITS_DEBUG_REGISTERS ?
	    WP_HWBP_SLOTS : 0;
	s.limits = wp_limits_names[limits];
	s.mods = wp_xcalloc(v->nmods, sizeof *s.mods);
	for (i = 0; i < v->nmods; i++) {
		s.mods[i].path = v->mods[i].path;
		s.mods[i].file = v->mods[i].is_main && v->bin ?
		    (char *)v->bin : is_file_path(v->mods[i].path) ?
		    v->mods[i].path : NULL;
		s.mods[i].build_id = v->mods[i].elf &&
		    v->mods[i].elf->build_id[0] ? v->mods[i].elf->build_id : NULL;
		s.mods[i].load_bias = v->mods[i].bias;
		s.mods[i].kind = elf_kind(&v->mods[i]);
		s.mods[i].main = v->mods[i].is_main;
	}
	s.nmods = v->nmods;
	s.maps = wp_xcalloc(v->maps.n, sizeof *s.maps);
	for (i = 0; i < v->maps.n; i++) {
		const struct wp_map *mp = &v->maps.v[i];

		if (!is_file_path(mp->path) && !(mp->path == NULL &&
		    mp->perms[2] == 'x') && !(mp->path != NULL &&
		    strcmp(mp->path, "[vdso]") == 0))
			continue;
		m = &s.maps[s.nmaps++];
		m->start = mp->start;
		m->end = mp->end;
		memcpy(m->perms, mp->perms, sizeof m->perms);
		m->offset = mp->offset;
		m->path = mp->path;
		for (j = 0; j < v->nmods; j++)
			if (mp->path && strcmp(v->mods[j].path, mp->path) == 0)
				break;
		m->has_bias = j < v->nmods;
		m->load_bias = j < v->nmods ? v->mods[j].bias : 0;
	}
	s.warnings = (char **)v->warnings;
	s.nwarnings = v->nwarnings;
	wp_rec_session(w, &s);
	free(s.mods);
	free(s.maps);
}
