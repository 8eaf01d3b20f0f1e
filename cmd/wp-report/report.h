/*
 * wp-report's parts: the aggregate of a stream (aggregate.c), with the
 * records it passes through as lib's readers keep them (reader.h), and
 * its sorted view (view.c), which the JSON document (document.c,
 * doc-watch.c) and the table (table.c, table-watch.c, table-chain.c,
 * over layout.c, with the writers' names of label.c) both print; and
 * the live progress line (progress.c).
 */
#ifndef WPREPORT_REPORT_H
#define WPREPORT_REPORT_H

#include <stdio.h>
#include <stdint.h>

#include "hmap.h"
#include "json.h"
#include "reader.h"
#include "stream.h"

#define MAXTHREADS	256	/* threads counted apart per target */
#define MAXBINDS	1024	/* bindings kept per follow chain: the first
				   so many and the latest so many */
#define MAXCOMMS	65536	/* thread names kept */
#define MAXCHAINS	64	/* distinct call chains counted per site */
#define MAXFIELDS	16	/* fields of a wide target whose steps are
				   voted on (lost updates) */

/*
 * A call chain that reached a site (--callchain), and its hits: the
 * hit's callchain_status ("" where null) and callers, else its
 * callchain's bare return addresses.
 */
struct rchain {
	uint64_t	 hits;
	char		 status[32];
	struct wp_frame_in *fr;
	size_t		 nfr;
};

/* A writer site: hits of one kind with one trap IP and one writer IP. */
struct rsite {
	uint64_t	 trap, wip;
	int		 kind;		/* enum wp_kind */
	int		 has_writer;
	struct wp_writer_in writer;	/* the first hit's */
	uint64_t	 hits;
	uint64_t	 matched;	/* of them, those that matched --if */
	uint64_t	 conf[WP_NCONFS];
	size_t		 nsamples;
	struct wp_hmap	 chains;	/* chain hash -> struct rchain */
	uint64_t	 chains_other;	/* hits of chains past MAXCHAINS */
	int		 chains_sampled;	/* a tallied site's chains, from
						   its samples */
	/* the view (report_view): the worst confidence, the chains shown,
	   most hits first, the hits of the others and of none */
	int		 worst;
	struct rchain	**shown;
	size_t		 nshown;
	uint64_t	 chains_rest, chains_none;
	/* the step from the value before each of its hits, voted on in
	   one pass (the majority's, where there is one): dvoted steps */
	uint64_t	 dcand, dvotes, dvoted;
	int		 field;		/* of a wide target, the field it
					   writes: index + 1; 0: none yet;
					   -1: more than one */
};

struct rthread {
	int		 tid;
	uint64_t	 hits;
};

struct rsample {
	uint64_t	 trap, wip;	/* its site */
	int		 kind;
	int64_t		 tid;
	int64_t		 time_ns;
	int		 has_writer, has_value;
	struct wp_writer_in writer;
	struct wp_value_in value;
	/* where its write landed: offset from the target's start, length */
	int		 has_store;
	uint64_t	 store_off;
	int64_t		 store_len;
};

/* The latest in-kernel tally of one writing instruction and thread. */
struct rtally {
	uint64_t	 ip;
	int		 tid;
	uint64_t	 hits;
	uint64_t	 matched;	/* wp-arm --if: of hits */
	int		 has_writer;
	struct wp_writer_in writer;
	struct rchain	*chain;		/* or NULL; its hits unused */
	uint64_t	 k1, k2;	/* the chain's keys */
};

struct rbind {
	uint64_t	 generation;
	char		 binding[16];
	uint64_t	 leaf;
	int64_t		 time_ns;
	uint64_t	 leaf_hits;
	int64_t		 rearm_ns;	/* -1: not measured */
	int		 held;
	int		 missed;	/* -1: not known */
};

/* How long a follow's leaf went unwatched at each re-arm. */
struct rrearm {
	size_t		 measured, held, missed;
	int64_t		 min, median, p90, max;	/* measured */
};

