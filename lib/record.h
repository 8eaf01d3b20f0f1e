/*
 * record: the record contract of wp-records(7), in one place.  Each
 * record type has one builder here, which writes the whole line into a
 * struct wp_jw, and the records that several tools read have one reader
 * here.
 *
 * Builders borrow everything in the structs they are given.  Readers
 * fill structs whose strings and arrays they allocate; the matching
 * *_free releases them.
 */
#ifndef WP_RECORD_H
#define WP_RECORD_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "json.h"
#include "stream.h"
#include "util.h"
#include "vocab.h"
#include "a64-insn.h"
#include "x86.h"

/* ---- field access on a record read from the stream ---- */

/* The value of member key of the record, as a token index, or -1. */
int	 wp_rec_get(const struct wp_record *rec, const char *key);
/* Typed members: 0, or -1 when absent, null or of another type. */
int	 wp_rec_int(const struct wp_record *rec, const char *key,
	    int64_t *v);
int	 wp_rec_hex(const struct wp_record *rec, const char *key,
	    uint64_t *v);
/* The raw JSON text of a member, or NULL. */
const char *wp_rec_raw(const struct wp_record *rec, const char *key,
	    size_t *len);

/* ---- session (wp-resolve) ---- */

struct wp_module_rec {
	char		*path;		/* as in /proc/PID/maps */
	char		*file;		/* where code and symbols are read;
					   NULL: only in memory (the vDSO) */
	char		*build_id;	/* hex, or NULL */
	uint64_t	 load_bias;
	const char	*kind;		/* "exec", "dyn", ... */
	int		 main;
};

struct wp_mapping_rec {
	uint64_t	 start, end, offset;
	char		 perms[5];
	char		*path;		/* NULL: anonymous */
	int		 has_bias;
	uint64_t	 load_bias;	/* of its module */
};

struct wp_session {
	pid_t			 pid;
	uint64_t		 start_time;	/* clock ticks after boot */
	char			*exe, *exe_build_id;
	char			*comm;		/* its command name, or NULL */
	char			*bin, *bin_build_id;	/* --bin, or NULL */
	const char		*binary_match;
	int			 machine;	/* enum wp_machine: the
						   target's instruction set */
	int			 pie;
	uint64_t		 pie_slide;
	int			 slot_limit;	/* 0: --no-slot-limit */
	const char		*limits;	/* "debug_registers", "none"; NULL: unsaid */
	struct wp_module_rec	*mods;
	size_t			 nmods;
	struct wp_mapping_rec	*maps;
	size_t			 nmaps;
	char			**warnings;
	size_t			 nwarnings;
};

void	 wp_rec_session(struct wp_jw *w, const struct wp_session *s);
/* "schema_version", "tool" (tool) and "tool_version": who wrote a
   session record or wp-report's document, and to which contract. */
void	 wp_rec_made_by(struct wp_jw *w, const char *tool);
/*
 * Reads what the later stages use: pid, start_time, exe and
 * exe_build_id (NULL when absent or null), modules and mappings.
 * Returns 0, or -1 with err naming the field that is wrong (readers of
 * target and follow records likewise).
 */
int	 wp_rec_read_session(const struct wp_record *rec,
	    struct wp_session *s, struct wp_error *err);
void	 wp_session_free(struct wp_session *s);

/* ---- target and follow (wp-resolve) ---- */

/* Where an address lies: placed as "[prefix]static_addr" and so on. */
struct wp_place {
	int		 has_static;
	uint64_t	 static_addr;
	const char	*module;	/* NULL: no module holds it */
	const char	*region;	/* a path, "[heap]", "[stack]", "[anon]" */
	const char	*perms;
};

struct wp_target_rec {
	int			 id;
	const char		*input;
	uint64_t		 addr;
	struct wp_place		 place;
	size_t			 len;
	int			 rw;
	const unsigned char	*initial;	/* len bytes; NULL: unreadable */
	const char *const	*warnings;
	size_t			 nwarnings;
};

