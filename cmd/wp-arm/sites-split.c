/*
 * Sites split between two backends, in one watch: the uprobe backend
 * counts every site a uprobe can take, the ptrace backend's site mode
 * (an int3 each, slow) only the others (a lock prefix, code in no file).
 * Each half is the backend itself, run on its share of w->sites with a
 * w->state and w->obs of its own, swapped in around each call; so the
 * table of backends keeps one backend a watch, and neither half knows
 * of the other.  Each access record and each site of the observation
 * says which half counted it.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sites-where.h"
#include "util.h"
#include "watch.h"

enum { UP, PT, NHALVES };

static const struct backend *const half[NHALVES] = {
	&backend_uprobe, &backend_ptrace_sites
};

struct split_state {
	struct wp_site_spec	*sites[NHALVES];	/* each half's share */
	size_t			 n[NHALVES];
	void			*state[NHALVES];
};

/* w->obs: the merged counts the observation shows, and each half's. */
struct split_obs {
	struct sites_obs	 merged;
	struct sites_obs	 obs[NHALVES];
};

/* What a call into half k swaps out of the watch. */
struct saved {
	struct wp_site_spec	*sites;
	size_t			 n;
	void			*state, *obs;
	const struct backend	*backend;
};

static void
enter(struct watch *w, int k, struct saved *sv)
{
	struct split_state *ss = w->state;
	struct split_obs *so = w->obs;

	sv->sites = w->sites;
	sv->n = w->nsites;
	sv->state = w->state;
	sv->obs = w->obs;
	sv->backend = w->backend;
	w->sites = ss->sites[k];
	w->nsites = ss->n[k];
	w->state = ss->state[k];
	w->obs = &so->obs[k];
	w->backend = half[k];
}

static void
leave(struct watch *w, int k, const struct saved *sv)
{
	struct split_state *ss = sv->state;

	ss->state[k] = w->state;
	w->sites = sv->sites;
	w->nsites = sv->n;
	w->state = sv->state;
	w->obs = sv->obs;
	w->backend = sv->backend;
}

/* Whether half k's fits() takes the n sites s (else e says why). */
static int
takes(struct watch *w, int k, struct wp_site_spec *s, size_t n,
    struct wp_error *e)
{
	struct wp_site_spec *all = w->sites;
	size_t nall = w->nsites;
	int ok;

	w->sites = s;
	w->nsites = n;
	ok = half[k]->fits(w, 0, e);
	w->sites = all;
	w->nsites = nall;
	return ok;
}

/*
 * Which half takes site i: a uprobe where one can be, the int3 else.
 * UP or PT; -1 (e set) where neither does.
 */
static int
half_of(struct watch *w, size_t i, struct wp_error *e)
{
	if (takes(w, UP, &w->sites[i], 1, e))
		return UP;
	return takes(w, PT, &w->sites[i], 1, e) ? PT : -1;
}

/*
 * Only for a watch both halves share: the refusal when one half takes
 * every site is the uprobe backend's own (as auto said it before), so
 * that auto's reason line names it once.
 */
static int
split_fits(struct watch *w, int chosen, struct wp_error *e)
{
	struct wp_error first = { 0, "" };
	size_t i, n[NHALVES] = { 0, 0 };
	int k;

	(void)chosen;
	if (w->nsites > SITES_MAX)
		return !wp_error_set(e, WP_EXIT_ERROR, "%zu sites: the "
		    "uprobe and ptrace backends count at most %d", w->nsites,
		    SITES_MAX);
	for (i = 0; i < w->nsites; i++) {
		if ((k = half_of(w, i, e)) == -1)
			return 0;
		if (k == PT && first.msg[0] == '\0')
			takes(w, UP, &w->sites[i], 1, &first);
		n[k]++;
	}
	if (n[UP] == 0 || n[PT] == 0) {
		if (n[PT] > 0)
			*e = first;
		else
			wp_error_set(e, WP_EXIT_ERROR, "every site takes a "
			    "uprobe: no share for the ptrace backend");
		return 0;
	}
	return 1;
}

