/*
 * sites-where: whose stack or TLS an address a site accessed is (the
 * access records' stack_of, tls_of), and the counters in w->obs, shared
 * by the backends that count sites (uprobe, ptrace's site mode, and the
 * two together: sites-split.c).
 */
#ifndef WPARM_SITES_WHERE_H
#define WPARM_SITES_WHERE_H

#include <sys/types.h>
#include <stdint.h>

#include "hmap.h"
#include "proc.h"
#include "record.h"

/*
 * Above a thread's pointer (its fs base) lies glibc's thread descriptor
 * (struct pthread, its tcbhead first: fs:0x28 is the stack guard), below
 * it the static TLS blocks of the modules loaded at the start: what of
 * the descriptor is named the thread's TLS.
 */
#define TCB_BYTES	0x700

#define SITES_MAX	1024	/* instructions counted in one watch */

/* A site backend's w->obs: its counts per site (the observation's). */
struct sites_obs {
	struct wp_obs_uprobe	 up;
	struct wp_obs_site	 sites[SITES_MAX];
};

struct watch;

/*
 * The uprobe backend's state let go, nothing counted (a split watch
 * whose other half failed to arm).
 */
void	 uprobe_release(struct watch *w);

/* A thread that executed a site: where its stack and TLS are. */
struct site_thread {
	pid_t			 tid;
	uint64_t		 sp, tp;
	const struct wp_map	*stack;		/* the mapping that holds sp */
};

/*
 * The static TLS below a thread's pointer: the PT_TLS blocks of the
 * modules mapped now (m).
 */
uint64_t sites_static_tls(const struct wp_maps *m);
/*
 * Whose stack or TLS address a (in mapping mp, NULL: none) is, of the
 * threads th (struct site_thread, keyed by tid) into ac.
 */
void	 sites_whose(uint64_t tls_below, pid_t pid, const struct wp_hmap *th,
	    const struct wp_map *mp, uint64_t a, struct wp_access_rec *ac);

struct wp_cond;
struct wp_site_spec;
/*
 * --if on the accesses of the n sites s (decoded: their kind known; 0
 * before): 0, or -1 with e set (status WP_EXIT_USAGE) when c asks what
 * a site's execution does not know (writer, comm, changed), or the
 * value of a site that is no register store (its value is not known
 * before it runs).
 */
int	 sites_if_check(const struct wp_cond *c, const struct wp_site_spec *s,
	    size_t n, struct wp_error *e);
/*
 * Which of ac's executions (of site s) match c (NULL: no --if): its
 * addr and tid decide them all; a value test, each value of the budget,
 * the values past it not known.
 */
void	 sites_match(const struct wp_cond *c, const struct wp_site_spec *s,
	    struct wp_access_rec *ac);
/* Whether one execution (its value where has_value) matches c (NULL: 1). */
/*
 * What every backend of sites needs of them: the machine's decoder, and
 * the bytes of each string store's elements.  1, else 0 with e set (who:
 * "the WHO: why").
 */
int	 sites_known(struct watch *w, const char *who, struct wp_error *e);
int	 sites_match_one(const struct wp_cond *c, const struct wp_site_spec *s,
	    pid_t tid, uint64_t addr, int has_value, uint64_t value);

#endif
