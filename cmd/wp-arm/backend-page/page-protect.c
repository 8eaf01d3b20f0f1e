/*
 * Which pages the page backend protects: those the armed ranges lie on,
 * each checked (a page that cannot be watched this way is refused, with
 * the reason), protected at arming (or when a process stopped then is
 * continued), and synced again when a pointer chain moves a range.
 */
#include <sys/ptrace.h>
#include <sys/user.h>

#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"
#include "proc.h"
#include "util.h"

/* Page addr's entry, added (nothing known of it yet) when new. */
static struct ppage *
page_add(struct page_state *s, uint64_t addr)
{
	struct ppage *p;
	size_t k;

	if ((p = page_find(s, addr)) != NULL)
		return p;
	p = wp_xcalloc(1, sizeof *p);
	p->addr = addr & ~(PAGE_SZ - 1);
	s->pg = wp_xrealloc(s->pg, (s->npg + 1) * sizeof *s->pg);
	/* kept sorted: an insertion, pages are few */
	for (k = s->npg++; k > 0 && s->pg[k - 1]->addr > p->addr; k--)
		s->pg[k] = s->pg[k - 1];
	s->pg[k] = p;
	return p;
}

void
page_collect(struct watch *w, struct page_state *s)
{
	uint64_t a, end;
	size_t i;

	struct ppage *p;

	for (i = 0; i < s->npg; i++)
		s->pg[i]->needed = s->pg[i]->rw = 0;
	for (i = 0; i < w->nt; i++) {
		if (!w->t[i].armed)
			continue;
		end = w->t[i].addr + (uint64_t)w->t[i].len;
		for (a = w->t[i].addr & ~(PAGE_SZ - 1); a < end; a += PAGE_SZ) {
			p = page_add(s, a);
			p->needed = 1;
			p->rw |= w->t[i].rw;
		}
	}
	obs(w)->pages = s->npg;
}

/* The target entry whose range holds addr, for messages. */
static int
target_at(struct watch *w, uint64_t page)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i].addr < page + PAGE_SZ &&
		    page < w->t[i].addr + (uint64_t)w->t[i].len)
			return w->t[i].id;
	return -1;
}

/*
 * A seized thread whose stack pointer is on page p or the page below
 * it (its pushes and calls will fault at every turn), or 0.
 */
static pid_t
stack_of(struct page_state *s, const struct ppage *p)
{
	struct user_regs_struct u;
	size_t i;

	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i]->state == TR_STOPPED &&
		    tr_getregs(s->tr.t[i]->tid, &u) == 0 &&
		    tr_sp(&u) - tr_red_zone < p->addr + PAGE_SZ &&
		    p->addr <= tr_sp(&u) + PAGE_SZ)
			return s->tr.t[i]->tid;
	return 0;
}

/*
 * Page p's own protection, from maps; a page that cannot be watched
 * this way is refused with the reason (and advice).  0, or -1.
 */
static int
check_page(struct watch *w, struct page_state *s, struct ppage *p,
    const struct wp_maps *maps, const char *advice, struct wp_error *e)
{
	const struct wp_map *m;
	pid_t tid;
	int rc = 0;

	if ((m = wp_proc_maps_find(maps, p->addr)) == NULL)
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is not mapped", target_at(w, p->addr),
		    p->addr);
	else if (m->perms[3] == 's')
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is shared memory (%s): another process "
		    "could write it unseen, and its protection is not "
		    "this process's alone%s", target_at(w, p->addr),
		    p->addr, m->path ? m->path : "MAP_SHARED", advice);
	else if (m->perms[1] != 'w')
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is not writable (%s): nothing writes "
		    "it as it is", target_at(w, p->addr), p->addr,
		    m->perms);
	else if (p->rw && m->perms[2] == 'x')
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " is executable (%s): -a rw takes every "
		    "access away from the page, its code's fetches too%s",
		    target_at(w, p->addr), p->addr, m->perms, advice);
	else if ((tid = page_rseq_park(s, p)) != 0)
		rc = wp_error_set(e, WP_EXIT_ERROR, "target %d: page "
		    "0x%" PRIx64 " holds the rseq area of thread %d, "
		    "which the kernel writes as it schedules the thread "
		    "(and kills it when it cannot)%s",
		    target_at(w, p->addr), p->addr, (int)tid, advice);
	else if ((tid = stack_of(s, p)) != 0 && *advice != '\0')
		warnx("target %d: page 0x%" PRIx64 " is on the stack of "
		    "thread %d: each push and call there faults and is "
		    "stepped, and its system calls' writes there give the "
		    "page back: the watch will be slow",
		    target_at(w, p->addr), p->addr, (int)tid);
	if (rc == 0) {
		p->own = page_prot_of(m->perms);
		p->known = 1;
	}
	return rc;
}

int
page_check(struct watch *w, struct page_state *s, const char *advice,
    struct wp_error *e)
{
	struct wp_maps maps;
	char what[96];
	size_t i;
	int rc = 0;

