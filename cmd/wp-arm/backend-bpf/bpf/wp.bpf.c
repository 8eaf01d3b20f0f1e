// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bpf backend's program: it runs on every hit of a breakpoint event
 * wp-arm opened (and of the copies threads created later inherit), and
 * counts it in maps by writing instruction and thread, with the value
 * in memory after the write; it sends samples through a ring buffer
 * by a budget (the first, then one a period: wpbpf.h), or every one
 * (--all-hits), without waking wp-arm, which drains them on its tick;
 * with --last it keeps each target's last hits in a map, a ring read at
 * the end.  On a pointer of a follow chain it wakes wp-arm at once, and
 * with --follow-mode stop signals the writing thread, so that it stops
 * (wp-arm traces it) before its next instruction, until the leaf is
 * re-armed.  It returns 0: the kernel writes no perf sample.  One
 * program per slot (on_s0 .. on_s3; on arm64, up to on_s15): the program
 * that runs says which slot the event is, in inherited copies too.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "wpbpf.h"

const volatile __u32 with_regs = 0;
const volatile __u32 with_stack = 0;		/* --callchain: chains */
const volatile __u32 stack_bytes = 0;		/* --callchain dwarf: the
						   stack copied, chunks */
const volatile __u64 sample_limit = 0;		/* per slot; 0: none */
const volatile __u32 sample_all = 0;		/* --all-hits: no budget */
const volatile __u64 wake_bytes = 0;		/* samples waiting that wake
						   wp-arm; 0: each */
const volatile __u64 last_n = 0;		/* --last: hits kept per
						   target; 0: none */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WPB_SLOTS);
	__type(key, __u32);
	__type(value, struct wpb_conf);
} conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WPB_SLOTS);
	__type(key, __u32);
	__type(value, struct wpb_cond);
} cond SEC(".maps");

/*
 * The stack of truths of --if while it is evaluated: in a map, where the
 * verifier does not follow its value through every op.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} truths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct wpb_key);
	__type(value, struct wpb_val);
} tally SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WPB_SLOTS);
	__type(key, __u32);
	__type(value, struct wpb_tot);
} totals SEC(".maps");

/* --last: each target's last hits (wpbpf.h); the size is set by wp-arm */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wpb_last);
} lastw SEC(".maps");

/* the user call chains (frame pointers); the depth is set by wp-arm */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8 * 19);
} stacks SEC(".maps");

/* the writers wp-arm decoded, by trap IP (wpbpf.h) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WPB_STORES);
	__type(key, __u64);
	__type(value, struct wpb_store);
} stores SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);		/* set by wp-arm */
} samples SEC(".maps");

static __always_inline __u64
read_value(__u64 addr, __u32 len, struct wpb_tot *tot, int *known)
{
	__u64 v = 0;

	if (len > 8)
		len = 8;
	*known = len != 0 && bpf_probe_read_user(&v, len, (void *)addr) == 0;
	if (!*known)
		__sync_fetch_and_add(&tot->readerr, 1);
	return v;
}

/*
 * The general registers at the trap into v, in sample-regs.h's order
 * (samples' too): field by field, as the verifier wants each read of
 * ctx at a constant offset.
 */
static __always_inline void
gpregs(__u64 *v, struct bpf_perf_event_data *ctx)
{
#define PT_REG(N, name, field, perf, dwarf) \
	v[WP_SAMPLE_IDX(N)] = ctx->regs.field;
	WP_SAMPLE_REGS(PT_REG)
#undef PT_REG
}

/*
 * The watched bytes (len at ctx->addr) as the store that ends at the
 * trap wrote them, from its source register or immediate (stores): 1,
 * *v set; 0: to be read in memory (another kind of write, or one that
 * wrote elsewhere this time); -1: a writer wp-arm has not decoded yet.
 * Memory at the trap may hold another thread's later write already.
 */
static __always_inline int
stored(struct bpf_perf_event_data *ctx, __u32 len, __u64 *v)
{
	__u64 ip = ctx->regs.WP_SAMPLE_PC, lo, x;
	struct wpb_store *s = bpf_map_lookup_elem(&stores, &ip);

	if (s == NULL || s->src == WPB_SRC_PENDING)
		return -1;
	if (s->src == WPB_SRC_MEMORY || len == 0 || len > 8)
		return 0;
	lo = s->disp + wp_sample_reg_at(ctx, s->base) +
	    wp_sample_reg_at(ctx, s->index) * s->scale;
	if (s->addr32)
		lo = (__u32)lo;
	if (lo > ctx->addr || ctx->addr + len > lo + s->width)
		return 0;
	x = s->src == WPB_SRC_IMM ? s->imm :
	    wp_sample_reg_at(ctx, s->src) >> s->shift;
	x >>= 8 * ((ctx->addr - lo) & 7);
	*v = len >= 8 ? x : x & ((1ULL << (8 * len)) - 1);
	return 1;
}