/*
 * A field of a target wider than 8 bytes: where stores of 8 bytes or
 * less landed, its value after its first and after its latest store.
 */
struct rfield {
	uint64_t	 off;
	int64_t		 len;
	uint64_t	 first, prev;
	uint64_t	 stores;
};

/* A target or follow record and what hit it. */
struct rtarget {
	int		 id;
	int		 follow;	/* a --follow chain: hits are the leaf's */
	struct wp_watch_pass rec;
	uint64_t	 ptr_hits;
	struct rbind	*binds;
	size_t		 nbinds;
	int		 binds_truncated;
	uint64_t	 hits;
	uint64_t	 kinds[WP_NKINDS];	/* hits by writer kind */
	int64_t		 first, last;
	int		 have_time;
	struct wp_hmap	 sites;		/* (trap, wip) -> struct rsite */
	struct wp_hmap	 tallies;	/* (ip, tid) -> struct rtally */
	struct rthread	 thr[MAXTHREADS];
	size_t		 nthr;
	uint64_t	 other_thread_hits;
	struct rsample	*samples;
	size_t		 nsamples;
	/* wp-arm --last: the last writes before the process ended */
	struct rsample	*lasts;
	size_t		 nlasts;
	char		 last_end[32];	/* "SIGSEGV", "exit 0" */
	int		 samples_truncated;
	/* the view (report_view): the writer sites, most hits first (of
	   the tallies when there are any), the threads sorted so */
	int		 tallied;
	uint64_t	 tallied_hits;
	uint64_t	 matched_hits;	/* --if: of tallied_hits */
	int		 conditioned;	/* wp-arm --if, every write tallied:
					   MATCHED shown */
	uint64_t	 read_hits, write_hits;	/* sampled, or tallied */
	uint64_t	 spurious_hits;		/* not among them */
	struct wp_hmap	 tsites;	/* the tallies' sites */
	struct rsite	**sorted;
	size_t		 nsorted;
	const struct wp_obs_entry_pass *obs, *obs_follow;	/* or NULL */
	int		 lower;		/* its counts a lower bound: one of
					   the report's reasons is its */
	const struct wp_field *initial;	/* at arming, else at resolving */
	struct rrearm	 rearm;		/* a follow chain's */
	/* the value after its latest hit; steps_unknown: a hit had none,
	   or was a kernel's or another process's write */
	int		 has_prev, steps_unknown;
	uint64_t	 prev;
	/* of a target wider than 8 bytes: its fields (fields_unknown: a
	   store that is none, or whose bytes are not known) */
	int64_t		 len;
	struct rfield	 fields[MAXFIELDS];
	size_t		 nfields;
	int		 fields_unknown;
	/* the writes counted so far, as the latest count record said
	   (wp-arm's, every --interval): the live view's */
	int		 has_live_counted;
	uint64_t	 live_counted;
};

/* A thread's name, from its thread record. */
struct rcomm {
	char		 comm[64];
};

/*
 * What the call chains shown tell, said once per report: after the
 * targets in the table, in the document's "notes", on the page.
 */
enum rnote {
	RN_NO_CALLERS,		/* a frame-pointer chain stopped at the
				   writer: try --callchain dwarf */
	RN_OUTSIDE_CODE,	/* a chain stopped outside code */
	RN_N
};

/* What the stream held, each a count of the document's "stream". */
enum rstream {
	RS_RECORDS, RS_HITS, RS_ORPHAN_HITS, RS_LOST_RECORDS, RS_THREADS,
	RS_OTHERS, RS_N
};

/* A site record: an instruction whose accesses were counted. */
struct rasite {
	int		 id;
	uint64_t	 addr;
	int		 rw;
	char		 input[256];
	char		 insn[200];
	const char	*backend;	/* which counted it (its access
					   records'); NULL: not said */
	/* so far, for the live view: each access's executions (its writes
	   or reads, whichever more), its distinct addresses */
	uint64_t	 execs;
	uint64_t	 naddrs;
};

