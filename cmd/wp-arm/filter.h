/*
 * filter: wp-arm --if, what watch_hit asks of each write before it is
 * written: the condition (lib/cond.h), evaluated in the tracer for the
 * backends that trace (ptrace, page), and every write's tally per
 * writer and thread, matched or not, written as tally records at the
 * end.  Hits on follow chains are not filtered.
 */
#ifndef WPARM_FILTER_H
#define WPARM_FILTER_H

#include <stddef.h>

#include "record.h"
#include "util.h"

struct watch;
struct wp_cond;

/*
 * Takes cond (the filter owns it from then on) for the watch: its
 * writer names are bound to ranges in w->pid now, before arming.  0, or
 * -1 with e set (a name no module has, a backend that cannot).
 */
int	 filter_open(struct watch *w, struct wp_cond *cond,
	    struct wp_error *e);
/* The armed record's condition and where it is evaluated. */
void	 filter_armed(struct watch *w);
/*
 * Write h on entry ti: counted in its tally; 1 when it matches (watch_hit
 * then writes it), 0 when not.
 */
int	 filter_hit(struct watch *w, size_t ti, const struct wp_hit_rec *h);
/* The tallies, once the backend disarmed. */
void	 filter_emit(struct watch *w);
void	 filter_free(struct watch *w);

#endif
