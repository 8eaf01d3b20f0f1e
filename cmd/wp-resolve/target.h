/*
 * target: each address to watch, located in the process, checked, and
 * written as its target or follow record.
 */
#ifndef WPRESOLVE_TARGET_H
#define WPRESOLVE_TARGET_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "view.h"

struct target_opts {
	size_t		 len;		/* 0: the symbol's size, else 4 */
	int		 rw;		/* -a rw */
	int		 no_slot_limit;
	pid_t		 tid;		/* --tid: whose thread-local copy */
};

/* A resolved address: what it occupies and its record line. */
struct target {
	uint64_t	 addr;
	size_t		 len;
	const char	*warning;	/* NULL, or one to print */
	char		 past[160];	/* "", or the offset past the end */
	char		*line;		/* the record, allocated */
	size_t		 linelen;
};

/*
 * Locate a (input as the user wrote it) or the chain f in the process
 * and fill t.  Returns 0, or -1 with err saying what is wrong.  t is
 * released with target_free either way.
 */
int	 target_resolve(struct view *v, int id, const char *input,
	    const struct addr *a, const struct target_opts *o,
	    struct target *t, char *err, size_t errsz);
int	 target_follow(struct view *v, int id, const char *input,
	    const struct follow *f, const struct target_opts *o,
	    struct target *t, char *err, size_t errsz);
void	 target_free(struct target *t);

#endif
