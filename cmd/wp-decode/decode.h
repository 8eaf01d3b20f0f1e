/*
 * wp-decode's parts: the process image of a session (image.c), the
 * writer candidates of each trap IP, cached (site.c), and the choice of
 * writer and written value for each hit (hit.c).
 */
#ifndef WPDECODE_DECODE_H
#define WPDECODE_DECODE_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "json.h"
#include "a64-insn.h"
#include "reader.h"
#include "x86.h"

/* ---- image.c: the modules and mappings a session record lists ---- */

struct wp_dwfl;

struct dmod {
	const struct wp_module_rec *rec; /* the session's: path as mapped,
					   file where code and symbols are
					   read, build_id, load_bias */
	struct wp_elf	*elf;
	int		 state;		/* 0 untried, 1 usable, -1 not */
	int		 told;		/* why it has no lines was said */
};

struct dmap {
	uint64_t	 start, end;	/* wp_find_range */
	int		 mod;		/* -1: anonymous */
};

struct image {
	struct dmod	*mods;
	size_t		 nmods;
	struct dmap	*maps;
	size_t		 nmaps;
	struct wp_session session;	/* the session read: pid,
					   start_time, exe, modules */
	int		 memfd;		/* -1 untried, -2 unusable */
	const char	*live_why;	/* why memory is not read, or NULL */
	struct wp_dwfl	*dwfl;		/* its modules' names, lines, frames */
};

/*
 * What the user allows (process-wide, set before the first session):
 * reading the live process's memory at all, and where else module files
 * are: files given (--bin, matched by build-id: 0, or -1 with err set)
 * and directories searched by build-id (--module-dir, kept by pointer).
 */
void	 image_allow_live(void);
int	 image_add_bin(const char *path, struct wp_error *err);
void	 image_add_module_dir(const char *dir);
/* Takes the session over (s is left empty): im->session. */
void	 image_load(struct image *im, struct wp_session *s);
void	 image_clear(struct image *im);
/* Module mi when its file can be read and is the same build (then
 * reported in im->dwfl), else NULL (said once on stderr). */
struct dmod *image_module(struct image *im, int mi);
const struct dmap *image_map_at(const struct image *im, uint64_t addr);
/* The module (NULL: none) holding addr, and its load bias. */
const char *image_module_of(const struct image *im, uint64_t addr,
	    uint64_t *bias);
/*
 * Code of the live process, only with --live and while it is the
 * session's process (start time, exe and its build-id) and the caller
 * may trace it: the count read, len or 0.
 */
size_t	 image_read_live(struct image *im, uint64_t addr, void *buf,
	    size_t len);
/* Why image_read_live read nothing, as a hit's reason. */
const char *image_live_why(const struct image *im);

/* ---- site.c: what one trap IP decodes to ---- */

#define MAXCAND	4
#define MAXVAR	4

/* A rendered writer, for one choice among the candidates. */
struct variant {
	int		 wi;
	int		 kind;		/* enum wp_kind */
	int		 conf;		/* enum wp_conf */
	const char	*caveat;
	uint64_t	 trap;
	char		*text;
	size_t		 len;
};

struct site {
	int			 mod;		/* -1: no module */
	uint64_t		 bias;
	int			 sweep;		/* the function sweep landed */
	int			 at_trap;	/* rep string stopped mid-way */
	int			 reader;	/* cand[0] only reads (-a rw) */
	int			 ncand;
	/* cand[ncand]: a rep string store at the trap IP, besides what
	   ends there, stopped mid-way where that one accessed elsewhere */
	int			 rep_alt;
	struct wp_x86_insn	 cand[MAXCAND + 1];
	/* AArch64 (the session's machine): the instruction at the IP,
	   the one candidate (ncand 1) */
	int			 a64;
	struct wp_a64_insn	 a64insn;
	char			*fname;		/* function symbol, or NULL */
	uint64_t		 faddr;
	const char		*reason;	/* why no candidate */
	struct variant		 var[MAXVAR];
	int			 nvar;
};

/*
 * The site of trap IP trap, or of writer IP trap when exact; built on
 * first use.  Valid until the next site_get.
 */
struct site *site_get(struct wp_hmap *sites, struct image *im, uint64_t trap,
	    int exact);
void	 site_free_all(struct wp_hmap *sites);

/* ---- hit.c: the decoder ---- */

struct dtarget {
	int		 id;
	uint64_t	 addr;
	size_t		 len;
};

