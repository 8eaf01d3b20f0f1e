/*
 * The bpf backend's program from wp-arm's side (bpf-prog.h): loaded
 * from the object the skeleton embeds, attached to every breakpoint
 * event, read through its ring buffer (samples) and its maps (totals,
 * tallies, stacks, last writes).  Nothing here makes a record.
 */
#include <sys/ioctl.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf-prog.h"
#include "kchain.h"
#include "proc.h"
#include "x86.h"
#include "wp.skel.h"

#define RING_BYTES	(1 << 22)	/* the samples' ring buffer */

struct bpfw {
	int			 sig;		/* for a pointer's writer */
	size_t			 depth;		/* entries of a stack */
	struct wpbpf		*skel;
	struct ring_buffer	*rb;
	/* while draining */
	void			(*fn)(void *, const void *, size_t);
	void			*arg;
};

static int verbose;

static int
print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void
bpfw_verbose(int v)
{
	verbose = v;
	libbpf_set_print(print);
}

static int
unprivileged_bpf_disabled(void)
{
	long v;

	return wp_proc_sysctl("kernel/unprivileged_bpf_disabled", &v) == 0 ?
	    (int)v : -1;
}

int
bpfw_load_error(struct wp_error *e, int err)
{
	if (err == EPERM && geteuid() == 0)
		return wp_error_set(e, WP_EXIT_ERROR, "cannot load the BPF "
		    "program: %s even to root (a seccomp filter forbids bpf(2), "
		    "or a container lacks CAP_BPF and CAP_PERFMON)",
		    strerror(err));
	if (err == EPERM)
		return wp_error_set(e, WP_EXIT_ERROR, "cannot load the BPF "
		    "program: %s (it needs CAP_BPF and CAP_PERFMON, or root, and "
		    "bpf(2) allowed by any seccomp filter; "
		    "kernel.unprivileged_bpf_disabled is %d)", strerror(err),
		    unprivileged_bpf_disabled());
	if (err == EACCES || err == EINVAL)
		return wp_error_set(e, WP_EXIT_ERROR, "the kernel refused the "
		    "BPF program: %s (wp-arm -v prints the verifier's log)",
		    strerror(err));
	return wp_error_set(e, WP_EXIT_ERROR, "cannot load the BPF program: "
	    "%s", strerror(err));
}

struct bpfw *
bpfw_open(const struct watch *w, int v, struct wp_error *e)
{
	struct bpfw *b = wp_xcalloc(1, sizeof *b);
	size_t i;
	int err;

	bpfw_verbose(v);
	if ((b->skel = wpbpf__open()) == NULL) {
		bpfw_load_error(e, errno);
		free(b);
		return NULL;
	}
	b->skel->rodata->with_regs = w->regs ? 1 : 0;
	/* frame-pointer chains in the tallies; with dwarf, stacks in the
	   samples, for wp-decode to unwind */
	b->skel->rodata->with_stack = w->callchain != CC_NONE &&
	    w->callchain != CC_DWARF;
	if (w->callchain == CC_DWARF)
		b->skel->rodata->stack_bytes = w->callchain_stack <
		    WPB_STACK_CHUNK ? WPB_STACK_CHUNK :
		    (__u32)(w->callchain_stack / WPB_STACK_CHUNK *
		    WPB_STACK_CHUNK);
	b->skel->rodata->sample_limit = w->max_events;
	b->skel->rodata->sample_all = w->all_hits ? 1 : 0;
	/* the samples wait for wp-arm's tick, unless they fill a quarter */
	b->skel->rodata->wake_bytes = RING_BYTES / 4;
	bpf_map__set_max_entries(b->skel->maps.samples, RING_BYTES);
	/* the trap IP, the callers asked for, one more to tell a longer
	   chain; within kernel.perf_event_max_stack's default */
	b->depth = w->callchain_depth + 2 < WP_KERNEL_MAXSTACK ?
	    w->callchain_depth + 2 : WP_KERNEL_MAXSTACK;
	bpf_map__set_value_size(b->skel->maps.stacks, (__u32)(8 * b->depth));
	if (!b->skel->rodata->with_stack)
		bpf_map__set_max_entries(b->skel->maps.stacks, 1);
	/* --last: a ring of w->last per entry, one map */
	b->skel->rodata->last_n = w->last;
	if (w->last > 0)
		bpf_map__set_max_entries(b->skel->maps.lastw, (__u32)(w->last *
		    (w->nt < WPB_SLOTS ? w->nt : WPB_SLOTS)));
	if ((err = wpbpf__load(b->skel)) != 0) {
		bpfw_load_error(e, err < 0 ? -err : err);
		wpbpf__destroy(b->skel);
		free(b);
		return NULL;
	}
	for (i = 0; i < w->nt && i < WPB_SLOTS; i++)
		bpfw_conf(b, w, i);
	return b;
}