/*
 * The watched bytes after the write: the store's where the program
 * knows its writer and --if tests the value (*flags WPB_F_STORED),
 * else memory's at the trap (*flags WPB_F_PENDING: a writer not
 * decoded yet, whose hit wp-arm tests).
 */
static __always_inline __u64
written(struct bpf_perf_event_data *ctx, const struct wpb_conf *c,
    const struct wpb_cond *cd, struct wpb_tot *tot, int *known, __u32 *flags)
{
	__u64 v = 0;
	int r;

	*flags = 0;
	if (cd != NULL && cd->stores) {
		if ((r = stored(ctx, c->len, &v)) == 1) {
			*known = 1;
			*flags = WPB_F_STORED;
			return v;
		}
		if (r == -1)
			*flags = WPB_F_PENDING;
	}
	return read_value(ctx->addr, c->len, tot, known);
}

/* The leaf a pointer written with value p leads to, and its value. */
static __always_inline void
leaf_of(const struct wpb_conf *c, __u64 p, struct wpb_sample *s,
    struct wpb_tot *tot)
{
	__u64 v;
	int i, known;

	if (p == 0)
		return;
	for (i = 0; i < WPB_MAXDEPTH; i++) {
		if (i < (int)c->level)
			continue;
		if (i >= (int)c->noffs)
			break;
		if (i > (int)c->level) {
			if (bpf_probe_read_user(&v, sizeof v, (void *)p) != 0 ||
			    v == 0)
				return;
			p = v;
		}
		p += c->offs[i];
	}
	s->leaf_addr = p;
	s->leaf_value = read_value(p, c->leaf_len, tot, &known);
	s->flags |= WPB_F_LEAF;
}

/*
 * Tallies the hit, matched or not; returns its key's matching hits so
 * far, 0: no room.
 */
static __always_inline __u64
count(struct bpf_perf_event_data *ctx, __u32 slot, __s32 stack, __u64 cur,
    __u64 prev, struct wpb_tot *tot, __u64 m)
{
	struct wpb_key k = {};
	struct wpb_val *v, nv = {};

	k.ip = ctx->regs.WP_SAMPLE_PC;
	k.tid = (__u32)bpf_get_current_pid_tgid();
	k.slot = slot;
	k.stack = stack;
	v = bpf_map_lookup_elem(&tally, &k);
	if (v != NULL) {
		/* only this thread updates this key */
		v->hits++;
		v->matched += m;
		v->last = cur;
		v->unchanged += cur == prev;
		return v->matched;
	}
	nv.hits = 1;
	nv.matched = m;
	nv.first = nv.last = cur;
	nv.unchanged = cur == prev;
	if (bpf_map_update_elem(&tally, &k, &nv, BPF_NOEXIST) != 0) {
		__sync_fetch_and_add(&tot->tally_full, 1);
		return 0;
	}
	return m;
}

/* What the tests of --if ask of one hit. */
struct eval {
	const struct wpb_cond	*cd;
	__u64			 cur, prev, ip;
	__u64			 comm[2];
	__u32			 tid;
	int			 known;
};

/* One test of --if on this hit: its truth. */
static __always_inline __u64
test(const struct wpb_op *o, const struct eval *e)
{
	switch (o->op) {
	case WP_COP_VALUE:
		return e->known && wp_cmp_holds(e->cur & o->a, o->cmp, o->b);
	case WP_COP_CHANGED:
		return e->known && e->cur != e->prev;
	case WP_COP_UNCHANGED:
		return e->known && e->cur == e->prev;
	case WP_COP_TID:
		return wp_cmp_holds(e->tid, o->cmp, o->b);
	case WP_COP_COMM:
		return (e->comm[0] == o->name[0] &&
		    e->comm[1] == o->name[1]) != (o->negate != 0);
	case WP_COP_TRAP:
		return (e->ip >= o->a && e->ip < o->b) != (o->negate != 0);
	}
	return 0;
}

