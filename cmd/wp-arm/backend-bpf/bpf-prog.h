/*
 * bpf-prog: the bpf backend's program (bpf/wp.bpf.c) from wp-arm's
 * side, for backend-bpf.c: loading it, attaching it to breakpoint
 * events, telling it where the entries are, and reading its ring buffer
 * (samples) and maps (totals, tallies, stacks, last writes) as the
 * program wrote them (bpf/wpbpf.h).  What they mean, and the records,
 * are the backend's.
 */
#ifndef WPARM_BPF_PROG_H
#define WPARM_BPF_PROG_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/wpbpf.h"
#include "util.h"
#include "watch.h"

struct bpfw;

/*
 * Loads the program for the entries of w (at most four).  NULL with e
 * set when BPF cannot be used here; verbose prints libbpf's messages,
 * the verifier's log among them.
 */
struct bpfw *bpfw_open(const struct watch *w, int verbose,
	    struct wp_error *e);
void	 bpfw_close(struct bpfw *b);
/* libbpf's messages on standard error when v (the verifier's log). */
void	 bpfw_verbose(int v);
/* Sets e to why a BPF program cannot be loaded here (errno err): -1.
   The uprobe backend's program says it the same way. */
int	 bpfw_load_error(struct wp_error *e, int err);
/* Runs entry slot's program on the breakpoint event fd: 0, or errno. */
int	 bpfw_attach(struct bpfw *b, int fd, size_t slot);
/* Tells the program where entry slot is now (after a re-arm). */
void	 bpfw_conf(struct bpfw *b, const struct watch *w, size_t slot);
/*
 * Entry slot's value before its first hit, for --if changed; only before
 * its event is opened (it replaces the slot's totals).
 */
void	 bpfw_seed(struct bpfw *b, size_t slot, uint64_t value);
/* Entry slot's --if and --stop (cd->nops 0: every hit matches). */
void	 bpfw_cond(struct bpfw *b, size_t slot, const struct wpb_cond *cd);
/*
 * The writer that ends at trap IP trap, for the program's value tests:
 * a store whose value is its source register's or immediate (in, as
 * lib/x86.h decoded it); NULL: its value is read in memory.
 */
struct wp_x86_insn;
void	 bpfw_store(struct bpfw *b, uint64_t trap,
	    const struct wp_x86_insn *in);
/* The signal a pointer's writer gets (0: none), for every pointer. */
void	 bpfw_stop_signal(struct bpfw *b, const struct watch *w, int sig);
/* A descriptor that polls readable when samples wait; -1: none. */
int	 bpfw_fd(struct bpfw *b);
/*
 * Hands every sample waiting to fn: size bytes at data, a struct
 * wpb_sample at the head (wpb_sample_regs, wpb_sample_stack), valid
 * during the call only.
 */
void	 bpfw_drain(struct bpfw *b,
	    void (*fn)(void *arg, const void *data, size_t size), void *arg);
/* Whether samples carry a stack (--callchain dwarf), and tallies
   and samples a chain id (--callchain fp). */
int	 bpfw_stack_bytes(const struct bpfw *b);
int	 bpfw_chains(const struct bpfw *b);
/* Whether every hit is sampled (--all-hits), not a budget of them. */
int	 bpfw_all_hits(const struct bpfw *b);
/* Entry slot's totals: 0, or -1. */
int	 bpfw_total(struct bpfw *b, size_t slot, struct wpb_tot *tot);
/*
 * Hands every tally to fn, until fn returns -1 (then -1).
 */
int	 bpfw_tallies(struct bpfw *b, int (*fn)(void *arg,
	    const struct wpb_key *key, const struct wpb_val *val), void *arg);
/*
 * --last: entry slot's last hits the program kept, oldest first, to fn,
 * until fn returns -1 (then -1).
 */
int	 bpfw_lasts(struct bpfw *b, size_t slot, int (*fn)(void *arg,
	    size_t slot, const struct wpb_last *l), void *arg);
/*
 * --callchain: the callers of stack id (bpf_get_stackid's answer) into
 * ips, without the trap IP ip, at most w->callchain_depth; returns the
 * chain's status (static, or a buffer until the next call).
 */
const char *bpfw_callers(struct bpfw *b, const struct watch *w, int32_t id,
	    uint64_t ip, uint64_t *ips, size_t *n);

#endif
