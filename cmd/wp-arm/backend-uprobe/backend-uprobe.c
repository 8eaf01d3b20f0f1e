/*
 * The uprobe backend: which addresses does an instruction access?  A
 * uprobe on each site (an instruction, from its site record) runs the
 * BPF program bpf/insn.bpf.c before the instruction, in every thread of
 * the process, those made later too; the program computes its memory
 * operand's effective address from the registers (and the fs base from
 * the task) and counts the execution per (site, address, thread) in a
 * hash map, read here into access records at each --interval and at the
 * end.  Every execution is counted; one no tally entry could hold is
 * counted as such (the observation's tally_full).  Where no uprobe can
 * serve (a lock prefix, code in no file, BPF refused) the ptrace
 * backend's site mode counts sites (backend-ptrace/ptrace-sites.c).
 *
 * The bpf backend's site mode (backend_execbp) is this backend with an
 * execute breakpoint in place of each uprobe, where debug registers
 * fire and the sites fit their slots: a perf event per site and thread
 * (threads made later inherit it), the same program's per-slot entry
 * on each, trapping before the instruction as a uprobe does, without
 * its out-of-line step (so a lock prefix and code in no file too).
 */
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>

#include "bp-events.h"
#include "bpf-prog.h"
#include "elf.h"
#include "filter.h"
#include "hmap.h"
#include "proc.h"
#include "record.h"
#include "regs.h"
#include "sites-where.h"
#include "util.h"
#include "watch.h"
#include "x86.h"
#include "bpf/wpuprobe.h"
#include "insn.skel.h"
#include "perf.h"

_Static_assert(WPU_NVALS == WP_ACCESS_NVALS, "the value budget: one");

#define TALLY_MAX	(1 << 20)	/* (site, address, thread) tallies */

struct uprobe_state {
	struct wpuprobe		*skel;
	int			 exec;		/* execute breakpoints */
	struct bpf_link		*links[WPU_MAXSITES];
	int			*fds;		/* exec: the events */
	size_t			 nfds, capfds;
	struct wp_hmap		 armed;		/* exec: tids armed */
	int			 pidfd;
	struct wp_maps		 maps;		/* the latest read: regions */
	uint64_t		 tls_below;	/* static TLS: its bytes below
						   a thread's pointer */
	struct wp_obs_site	 sites[WPU_MAXSITES];
};

/* A tally read from the map. */
struct utally {
	struct wpu_key		 k;
	struct wpu_val		 v;
};

_Static_assert(WPU_MAXSITES == SITES_MAX, "the sites of a watch: one");

static int
uprobe_fits(struct watch *w, int chosen, struct wp_error *e)
{
	const struct wp_site_spec *s;
	size_t i;

	(void)chosen;
	if (!sites_known(w, "uprobe backend", e))
		return 0;
	if (w->nsites > WPU_MAXSITES) {
		wp_error_set(e, WP_EXIT_ERROR, "%zu sites: the uprobe backend "
		    "counts at most %d", w->nsites, WPU_MAXSITES);
		return 0;
	}
	for (i = 0; i < w->nsites; i++) {
		s = &w->sites[i];
		if (!s->has_file_offset || s->path[0] != '/') {
			wp_error_set(e, WP_EXIT_ERROR, "site %d: 0x%llx is in "
			    "no file (anonymous code): a uprobe needs one",
			    s->id, (unsigned long long)s->addr);
			return 0;
		}
		/* arch/x86/kernel/uprobes.c: is_prefix_bad() */
		if (strncmp(s->in.text, "lock ", 5) == 0) {
			wp_error_set(e, WP_EXIT_ERROR, "site %d: '%s': the "
			    "kernel puts no uprobe on a lock-prefixed "
			    "instruction", s->id, s->in.text);
			return 0;
		}
	}
	return 1;
}

/*
 * Execute breakpoints: where debug registers fire, a slot a site on
 * each thread.
 */
