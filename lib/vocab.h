/*
 * vocab: the words of the record contract (wp-records(7)), each
 * vocabulary one enum and one table of names, in enum order.  The
 * schema (share/wp-records.schema.json) lists the same words as its
 * "enum"s; tests/16-records-vocab.bats checks that the two agree.
 * Everything here is static and lives as long as the process.
 */
#ifndef WP_VOCAB_H
#define WP_VOCAB_H

#include <stddef.h>

/* hit.flags: bit 1 << WP_FLAG_x of struct wp_hit_rec's flags */
enum wp_flag {
	WP_FLAG_READ,		/* -a rw, a load */
	WP_FLAG_SYSCALL,	/* the kernel wrote in a system call */
	WP_FLAG_UNEXPLAINED,	/* changed, no store explains it */
	WP_FLAG_KERNEL,		/* the kernel wrote, not for a call: a
				   signal frame */
	WP_FLAG_UNVERIFIED,	/* a system call whose writes wp does not
				   know */
	WP_FLAG_UNMODELED,	/* changed as an instruction ran whose stored
				   bytes wp cannot tell (xsave, a scatter,
				   a mask it could not read) */
	WP_NFLAGS
};

#define WP_HIT_READ		(1 << WP_FLAG_READ)
#define WP_HIT_SYSCALL		(1 << WP_FLAG_SYSCALL)
#define WP_HIT_UNEXPLAINED	(1 << WP_FLAG_UNEXPLAINED)
#define WP_HIT_KERNEL		(1 << WP_FLAG_KERNEL)
#define WP_HIT_UNVERIFIED	(1 << WP_FLAG_UNVERIFIED)
#define WP_HIT_UNMODELED	(1 << WP_FLAG_UNMODELED)

/* role of hit, tally and count records on a follow chain */
enum wp_role { WP_ROLE_NONE, WP_ROLE_POINTER, WP_ROLE_LEAF, WP_NROLES };

/* writer.kind: what the access was */
enum wp_kind {
	WP_KIND_WRITE, WP_KIND_READ, WP_KIND_SYSCALL, WP_KIND_KERNEL,
	WP_KIND_UNEXPLAINED,
	WP_KIND_SPURIOUS,	/* the writer's store, placed by the sampled
				   registers, lies outside the watched bytes */
	WP_NKINDS
};

/* writer.confidence, the surest first */
enum wp_conf {
	WP_CONF_EXACT, WP_CONF_HIGH, WP_CONF_MEDIUM, WP_CONF_LOW,
	WP_CONF_UNKNOWN, WP_NCONFS
};

/* written_value.kind */
enum wp_vkind {
	WP_VALUE_REGISTER, WP_VALUE_IMMEDIATE, WP_VALUE_OBSERVED,
	WP_VALUE_UNKNOWN, WP_NVKINDS
};

/* thread.event */
enum wp_event {
	WP_EVENT_SEEDED, WP_EVENT_START, WP_EVENT_EXIT, WP_EVENT_FORK,
	WP_EVENT_ARM_FAILED, WP_NEVENTS
};

/* observation.stop_reason */
enum wp_stop {
	WP_STOP_DURATION, WP_STOP_MAX_EVENTS, WP_STOP_SIGNAL,
	WP_STOP_EXITED, WP_STOP_EXEC, WP_STOP_OUTPUT_CLOSED, WP_STOP_ERROR,
	WP_STOP_MATCH,
	WP_NSTOPS
};

/* observation.stopped_at.process: what --stop left the process as */
enum wp_left { WP_LEFT_STOPPED, WP_LEFT_RUNNING, WP_LEFT_ENDED, WP_NLEFTS };

/* observation.thread_coverage.partial_coverage_reasons */
enum wp_partial {
	WP_PARTIAL_LATE, WP_PARTIAL_NEVER, WP_PARTIAL_FAILED,
	WP_PARTIAL_UNKNOWN_ORIGIN, WP_PARTIAL_MALFORMED,
	WP_PARTIAL_REBIND_WINDOW, WP_PARTIAL_REARM_FAILED,
	WP_PARTIAL_PAGE_WINDOWS_SHARED, WP_PARTIAL_QUIET,
	WP_PARTIAL_PAGES_DROPPED, WP_PARTIAL_ASYNC_IO, WP_NPARTIALS
};

/* observation.lost_events.reasons */
enum wp_lost { WP_LOST_RING_OVERFLOW, WP_LOST_OUTPUT_BLOCKED, WP_NLOSTS };

/*
 * The backends: the records' name (armed.backend, observation.backend)
 * and --backend's word, wp_backend_words[i + 1] (after "auto").
 * wp-arm's table of backends (cmd/wp-arm/backends.c) has one per name.
 * The last, sites split between the uprobe and ptrace backends, is
 * auto's only: it has a name, no word.
 */
enum wp_backend {
	WP_BK_BPF, WP_BK_PERF, WP_BK_PTRACE, WP_BK_PAGE, WP_BK_UPROBE,
	WP_BK_SPLIT, WP_NBACKENDS
};

/* session.machine: the target's instruction set ("x86_64" where absent) */
enum wp_machine { WP_MACH_X86_64, WP_MACH_AARCH64, WP_NMACHINES };

/* session.limits: which backend's limits wp-resolve checked */
enum wp_limits { WP_LIMITS_DEBUG_REGISTERS, WP_LIMITS_NONE, WP_NLIMITS };

/* wp-report's lower_bound_reasons: why its counts are a lower bound */
enum wp_bound {
	WP_BOUND_INCOMPLETE, WP_BOUND_LOST, WP_BOUND_TRUNCATED,
	WP_BOUND_PARTIAL, WP_BOUND_OUTPUT_CLOSED, WP_BOUND_MALFORMED,
	WP_BOUND_WP_ARM, WP_BOUND_UNMODELED, WP_BOUND_REBIND_WINDOW,
	WP_BOUND_QUIET, WP_BOUND_PAGES_DROPPED, WP_BOUND_PAGE_WINDOWS,
	WP_BOUND_ASYNC_IO, WP_BOUND_REP_TRAPS, WP_NBOUNDS
};

extern const char *const wp_backend_names[WP_NBACKENDS];
extern const char *const wp_backend_words[WP_NBACKENDS + 2];
extern const char *const wp_flag_names[WP_NFLAGS];
extern const char *const wp_role_names[WP_NROLES];	/* [NONE]: NULL */
extern const char *const wp_kind_names[WP_NKINDS];
extern const char *const wp_conf_names[WP_NCONFS];
extern const char *const wp_vkind_names[WP_NVKINDS];
extern const char *const wp_event_names[WP_NEVENTS];
extern const char *const wp_stop_names[WP_NSTOPS];
extern const char *const wp_left_names[WP_NLEFTS];
extern const char *const wp_partial_names[WP_NPARTIALS];
extern const char *const wp_lost_names[WP_NLOSTS];
extern const char *const wp_bound_names[WP_NBOUNDS];
extern const char *const wp_limits_names[WP_NLIMITS];
extern const char *const wp_machine_names[WP_NMACHINES];	/* as uname(2) */

/* The index of the word s (len bytes) in names[0..n), or -1. */
int	 wp_vocab_find(const char *const *names, size_t n, const char *s,
	    size_t len);

/* Each vocabulary, and the members of the contract it gives the words
 * of ("hit.flags", "$writer.kind", space-separated; NULL: wp-report's
 * document, not a record). */
struct wp_vocab {
	const char		*members;
	const char *const	*names;
	size_t			 n;
};

extern const struct wp_vocab wp_vocabs[];
extern const size_t wp_nvocabs;

#endif
