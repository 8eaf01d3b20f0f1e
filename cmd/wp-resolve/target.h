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
#include "record.h"
#include "view.h"

/* The limits the targets are checked by (--backend). */
enum limits {
	LIMITS_AUTO,	/* the debug registers' when the targets fit them */
	LIMITS_DR,	/* bpf, perf: 1, 2, 4 or 8 aligned bytes, 4 slots */
	LIMITS_NONE	/* ptrace, page: any length, any number */
};

struct target_opts {
	size_t		 len;		/* 0: the symbol's size, else 4 */
	int		 rw;		/* -a rw */
	enum limits	 limits;	/* LIMITS_AUTO is decided by main */
	pid_t		 tid;		/* --tid: whose thread-local copy */
};

/*
 * A resolved address: what it occupies and its records.  A target the
 * debug registers watch in several slots has a record per slot.
 */
struct target {
	const char	*input;		/* as the user wrote it */
	const struct addr *a;		/* NULL for a follow chain */
	uint64_t	 addr;
	size_t		 len;
	char		 past[160];	/* "", or the offset past the end */
	char		**lines;	/* the records, allocated */
	size_t		 nlines;
};

/*
 * Locate a (input as the user wrote it) in the process and fill t's
 * place: addr and len.  With o->limits LIMITS_DR a value of 8 bytes or
 * fewer must fit one debug register.  Returns 0, or -1 with err saying
 * what is wrong.  a and input must outlive t; t is released with
 * target_free either way.
 */
int	 target_resolve(struct view *v, const char *input,
	    const struct addr *a, const struct target_opts *o,
	    struct target *t, char *err, size_t errsz);
/*
 * Writes the target records of t: one for the whole, or one per piece
 * when npieces > 1 (plen their lengths, from t->addr on), each named by
 * the address form that reaches it.  *id is the next record id, and is
 * advanced.  A warning for the user, if any, is printed.
 */
void	 target_records(struct view *v, int *id, const struct target_opts *o,
	    struct target *t, const size_t *plen, size_t npieces);
/* Locate the chain f and write its follow record with id; 0, or -1. */
int	 target_follow(struct view *v, int id, const char *input,
	    const struct follow *f, const struct target_opts *o,
	    struct target *t, char *err, size_t errsz);
void	 target_free(struct target *t);
/*
 * Turns any ADDR form into a runtime address (*symsize: the symbol's
 * size for a symbol, else 0): 0, or -1 with err saying why.
 */
int	 target_locate(struct view *v, const struct addr *a,
	    const struct target_opts *o, uint64_t *addr, uint64_t *symsize,
	    char *err, size_t errsz);
/* Where mapped addr lies; p borrows from the view. */
void	 target_place(struct view *v, uint64_t addr, struct wp_place *p);
/* Keeps the record in w as one of t's lines. */
void	 target_keep_line(struct target *t, const struct wp_jw *w);

#endif
