/*
 * reader: the records wp-decode and wp-report read, each parsed once,
 * in one pass over its members, into a typed struct (the session,
 * target and follow readers are declared in record.h).
 *
 * A struct filled from a record borrows its line: its pointers and
 * token indices are valid while the record is (until the next
 * wp_stream_read).  The *_in structs of the writer and the value own
 * their strings, released by their *_free.
 */
#ifndef WP_READER_H
#define WP_READER_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* A hit or a tally record (tally: hits, and no flags or values). */
struct wp_hit_in {
	const struct wp_record	*rec;
	int			 tally;
	int			 has_target;
	int			 target;
	int			 has_tid;
	pid_t			 tid;
	int			 has_time;
	int64_t			 time_ns;
	int			 has_ip;
	uint64_t		 ip;
	int			 exact;		/* it has a writer_ip */
	uint64_t		 writer_ip;
	unsigned		 flags;		/* WP_HIT_* */
	int			 signal;	/* 0: none */
	int			 has_new_value;
	uint64_t		 new_value;
	int			 has_value_members;	/* new_value or
							   new_bytes, even
							   null */
	const char		*new_bytes;	/* its JSON string, quotes and
						   all; NULL: not a string */
	size_t			 nnew_bytes;
	/* where the write landed (has_store: store_addr and store_len
	   known) and store_bytes, as new_bytes */
	int			 has_store;
	uint64_t		 store_addr;
	int64_t			 store_len;
	const char		*store_bytes;
	size_t			 nstore_bytes;
	int			 store_bytes_tok;
	int			 role;		/* enum wp_role */
	int			 level;
	int			 has_generation;
	uint64_t		 generation;
	int			 has_addr;	/* addr, len: a chain's entry */
	uint64_t		 addr;
	int64_t			 len;
	uint64_t		 hits;		/* tally */
	uint64_t		 matched;	/* tally: writes --if took */
	int			 has_seq, has_of;	/* last_write: seq
							   of of */
	int64_t			 seq, of;
	int			 has_regs;
	/* --callchain: the return addresses (those that are hex and not
	   0), and the members' JSON text for those that show them */
	int			 has_chain;
	uint64_t		 chain[WP_CALLCHAIN_MAX];
	size_t			 nchain;
	const char		*chain_json, *status_json, *callers_json;
	size_t			 nchain_json, nstatus_json, ncallers_json;
	int			 has_stack;	/* user_stack */
	int			 has_writer;	/* decoded already */
	/* where the lazily read members are: token indices, or -1 */
	int			 regs_tok, stack_tok, writer_tok, value_tok;
	int			 end_tok;	/* last_write's "end" */
};

/* Fills h from a hit or tally record; absent members are left unset. */
void	 wp_rec_read_hit(const struct wp_record *rec, struct wp_hit_in *h);
/* The registers of h in need (bit 1 << WP_x): r->have says which were
 * there.  Returns whether any was. */
int	 wp_rec_hit_regs(const struct wp_hit_in *h, uint32_t need,
	    struct wp_x86_regs *r);
/* Those of a hit on AArch64 (bit 1 << WP_A64_x), likewise. */
int	 wp_rec_hit_regs_a64(const struct wp_hit_in *h, uint64_t need,
	    struct wp_a64_regs *r);
/* The bytes of h's user_stack into *buf (grown, *cap its size; the
 * caller frees it): their number, or -1 when it is not a hex string. */
ssize_t	 wp_rec_hit_stack(const struct wp_hit_in *h, unsigned char **buf,
	    size_t *cap);

/* The writer wp-decode added to a hit or tally. */
struct wp_writer_in {
	int		 kind;		/* enum wp_kind; write when null or
					   not known */
	int		 conf;		/* enum wp_conf; unknown when not
					   known */
	int		 has_trap_static, has_writer_ip, has_writer_static;
	uint64_t	 trap_static, writer_ip, writer_static;
	char		*module, *function, *symbol, *insn, *reason, *caveat;
	char		*source_file;	/* NULL: no source */
	int64_t		 source_line;
};

/*
 * 0, or -1 when h has no writer object (w is zeroed, kind write).  With
 * strings 0, only kind, confidence and the addresses are read, and no
 * string is allocated.
 */
