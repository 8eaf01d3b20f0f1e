/*
 * The one table of backends, in the order auto tries them: debug
 * registers with a BPF program, without one (the perf ring), page
 * protection, single-step; and for instructions (site records), an
 * execute breakpoint with a BPF program (the bpf backend's site mode:
 * the same word, bpf), a uprobe with the same program; uprobes where they can be and int3s at
 * the sites they cannot (sites-split.c: auto's only); else an int3 the
 * ptrace backend traps at (its site mode: the same word, ptrace, the
 * kind of the watch picks).  Nothing else in wp-arm lists them.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "watch.h"

const struct backend *const backends[] = {
	&backend_bpf, &backend_perf, &backend_page, &backend_ptrace,
	&backend_execbp, &backend_uprobe, &backend_sites_split,
	&backend_ptrace_sites, NULL
};

const struct backend *
backend_named(const char *option)
{
	const struct backend *const *b;

	for (b = backends; *b != NULL; b++)
		if (BK_WORD(*b) != NULL && strcmp(BK_WORD(*b), option) == 0)
			return *b;
	errx(WP_EXIT_ERROR, "--backend %s: not in wp-arm's table of backends",
	    option);
}

/* "bpf and perf": the --backend words of the backends with caps */
const char *
backend_words_with(unsigned caps)
{
	static char buf[128];
	const struct backend *const *b;
	const char *last = NULL;
	size_t n = 0;

	buf[0] = '\0';
	for (b = backends; *b != NULL; b++) {
		if (((*b)->caps & caps) != caps || BK_WORD(*b) == NULL)
			continue;
		if (last != NULL)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s",
			    n > 0 ? ", " : "", last);
		last = BK_WORD(*b);
	}
	if (last != NULL)
		snprintf(buf + n, sizeof buf - n, "%s%s", n > 0 ? " and " : "",
		    last);
	return buf;
}

int
backend_for(const struct watch *w, const struct backend *b)
{
	return (w->nsites > 0) == ((b->caps & BK_SITES) != 0);
}

int
backend_fits(struct watch *w, const struct backend *b, int chosen,
    struct wp_error *e)
{
	int ok;

	/* instructions (site records) or addresses: one kind a watch */
	if (w->nsites > 0 && !(b->caps & BK_SITES)) {
		wp_error_set(e, WP_EXIT_ERROR, "the %s backend watches "
		    "addresses, not instructions (site records): --backend "
		    "uprobe counts those", BK_WORD(b));
		return 0;
	}
	/* said of no one backend: auto tries each that counts sites */
	if ((b->caps & BK_SITES) && w->nsites > 0 && w->nt > 0) {
		wp_error_set(e, WP_EXIT_ERROR, "site records are counted "
		    "(instructions' addresses), targets watched: a watch of "
		    "its own each");
		return 0;
	}
	if ((b->caps & BK_SITES) && w->nsites == 0) {
		wp_error_set(e, WP_EXIT_ERROR, "the %s backend counts "
		    "instructions' addresses (site records)", BK_WORD(b));
		return 0;
	}
	if (b->fits == NULL)
		return 1;
	free(w->obs);
	w->obs = wp_xcalloc(1, b->obs_size > 0 ? b->obs_size : 1);
	w->backend = b;
	ok = b->fits(w, chosen, e);
	w->backend = NULL;
	return ok;
}

/* One backend, named by the user: its refusal is its own. */
static int
chosen(struct watch *w, const struct backend *b, struct wp_error *e)
{
	if (!backend_fits(w, b, 1, e))
		return -1;
	if (watch_use(w, b, e) == 0)
		return 0;
	warnx("%s", e->msg);
	return -1;
}

/* Adds why to the reasons passed over, once each (cut at sz). */
static void
passed_over(char *reasons, size_t sz, const char *why)
{
	size_t n = strlen(reasons), m = strlen(why);

	if (strstr(reasons, why) != NULL)
		return;
	if (n > 0) {
		if (n + 6 >= sz)
			return;
		memcpy(reasons + n, ", and ", 6);
		n += 6;
	}
	if (m >= sz - n)
		m = sz - n - 1;
	memcpy(reasons + n, why, m);
	reasons[n + m] = '\0';
}

int
backend_choose(struct watch *w, const char *name, struct wp_error *e)
{
	const struct backend *const *b;
	char reasons[512] = "";

	if (strcmp(name, "auto") != 0) {
		/* a word may name one for addresses and one for sites */
		for (b = backends; *b != NULL; b++)
			if (BK_WORD(*b) != NULL &&
			    strcmp(BK_WORD(*b), name) == 0 && backend_for(w, *b))
				return chosen(w, *b, e);
		return chosen(w, backend_named(name), e);
	}
	for (b = backends; *b != NULL; b++) {
		if (!backend_for(w, *b))
			continue;
		if (backend_fits(w, *b, 0, e) && watch_use(w, *b, e) == 0) {
			if (reasons[0] != '\0')
				warnx("%s: using %s", reasons, (*b)->chosen);
			return 0;
		}
		passed_over(reasons, sizeof reasons, e->msg);
	}
	return -1;
}