void
bpfw_close(struct bpfw *b)
{
	if (b == NULL)
		return;
	ring_buffer__free(b->rb);
	wpbpf__destroy(b->skel);
	free(b);
}

void
bpfw_conf(struct bpfw *b, const struct watch *w, size_t slot)
{
	const struct wtarget *t = &w->t[slot];
	const struct chain *c;
	struct wpb_conf cf;
	__u32 key = (__u32)slot;

	memset(&cf, 0, sizeof cf);
	cf.addr = t->addr;
	cf.len = (__u32)t->len;
	cf.kind = WPB_TARGET;
	if (t->chain >= 0) {
		c = &w->chains[t->chain];
		cf.kind = (size_t)t->level < c->noffs ? WPB_POINTER : WPB_LEAF;
		cf.level = (__u32)t->level;
		cf.noffs = (__u32)c->noffs;
		cf.leaf_len = (__u32)c->len;
		memcpy(cf.offs, c->offs, sizeof cf.offs);
		if (cf.kind == WPB_POINTER)
			cf.sig = (__u32)b->sig;
	}
	bpf_map_update_elem(bpf_map__fd(b->skel->maps.conf), &key, &cf,
	    BPF_ANY);
}

void
bpfw_seed(struct bpfw *b, size_t slot, uint64_t value)
{
	struct wpb_tot tot;
	__u32 key = (__u32)slot;

	memset(&tot, 0, sizeof tot);
	tot.last_value = value;
	bpf_map_update_elem(bpf_map__fd(b->skel->maps.totals), &key, &tot,
	    BPF_ANY);
}

void
bpfw_cond(struct bpfw *b, size_t slot, const struct wpb_cond *cd)
{
	__u32 key = (__u32)slot;

	bpf_map_update_elem(bpf_map__fd(b->skel->maps.cond), &key, cd,
	    BPF_ANY);
}

void
bpfw_store(struct bpfw *b, uint64_t trap, const struct wp_x86_insn *in)
{
	struct wpb_store st;
	__u64 key = trap;

	memset(&st, 0, sizeof st);
	st.src = WPB_SRC_MEMORY;
	if (in != NULL && in->width > 0 && in->width <= 8 && in->mem.seg == 0) {
		st.src = in->kind == WP_X86_IMM_STORE ? WPB_SRC_IMM :
		    in->src_reg;
		st.shift = (__u32)in->src_shift;
		st.width = (__u32)in->width;
		st.base = in->mem.base;
		st.index = in->mem.index;
		st.scale = (__u32)in->mem.scale;
		st.addr32 = in->mem.base_bytes == 4;
		/* rip-relative: from the trap, the next instruction */
		st.disp = in->mem.disp + (in->mem.rip_rel ? (__s64)trap : 0);
		st.imm = in->imm;
	}
	bpf_map_update_elem(bpf_map__fd(b->skel->maps.stores), &key, &st,
	    BPF_ANY);
}