/*
 * Op i of --if (compiled to postfix, wpbpf.h) on the stack of truths in
 * the bits of *st (truths), the top in bit 0; a bpf_loop callback: 1
 * ends the loop.
 */
static long
step(__u32 i, void *arg)
{
	struct eval *e = arg;
	const struct wpb_op *o;
	__u32 zero = 0;
	__u64 a, *st = bpf_map_lookup_elem(&truths, &zero);

	if (st == NULL || i >= WPB_COND_OPS || i >= e->cd->nops)
		return 1;
	/* the verifier is shown the bound (the compiler knows it) */
	asm volatile("" : "+r"(i));
	o = &e->cd->op[i & (WPB_COND_OPS - 1)];
	if (o->op == WP_COP_NOT)
		*st ^= 1;
	else if (o->op == WP_COP_AND || o->op == WP_COP_OR) {
		a = *st & 1;
		*st >>= 1;
		a = o->op == WP_COP_AND ? (a & *st) : (a | *st);
		*st = (*st & ~1ULL) | (a & 1);
	} else
		*st = *st << 1 | test(o, e);
	return 0;
}

static __always_inline __u64
matches(const struct wpb_cond *cd, struct bpf_perf_event_data *ctx,
    __u64 cur, __u64 prev, int known)
{
	struct eval e = { .cd = cd, .cur = cur, .prev = prev,
	    .ip = ctx->regs.WP_SAMPLE_PC, .known = known,
	    .tid = (__u32)bpf_get_current_pid_tgid() };
	__u32 zero = 0;
	__u64 *st;

	if (cd->comm)
		bpf_get_current_comm(e.comm, sizeof e.comm);
	/* one test (value == N, ...): no loop, no stack of truths */
	if (cd->nops == 1)
		return test(&cd->op[0], &e);
	if ((st = bpf_map_lookup_elem(&truths, &zero)) == NULL)
		return 0;
	*st = 0;
	bpf_loop(WPB_COND_OPS, step, &e, 0);
	return *st & 1;
}

static __always_inline void
fill(struct wpb_sample *s, struct bpf_perf_event_data *ctx, __u32 slot,
    __s32 stack, __u64 cur, __u64 now)
{
	__u64 pt = bpf_get_current_pid_tgid();

	s->time_ns = now;
	s->ip = ctx->regs.WP_SAMPLE_PC;
	s->value = cur;
	s->addr = ctx->addr;
	s->leaf_addr = s->leaf_value = s->prev = 0;
	s->pid = (__u32)(pt >> 32);
	s->tid = (__u32)pt;
	s->slot = slot;
	s->flags = 0;
	s->cpu = bpf_get_smp_processor_id();
	s->stack = stack;
}

static __always_inline void
regs(struct wpb_sample_regs *r, struct bpf_perf_event_data *ctx)
{
	gpregs(r->regs, ctx);
	r->s.flags |= WPB_F_REGS;
}

/* The user stack from rsp on, as far as it goes, up to stack_bytes. */
static __always_inline void
copy_stack(struct wpb_sample_stack *st, struct bpf_perf_event_data *ctx)
{
	__u64 sp = ctx->regs.WP_SAMPLE_SP;
	__u32 i, off, n = 0;

	for (i = 0; i < WPB_MAXSTACK / WPB_STACK_CHUNK; i++) {
		off = i * WPB_STACK_CHUNK;
		if (off + WPB_STACK_CHUNK > stack_bytes)
			break;
		if (bpf_probe_read_user(st->stack + off, WPB_STACK_CHUNK,
		    (void *)(sp + off)) != 0)
			break;
		n = off + WPB_STACK_CHUNK;
	}
	st->nstack = n;
}

/*
 * Whether the budget samples a target's hit: its nth (n from 1), its
 * tally's khits-th.  The period's clock is read once a kernel tick at
 * most (a tick is 1 to 10 ms): a hit in the tick of the last look is
 * passed over, so that most hits read no clock source.  Two CPUs may
 * both take a period's sample.
 */
static __always_inline int
budget(struct wpb_tot *tot, __u64 n, __u64 khits)
{
	__u64 now, j;

	if (sample_all || n <= WPB_FIRST ||
	    (khits > 0 && khits <= WPB_FIRST_KEY))
		return 1;
	if ((j = bpf_jiffies64()) != tot->looked) {
		tot->looked = j;
		now = bpf_ktime_get_ns();
		if (now >= tot->next_ns) {
			tot->next_ns = now + WPB_PERIOD_NS;
			return 1;
		}
	}
	__sync_fetch_and_add(&tot->skipped, 1);
	return 0;
}