	if (wp_proc_maps(w->pid, &maps) == -1)
		return wp_error_set(e, WP_EXIT_PROCESS, "pid %d: maps: %s",
		    (int)w->pid, strerror(errno));
	for (i = 0; i < s->npg && rc == 0; i++)
		if (s->pg[i]->needed && !s->pg[i]->known && !s->pg[i]->gone)
			rc = check_page(w, s, s->pg[i], &maps, advice, e);
	if (rc == 0 && wp_proc_async_io(w->pid, &maps, what,
	    sizeof what) == 1) {
		/* auto: the ptrace backend watches such a process as is */
		if (s->probe)
			rc = wp_error_set(e, WP_EXIT_ERROR, "pid %d has %s: "
			    "the reads it completes into the watched pages "
			    "would fail with EFAULT while they are protected",
			    (int)w->pid, what);
		else
			page_async_io(w, what);
	}
	wp_proc_maps_free(&maps);
	return rc;
}

void
page_async_io(struct watch *w, const char *what)
{
	warnx("pid %d has %s: a read it completes into the watched pages "
	    "fails with EFAULT while they are protected, unseen, and the "
	    "counts are a lower bound (page_async_io; --backend ptrace "
	    "lets it run as it would)", (int)w->pid, what);
	obs(w)->async_io++;
}

/* Whether every thread of the process is in group-stop (SIGSTOP). */
static int
group_stopped(const struct page_state *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->tr.n; i++) {
		if (s->tr.t[i]->tgid != s->tr.pid ||
		    s->tr.t[i]->state == TR_GONE)
			continue;
		if (s->tr.t[i]->state != TR_STOPPED ||
		    s->tr.t[i]->stop != TR_GROUP)
			return 0;
		n++;
	}
	return n > 0;
}

int
page_protect(struct watch *w, struct page_state *s, struct wp_error *e)
{
	struct tr_thread *t;
	size_t i;

	if ((t = page_injectable(s)) == NULL && group_stopped(s)) {
		/* mprotect cannot run without running the thread */
		warnx("pid %d is stopped (SIGSTOP): its pages are protected "
		    "when it is continued", (int)w->pid);
		s->arm_pending = 1;
		return 0;
	}
	if (t == NULL)
		return wp_error_set(e, WP_EXIT_ERROR, "pid %d: no thread "
		    "stopped where mprotect can run", (int)w->pid);
	page_segv_learn(s, t);
	for (i = 0; i < s->npg; i++)
		if (s->pg[i]->needed && page_mprotect(s, t, s->pg[i],
		    page_guard_prot(s->pg[i])) == -1) {
			page_restore(s, t);
			return wp_error_set(e, WP_EXIT_ERROR, "target %d: "
			    "mprotect of page 0x%" PRIx64 " in the process "
			    "failed", target_at(w, s->pg[i]->addr),
			    s->pg[i]->addr);
		}
	return 0;
}

void
page_arm_late(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct wp_error e = { 0, "" };

	s->arm_pending = 0;
	tr_hold(&s->tr, t);
	if (page_protect(w, s, &e) == -1) {
		warnx("%s: not watched", e.msg);
		w->modify_errors++;
	}
	tr_release(&s->tr);
}

/*
 * After a chain moved, with t stopped and the other threads held: the
 * pages the armed ranges need now are guarded, those none needs any
 * more given their own protection back.  A page that cannot be watched
 * leaves its range unwatched: said once, and the counts are a lower
 * bound (follow_rearm_failed).
 */
static void
page_sync(struct watch *w, struct page_state *s, struct tr_thread *t)
{
	struct wp_error e = { 0, "" };
	struct wp_maps maps;
	struct ppage *p;
	size_t i;

	page_collect(w, s);
	if (wp_proc_maps(w->pid, &maps) == -1)
		return;
	for (i = 0; i < s->npg; i++) {
		p = s->pg[i];
		if (p->gone || p->open > 0 || (p->needed == p->guarded &&
		    (!p->needed || p->prot == page_guard_prot(p))))
			continue;
		if (!p->needed) {
			page_mprotect(s, t, p, p->own);
			continue;
		}
		if (!p->known && check_page(w, s, p, &maps, "", &e) == -1) {
			warnx("%s: not watched there", e.msg);
			p->gone = 1;
			w->modify_errors++;
			continue;
		}
		if (page_mprotect(s, t, p, page_guard_prot(p)) == -1)
			w->modify_errors++;
	}
	wp_proc_maps_free(&maps);
}

void
page_follow(struct watch *w, struct page_state *s)
{
	struct tr_thread *t;
	int *changed, hold = !s->holding, any = 0;
	size_t ci;

	for (ci = 0; ci < w->nchains; ci++)
		any |= w->chains[ci].dirty;
	if (!any)
		return;
	if (hold)
		tr_hold(&s->tr, NULL);
	changed = wp_xcalloc(w->nchains, sizeof *changed);
	for (ci = 0; ci < w->nchains; ci++)
		changed[ci] = follow_dirty(w, ci) &&
		    follow_rebind(w, s->tr.memfd, ci);
	if (s->moved && (t = page_injectable(s)) != NULL)
		page_sync(w, s, t);
	s->moved = 0;
	for (ci = 0; ci < w->nchains; ci++)
		if (changed[ci])
			follow_record(w, ci, 0, 1, 0);
	free(changed);
	if (hold)
		tr_release(&s->tr);
}