/* The choice among a site's candidates. */
struct choice {
	int		 wi;		/* -1: none */
	int		 kind;		/* enum wp_kind */
	int		 conf;		/* enum wp_conf */
	const char	*caveat;
};

struct decoder;

/* Of a writer whose access the registers place off the watched range. */
extern const char spurious_caveat[];

/*
 * An exact backend names the instruction: exact when it does what the
 * hit says (writes, or reads for a read hit), else not a writer at all;
 * caveat: what to say of its kind of writer.
 */
void	 choose_named(int writes, int reads, const char *caveat,
	    unsigned flags, struct choice *c);
/* The writer object, rendered once per choice and trap IP. */
const char *writer_text(struct decoder *d, struct site *st,
	    const struct choice *c, uint64_t trap, size_t *len);
/*
 * What the backend read in memory after the write: the target's value;
 * of a target wider than a value (8 bytes), the bytes the write left
 * where it landed, where the hit says, else the target's bytes.
 */
void	 observed(const struct wp_hit_in *h, const struct dtarget *t,
	    int have_t, struct wp_value_rec *v);

/* ---- stack.c: call chains from copied stacks (--callchain dwarf) ---- */

struct ustack {
	int			 state;		/* 0 untried, 1 ready, -1 not */
	const char		*why;		/* why not */
	unsigned char		*buf;		/* the stack of the hit */
	size_t			 cap;
	/* the hit being unwound, for libdw's callbacks */
	pid_t			 tid;
	struct wp_x86_regs	 regs;
	const unsigned char	*stack;
	size_t			 nstack;
	int			 short_read;	/* a read beyond the copy */
};

/* Forgets the modules (a new session). */
void	 ustack_clear(struct ustack *u);
/*
 * The callers of hit h from its "user_stack" and regs (the registers
 * at the trap), innermost first, at most max into ips; *n set.  Returns
 * the chain's status, as wp-arm's: "complete", "truncated" or why it
 * stopped (a static string or libdw's).
 */
const char *ustack_unwind(struct ustack *u, struct image *im,
	    const struct wp_hit_in *h, const struct wp_x86_regs *regs,
	    uint64_t *ips, size_t max, size_t *n);

struct decoder {
	struct image	 img;
	struct wp_hmap	 sites;
	struct wp_hmap	 frames;	/* frames.c: return address -> text */
	struct ustack	 ustack;
	size_t		 chain_depth;	/* the armed record's, for ustack */
	struct dtarget	*targets;
	size_t		 ntargets;
	struct wp_hit_in hit;		/* the hit being decoded */
	struct wp_jw	 out;
};

/* ---- frames.c: the callers of a hit, named ---- */

void	 frames_init(struct wp_hmap *frames);
/* Forgets every rendered frame (a new session). */
void	 frames_clear(struct wp_hmap *frames);
/*
 * Appends "callers" for the hit's "callchain", when it has one; for a
 * hit with a "user_stack" instead, the chain unwound from it (regs: the
 * registers at the trap; NULL: AArch64's, not unwound yet) as
 * "callchain" and "callchain_status" first.
 */
void	 frames_append(struct decoder *d, const struct wp_hit_in *h,
	    const struct wp_x86_regs *regs);

void	 decoder_init(struct decoder *d);
void	 decoder_free(struct decoder *d);
/* A new session: forgets the old one's modules, sites and targets. */
int	 decoder_session(struct decoder *d, const struct wp_record *rec,
	    struct wp_error *err);
int	 decoder_target(struct decoder *d, const struct wp_record *rec,
	    struct wp_error *err);
/*
 * The text to append to an access record whose address addr is in a
 * module: ,"name":"SYMBOL+0xOFF" (MODULE:SYMBOL+0xOFF outside the main
 * program, MODULE+0xOFF where no data symbol holds it), as wp-resolve
 * takes an address; NULL when none.  Valid until the next call.
 */
const struct wp_jw *decoder_access(struct decoder *d, uint64_t addr);
/* The armed record: how deep chains go. */
void	 decoder_armed(struct decoder *d, const struct wp_record *rec);
/*
 * The text to append to hit or tally h: ,"writer":{...}, and for a hit
 * ,"written_value":{...}.  It belongs to d and is valid until the next
 * call.
 */
const struct wp_jw *decoder_hit(struct decoder *d, const struct wp_hit_in *h);

/* ---- hit-a64.c: the same on AArch64, t the watched range or NULL ---- */

const struct wp_jw *decoder_hit_a64(struct decoder *d,
	    const struct wp_hit_in *h, const struct dtarget *t);

#endif