struct report {
	struct wp_session_pass session;
	struct wp_armed_pass armed;
	struct wp_obs_pass observation;
	struct wp_hmap	 comms;		/* (tid, 0) -> struct rcomm */
	struct rtarget	*t;
	size_t		 nt;
	size_t		 maxsamples;
	size_t		 maxchains;	/* --chains: shown per site */
	uint64_t	 stream[RS_N];	/* enum rstream */
	uint64_t	 lost;		/* events the lost records count */
	int		 regs_seen;
	struct wp_hit_in hit;		/* the hit or tally being added */
	/* the view (report_view) */
	long		 malformed;
	const char	*backend;	/* NULL: not known */
	/* how a tracing backend (it holds every thread at arming and at
	   disarming, and sees the system calls that write) counted the
	   writes ("page faults"); NULL: the kernel counted them */
	const char	*tracer;
	/* why initial and latest need not differ by the count (they were
	   read as the threads ran); NULL: read with every thread held */
	const char	*snapshot_caveat;
	/* the tallies are the kernel's, read as the watch went on (every
	   --interval), not one reading at its end by wp-arm or a tracer:
	   they say when the writes were made, to a tally's interval */
	int		 kernel_tallies;
	int		 reasons[WP_NBOUNDS];	/* enum wp_bound */
	size_t		 nreasons;
	int		 notes[RN_N];		/* enum rnote: said */
	/* sites and their accesses (accesses.c) */
	struct rasite	*asites;
	size_t		 nasites;
	struct wp_hmap	 acc;		/* (addr, site << 32 | tid) */
	struct wp_hmap	 accaddr;	/* (addr, site): seen */
	char		**aregions;	/* their regions, each once */
	size_t		 naregions;
};

/* aggregate.c: bounded memory, whatever the length of the stream */
void	 report_init(struct report *r, size_t maxsamples, size_t maxchains);
/* chains.c: a hit's chain, its keys (0: it has none), read, compared */
int	 chain_keys(const struct wp_hit_in *h, uint64_t *k1, uint64_t *k2);
void	 chain_read(const struct wp_hit_in *h, struct rchain *c);
void	 chain_free(struct rchain *c);
int	 chain_cmp(const struct rchain *x, const struct rchain *y);
void	 chains_done(void);
/* Counts hit h's chain, when it has one, at s. */
void	 site_add_hit_chain(struct rsite *s, const struct wp_hit_in *h);
/* Frees a site's chains. */
void	 site_chains_free(struct rsite *s);
/* Frees the sites of a hash of struct rsite and the hash. */
void	 sites_free(struct wp_hmap *sites);
/* Counts hits of chain c, keyed k1, k2, at s (a copy of c kept). */
void	 site_add_chain(struct rsite *s, uint64_t k1, uint64_t k2,
	    const struct rchain *c, uint64_t hits);
void	 report_free(struct report *r);
void	 report_add(struct report *r, const struct wp_record *rec);
/*
 * Whether hit or tally h counts among t's writes (its sites, threads,
 * tallies, timelines): not a follow chain's pointer writes, which are
 * its ptr_hits; a chain's leaf writes count as a target's.
 */
int	 report_counts(const struct rtarget *t, const struct wp_hit_in *h);
/*
 * The key of the writer site of a hit or tally at trap IP trap, whose
 * writer instruction is wip (0: not known), tagged (a user address
 * leaves the top byte free: the kind): one instruction is one site
 * wherever it trapped (a rep string instruction traps at itself between
 * iterations and after itself at its end); without a writer, its trap.
 */
void	 report_site_key(uint64_t trap, uint64_t wip, uint64_t tag,
	    uint64_t *k1, uint64_t *k2);
int	 report_complete(const struct report *r);
/* The name of thread tid, or NULL. */
const char *report_comm(const struct report *r, int64_t tid);

