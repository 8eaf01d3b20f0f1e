/*
 * addr: the address forms users write (0xHEX, static:0xHEX,
 * MODULE:0xHEX, [MODULE:]SYMBOL[+OFF], MODULE+0xOFF) and --follow
 * chains ([[SLOT]+o0]+o1, SLOT+OFF).  MODULE+0xOFF parses as a symbol
 * with an offset; target.c takes it for a module when no symbol of
 * that name exists.
 * Parsing only: target.c locates them in the process.
 */
#ifndef WPRESOLVE_ADDR_H
#define WPRESOLVE_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum addr_kind {
	ADDR_RUNTIME,	/* 0xHEX */
	ADDR_STATIC,		/* static:0xHEX, MODULE:0xHEX */
	ADDR_SYMBOL		/* [MODULE:]SYMBOL[+OFF] */
};

struct addr {
	enum addr_kind	 kind;
	uint64_t		 value;
	char			*module;	/* NULL: main binary, then all */
	char			*symbol;
	int64_t			 off;
	int			 has_off;	/* +OFF was written */
};

/* [[SLOT]+o0]+o1 ...: one dereference per offset. */
struct follow {
	struct addr	 slot;
	int64_t		 offs[WP_CHAIN_MAXDEPTH];
	size_t		 noffs;
};

/* Each returns 0, or -1 with err saying what is wrong; addr_free
 * releases what a parsed address holds. */
int	 addr_parse(const char *s, struct addr *a, char *err, size_t errsz);
void	 addr_free(struct addr *a);
int	 addr_follow_parse(const char *s, struct follow *f, char *err,
	    size_t errsz);

#endif