static int
split_open(struct watch *w, struct wp_error *e)
{
	struct split_state *ss = wp_xcalloc(1, sizeof *ss);
	struct wp_error ignored;
	struct saved sv;
	size_t i;
	int k, rc;

	for (k = 0; k < NHALVES; k++)
		ss->sites[k] = wp_xcalloc(w->nsites, sizeof *ss->sites[k]);
	for (i = 0; i < w->nsites; i++) {
		if ((k = half_of(w, i, &ignored)) == -1)
			k = PT;		/* its arm() says why */
		ss->sites[k][ss->n[k]++] = w->sites[i];
	}
	w->state = ss;
	rc = 0;
	for (k = 0; k < NHALVES && rc == 0; k++)
		if (half[k]->open != NULL) {
			enter(w, k, &sv);
			rc = half[k]->open(w, e);
			leave(w, k, &sv);
		}
	if (rc == -1) {
		if (ss->state[UP] != NULL) {
			enter(w, UP, &sv);
			uprobe_release(w);
			leave(w, UP, &sv);
		}
		for (k = 0; k < NHALVES; k++)
			free(ss->sites[k]);
		free(ss);
		w->state = NULL;
	}
	return rc;
}

static void
split_free(struct watch *w)
{
	struct split_state *ss = w->state;
	int k;

	for (k = 0; k < NHALVES; k++)
		free(ss->sites[k]);
	free(ss);
	w->state = NULL;
}

/* The uprobes first: the int3s are written into the pages they left. */
static int
split_arm(struct watch *w, struct wp_error *e)
{
	struct saved sv;
	int rc;

	enter(w, UP, &sv);
	rc = half[UP]->arm(w, e);
	leave(w, UP, &sv);
	if (rc == -1) {
		split_free(w);
		return -1;
	}
	enter(w, PT, &sv);
	rc = half[PT]->arm(w, e);
	leave(w, PT, &sv);
	if (rc == -1) {
		enter(w, UP, &sv);
		uprobe_release(w);
		leave(w, UP, &sv);
		split_free(w);
		return -1;
	}
	w->armed.events = (long)w->nsites;
	return 0;
}

/* The tracer's loop runs the watch; the uprobes count in the kernel. */
static void
split_run(struct watch *w, uint64_t until)
{
	struct saved sv;

	enter(w, PT, &sv);
	half[PT]->run(w, until);
	leave(w, PT, &sv);
}

static void
split_count(struct watch *w)
{
	struct saved sv;
	int k;

	for (k = 0; k < NHALVES; k++) {
		enter(w, k, &sv);
		half[k]->count(w);
		leave(w, k, &sv);
	}
}

static void
split_rearm(struct watch *w, size_t ti)
{
	(void)w;
	(void)ti;
}

/* The int3s out first, then the uprobes: the pages as they were. */
static void
split_disarm(struct watch *w)
{
	struct saved sv;
	int k;

	if (w->state == NULL)
		return;
	for (k = NHALVES - 1; k >= 0; k--) {
		enter(w, k, &sv);
		half[k]->disarm(w);
		leave(w, k, &sv);
	}
	split_free(w);
}

/*
 * Each half's counts per site, in the order of the sites (w->sites; the
 * state may be gone: a supervisor's).
 */
static void
split_observe(struct watch *w, struct wp_observation *o)
{
	struct split_obs *so = w->obs;
	const struct sites_obs *h;
	size_t i, j, n = 0;
	int k;

	for (i = 0; i < w->nsites && n < SITES_MAX; i++)
		for (k = 0; k < NHALVES; k++) {
			h = &so->obs[k];
			for (j = 0; j < h->up.nsites; j++)
				if (h->sites[j].id == w->sites[i].id)
					so->merged.sites[n++] = h->sites[j];
		}
	so->merged.up.nsites = n;
	so->merged.up.sites = so->merged.sites;
	o->uprobe = &so->merged.up;
}

const struct backend backend_sites_split = {
	.id = WP_BK_SPLIT,
	.caps = BK_SITES | BK_TRACES,
	.chosen = "the uprobe backend, and the ptrace backend for the "
	    "sites no uprobe can take (an int3 at each, every execution "
	    "counted per address and thread, the instruction "
	    "single-stepped: exact, but slow)",
	.orphan_signal = SIGTRAP,
	.obs_size = sizeof(struct split_obs),
	.fits = split_fits, .open = split_open, .arm = split_arm,
	.run = split_run, .count = split_count, .rearm = split_rearm,
	.disarm = split_disarm, .observe = split_observe
};