int	 wp_rec_read_writer(const struct wp_hit_in *h, struct wp_writer_in *w,
	    int strings);
/* dst as a copy of src, its strings its own. */
void	 wp_writer_in_copy(struct wp_writer_in *dst,
	    const struct wp_writer_in *src);
void	 wp_writer_in_free(struct wp_writer_in *w);

/* The written value wp-decode added to a hit. */
struct wp_value_in {
	int		 kind;		/* enum wp_vkind; -1: not known */
	char		*kind_word;	/* as written */
	char		*reg;		/* register_store; NULL: none */
	int		 has_width;
	int64_t		 width;
	int		 has_value_member, has_value;	/* null: member only */
	uint64_t	 value;
	int		 has_bytes_member;
	char		*bytes;		/* NULL: null */
	char		*reason;	/* NULL: none */
};

/* 0, or -1 when h has no written_value object. */
int	 wp_rec_read_value(const struct wp_hit_in *h, struct wp_value_in *v);
void	 wp_value_in_free(struct wp_value_in *v);


/* The frames of array arr of j (callers or callchain, as a hit has
 * them) into *f, allocated (NULL when none): their number. */
size_t	 wp_rec_read_frames(const struct wp_json *j, int arr,
	    struct wp_frame_in **f);
void	 wp_frames_in_free(struct wp_frame_in *f, size_t n);

/* What a thread record says of its thread. */
struct wp_thread_in {
	int		 event;		/* enum wp_event; -1: not known */
	int		 has_tid;
	pid_t		 tid;
	int		 has_comm;
	char		 comm[64];	/* cut to fit */
};

void	 wp_rec_read_thread(const struct wp_record *rec, struct wp_thread_in *t);

/* A rebind record. */
struct wp_rebind_in {
	int		 has_target;
	int		 target;
	uint64_t	 generation;
	char		 binding[16];	/* cut to fit; "" absent */
	uint64_t	 new_leaf;	/* 0: null */
	int64_t		 time_ns;
	int64_t		 rearm_ns;	/* -1: null */
	int		 held;
	int		 missed;	/* -1: null */
};

void	 wp_rec_read_rebind(const struct wp_record *rec, struct wp_rebind_in *r);

/* An armed record: what the later stages use of it. */
struct wp_armed_in {
	int64_t		 duration_ms;	/* -1: null or absent */
	int64_t		 callchain_depth;	/* 0: absent */
};

void	 wp_rec_read_armed(const struct wp_record *rec, struct wp_armed_in *a);

/* A count record: what the backend counted of one entry so far. */
struct wp_count_in {
	int		 has_target, has_counted;
	int		 target;
	int		 pointer;	/* a follow chain's pointer's */
	uint64_t	 counted;
};

void	 wp_rec_read_count(const struct wp_record *rec, struct wp_count_in *c);

/* The count of a lost record, or 0. */
uint64_t wp_rec_read_lost(const struct wp_record *rec);

/* The id of a target or follow record: 0, or -1 when it has none. */
int	 wp_rec_read_id(const struct wp_record *rec, int *id);

/*
 * ---- the records wp-report passes through (reader-pass.c) ----
 * The session, armed, observation, target and follow records: the
 * members the report shows, each kept as its JSON text (which the report
 * document carries verbatim) and as text.  These structs own their
 * strings, released by their *_free.
 */

/* A member kept: its JSON text, and its text as a table shows it. */
struct wp_field {
	int		 type;		/* enum wp_jtype; -1: absent */
	char		*json;		/* NULL: absent */
	char		*text;		/* a string's value, else its JSON;
					   NULL: absent or null */
};

/* The session record (wp-resolve). */
struct wp_session_pass {
	int		 present;
	struct wp_field	 pid, start_time, exe, binary_match, pie_slide;
	struct wp_field	 slot_limit, warnings, comm;
	char		**warn;		/* the warnings that are strings */
	size_t		 nwarn;
};

/* An entry of the observation's targets or follows, or of the armed
   record's initial values. */
struct wp_obs_entry_pass {
	int		 id;
	struct wp_field	 counted, lost, latest_value, rebinds;
	struct wp_field	 initial_value, pages_dropped;
};

