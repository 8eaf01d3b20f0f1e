/*
 * The bpf backend's program from wp-arm's side: loaded from the object
 * the skeleton embeds, attached to every breakpoint event, read through
 * its ring buffer (samples) and its maps (tallies).
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

#include "bpf.h"
#include "bpf/wpbpf.h"
#include "perf.h"
#include "wp.skel.h"

#define RING_BYTES	(1 << 22)	/* the samples' ring buffer */

struct bpfw {
	int			 sig;		/* for a pointer's writer */
	size_t			 depth;		/* entries of a stack */
	struct wpbpf		*skel;
	struct ring_buffer	*rb;
	struct watch		*w;		/* while draining */
	void			(*on_pointer)(struct watch *,
				    const struct bpfw_pointer *);
};

static int verbose;

static int
print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int
unprivileged_bpf_disabled(void)
{
	FILE *f;
	int v = -1;

	if ((f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled",
	    "re")) != NULL) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int
load_error(struct wp_error *e, int err)
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

	verbose = v;
	libbpf_set_print(print);
	if ((b->skel = wpbpf__open()) == NULL) {
		load_error(e, errno);
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
	bpf_map__set_max_entries(b->skel->maps.samples, RING_BYTES);
	/* the trap IP, the callers asked for, one more to tell a longer
	   chain; within kernel.perf_event_max_stack's default */
	b->depth = w->callchain_depth + 2 < 127 ? w->callchain_depth + 2 : 127;
	bpf_map__set_value_size(b->skel->maps.stacks, (__u32)(8 * b->depth));
	if (!b->skel->rodata->with_stack)
		bpf_map__set_max_entries(b->skel->maps.stacks, 1);
	if ((err = wpbpf__load(b->skel)) != 0) {
		load_error(e, err < 0 ? -err : err);
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
	struct bpf_program *p[WPB_SLOTS] = { b->skel->progs.on_s0,
	    b->skel->progs.on_s1, b->skel->progs.on_s2, b->skel->progs.on_s3 };

	if (slot >= WPB_SLOTS)
		return EINVAL;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, bpf_program__fd(p[slot])) == -1)
		return errno;
	return 0;
}

/*
 * --callchain: the callers of stack id (bpf_get_stackid's answer) into
 * ips, without the trap IP ip; returns the chain's status.
 */
static const char *
stack_chain(struct bpfw *b, const struct watch *w, int32_t id, uint64_t ip,
    uint64_t *ips, size_t *n)
{
	static char why[80];
	uint64_t st[128];

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
	return perf_chain_callers(st, b->depth, b->depth, ip, ips,
	    w->callchain_depth, n);
}

static int
on_sample(void *arg, void *data, size_t size)
{
	struct bpfw *b = arg;
	struct watch *w = b->w;
	const struct wpb_sample_regs *r = data;
	const struct wpb_sample *s = &r->s;
	const struct wpb_sample_stack *st;
	struct wp_x86_regs regs;
	struct wp_hit_rec h;
	struct bpfw_pointer p;
	unsigned char bytes[8];
	uint64_t chain[WATCH_MAXCHAIN];
	size_t ti = s->slot, i;

	if (size < sizeof *s || ti >= w->nt)
		return 0;
	memset(&h, 0, sizeof h);
	h.pid = (pid_t)s->pid;
	h.tid = (pid_t)s->tid;
	h.cpu = (int)s->cpu;
	h.time_ns = watch_time(w, s->time_ns);
	h.ip = s->ip;
	for (i = 0; i < sizeof bytes; i++)
		bytes[i] = (unsigned char)(s->value >> (8 * i));
	h.bytes = bytes;
	h.nbytes = (size_t)w->t[ti].len <= 8 ? (size_t)w->t[ti].len : 8;
	if ((s->flags & WPB_F_REGS) && size >= sizeof *r) {
		for (i = 0; i < WPB_NREGS; i++)
			regs.v[i] = r->regs[i];
		regs.have = (1u << WPB_NREGS) - 1;
		h.regs = &regs;
	}
	if (b->skel->rodata->with_stack) {
		h.chain_status = stack_chain(b, w, s->stack, s->ip, chain,
		    &h.nchain);
		h.chain = chain;
	}
	if (b->skel->rodata->stack_bytes > 0 && size >= sizeof *st) {
		st = data;
		h.stack = st->stack;
		h.nstack = st->nstack <= size - sizeof *st ?
		    (size_t)st->nstack : size - sizeof *st;
	}
	watch_hit(w, ti, &h);
	if (h.role == WP_ROLE_POINTER && b->on_pointer != NULL) {
		memset(&p, 0, sizeof p);
		p.slot = ti;
		p.tid = (pid_t)s->tid;
		p.time_ns = s->time_ns;
		p.has_leaf = (s->flags & WPB_F_LEAF) != 0;
		p.leaf_addr = s->leaf_addr;
		p.leaf_value = s->leaf_value;
		b->on_pointer(w, &p);
	}
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
bpfw_drain(struct bpfw *b, struct watch *w,
    void (*on_pointer)(struct watch *, const struct bpfw_pointer *))
{
	if (bpfw_fd(b) == -1)
		return;
	b->w = w;
	b->on_pointer = on_pointer;
	ring_buffer__consume(b->rb);
}

static void
totals(struct bpfw *b, struct watch *w)
{
	struct wpb_tot tot;
	__u32 k;

	w->bpf.samples_sent = w->bpf.samples_dropped = 0;
	w->bpf.samples_capped = w->bpf.tally_full = w->bpf.read_errors = 0;
	for (k = 0; k < WPB_SLOTS && k < w->nt; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.totals), &k,
		    &tot) != 0)
			continue;
		w->bpf.samples_sent += tot.sent;
		w->bpf.samples_dropped += tot.drops;
		w->bpf.samples_capped += tot.capped;
		w->bpf.tally_full += tot.tally_full;
		w->bpf.read_errors += tot.readerr;
		w->t[k].tallied = 0;
		w->t[k].tallied_known = tot.tally_full == 0;
	}
}

void
bpfw_tallies(struct bpfw *b, struct watch *w)
{
	struct wpb_key key, next, *prev = NULL;
	struct wpb_val v;
	struct wp_tally_rec t;
	uint64_t chain[WATCH_MAXCHAIN];
	int fd = bpf_map__fd(b->skel->maps.tally);

	totals(b, w);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) != 0 || key.slot >= w->nt)
			continue;
		w->t[key.slot].tallied += v.hits;
		memset(&t, 0, sizeof t);
		watch_role(w, key.slot, &t.role, &t.level);
		t.target = w->t[key.slot].id;
		t.tid = (pid_t)key.tid;
		t.ip = key.ip;
		t.hits = v.hits;
		t.first = v.first;
		t.last = v.last;
		t.unchanged = v.unchanged;
		t.time_ns = watch_time(w, wp_now_ns());
		if (b->skel->rodata->with_stack) {
			t.chain_status = stack_chain(b, w, key.stack, key.ip,
			    chain, &t.nchain);
			t.chain = chain;
		}
		wp_rec_tally(&w->jw, &t);
		if (watch_emit(w) == -1)
			return;
	}
}