struct wp_follow_rec {
	int			 id;
	const char		*input;
	uint64_t		 slot;
	struct wp_place		 place;
	int64_t			 offs[WP_CHAIN_MAXDEPTH];
	size_t			 noffs;
	size_t			 len;
	int			 rw;
	/* the pointers read when resolved, up to the first null */
	uint64_t		 ptr_addr[WP_CHAIN_MAXDEPTH];
	uint64_t		 ptr_value[WP_CHAIN_MAXDEPTH];
	size_t			 nptrs;
	const char		*binding;
	uint64_t		 leaf;		/* when bound */
	const unsigned char	*initial;	/* the leaf's len bytes, or NULL */
};

void	 wp_rec_target(struct wp_jw *w, const struct wp_target_rec *t);
void	 wp_rec_follow(struct wp_jw *w, const struct wp_follow_rec *f);

/* What wp-arm and wp-decode need of a target or a follow record. */
struct wp_spec {
	int		 id;
	uint64_t	 addr;		/* runtime_addr, or slot_addr */
	size_t		 len;
	int		 rw;
	int64_t		 offs[WP_CHAIN_MAXDEPTH];	/* follow only */
	size_t		 noffs;
};

int	 wp_rec_read_target(const struct wp_record *rec, struct wp_spec *t,
	    struct wp_error *err);
int	 wp_rec_read_follow(const struct wp_record *rec, struct wp_spec *f,
	    struct wp_error *err);

/* ---- site (wp-resolve): an instruction whose memory accesses to count ---- */

struct wp_value_rec;

struct wp_site_rec {
	int			 id;
	const char		*input;
	uint64_t		 addr;
	struct wp_place		 place;
	int			 has_file_offset;
	uint64_t		 file_offset;	/* in the file region names */
	const struct wp_x86_insn *in;		/* decoded, with its operand */
	int			 rw;		/* -a rw: its reads counted too */
	const struct wp_value_rec *value;	/* what a write stores; NULL:
						   it writes nothing */
	const char *const	*warnings;
	size_t			 nwarnings;
};

void	 wp_rec_site(struct wp_jw *w, const struct wp_site_rec *s);

/* What wp-arm needs of a site record: where to probe and what to
   compute there (in->mem, in->width, in->writes, in->reads, in->size). */
struct wp_site_spec {
	int			 id;
	uint64_t		 addr;
	char			 path[4096];	/* region: the file probed */
	int			 has_file_offset;
	uint64_t		 file_offset;
	int			 rw;
	struct wp_x86_insn	 in;
};

int	 wp_rec_read_site(const struct wp_record *rec, struct wp_site_spec *s,
	    struct wp_error *err);

/* ---- records of wp-arm ---- */

struct wp_armed_rec {
	const char	*backend;
	pid_t		 pid;
	size_t		 threads, targets;
	int		 cpus;		/* -1: null */
	long		 events;	/* -1: null */
	long		 ring_pages;	/* -1: null */
	int		 regs;
	uint64_t	 time_base_ns;
	long		 duration_ms;	/* -1: null (until a signal) */
	const char	*callchain;	/* --callchain: how chains are found
					   (cfi, fp, dwarf); NULL: not asked */
	size_t		 callchain_depth;
	/* each target's value when armed; none: not written */
	const struct wp_armed_initial *initial;
	size_t		 ninitial;
	/* --if: the condition and where it is evaluated; NULL: none */
	const char	*condition;
	const char	*condition_where;	/* tracer, wp-arm */
};

struct wp_armed_initial {
	int		 id;		/* the target's */
	int		 known;		/* 0: null (over 8 bytes, unreadable) */
	uint64_t	 value;
};

void	 wp_rec_armed(struct wp_jw *w, const struct wp_armed_rec *a);