/* The armed record (wp-arm). */
struct wp_armed_pass {
	int		 present;
	struct wp_field	 backend, regs;
	struct wp_field	 condition, condition_where;	/* --if */
	struct wp_field	 callchain;	/* how chains were found: cfi, fp,
					   dwarf */
	struct wp_obs_entry_pass *initial;	/* the values at arming */
	size_t		 ninitial;
};

/* The observation record (wp-arm), the last one. */
struct wp_obs_pass {
	int		 present;
	char		*json;		/* less its type and targets */
	struct wp_field	 backend, elapsed_ms, duration_requested_ms;
	struct wp_field	 stop_reason, stop_detail, error, target_alive_after;
	struct wp_field	 truncated_by_max_events, tallied, max_events;
	struct wp_field	 counts_are_lower_bound;
	struct wp_field	 lost_known, lost_total;	/* lost_events */
	struct wp_field	 lost_undelivered;	/* undelivered_records */
	struct wp_field	 seeded, inherited, attached_late, unattached;
	struct wp_field	 exited, forked, partial;	/* thread_coverage */
	unsigned	 partial_reasons;	/* 1 << enum wp_partial */
	int		 has_ptrace;
	struct wp_field	 steps_per_second, native_run_us, blocked_us, steps;
	struct wp_field	 native_ips, unmodeled_stores;
	int		 has_page;	/* the page backend's counters */
	struct wp_field	 faults_watched, faults_neighbour, emulated, stepped;
	struct wp_field	 tracer_moves;	/* page: absent, --tracer-cpu free */
	struct wp_field	 kernel_writes, page_native_run_us, page_stops;
	struct wp_field	 worst_from_us, worst_span_us, worst_native_us;
	struct wp_field	 worst_stops;	/* page.worst_second */
	/* wp-arm --stop: stopped_at */
	struct wp_field	 stopped_tid, stopped_writer_ip, stopped_ip;
	struct wp_field	 stopped_core, stopped_process;
	struct wp_obs_entry_pass *targets, *follows;
	size_t		 ntargets, nfollows;
};

/* A target or follow record's members (a follow's slot_*, offsets,
   slots, binding and leaf_addr; a target's the others). */
struct wp_watch_pass {
	struct wp_field	 input, runtime_addr, static_addr, module, region;
	struct wp_field	 perms, access, len, initial_value;
	struct wp_field	 slot_addr, slot_static_addr, slot_module, offsets;
	struct wp_field	 slots, binding, leaf_addr;
};

/* Reads the members of a session, armed, observation, target or follow
   record into the struct, which owns them then (an observation read
   again replaces what it held). */
void	 wp_rec_pass_session(const struct wp_record *rec,
	    struct wp_session_pass *s);
void	 wp_rec_pass_armed(const struct wp_record *rec,
	    struct wp_armed_pass *a);
void	 wp_rec_pass_observation(const struct wp_record *rec,
	    struct wp_obs_pass *o);
void	 wp_rec_pass_target(const struct wp_record *rec,
	    struct wp_watch_pass *t);
/* The members read, verbatim, in the record's order: the session's but
   its warnings (pid .. slot_limit); a target record's input .. len. */
void	 wp_session_pass_write(struct wp_jw *w,
	    const struct wp_session_pass *s);
void	 wp_target_pass_write(struct wp_jw *w, const struct wp_watch_pass *t);
void	 wp_session_pass_free(struct wp_session_pass *s);
void	 wp_armed_pass_free(struct wp_armed_pass *a);
void	 wp_obs_pass_free(struct wp_obs_pass *o);
void	 wp_watch_pass_free(struct wp_watch_pass *t);
/*
 * A field as a boolean (true, a number not 0, a string not empty), an
 * integer (a number, cut toward 0; true is 1; a string's leading
 * digits; else 0), a string (NULL: not a string).
 */
int	 wp_field_bool(const struct wp_field *f);
/* Writes f (NULL allowed) as it was read, verbatim, or null. */
void	 wp_field_write(struct wp_jw *w, const char *key,
	    const struct wp_field *f);
int64_t	 wp_field_int(const struct wp_field *f);
const char *wp_field_str(const struct wp_field *f);
/* Its text, or "-". */
const char *wp_field_text(const struct wp_field *f);

#endif
