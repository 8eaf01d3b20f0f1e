/*
 * filter: wp-arm --if, what watch_hit asks of each write before it is
 * written: the condition (lib/cond.h), evaluated in the tracer for the
 * backends that trace (ptrace, page), and every write's tally per
 * writer and thread, matched or not, written as tally records at the
 * end; on a tracer with no --if too (main.c opens it there), written
 * where the output did not take some hits, so that each writer's count
 * stays exact.  On a follow chain it filters the leaf's writes; its pointers'
 * are always written, as they move the leaf.  --stop: the first
 * matching write (a leaf's: on the backends that trace) leaves the
 * process stopped after it, for a debugger (or, --stop=core, for
 * gcore).
 */
#ifndef WPARM_FILTER_H
#define WPARM_FILTER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "util.h"

struct watch;
struct wtarget;
struct wp_cond;
struct wp_cond_op;
struct wp_observation;

/* --stop: none, stop, or stop and write a core with gcore */
enum { STOP_NONE, STOP_STAY, STOP_CORE };

#define LAST_MAX	65536	/* --last at most */

/* What the options ask of the filter, besides --last (w->last). */
struct filter_opts {
	struct wp_cond	*cond;		/* --if; NULL: every write matches */
	int		 stop;		/* --stop: STOP_* */
};

/*
 * Takes o->cond (the filter owns it from then on) for the watch: its
 * writer names are bound to ranges in w->pid now, before arming.  0, or
 * -1 with e set (a name no module has, a backend that cannot, gcore not
 * installed).
 */
int	 filter_open(struct watch *w, const struct filter_opts *o,
	    struct wp_error *e);
/* The armed record's condition and where it is evaluated. */
void	 filter_armed(struct watch *w);
/*
 * Entry ti (a chain's) moved: its value there now, read through memfd,
 * is what changed and unchanged compare its next write with.
 */
void	 filter_moved(struct watch *w, size_t ti, int memfd);
/*
 * Write h on entry ti: counted in its tally; 1 when it matches (watch_hit
 * then writes it), 0 when not.
 */
int	 filter_hit(struct watch *w, size_t ti, const struct wp_hit_rec *h);
/*
 * --last: keeps write h on entry ti, whose value after it is value (when
 * has_value), in the entry's ring, with h's call chain (--callchain): filter_hit does for every write the
 * tracer reports; the bpf backend, whose program kept them, for each of
 * its last writes, oldest first, as it disarms.
 */
void	 filter_keep(struct watch *w, size_t ti, const struct wp_hit_rec *h,
	    int has_value, uint64_t value);
/*
 * The tallies, once the backend disarmed; with --last, when the process
 * died or exited, each target's last writes (last_write records).
 */
void	 filter_emit(struct watch *w);
/* Whether --last saw the process die of a signal (wp-arm exits 6). */
int	 filter_died(const struct watch *w);
/*
 * After the watch, with --stop: says on stderr where the process was
 * left stopped and how to look (gdb -p PID), or writes its core and
 * lets it run on (STOP_CORE); or that it did not stop, or ended first.
 * The observation's stopped_at.process says which.
 */
void	 filter_stopped(struct watch *w);
/*
 * For the bpf backend, whose program evaluates --if: entry ti's
 * condition compiled (lib/cond.h) into ops (max of them) at its width;
 * their count, 0 when every write matches (no --if, a follow chain's
 * pointer).  *stop: whether the program stops the first matching writer.
 */
size_t	 filter_compiled(const struct watch *w, size_t ti,
	    struct wp_cond_op *ops, size_t max, int *stop);
/* Whether the program's tallies count the matching writes. */
int	 filter_matched(const struct watch *w);
/*
 * A bpf sample of a hit on entry ti the program did not test (a writer
 * not decoded yet: wpbpf.h's WPB_F_PENDING), with its registers, after
 * the value prev: tested here on the value its store wrote (*value,
 * when *has_value), else on h's bytes; 1: it matches.  --stop: stopped,
 * the program stopped its writer at the write (its value in memory
 * matched): a match stays stopped there, else the process runs on; a
 * match the program did not stop stops the process now, late.
 */
int	 filter_pending(struct watch *w, size_t ti, const struct wp_hit_rec *h,
	    uint64_t prev, int stopped, int *has_value, uint64_t *value);
/* A sample of the write the program stopped the writer at (--stop). */
void	 filter_kernel_stop(struct watch *w, const struct wp_hit_rec *h);
/* What decodes the writers of samples (perf, bpf); NULL: none. */
struct csample *filter_csample(const struct watch *w);
/*
 * Whether a tracer stopped the process at a --stop match: it is to be
 * left stopped as it detaches (tracee.h's keep_stopped).
 */
int	 filter_holds(const struct watch *w);
/* Whether --stop waits for its first match still (a site's execution). */
int	 filter_stops(const struct watch *w);
/* --stop at a site's execution by tid: it stops at site, not yet run
   (by_program: the bpf program sent it SIGSTOP). */
void	 filter_site_stop(struct watch *w, pid_t tid, uint64_t site,
	    int by_program);
/* The observation's stopped_at. */
void	 filter_observe(const struct watch *w, struct wp_observation *o);
void	 filter_free(struct watch *w);

/* stop.c: what --stop does once the process was left stopped. */
/* gcore's path on PATH (static), or NULL when it is not installed. */
const char *stop_gcore_path(void);
/* Waits (a second at most) until process pid is stopped: 0, or -1. */
int	 stop_wait(pid_t pid);
/* Writes the stopped process's core with gcore and lets it run on
   (SIGCONT): the file (the caller frees it), or NULL, said why. */
char	*stop_core(pid_t pid);
/* Says on stderr where the process stopped (writer named where it can
   be) and how to look at it, or where its core is (core not NULL). */
void	 stop_say(struct watch *w, pid_t tid, int has_writer,
	    uint64_t writer_ip, uint64_t ip, const char *core);

/*
 * cond-sample.c: the value a perf sample's write stored, from its trap
 * IP and sampled registers.  Opened on process pid (its code, its
 * symbols); the caller closes it.
 */
struct csample;
struct csample *csample_open(pid_t pid);
/*
 * The watched bytes of target t after write h (a sample with its
 * registers): 0, or -1 when the store's value is not known from them.
 */
int	 csample_value(struct csample *cs, const struct wtarget *t,
	    const struct wp_hit_rec *h, uint64_t *value);
/*
 * The writer that ends at trap when it is a store whose value is its
 * source register's or immediate at the trap (*in, valid while cs is
 * open): 0, or -1.
 */
struct wp_x86_insn;
int	 csample_store(struct csample *cs, uint64_t trap,
	    const struct wp_x86_insn **in);
/*
 * The writers that may store into [lo, hi) rip-relatively (a global's
 * bytes), found before any hit: the instructions, decoded from the
 * starts of the functions of the module that holds lo (its symbols', or
 * its unwind table's: wp_dwfl_module_funcs), whose stored bytes can
 * reach it; each one's trap IP to fn, at most max.  Their count; 0
 * where lo is in no module or none of its functions is known.
 */
size_t	 csample_reaching(struct csample *cs, uint64_t lo, uint64_t hi,
	    size_t max, void (*fn)(void *, uint64_t), void *arg);
/* The writer that ends at trap, decoded: 0, or -1 when not known. */
int	 csample_writer(struct csample *cs, uint64_t trap, uint64_t *writer_ip);
void	 csample_close(struct csample *cs);

#endif
