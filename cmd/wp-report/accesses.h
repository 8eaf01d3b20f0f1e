/*
 * The access records as wp-report keeps them (access-records.c reads
 * them in, accesses.c makes the view and the output of them).
 */
#ifndef WPREPORT_ACCESSES_H
#define WPREPORT_ACCESSES_H

#include <sys/types.h>
#include <stdint.h>

#include "record.h"

/* One (address, thread) of a site: its latest counts. */
struct racc {
	uint64_t	 addr;
	int		 site;
	pid_t		 tid;
	uint64_t	 writes, reads;
	const char	*region;	/* in r->aregions; NULL: not known */
	uint64_t	 map_start;	/* with region: where its mapping
					   starts */
	int		 has_values;	/* a register store's first and last */
	uint64_t	 first, last;
	const char	*name;		/* in r->aregions: SYMBOL+0xOFF */
	size_t		 nvals;		/* its value budget's */
	uint64_t	 vals[WP_ACCESS_NVALS], vn[WP_ACCESS_NVALS], vother;
	pid_t		 stack_of, tls_of;
	int64_t		 tls_off;
	int		 has_match;	/* wp-arm --if: of its executions */
	uint64_t	 matched, match_unknown;
};

#endif