static int
execbp_fits(struct watch *w, int chosen, struct wp_error *e)
{
	char why[200];
	int slots = tr_watch_slots();

	if (!sites_known(w, "bpf backend", e))
		return 0;
	if (slots > WPU_XSLOTS)
		slots = WPU_XSLOTS;
	if (w->nsites > (size_t)slots) {
		wp_error_set(e, WP_EXIT_ERROR, "%zu sites: an execute "
		    "breakpoint each takes a debug register, and %s",
		    w->nsites, tr_watch_slots_text());
		return 0;
	}
	if (bp_canary(chosen, why, sizeof why) == -1) {
		wp_error_set(e, WP_EXIT_NOBP, "%s", chosen ? "hardware "
		    "breakpoints cannot be used here" : why);
		return 0;
	}
	return 1;
}

static int
open_as(struct watch *w, int exec, struct wp_error *e)
{
	struct uprobe_state *u = wp_xcalloc(1, sizeof *u);
	size_t i;
	int err, fs = 0, gs = 0;

	bpfw_verbose(w->verbose);
	/* a uprobe is two: its perf event and the link */
	wp_need_fds("wp-arm", 2 * (int)w->nsites + 64);
	if ((u->skel = wpuprobe__open()) == NULL) {
		bpfw_load_error(e, errno);
		free(u);
		return -1;
	}
	/* the entry this mode runs, not the other's */
	u->exec = exec;
	bpf_program__set_autoload(u->skel->progs.on_insn, !exec);
	bpf_program__set_autoload(u->skel->progs.on_x0, exec);
	bpf_program__set_autoload(u->skel->progs.on_x1, exec);
	bpf_program__set_autoload(u->skel->progs.on_x2, exec);
	bpf_program__set_autoload(u->skel->progs.on_x3, exec);
	wp_hmap_init(&u->armed, 1);
	for (i = 0; i < w->nsites; i++) {
		fs |= w->sites[i].in.mem.seg == WP_FS_BASE;
		gs |= w->sites[i].in.mem.seg == WP_GS_BASE;
	}
	u->skel->rodata->with_fs = (__u32)fs;
	u->skel->rodata->with_gs = (__u32)gs;
	/* entries made as they are first met, not all at the load */
	bpf_map__set_max_entries(u->skel->maps.tally, TALLY_MAX);
	bpf_map__set_map_flags(u->skel->maps.tally, BPF_F_NO_PREALLOC);
	bpf_map__set_max_entries(u->skel->maps.runs, exec ? TALLY_MAX : 1);
	bpf_map__set_map_flags(u->skel->maps.runs, BPF_F_NO_PREALLOC);
	if ((err = wpuprobe__load(u->skel)) != 0) {
		bpfw_load_error(e, err < 0 ? -err : err);
		wpuprobe__destroy(u->skel);
		free(u);
		return -1;
	}
	u->pidfd = -1;
	wp_proc_maps(w->pid, &u->maps);
	u->tls_below = sites_static_tls(&u->maps);
	w->state = u;
	return 0;
}

static int
uprobe_open(struct watch *w, struct wp_error *e)
{
	return open_as(w, 0, e);
}

static int
execbp_open(struct watch *w, struct wp_error *e)
{
	return open_as(w, 1, e);
}

/* Site i's operand, as the program computes it. */
static void
site_conf(struct uprobe_state *u, const struct wp_site_spec *s, __u32 i)
{
	const struct wp_x86_mem *m = &s->in.mem;
	struct wpu_site c;

	memset(&c, 0, sizeof c);
	c.base = m->base;
	c.index = m->index;
	c.scale = (__u32)m->scale;
	c.seg = m->seg == WP_FS_BASE ? WPU_SEG_FS : m->seg == WP_GS_BASE ?
	    WPU_SEG_GS : WPU_SEG_NONE;
	c.rep = s->in.kind == WP_X86_STRING && s->in.rep ?
	    (__u32)s->in.width : 0;
	c.disp = m->disp;
	c.next_ip = m->rip_rel ? s->addr + (uint64_t)s->in.size : 0;
	c.addr32 = m->base_bytes == 4;
	c.writes = s->in.writes ? 1 : 0;
	c.reads = s->rw && s->in.reads ? 1 : 0;
	c.src = s->in.kind == WP_X86_REG_STORE ? s->in.src_reg : -1;
	c.shift = (__u32)s->in.src_shift;
	c.mask = s->in.width >= 8 || s->in.width <= 0 ? ~0ULL :
	    (1ULL << (8 * s->in.width)) - 1;
	bpf_map_update_elem(bpf_map__fd(u->skel->maps.conf), &i, &c, BPF_ANY);
}