/* accesses.c: the sites and what they accessed, per address and
   thread; the table's part and the document's "sites" */
void	 access_site(struct report *r, const struct wp_record *rec);
void	 access_add(struct report *r, const struct wp_record *rec);
void	 access_free(struct report *r);
void	 access_table(const struct report *r, FILE *f);
void	 access_document(const struct report *r, struct wp_jw *w);
void	 access_html(const struct report *r, FILE *f);

/* view.c: sorts what the report shows, once the stream has ended, with
   the number of malformed lines; the view lives as long as r */
void	 report_view(struct report *r, long malformed);
/*
 * Whether the writers' tallies come at the end of the watch only: a
 * tracer's (ptrace, page), and wp-arm's evaluating --if on samples
 * (the armed record's condition_where); bpf's come every --interval.
 */
int	 report_tallies_at_end(const struct report *r);
/* Note n's name, and its text: the table's lines, a newline between. */
extern const char *const report_note_names[RN_N];
const char *report_note_text(const struct report *r, enum rnote n);

/* last.c: wp-arm --last's last_write records of target t */
void	 last_add(struct report *r, const struct wp_hit_in *h,
	    struct rtarget *t);
void	 last_free(struct rtarget *t);

/*
 * lost.c: where a tracer saw every write to t with its value, the
 * values (t's whole, from its initial value, or of a target wider than
 * 8 bytes its fields, each from its first write) whose writers' steps
 * add up to other than they moved; -1 where that cannot be told (not
 * every write seen, a writer that is not an adder).
 */
struct rlost {
	int		 whole;		/* else a field, from its first write */
	uint64_t	 off;		/* from the target's start */
	int64_t		 len;
	uint64_t	 writes;	/* added up */
	int64_t		 moved, sum;	/* the value moved; the steps' sum */
	int64_t		 less;		/* sum - moved */
};
ssize_t	 report_lost(const struct report *r, const struct rtarget *t,
	    struct rlost a[MAXFIELDS]);

/* document.c: the viewed report as one JSON document, into w */
void	 report_document(const struct report *r, struct wp_jw *w);
/* doc-watch.c: a watch of the document (a target, or a follow chain) */
void	 doc_watch(const struct report *r, const struct rtarget *t,
	    struct wp_jw *w);
void	 doc_follow(const struct report *r, const struct rtarget *t,
	    struct wp_jw *w);
/* doc-watch.c: target t's last writes (last.c), as last_writes */
void	 doc_last(const struct report *r, const struct rtarget *t,
	    struct wp_jw *w);

/* table.c: the viewed report as a table for people, width columns at
   most; -1 on an output error */
int	 report_table(const struct report *r, FILE *f, size_t width);

/*
 * label.c: a writer's name: its symbol ("function+0xOFF"), else
 * "module+0xOFF" (the module's base name and the static address), else
 * fallback; names cut to a width in the middle, "+0xOFF" kept; and
 * sources ("file:line") so, ":line" kept.
 */
void	 label_writer(const struct wp_writer_in *w, const char *fallback,
	    char *buf, size_t sz);
/* A symbol of module (NULL: none) as the table names it: the vDSO's
   marked "[vdso]:", unless its name says so. */
void	 label_symbol(const char *module, const char *symbol, char *buf,
	    size_t sz);
void	 label_shorten(const char *s, size_t width, char *buf, size_t sz);
void	 label_shorten_source(const char *s, size_t width, char *buf,
	    size_t sz);
/*
 * The least width from width up to max at which no two of the n names
 * that differ are cut to the same text.
 */
size_t	 label_distinct_width(char *const *names, size_t n, size_t width,
	    size_t max);

/* progress.c: "wp: watching 1.2 s, 345 hits" on a terminal */
void	 progress_start(void);
void	 progress_record(const struct wp_record *rec);
void	 progress_stop(void);

#endif
