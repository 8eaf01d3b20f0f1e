/*
 * The report page (--html): one self-contained HTML file of the viewed
 * report, with a timeline per target.
 *
 * html-time.c gathers the timeline while the stream is read: per
 * target, each writer site's and each thread's hits in bins along the
 * watch's time axis (and each hit itself while a target has few), and
 * the written value over time; in memory that does not grow with the
 * number of hits.  html.c writes the page, html-svg.c its drawings,
 * html-text.c the text in it, escaped.
 */
#ifndef WPREPORT_HTML_H
#define WPREPORT_HTML_H

#include <stdio.h>
#include <stdint.h>

#include "report.h"

#define TL_NBINS	512	/* bins along the time axis */
#define TL_MAXLANES	32	/* writer lanes per target; the rest in one */
#define TL_MAXTHR	16	/* thread lanes per target; the rest in one */
#define TL_MAXMARKS	2000	/* hits drawn each per target; past that,
				   the target's timeline is its bins */

/* A lane: a writer site's or a thread's hits, per bin. */
struct tl_lane {
	uint64_t	 k1, k2;	/* the site's key (as the view's), or
					   the thread's tid */
	uint64_t	 hits;
	uint64_t	 bins[TL_NBINS];
};

/* A hit drawn as itself: its time, lanes and value. */
struct tl_mark {
	int64_t		 time_ns;
	uint32_t	 lane, thr;	/* indices in the target's lanes (the
					   limit: the other lane); thr
					   UINT32_MAX: no thread's */
	int		 has_value;
	uint64_t	 value;
};

/* The values written in a bin: the least, the greatest, the latest. */
struct tl_vbin {
	int		 have;
	uint64_t	 min, max, last;
};

/*
 * A target's lanes, of hits (sampled) and of tallies, writers then
 * threads; "other" lanes hold the hits of those past the limits.
 */
/* A lane's key for a tallied site: no kind (of 0 to 255) uses 0xff. */
#define TALLY_TAG	(0xffULL << 56)
#define TL_HIT		0
#define TL_TALLY	1
struct tl_set {
	struct tl_lane	*w, *th;
	size_t		 nw, nth;
	struct tl_lane	 wother, thother;
};

struct tl_target {
	int		 id;
	struct tl_set	 set[2];	/* TL_HIT, TL_TALLY */
	struct tl_vbin	 vb[TL_NBINS];
	struct tl_mark	*marks;		/* NULL once binned */
	size_t		 nmarks;
	int		 binned;	/* more hits than TL_MAXMARKS */
	int		 valued;	/* a hit had a value */
	uint64_t	 vmin, vmax;	/* of all values */
	uint64_t	 vlast;		/* the latest */
};

struct timeline {
	int64_t		 width_ns;	/* a bin's width (doubles as needed) */
	int64_t		 last_ns;	/* the latest time seen */
	struct tl_target *t;
	size_t		 nt;
	struct wp_hmap	 prev;		/* a tally's cumulative hits so far */
	struct wp_hit_in hit;
};

/* html-time.c: tl is the caller's; its parts live until timeline_free */
void	 timeline_init(struct timeline *tl);
/* Adds record rec (after report_add has added it to r). */
void	 timeline_record(struct timeline *tl, const struct report *r,
	    const struct wp_record *rec);
void	 timeline_free(struct timeline *tl);
/* The timeline of target id, or NULL. */
const struct tl_target *timeline_target(const struct timeline *tl, int id);
/* The lane of site s of t in set, or NULL (then in the "other" lane). */
const struct tl_lane *timeline_site(const struct tl_set *set,
	    const struct rsite *s, int tallied);

/* qsort of lane pointers: most hits first, then by key */
int	 timeline_cmp_lane(const void *a, const void *b);

/* html.c: the page of the viewed report r to f; -1 on a write error */
int	 report_html(const struct report *r, const struct timeline *tl,
	    FILE *f);

/* html-svg.c: a target's drawings, its time axis 0 to end_ns: lanes of
   its writers (threads 0) or its threads (threads 1), its values */
/*
 * Whether t's lanes draw its tallies (the kernel's, read as the watch
 * went on), else its hit records, each at its time: a tracer's or
 * wp-arm's tallies are read once, at the end, and say nothing of when.
 */
int	 svg_tallies(const struct report *r, const struct rtarget *t);
void	 svg_lanes(const struct report *r, const struct rtarget *t,
	    const struct timeline *tl, int threads, int64_t end_ns, FILE *f);
void	 svg_values(const struct tl_target *tt, const struct timeline *tl,
	    int64_t end_ns, FILE *f);

/* html-text.c: text from the stream, escaped for HTML (controls as ?) */
void	 html_text(FILE *f, const char *s);
/* printf, then its result escaped */
void	 html_fmt(FILE *f, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* A duration on an axis: "0", "250 ms", "1.5 s", "20 us". */
void	 html_dur(char *buf, size_t sz, int64_t ns);

/*
 * live.c: the live view (--live) of r and tl, on standard error: a table
 * redrawn in place (table 1) or a line, every interval_ms.  The reading
 * loop holds live_lock while it adds a record to r and tl, then passes
 * it to live_record; live_stop ends the view (erasing the table) before
 * the report is written.
 */
void	 live_start(const struct report *r, const struct timeline *tl,
	    int table, long interval_ms);
void	 live_lock(void);
void	 live_unlock(void);
void	 live_record(const struct wp_record *rec);
void	 live_stop(void);

#endif