struct wp_hit_rec {
	int			 target;
	pid_t			 pid, tid;
	int			 cpu;		/* -1: null */
	int64_t			 time_ns;
	uint64_t		 ip;
	/* exact backends: the instruction that wrote, flags */
	int			 exact;
	int			 has_writer_ip;	/* 0: no instruction wrote */
	uint64_t		 writer_ip;
	unsigned		 flags;		/* WP_HIT_* */
	int			 signal;	/* WP_HIT_KERNEL: its signal, or 0 */
	/* the watched bytes after the write; NULL: not read */
	const unsigned char	*bytes;
	size_t			 nbytes;
	/* exact backends: the part of the target the write covered,
	   [store_addr, store_addr + store_len) (store_len 0: not known),
	   and the bytes it left there (up to WP_STORE_BYTES_MAX written) */
	uint64_t		 store_addr;
	size_t			 store_len;
	const unsigned char	*store_bytes;
	const unsigned char	*store_prev;	/* the bytes there before
						   it; NULL: not known */
	/* a hit on a follow chain */
	int			 role;		/* WP_ROLE_* */
	int			 level;		/* pointer */
	uint64_t		 generation;	/* leaf */
	uint64_t		 addr;
	int			 len;
	const struct wp_x86_regs *regs;		/* NULL: none sampled */
	/* on an AArch64 machine, its registers instead of regs */
	const struct wp_a64_regs *a64_regs;	/* NULL: none sampled */
	/* --callchain: the callers' return addresses, innermost first */
	const char		*chain_status;	/* NULL: not asked */
	const uint64_t		*chain;
	size_t			 nchain;
	/* --callchain dwarf: the user stack from the stack pointer on, for
	   wp-decode to unwind; NULL: not copied */
	const unsigned char	*stack;
	size_t			 nstack;
};

void	 wp_rec_hit(struct wp_jw *w, const struct wp_hit_rec *h);

/*
 * A caller wp-decode named (an element of a hit's "callers"), or a bare
 * return address (an element of its "callchain": then only ip), as
 * wp_rec_frame writes it; read by wp_rec_read_frames (reader.h), its
 * strings then its own, released by wp_frames_in_free.
 */
struct wp_frame_in {
	char		*ip;
	char		*module, *static_ip, *symbol;	/* NULL: null */
	char		*source_file;	/* NULL: no source */
	int64_t		 source_line;
	char		**inlined;	/* the functions inlined at the call */
	size_t		 ninlined;
	int		 bare;
};

void	 wp_rec_frame(struct wp_jw *w, const struct wp_frame_in *f);

struct wp_thread_rec {
	const char	*event;		/* seeded, start, exit, fork_process,
					   arm_failed */
	pid_t		 tid;
	const char	*comm;		/* its name; NULL: absent */
	pid_t		 pid;		/* fork_process */
	pid_t		 by_tid;	/* 0: null */
	const char	*coverage;	/* start */
	int		 err;		/* arm_failed */
	int		 has_time;
	int64_t		 time_ns;
};

void	 wp_rec_thread(struct wp_jw *w, const struct wp_thread_rec *t);
void	 wp_rec_lost(struct wp_jw *w, uint64_t count, int cpu,
	    int64_t time_ns);

/* What was counted of one watched entry while the watch runs. */
struct wp_count_rec {
	int		 target;
	int		 role;		/* WP_ROLE_*: a follow chain's entry */
	int		 level;
	uint64_t	 counted;	/* writes the backend counted */
	uint64_t	 sampled;	/* hit records written */
	int64_t		 time_ns;
};

void	 wp_rec_count(struct wp_jw *w, const struct wp_count_rec *c);

/* In-kernel tallies: one writing instruction of one thread. */
struct wp_tally_rec {
	int		 target;
	int		 role;		/* WP_ROLE_* */
	int		 level;
	pid_t		 tid;
	uint64_t	 ip;		/* the trap IP, as in hits */
	uint64_t	 hits;
	uint64_t	 first, last;	/* the watched value after the first
					   and the latest write */
	uint64_t	 unchanged;	/* writes that left it as it was */
	int64_t		 time_ns;	/* when the tally was read */
	/* wp-arm --if: the exact writer (has_writer_ip; flags WP_HIT_*
	   when none wrote), and of hits, those that matched */
	int		 has_writer_ip;
	uint64_t	 writer_ip;
	unsigned	 flags;
	int		 has_matched;
	uint64_t	 matched;
	/* --callchain: the chain these hits came by, as in hits */
	const char	*chain_status;	/* NULL: not asked */
	const uint64_t	*chain;
	size_t		 nchain;
};

void	 wp_rec_tally(struct wp_jw *w, const struct wp_tally_rec *t);

#define WP_ACCESS_NVALS	4	/* distinct values an access record keeps */

/* The accesses of one site's operand to one address by one thread,
   cumulative: a later one of the same site, addr and tid replaces it. */