void
bpfw_stop_signal(struct bpfw *b, const struct watch *w, int sig)
{
	size_t i;

	b->sig = sig;
	for (i = 0; i < w->nt && i < WPB_SLOTS; i++)
		bpfw_conf(b, w, i);
}

int
bpfw_attach(struct bpfw *b, int fd, size_t slot)
{
	struct bpf_program *p;
	char name[16];

	if (slot >= WPB_SLOTS)
		return EINVAL;
	/* on_s0 .. : one per slot the machine's program has */
	snprintf(name, sizeof name, "on_s%zu", slot);
	if ((p = bpf_object__find_program_by_name(b->skel->obj, name)) == NULL)
		return EINVAL;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, bpf_program__fd(p)) == -1)
		return errno;
	return 0;
}

const char *
bpfw_callers(struct bpfw *b, const struct watch *w, int32_t id, uint64_t ip,
    uint64_t *ips, size_t *n)
{
	static char why[80];
	uint64_t st[WP_KERNEL_MAXSTACK];

	*n = 0;
	if (id < 0) {
		snprintf(why, sizeof why, "bpf_get_stackid: %s%s",
		    strerror(-id), id == -EEXIST ? " (another chain holds its "
		    "slot in the stack map)" : "");
		return why;
	}
	memset(st, 0, sizeof st);
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stacks), &id,
	    st) != 0)
		return "the stack map lost the chain";
	return kchain_callers(w->pid, st, b->depth, b->depth, ip, ips,
	    w->callchain_depth, n);
}

int
bpfw_stack_bytes(const struct bpfw *b)
{
	return (int)b->skel->rodata->stack_bytes;
}

int
bpfw_all_hits(const struct bpfw *b)
{
	return (int)b->skel->rodata->sample_all;
}

int
bpfw_chains(const struct bpfw *b)
{
	return b->skel->rodata->with_stack;
}

static int
on_sample(void *arg, void *data, size_t size)
{
	struct bpfw *b = arg;

	b->fn(b->arg, data, size);
	return 0;
}

int
bpfw_fd(struct bpfw *b)
{
	if (b->rb == NULL)
		b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.samples),
		    on_sample, b, NULL);
	return b->rb ? ring_buffer__epoll_fd(b->rb) : -1;
}

void
bpfw_drain(struct bpfw *b, void (*fn)(void *, const void *, size_t),
    void *arg)
{
	if (bpfw_fd(b) == -1)
		return;
	b->fn = fn;
	b->arg = arg;
	ring_buffer__consume(b->rb);
}

int
bpfw_total(struct bpfw *b, size_t slot, struct wpb_tot *tot)
{
	__u32 k = (__u32)slot;

	return bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.totals), &k,
	    tot) == 0 ? 0 : -1;
}

int
bpfw_tallies(struct bpfw *b, int (*fn)(void *, const struct wpb_key *,
    const struct wpb_val *), void *arg)
{
	struct wpb_key key, next, *prev = NULL;
	struct wpb_val v;
	int fd = bpf_map__fd(b->skel->maps.tally);

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) != 0)
			continue;
		if (fn(arg, &key, &v) == -1)
			return -1;
	}
	return 0;
}

int
bpfw_lasts(struct bpfw *b, size_t slot, int (*fn)(void *, size_t,
    const struct wpb_last *), void *arg)
{
	struct wpb_tot tot;
	struct wpb_last l;
	__u64 n = b->skel->rodata->last_n, k;
	__u32 key;
	int fd = bpf_map__fd(b->skel->maps.lastw);

	if (n == 0 || bpfw_total(b, slot, &tot) == -1)
		return 0;
	for (k = tot.kept > n ? tot.kept - n : 0; k < tot.kept; k++) {
		key = (__u32)(slot * n + k % n);
		/* a slot a later hit took as it was read: not this one */
		if (bpf_map_lookup_elem(fd, &key, &l) != 0 || l.seq != k + 1)
			continue;
		if (fn(arg, slot, &l) == -1)
			return -1;
	}
	return 0;
}