/*
 * Submitted without waking wp-arm, which drains on its tick, unless
 * wake_bytes wait: a pointer's sample wakes it at once (it re-arms).
 */
static __always_inline __u64
wake(int ptr)
{
	if (ptr || bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >=
	    wake_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/*
 * A sample in the ring, filled, with the registers when with or
 * --callchain dwarf asks, and the stack then; to be submitted.  NULL:
 * no room (counted).
 */
static __always_inline struct wpb_sample_regs *
sample(struct bpf_perf_event_data *ctx, __u32 slot, __s32 stack, __u64 cur,
    struct wpb_tot *tot, __u64 now, __u32 with)
{
	struct wpb_sample_regs *r;

	if (stack_bytes > 0)
		r = bpf_ringbuf_reserve(&samples, sizeof(struct wpb_sample_stack) +
		    stack_bytes, 0);
	else
		r = bpf_ringbuf_reserve(&samples, with ? sizeof *r :
		    sizeof r->s, 0);
	if (r == NULL) {
		__sync_fetch_and_add(&tot->drops, 1);
		return NULL;
	}
	fill(&r->s, ctx, slot, stack, cur, now != 0 ? now :
	    bpf_ktime_get_ns());
	if (with || stack_bytes > 0)
		regs(r, ctx);
	if (stack_bytes > 0)
		copy_stack((struct wpb_sample_stack *)r, ctx);
	return r;
}

/*
 * A sample: always for a pointer; for a target as the budget allows (a
 * chain's leaf has every hit sampled: its bindings are counted from
 * them); then while the limit allows.
 */
static __always_inline void
send(struct bpf_perf_event_data *ctx, __u32 slot, __s32 stack, __u64 cur,
    const struct wpb_conf *c, struct wpb_tot *tot, __u64 n, __u64 khits,
    __u32 stop, __u32 src, __u64 now)
{
	struct wpb_sample_regs *r;
	int ptr = c->kind == WPB_POINTER;

	if (c->kind == WPB_TARGET && !stop && !budget(tot, n, khits))
		return;
	if (!ptr && sample_limit != 0 &&
	    __sync_fetch_and_add(&tot->claimed, 1) >= sample_limit) {
		__sync_fetch_and_add(&tot->capped, 1);
		return;
	}
	if ((r = sample(ctx, slot, stack, cur, tot, now, with_regs)) == NULL)
		return;
	r->s.flags |= stop | src;
	if (ptr)
		leaf_of(c, cur, &r->s, tot);
	bpf_ringbuf_submit(r, wake(ptr));
	__sync_fetch_and_add(&tot->sent, 1);
	/* wp-arm holds the writer (it traces the threads) until it re-arms */
	if (ptr && c->sig != 0)
		bpf_send_signal_thread(c->sig);
}

/*
 * --stop: the first matching writer is sent SIGSTOP, which it takes
 * before its next instruction; its sample says so (WPB_F_STOP).  A
 * pending hit's (once), its match not known yet: until one is.
 */
static __always_inline __u32
stop(const struct wpb_cond *cd, struct wpb_tot *tot, int once)
{
	if (cd == NULL || !cd->stop || (once ?
	    __sync_fetch_and_add(&tot->stops, 1) : tot->stops) != 0)
		return 0;
	bpf_send_signal_thread(19);	/* SIGSTOP */
	return WPB_F_STOP;
}

/*
 * --last: a target's hit, in its ring (wpbpf.h): no sample, no wake-up,
 * a slot of an array map written in place.
 */
static __always_inline void
keep(struct bpf_perf_event_data *ctx, __u32 slot, __s32 stack, __u64 cur,
    int known, struct wpb_tot *tot, __u64 now)
{
	struct wpb_last *l;
	__u64 k = __sync_fetch_and_add(&tot->kept, 1);
	__u32 i = (__u32)(slot * last_n + k % last_n);

	if ((l = bpf_map_lookup_elem(&lastw, &i)) == NULL)
		return;
	l->time_ns = now;
	l->ip = ctx->regs.WP_SAMPLE_PC;
	l->value = cur;
	l->tid = (__u32)bpf_get_current_pid_tgid();
	l->known = known != 0;
	l->stack = stack;
	l->seq = k + 1;
}

/*
 * A hit of a writer not decoded yet, --if testing the value: its sample
 * with the registers, which wp-arm decodes the writer from (it tells
 * stores) and tests the hit on, with the value before it (prev); the
 * writer's entry marks it pending meanwhile.  The hit is not matched
 * here: memory at the trap may hold another thread's later store.  A
 * sample the ring has no room for is a hit whose match is not known
 * (drops).  --stop: one whose value in memory matches stops its writer
 * (stop, WPB_F_STOP), for wp-arm to let go on if its store's does not.
 */
static __always_inline void
pending(struct bpf_perf_event_data *ctx, __u32 slot, __s32 stack,
    __u64 cur, __u64 prev, struct wpb_tot *tot, __u32 stop)
{
	struct wpb_store m = { .src = WPB_SRC_PENDING };
	struct wpb_sample_regs *r;
	__u64 ip = ctx->regs.WP_SAMPLE_PC;
	int first;

	first = bpf_map_update_elem(&stores, &ip, &m, BPF_NOEXIST) == 0;
	if ((r = sample(ctx, slot, stack, cur, tot, 0, 1)) == NULL)
		return;
	r->s.flags |= WPB_F_PENDING | stop;
	r->s.prev = prev;
	/* the writer's first at once (the sooner it is decoded, the fewer
	   such hits), and a stopped writer, which waits for wp-arm */
	bpf_ringbuf_submit(r, first || stop ? BPF_RB_FORCE_WAKEUP : wake(0));
	__sync_fetch_and_add(&tot->pending, 1);
}

static __always_inline int
hit(struct bpf_perf_event_data *ctx, __u32 slot)
{
	struct wpb_conf *c = bpf_map_lookup_elem(&conf, &slot);
	struct wpb_tot *tot = bpf_map_lookup_elem(&totals, &slot);
	struct wpb_cond *cd = bpf_map_lookup_elem(&cond, &slot);
	__u64 cur, prev, n, khits, m = 1, now;
	__s32 stack = 0;
	__u32 src;
	int known;

	if (c == NULL || tot == NULL)
		return 0;
	/* what this event watches: ctx->addr, also while being moved */
	cur = written(ctx, c, cd, tot, &known, &src);
	prev = __sync_lock_test_and_set(&tot->last_value, cur);
	if (cd != NULL && cd->nops > 0)
		m = matches(cd, ctx, cur, prev, known);
	if (with_stack)
		stack = (__s32)bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	/* the time, once, where a ring slot wants it (a sample reads it
	   only when it is sent: most hits read no clock) */
	now = last_n > 0 ? bpf_ktime_get_ns() : 0;
	if (last_n > 0 && c->kind == WPB_TARGET)
		keep(ctx, slot, stack, cur, known, tot, now);
	/* a pending hit's match (on memory) is wp-arm's to tell */
	if (src & WPB_F_PENDING) {
		count(ctx, slot, stack, cur, prev, tot, 0);
		pending(ctx, slot, stack, cur, prev, tot,
		    m ? stop(cd, tot, 0) : 0);
		return 0;
	}
	khits = count(ctx, slot, stack, cur, prev, tot, m);
	/* a write that does not match is tallied, and no more */
	if (!m)
		return 0;
	/* the budget's first hits: counted only until they are past */
	n = tot->first < WPB_FIRST ?
	    __sync_fetch_and_add(&tot->first, 1) + 1 : WPB_FIRST + 1;
	send(ctx, slot, stack, cur, c, tot, n, khits, stop(cd, tot, 1),
	    src & WPB_F_STORED, now);
	return 0;
}

SEC("perf_event") int on_s0(struct bpf_perf_event_data *ctx) { return hit(ctx, 0); }
SEC("perf_event") int on_s1(struct bpf_perf_event_data *ctx) { return hit(ctx, 1); }
SEC("perf_event") int on_s2(struct bpf_perf_event_data *ctx) { return hit(ctx, 2); }
SEC("perf_event") int on_s3(struct bpf_perf_event_data *ctx) { return hit(ctx, 3); }
#if WPB_SLOTS > 4
#define ON_SLOT(k) SEC("perf_event") int \
on_s##k(struct bpf_perf_event_data *ctx) { return hit(ctx, k); }
ON_SLOT(4) ON_SLOT(5) ON_SLOT(6) ON_SLOT(7) ON_SLOT(8) ON_SLOT(9)
ON_SLOT(10) ON_SLOT(11) ON_SLOT(12) ON_SLOT(13) ON_SLOT(14) ON_SLOT(15)
#endif

char LICENSE[] SEC("license") = "GPL";