struct wp_access_rec {
	int		 site;
	uint64_t	 addr;
	pid_t		 tid;
	uint64_t	 writes, reads;
	int64_t		 time_ns;
	char		 region[256];	/* the mapping that holds addr, as in
					   target; "": not known */
	uint64_t	 map_start;	/* where that mapping starts (with
					   region) */
	int		 has_values;	/* a register store's, in first, last */
	uint64_t	 first, last;
	pid_t		 stack_of;	/* on this thread's stack; 0: not */
	pid_t		 tls_of;	/* in this thread's TLS; 0: not, */
	int64_t		 tls_off;	/* then where, from its fs base */
	char		 name[256];	/* wp-decode's SYMBOL+0xOFF; "": none */
	/* a register store's value budget: its first nvals distinct
	   values and their counts, and the writes of any other */
	size_t		 nvals;
	uint64_t	 vals[WP_ACCESS_NVALS], vn[WP_ACCESS_NVALS];
	uint64_t	 vother;
	/* wp-arm --if: of writes + reads, the executions that matched, and
	   those whose match is not known (a value past the budget) */
	int		 has_match;
	uint64_t	 matched, match_unknown;
	const char	*backend;	/* which counted it (wp_backend_names);
					   NULL: not said */
};

void	 wp_rec_access(struct wp_jw *w, const struct wp_access_rec *a);
/* The reader of an access record: 0, or -1 with err set. */
int	 wp_rec_read_access(const struct wp_record *rec,
	    struct wp_access_rec *a, struct wp_error *err);

/* wp-arm --last: one of a target's last writes before the process
   ended (end: "SIGSEGV", "exit 0"). */
struct wp_last_write_rec {
	int		 target;
	uint64_t	 seq, of;	/* 0 the oldest, of of them */
	const char	*end;
	pid_t		 tid;
	int64_t		 time_ns;
	uint64_t	 ip;
	int		 has_writer_ip;	/* 0: none wrote (flags say) */
	uint64_t	 writer_ip;
	unsigned	 flags;		/* WP_HIT_* */
	int		 has_value;
	uint64_t	 value;		/* after the write, up to 8 bytes */
	/* --callchain: the chain the write came by, as in hits */
	const char	*chain_status;	/* NULL: not kept */
	const uint64_t	*chain;
	size_t		 nchain;
};

void	 wp_rec_last_write(struct wp_jw *w, const struct wp_last_write_rec *r);

struct wp_rebind_rec {
	int		 target;
	uint64_t	 generation;
	const char	*binding;
	uint64_t	 old_leaf, new_leaf;	/* 0: null */
	const uint64_t	*pointers;
	size_t		 npointers;
	int64_t		 time_ns;
	/* from the pointer's write to the leaf's re-arm; -1: not measured */
	int64_t		 rearm_ns;
	int		 held;		/* the writing thread was stopped */
	int		 missed;	/* -1 not known, 1: the leaf changed
					   before it was re-armed */
};

void	 wp_rec_rebind(struct wp_jw *w, const struct wp_rebind_rec *r);
/* A rebind's re-arm members as the rebind record has them ("rearm_ns",
   "held", "missed_in_window", null where not known): wp-report's
   bindings repeat them. */
void	 wp_rec_rearm_members(struct wp_jw *w, int64_t rearm_ns, int held,
	    int missed);

struct wp_obs_target {
	int		 id;
	uint64_t	 hits;
	int		 counted_known;
	uint64_t	 counted;	/* the kernel's (or ptrace's) count */
	uint64_t	 lost;		/* counted, neither written nor cut */
	int		 has_latest;
	uint64_t	 latest;
	int		 has_pages_dropped;	/* the page backend's */
	uint64_t	 pages_dropped;
};

struct wp_obs_follow {
	int		 id;
	uint64_t	 generation;
	const char	*binding;
	uint64_t	 leaf;		/* 0: null */
	uint64_t	 pointer_hits, leaf_hits, rebinds;
	int		 counted_known;
	uint64_t	 pointer_counted, leaf_counted;
};

struct wp_obs_failed {
	pid_t		 tid;
	int		 err;
};

/* The uprobe backend's count per site. */
struct wp_obs_site {
	int		 id;
	uint64_t	 executions;	/* every one */
	uint64_t	 addresses;	/* distinct (address, thread) tallies */
	uint64_t	 tally_full;	/* executions no tally could hold */
	uint64_t	 segment_unread;	/* executions whose fs base was
					   not read */
	int		 counted_by;	/* which backend counted it: enum
					   wp_backend + 1; 0: not said */
};