/*
 * Decodes each site again from the process's code (lib/x86.c): what its
 * record does not carry, how its store takes its value; and the code
 * is still the instruction the record names.  0, or -1 with e set.
 */
static int
decode_sites(struct watch *w, struct wp_error *e)
{
	struct wp_site_spec *s;
	struct wp_x86_insn in;
	uint8_t code[16];
	size_t i;
	int fd, bad = 0;

	if ((fd = wp_proc_mem_open(w->pid)) == -1)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: cannot read "
		    "its code: %s", (int)w->pid, strerror(errno));
	for (i = 0; i < w->nsites && !bad; i++) {
		s = &w->sites[i];
		if (wp_x86_init() == -1 || wp_proc_read(fd, s->addr, code,
		    (size_t)s->in.size) == -1 || wp_x86_decode(code,
		    (size_t)s->in.size, s->addr, &in) == -1 ||
		    strcmp(in.text, s->in.text) != 0) {
			wp_error_set(e, WP_EXIT_ERROR, "site %d: the code at "
			    "0x%llx is no longer '%s'", s->id,
			    (unsigned long long)s->addr, s->in.text);
			bad = 1;
			break;
		}
		s->in.kind = in.kind;
		s->in.rep = in.rep;
		s->in.src_reg = in.src_reg;
		s->in.src_shift = in.src_shift;
		s->in.src_bytes = in.src_bytes;
	}
	close(fd);
	if (!bad && w->sites_if != NULL)
		return sites_if_check(w->sites_if, w->sites, w->nsites, e);
	return bad ? -1 : 0;
}

void
uprobe_release(struct watch *w)
{
	struct uprobe_state *u = w->state;
	size_t i;

	if (u == NULL)
		return;
	for (i = 0; i < WPU_MAXSITES; i++)
		bpf_link__destroy(u->links[i]);
	for (i = 0; i < u->nfds; i++)
		close(u->fds[i]);
	free(u->fds);
	wp_hmap_free(&u->armed);
	wpuprobe__destroy(u->skel);
	if (u->pidfd >= 0)
		close(u->pidfd);
	wp_proc_maps_free(&u->maps);
	free(u);
	w->state = NULL;
}

/* Both modes' start: the process held by a pidfd, its sites decoded
   again; 0, or -1 with e set and the state released. */
static int
arm_start(struct watch *w, struct uprobe_state *u, struct wp_error *e)
{
	if ((u->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0)) == -1 ||
	    !wp_proc_alive(w->pid, w->start_time)) {
		uprobe_release(w);
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: the process "
		    "has exited or its pid was reused", (int)w->pid);
	}
	if (decode_sites(w, e) == -1) {
		uprobe_release(w);
		return -1;
	}
	return 0;
}

static int
uprobe_arm(struct watch *w, struct wp_error *e)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	struct uprobe_state *u = w->state;
	const struct wp_site_spec *s;
	pid_t *tids = NULL;
	size_t i, n = 0;
	int err;

	if (arm_start(w, u, e) == -1)
		return -1;
	for (i = 0; i < w->nsites; i++) {
		s = &w->sites[i];
		site_conf(u, s, (__u32)i);
		o.bpf_cookie = i;
		u->links[i] = bpf_program__attach_uprobe_opts(
		    u->skel->progs.on_insn, w->pid, s->path,
		    (size_t)s->file_offset, &o);
		if ((err = libbpf_get_error(u->links[i])) != 0) {
			u->links[i] = NULL;
			uprobe_release(w);
			return wp_error_set(e, WP_EXIT_ERROR, "site %d: no "
			    "uprobe at %s+0x%llx: %s", s->id, s->path,
			    (unsigned long long)s->file_offset,
			    (err < 0 ? -err : err) == 524 ? "the kernel "
			    "refuses a uprobe on this instruction" :
			    strerror(err < 0 ? -err : err));
		}
	}
	/* every thread, those made later too: the uprobe is the process's */
	if (wp_proc_tasks(w->pid, &tids, &n) == 0)
		for (i = 0; i < n; i++)
			watch_thread(w, tids[i], THR_SEEDED);
	free(tids);
	w->armed.threads = n;
	w->armed.cpus = -1;
	w->armed.events = (long)w->nsites;
	w->armed.ring_pages = -1;
	return 0;
}

