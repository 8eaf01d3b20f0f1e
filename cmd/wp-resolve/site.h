/*
 * site: an instruction whose memory accesses to count (--insn), checked
 * to be the start of an instruction with a memory operand in executable
 * code, and written as its site record.
 */
#ifndef WPRESOLVE_SITE_H
#define WPRESOLVE_SITE_H

#include <stddef.h>

#include "addr.h"
#include "target.h"
#include "view.h"

/*
 * Locates site a (input as the user wrote it), decodes it and keeps its
 * site record of id in t's lines: 0, or -1 with err saying why.  A
 * warning for the user, if any, is printed.
 */
int	 site_resolve(struct view *v, int id, const char *input,
	    const struct addr *a, const struct target_opts *o,
	    struct target *t, char *err, size_t errsz);

#endif