struct wp_obs_uprobe {
	const struct wp_obs_site *sites;
	size_t		 nsites;
};

struct wp_obs_bpf {
	uint64_t	 samples_sent, samples_dropped, samples_capped;
	uint64_t	 tally_full, read_errors;
	uint64_t	 writers_held;	/* --follow-mode stop */
	uint64_t	 signals_passed;
	/* the sample budget (all_hits: none, every hit sampled): each
	   target's first hits, each tally's first, then one a period */
	int		 all_hits;
	uint64_t	 budget_first, budget_first_per_writer;
	uint64_t	 budget_interval_ns;
	uint64_t	 samples_skipped;	/* hits the budget passed over */
	/* --if on the value: hits of writers not decoded yet, sent to
	   wp-arm to test; writers decoded before the first hit */
	int		 has_learning;
	uint64_t	 samples_pending, writers_prelearned;
};

/* The perf backend's formatter and its queue (perf-queue.h). */
struct wp_obs_perf {
	const char	*formatter;	/* "idle", or "inline" */
	const char	*formatter_reason;	/* why inline; NULL */
	uint64_t	 queue_cap_bytes;
	uint64_t	 queued_peak_bytes, queued_peak_records;
	uint64_t	 formatter_wait_max_ms;	/* copied to formatted */
	uint64_t	 cap_reached;	/* times the queue passed its cap */
};

struct wp_obs_ptrace {
	uint64_t	 steps, steps_per_second, unexplained, kernel_writes;
	uint64_t	 signals_passed;
	/* steps of a store wp cannot place that may have written a
	   target and left it unchanged: each a write perhaps missed */
	uint64_t	 unmodeled;
	uint64_t	 blocked_ns;	/* every thread in a system call */
	/* this CPU's instructions per second; 0: not measured (then no
	   estimate of the native run time is written) */
	uint64_t	 native_ips;
};

/* The page backend's: its faults, how each was made, its windows. */
struct wp_obs_page {
	uint64_t	 pages, pages_dropped;
	uint64_t	 faults_watched, faults_neighbour, emulated, stepped;
	uint64_t	 kernel_writes;
	uint64_t	 windows, windows_shared;	/* pages given back */
	uint64_t	 signals_passed, forks_restored;
	/* the target's SIGSEGV handler put back after a fault of wp's,
	   which the kernel forced while the thread blocked it */
	uint64_t	 handlers_restored;
	/* --tracer-cpu follow (tracer_follows): the times the tracer moved
	   to the CPU of the thread whose stop woke it (trace/near.c) */
	int		 tracer_follows;
	uint64_t	 tracer_moves;
	/* changes no stop explained: another process's writes */
	uint64_t	 unexplained;
	/* stores in an rseq critical section: sections aborted, each
	   retried alone; the retries' system calls (the others let go for
	   each); retries cut by their step limit */
	uint64_t	 rseq_retries, rseq_retry_calls, rseq_retries_cut;
	/* asynchronous I/O contexts (io_uring, AIO) of the process, at
	   arming or made since: their reads into the pages fail */
	uint64_t	 async_io;
	uint64_t	 stopped_ns;	/* the threads' time stopped by wp */
	/* the threads' stops by wp (faults, steps, system calls, holds):
	   the times it let one run on */
	uint64_t	 stops;
	uint64_t	 watched_ns;	/* from arming to disarming */
	/* the longest a thread was delayed by wp: its time less its own
	   (user CPU time and time in system calls) */
	uint64_t	 delay_ns;
	/* the slowest window of about a second (has_worst): from when
	   since arming, its length, the longest a thread was delayed in
	   it (a second's native_run_us is the length less that) */
	int		 has_worst;
	uint64_t	 worst_from_ns, worst_span_ns, worst_delay_ns;
	uint64_t	 worst_stops;	/* the threads' stops in it */
};

/* wp-arm --stop: the write the process was left stopped after. */
struct wp_stopped_at {
	pid_t			 tid;		/* 0: none */
	int			 has_writer;
	uint64_t		 writer_ip, ip;
	const char		*core;		/* --stop=core; NULL: none */
	int			 late;		/* stopped after the thread ran
						   on, late_us later */
	uint64_t		 late_us;
	const char		*process;	/* wp_left_names[]; NULL: not
						   known yet */
};