/*
 * An execute breakpoint on each site on thread tid, opened disabled, the
 * site's program attached, then enabled; threads it makes inherit them.
 * 0, or an errno.
 */
static int
exec_thread(struct watch *w, struct uprobe_state *u, pid_t tid)
{
	struct perf_bp bp;
	struct bpf_program *p[WPU_XSLOTS] = { u->skel->progs.on_x0,
	    u->skel->progs.on_x1, u->skel->progs.on_x2, u->skel->progs.on_x3 };
	size_t i;
	int fd;

	for (i = 0; i < w->nsites; i++) {
		memset(&bp, 0, sizeof bp);
		bp.addr = w->sites[i].addr;
		bp.exec = 1;
		bp.disabled = 1;
		if ((fd = perf_open_bp(&bp, tid, -1, 1)) == -1)
			return errno;
		if (u->nfds == u->capfds) {
			u->capfds = u->capfds ? 2 * u->capfds : 16;
			u->fds = wp_xrealloc(u->fds, u->capfds * sizeof *u->fds);
		}
		u->fds[u->nfds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF,
		    bpf_program__fd(p[i])) == -1 ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == -1)
			return errno;
	}
	return 0;
}

/*
 * Every thread there is, until a scan finds none new: a thread made
 * before its maker was armed has no event to inherit.
 */
static int
execbp_arm(struct watch *w, struct wp_error *e)
{
	struct uprobe_state *u = w->state;
	pid_t *tids = NULL;
	size_t i, n = 0, nnew, total = 0;
	int err, isnew;

	if (arm_start(w, u, e) == -1)
		return -1;
	for (i = 0; i < w->nsites; i++)
		site_conf(u, &w->sites[i], (__u32)i);
	if (filter_stops(w)) {
		struct wpu_stop st = { .want = 1 };
		__u32 z = 0;

		if (bpf_map_update_elem(bpf_map__fd(u->skel->maps.stop), &z,
		    &st, BPF_ANY) != 0) {
			uprobe_release(w);
			return wp_error_set(e, WP_EXIT_ERROR, "--stop: the "
			    "program's stop map: %s", strerror(errno));
		}
	}
	do {
		nnew = 0;
		free(tids);
		tids = NULL;
		if (wp_proc_tasks(w->pid, &tids, &n) == -1)
			break;
		for (i = 0; i < n; i++) {
			wp_hmap_put(&u->armed, (uint64_t)tids[i], 0, &isnew);
			if (!isnew)
				continue;
			nnew++;
			if ((err = exec_thread(w, u, tids[i])) == ESRCH)
				continue;
			if (err != 0) {
				free(tids);
				uprobe_release(w);
				return wp_error_set(e, WP_EXIT_ERROR, "thread "
				    "%d: an execute breakpoint: %s%s",
				    (int)tids[i], strerror(err), err == ENOSPC ?
				    " (another debugger or a system-wide perf "
				    "session may hold the debug registers)" :
				    "");
			}
			watch_thread(w, tids[i], THR_SEEDED);
			total++;
		}
	} while (nnew > 0);
	free(tids);
	w->armed.threads = total;
	w->armed.cpus = -1;
	w->armed.events = (long)u->nfds;
	w->armed.ring_pages = -1;
	return 0;
}

static void
uprobe_run(struct watch *w, uint64_t until)
{
	struct uprobe_state *u = w->state;
	struct pollfd pf[2] = { { u->pidfd, POLLIN, 0 },
	    { STDOUT_FILENO, 0, 0 } };
	struct timespec ts;
	struct wpu_stop st;
	uint64_t now = wp_now_ns();
	__u32 z = 0;

	ts.tv_sec = (time_t)((until > now ? until - now : 0) / 1000000000);
	ts.tv_nsec = (long)((until > now ? until - now : 0) % 1000000000);
	if (ppoll(pf, 2, &ts, &w->waitmask) > 0 && (pf[0].revents & POLLIN))
		w->stop_reason = wp_stop_names[WP_STOP_EXITED];
	/* --stop: the program stopped the first execution's thread */
	if (u->exec && filter_stops(w) &&
	    bpf_map_lookup_elem(bpf_map__fd(u->skel->maps.stop), &z, &st) == 0 &&
	    st.done > 0 && st.site < w->nsites)
		filter_site_stop(w, (pid_t)st.tid, w->sites[st.site].addr, 1);
}

/* Every tally, read from the map into *n (the caller frees them). */
static struct utally *
read_tallies(struct uprobe_state *u, size_t *n)
{
	struct wpu_key k, next, *prev = NULL;
	struct utally *t = NULL;
	size_t cap = 0;
	int fd = bpf_map__fd(u->skel->maps.tally);

	*n = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			t = wp_xrealloc(t, cap * sizeof *t);
		}
		t[*n].k = k;
		if (bpf_map_lookup_elem(fd, &k, &t[*n].v) == 0)
			(*n)++;
	}
	return t;
}

/*
 * The runs of rep strings an execute breakpoint counted, element by
 * element into the tallies *t (*n of them, room for *cap), added to the
 * tally of the same site, address and thread where there is one.
 */
static void
read_runs(struct watch *w, struct uprobe_state *u, struct utally **t,
    size_t *n)
{
	struct wpu_run_key k, next, *prev = NULL;
	struct wpu_run_val v;
	const struct wp_site_spec *s;
	struct wp_hmap at;
	size_t i, *ix, cap = *n;
	uint64_t e, a;
	int isnew, fd = bpf_map__fd(u->skel->maps.runs);

	wp_hmap_init(&at, sizeof(size_t));
	for (i = 0; i < *n; i++) {
		ix = wp_hmap_put(&at, (*t)[i].k.addr, (uint64_t)(*t)[i].k.site
		    << 32 | (*t)[i].k.tid, &isnew);
		*ix = i;
	}
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v) != 0 || k.site >= w->nsites)
			continue;
		s = &w->sites[k.site];
		for (e = 0; e < k.n; e++) {
			a = k.first + e * (uint64_t)k.step;
			ix = wp_hmap_put(&at, a, (uint64_t)k.site << 32 | k.tid,
			    &isnew);
			if (isnew) {
				if (*n == cap) {
					cap = cap ? 2 * cap : 1024;
					*t = wp_xrealloc(*t, cap * sizeof **t);
				}
				*ix = (*n)++;
				memset(&(*t)[*ix], 0, sizeof **t);
				(*t)[*ix].k.addr = a;
				(*t)[*ix].k.site = k.site;
				(*t)[*ix].k.tid = k.tid;
				(*t)[*ix].v.sp = v.sp;
				(*t)[*ix].v.tp = v.tp;
			}
			(*t)[*ix].v.writes += s->in.writes ? v.count : 0;
			(*t)[*ix].v.reads += s->rw && s->in.reads ? v.count : 0;
		}
	}
	wp_hmap_free(&at);
}