struct wp_observation {
	const char		*backend;
	pid_t			 pid;
	uint64_t		 duration_ms, elapsed_ms, max_events;
	const char		*stop_reason, *stop_detail, *error;
	int			 truncated;
	uint64_t		 accepted;
	/* thread_coverage */
	uint64_t		 seeded, inherited, attached_late, unattached;
	uint64_t		 exited;
	const struct wp_obs_failed *failed;
	size_t			 nfailed;
	uint64_t		 forked, excluded, ambiguous, unparsed;
	const char *const	*partial_reasons;
	size_t			 npartial;
	/* lost_events */
	int			 lost_known;
	const char		*lost_reason;	/* when not known */
	uint64_t		 lost, lost_records;
	uint64_t		 undelivered;	/* records dropped: the
						   output did not take them */
	const char *const	*lost_reasons;	/* ring_overflow, ... */
	size_t			 nlost_reasons;
	int			 lower_bound;
	const struct wp_obs_target *targets;
	size_t			 ntargets;
	const struct wp_obs_follow *follows;
	size_t			 nfollows;
	int			 tallied;	/* per-writer counts from tallies */
	const char		*follow_mode;	/* NULL: no follow chain */
	const char		*follow_reason;
	const struct wp_obs_ptrace *ptrace;	/* NULL: another backend */
	const struct wp_obs_bpf	*bpf;		/* NULL: another backend */
	const struct wp_obs_perf *perf;		/* NULL: another backend */
	const struct wp_obs_page *page;		/* NULL: another backend */
	const struct wp_obs_uprobe *uprobe;	/* NULL: another backend */
	size_t			 breakpoints_quiet;	/* entries whose count
						   is not known: a shared
						   breakpoint went quiet */
	int			 alive;		/* -1: not known */
	struct wp_stopped_at	 stopped;	/* wp-arm --stop */
};

void	 wp_rec_observation(struct wp_jw *w, const struct wp_observation *o);

/* ---- what wp-decode adds to a hit ---- */

struct wp_writer_rec {
	int		 kind;		/* enum wp_kind; -1: null */
	int		 has_trap;	/* 0: the hit had no ip */
	uint64_t	 trap_ip;
	int		 has_trap_static;
	uint64_t	 trap_static;	/* in trap_module */
	const char	*trap_module;	/* NULL: in no module */
	const char	*module;	/* the writer's; NULL: in no module */
	const char	*function;	/* NULL: none */
	uint64_t	 function_static;
	int		 has_writer;
	uint64_t	 writer_ip;
	int		 has_writer_static;
	uint64_t	 writer_static;
	const char	*source_file;	/* NULL: no source */
	int		 source_line;
	const char	*insn;
	int		 confidence;	/* enum wp_conf */
	int		 candidates;
	const char	*reason;
	const char	*caveat;
};

/* The member "writer":{...}, with its leading comma. */
void	 wp_rec_writer(struct wp_jw *w, const struct wp_writer_rec *wr);

struct wp_value_rec {
	int		 kind;	/* enum wp_vkind */
	const char	*reg;
	int		 width;
	int		 has_value;
	uint64_t	 value;
	const char	*bytes;	/* raw JSON (a string or null), observed */
	size_t		 nbytes;
	const char	*reason;
	int		 has_addr;	/* AArch64: where the register went */
	uint64_t	 addr;
};

/*
 * The value a decoded store wrote, from the registers r before it ran:
 * a register store's source (with r's register known), an immediate
 * store's immediate, else unknown with the reason.
 */
void	 wp_value_of(const struct wp_x86_insn *in, const struct wp_x86_regs *r,
	    struct wp_value_rec *v);
/*
 * The same of an AArch64 store, from the registers before it ran: of a
 * pair, the register whose half holds the watched address watch.
 */
void	 wp_a64_value_of(const struct wp_a64_insn *in,
	    const struct wp_a64_regs *r, uint64_t watch, struct wp_value_rec *v);
/* The member "written_value":{...}, with its leading comma. */
void	 wp_rec_value(struct wp_jw *w, const struct wp_value_rec *v);

#endif