/* Every tally into access records, and the totals into the sites. */
static void
uprobe_count(struct watch *w)
{
	struct uprobe_state *u = w->state;
	struct utally *tl;
	struct site_thread *th;
	struct wpu_tot *t;
	struct wp_access_rec a;
	struct wp_maps maps;
	struct wp_hmap thr;
	const struct wp_map *mp;
	size_t i, n;
	int isnew, c, ncpu;

	ncpu = libbpf_num_possible_cpus();
	t = wp_xcalloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof *t);
	/* where each address lies, while the process is there to say */
	if (wp_proc_maps(w->pid, &maps) == 0) {
		wp_proc_maps_free(&u->maps);
		u->maps = maps;
	}
	for (i = 0; i < w->nsites; i++) {
		u->sites[i].id = w->sites[i].id;
		u->sites[i].addresses = 0;
		u->sites[i].counted_by = (u->exec ? WP_BK_BPF : WP_BK_UPROBE) +
		    1;
		if (bpf_map_lookup_elem(bpf_map__fd(u->skel->maps.totals), &i,
		    t) == 0) {
			u->sites[i].executions = 0;
			u->sites[i].tally_full = 0;
			u->sites[i].segment_unread = 0;
			for (c = 0; c < ncpu; c++) {
				u->sites[i].executions += t[c].execs;
				u->sites[i].tally_full += t[c].full;
				u->sites[i].segment_unread += t[c].noseg;
			}
		}
	}
	free(t);
	tl = read_tallies(u, &n);
	if (u->exec)
		read_runs(w, u, &tl, &n);
	wp_hmap_init(&thr, sizeof(struct site_thread));
	for (i = 0; i < n; i++) {
		th = wp_hmap_put(&thr, tl[i].k.tid, 0, &isnew);
		if (!isnew)
			continue;
		th->tid = (pid_t)tl[i].k.tid;
		th->sp = tl[i].v.sp;
		th->tp = tl[i].v.tp;
		th->stack = wp_proc_maps_find(&u->maps, th->sp);
	}
	for (i = 0; i < n; i++) {
		const struct wpu_key *k = &tl[i].k;
		const struct wpu_val *v = &tl[i].v;

		if (k->site >= w->nsites)
			continue;
		u->sites[k->site].addresses++;
		memset(&a, 0, sizeof a);
		a.site = w->sites[k->site].id;
		a.addr = k->addr;
		a.tid = (pid_t)k->tid;
		a.writes = v->writes;
		a.reads = v->reads;
		a.time_ns = watch_time(w, wp_now_ns());
		a.backend = wp_backend_names[u->exec ? WP_BK_BPF :
		    WP_BK_UPROBE];
		if (w->sites[k->site].in.kind == WP_X86_REG_STORE) {
			a.has_values = 1;
			a.first = v->first;
			a.last = v->last;
			a.nvals = v->nvals < WPU_NVALS ? v->nvals : WPU_NVALS;
			memcpy(a.vals, v->vals, sizeof a.vals);
			memcpy(a.vn, v->vn, sizeof a.vn);
			a.vother = v->vother;
		}
		if ((mp = wp_proc_maps_find(&u->maps, k->addr)) != NULL) {
			snprintf(a.region, sizeof a.region, "%s",
			    mp->path != NULL ? mp->path : "[anon]");
			a.map_start = mp->start;
		}
		sites_whose(u->tls_below, w->pid, &thr, mp, k->addr, &a);
		sites_match(w->sites_if, &w->sites[k->site], &a);
		watch_thread(w, a.tid, THR_INHERITED);
		if (emit_access(w, &a) == -1)
			break;
	}
	wp_hmap_free(&thr);
	free(tl);
}

static void
uprobe_rearm(struct watch *w, size_t ti)
{
	(void)w;
	(void)ti;
}

static void
uprobe_disarm(struct watch *w)
{
	struct uprobe_state *u = w->state;
	struct sites_obs *o = w->obs;
	size_t i;

	if (u == NULL)
		return;
	for (i = 0; i < WPU_MAXSITES; i++) {
		bpf_link__destroy(u->links[i]);
		u->links[i] = NULL;
	}
	for (i = 0; i < u->nfds; i++)
		close(u->fds[i]);
	u->nfds = 0;
	uprobe_count(w);
	memcpy(o->sites, u->sites, sizeof o->sites);
	o->up.nsites = w->nsites;
	uprobe_release(w);
}

static void
uprobe_observe(struct watch *w, struct wp_observation *o)
{
	struct sites_obs *uo = w->obs;

	uo->up.sites = uo->sites;
	o->uprobe = &uo->up;
}

const struct backend backend_execbp = {
	.id = WP_BK_BPF,
	.caps = BK_SITES | BK_TALLIES,
	.chosen = "the bpf backend (an execute breakpoint on each "
	    "instruction, every execution counted per address and thread in "
	    "the kernel)",
	.cond_where = CW_KERNEL, .obs_size = sizeof(struct sites_obs),
	.fits = execbp_fits, .open = execbp_open, .arm = execbp_arm,
	.run = uprobe_run, .count = uprobe_count, .rearm = uprobe_rearm,
	.disarm = uprobe_disarm, .observe = uprobe_observe
};

const struct backend backend_uprobe = {
	.id = WP_BK_UPROBE,
	.caps = BK_SITES | BK_TALLIES,
	.chosen = "the uprobe backend (every execution of each instruction "
	    "counted per address and thread in the kernel)",
	.obs_size = sizeof(struct sites_obs),
	.fits = uprobe_fits, .open = uprobe_open, .arm = uprobe_arm,
	.run = uprobe_run, .count = uprobe_count, .rearm = uprobe_rearm,
	.disarm = uprobe_disarm, .observe = uprobe_observe
};
