/*
 * The bpf backend: breakpoint events on every thread (bp-events.c), and
 * on every hit the program wp-arm loaded (bpf-prog.c, bpf/wp.bpf.c)
 * tallies the write per writing instruction and thread in the kernel
 * and sends a sample by a budget (every one with --all-hits), up to max
 * events, drained on the watch's tick.  Samples are hit records, the
 * tallies tally records; the per-writer counts miss nothing while the
 * tally map has room.  --last: the program keeps each target's last
 * hits in a map, read as the watch ends (filter.c writes them).  Follow
 * chains: the program signals a pointer's writer, which --follow-mode
 * stop holds (hold.c) until its leaf is re-armed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp-events.h"
#include "cond.h"
#include "filter.h"
#include "bpf-prog.h"
#include "hmap.h"
#include "hold.h"
#include "proc.h"
#include "util.h"
#include "watch.h"

/* What the program saw when a chain's pointer was written. */
struct pointer {
	pid_t		 tid;		/* the thread that wrote it */
	uint64_t	 time_ns;	/* of the write, CLOCK_MONOTONIC;
					   0: none since the last rebind */
	int		 has_leaf;
	uint64_t	 leaf_addr;	/* where the chain leads now */
	uint64_t	 leaf_value;	/* and the value there then */
};

struct bpf_state {
	struct bpev	 ev;
	struct bpfw	*prog;
	struct hold	*hold;		/* --follow-mode stop */
	struct pointer	*written;	/* per chain */
	struct wp_hmap	 learned;	/* trap IPs told to the program */
	struct wp_hmap	 pmatched;	/* (stack, tid), (slot, ip) ->
					   uint64_t: pending hits matched */
};

/* w->obs */
struct bpf_obs {
	struct bpev_obs	 ev;
	struct wp_obs_bpf bpf;
};

/* A pointer's sample: what the rebind record will say of the write. */
static void
pointer_written(struct watch *w, struct bpf_state *s, size_t ti,
    const struct wpb_sample *smp)
{
	struct pointer *p = &s->written[w->t[ti].chain];

	p->tid = (pid_t)smp->tid;
	p->time_ns = smp->time_ns;
	p->has_leaf = (smp->flags & WPB_F_LEAF) != 0;
	p->leaf_addr = smp->leaf_addr;
	p->leaf_value = smp->leaf_value;
	if (s->hold != NULL)
		hold_pointer(s->hold, p->tid);
}

/*
 * A writer the program does not know yet: decoded here once, so that
 * its value tests take the value it stores (cond-sample.c).
 */
static int
learn(struct watch *w, struct bpf_state *s, uint64_t trap)
{
	const struct wp_x86_insn *in = NULL;
	struct csample *cs = filter_csample(w);
	int isnew;

	wp_hmap_put(&s->learned, trap, 0, &isnew);
	if (!isnew)
		return 0;
	if (cs == NULL || csample_store(cs, trap, &in) == -1)
		in = NULL;
	bpfw_store(s->prog, trap, in);
	return 1;
}

/*
 * For csample_reaching: a writer of a global, learned before its first
 * hit, which the program then tests on its store (none pending).
 */
static void
prelearn(void *arg, uint64_t trap)
{
	struct watch *w = arg;

	((struct bpf_obs *)w->obs)->bpf.writers_prelearned +=
	    (uint64_t)learn(w, w->state, trap);
}

/* A tally's key in pmatched: user addresses are under 2^56. */
#define PKEY_A(tid, stack)		((uint64_t)(uint32_t)(stack) << 32 | \
					    (uint32_t)(tid))
#define PKEY_B(slot, ip)		((uint64_t)(slot) << 56 | (ip))

/*
 * A hit the program did not test (WPB_F_PENDING): its writer learned,
 * the hit tested here; 1 when it matches (its bytes then the store's),
 * counted to its tally's matched.
 */
static int
pending(struct watch *w, struct bpf_state *s, const struct wpb_sample *smp,
    struct wp_hit_rec *h, unsigned char *bytes)
{
	uint64_t v, *n;
	size_t i;
	int has, isnew;

	learn(w, s, smp->ip);
	if (!filter_pending(w, smp->slot, h, smp->prev,
	    (smp->flags & WPB_F_STOP) != 0, &has, &v))
		return 0;
	if (has)
		for (i = 0; i < 8; i++)
			bytes[i] = (unsigned char)(v >> (8 * i));
	n = wp_hmap_put(&s->pmatched, PKEY_A(smp->tid, smp->stack),
	    PKEY_B(smp->slot, smp->ip), &isnew);
	(*n)++;
	return 1;
}

static void
on_sample(void *arg, const void *data, size_t size)
{
	struct watch *w = arg;
	struct bpf_state *s = w->state;
	const struct wpb_sample_regs *r = data;
	const struct wpb_sample *smp = &r->s;
	const struct wpb_sample_stack *st;
	struct wp_x86_regs regs;
	struct wp_hit_rec h;
	unsigned char bytes[8];
	uint64_t chain[WATCH_MAXCHAIN];
	size_t ti = smp->slot, i;

	if (size < sizeof *smp || ti >= w->nt)
		return;
	if ((pid_t)smp->pid == w->pid)
		bpev_sample_of(&s->ev, w, (pid_t)smp->tid);
	memset(&h, 0, sizeof h);
	h.pid = (pid_t)smp->pid;
	h.tid = (pid_t)smp->tid;
	h.cpu = (int)smp->cpu;
	h.time_ns = watch_time(w, smp->time_ns);
	h.ip = smp->ip;
	for (i = 0; i < sizeof bytes; i++)
		bytes[i] = (unsigned char)(smp->value >> (8 * i));
	h.bytes = bytes;
	h.nbytes = (size_t)w->t[ti].len <= 8 ? (size_t)w->t[ti].len : 8;
	/* the records' table is x86-64's so far (sample-regs.h) */
	if (WP_SAMPLE_IN_RECORDS && (smp->flags & WPB_F_REGS) &&
	    size >= sizeof *r) {
		for (i = 0; i < WPB_NREGS; i++)
			regs.v[i] = r->regs[i];
		regs.have = (uint32_t)((1ULL << WPB_NREGS) - 1);
		h.regs = &regs;
	}
	if (bpfw_chains(s->prog)) {
		h.chain_status = bpfw_callers(s->prog, w, smp->stack, smp->ip,
		    chain, &h.nchain);
		h.chain = chain;
	}
	if (bpfw_stack_bytes(s->prog) > 0 && size >= sizeof *st) {
		st = data;
		h.stack = st->stack;
		h.nstack = st->nstack <= size - sizeof *st ?
		    (size_t)st->nstack : size - sizeof *st;
	}
	if ((smp->flags & WPB_F_PENDING) && !pending(w, s, smp, &h, bytes))
		return;
	if ((smp->flags & (WPB_F_STOP | WPB_F_PENDING)) == WPB_F_STOP)
		filter_kernel_stop(w, &h);
	watch_hit(w, ti, &h);
	if (h.role == WP_ROLE_POINTER)
		pointer_written(w, s, ti, smp);
}

/* Whether the leaf moved by chain ci's latest change kept its value. */
static int
missed(struct watch *w, struct bpf_state *s, size_t ci)
{
	const struct chain *c = &w->chains[ci];
	const struct pointer *p = &s->written[ci];
	unsigned char b[8];

	if (!p->has_leaf || c->leaf == 0 || p->leaf_addr != c->leaf ||
	    c->len > 8 || wp_proc_read(s->ev.memfd, c->leaf, b,
	    (size_t)c->len))
		return -1;
	return wp_le64(b, (size_t)c->len) != (p->leaf_value &
	    (c->len == 8 ? ~0ULL : (1ULL << (8 * c->len)) - 1));
}

/*
 * After a pointer of chain ci was written: read the chain again (its
 * entries re-armed), and say how long the leaf was not watched.
 */
static void
rebind_chain(struct watch *w, struct bpf_state *s, size_t ci)
{
	const struct pointer *p = &s->written[ci];

	if (!follow_rebind(w, s->ev.memfd, ci))
		return;
	if (p->time_ns == 0)
		follow_record(w, ci, -1, 0, -1);
	else
		follow_record(w, ci, (int64_t)(wp_now_ns() - p->time_ns),
		    s->hold != NULL, missed(w, s, ci));
	memset(&s->written[ci], 0, sizeof s->written[ci]);
}

/* The rings, the program's samples, then the chains they moved. */
static void
drain_all(struct watch *w)
{
	struct bpf_state *s = w->state;
	size_t ci;

	bpev_drain(&s->ev, w);
	bpfw_drain(s->prog, on_sample, w);
	for (ci = 0; ci < w->nchains; ci++)
		if (follow_dirty(w, ci))
			rebind_chain(w, s, ci);
	if (s->hold != NULL)
		hold_release(s->hold);
}

/* For hold_service: a pointer's sample that came after the last drain. */
static void
drain_cb(void *arg)
{
	drain_all(arg);
}

static int
on_opened(struct watch *w, int fd, size_t ti)
{
	struct bpf_state *s = w->state;

	return bpfw_attach(s->prog, fd, ti);
}

static const struct bpev_ops bpf_ops = {
	NULL, on_opened, drain_all, NULL, NULL, NULL
};

/*
 * --follow-mode: hold a pointer's writer (stop, the default; stop-all),
 * or not (async).  Holding needs the right to trace the target; without
 * it, async, and why.
 */
static void
follow_mode(struct watch *w, struct bpf_state *s)
{
	struct bpf_obs *o = w->obs;
	struct wp_error e;
	const char *want = w->follow_mode ? w->follow_mode : "stop";

	if (w->nchains == 0)
		return;
	o->ev.follow_mode = "async";
	if (strcmp(want, "async") == 0)
		return;
	if ((s->hold = hold_open(w->pid, strcmp(want, "stop-all") == 0,
	    &e)) == NULL) {
		snprintf(o->ev.follow_why, sizeof o->ev.follow_why, "%s",
		    e.msg);
		bpev_unheld(w, o->ev.follow_why);
		return;
	}
	bpfw_stop_signal(s->prog, w, hold_signal(s->hold));
	o->ev.follow_mode = want;
}

static void
release(struct watch *w)
{
	struct bpf_state *s = w->state;

	bpev_close(&s->ev);
	hold_close(s->hold);
	bpfw_close(s->prog);
	free(s->written);
	wp_hmap_free(&s->learned);
	wp_hmap_free(&s->pmatched);
	free(s);
	w->state = NULL;
}

/* When chosen: the program loads here, or auto takes another backend. */
static int
bpf_open(struct watch *w, struct wp_error *e)
{
	struct bpf_state *s = wp_xcalloc(1, sizeof *s);

	if ((s->prog = bpfw_open(w, w->verbose, e)) == NULL) {
		free(s);
		return -1;
	}
	s->ev.pidfd = s->ev.memfd = -1;
	wp_hmap_init(&s->learned, 1);
	wp_hmap_init(&s->pmatched, sizeof(uint64_t));
	w->state = s;
	return 0;
}

static int
bpf_probe(struct watch *w, struct wp_error *e)
{
	struct bpfw *b;

	if ((b = bpfw_open(w, 0, e)) == NULL)
		return 0;
	bpfw_close(b);
	return 1;
}

/* --if and --stop, compiled into the program's cond map per entry. */
static void
conditions(struct watch *w, struct bpf_state *s)
{
	struct wp_obs_bpf *o = &((struct bpf_obs *)w->obs)->bpf;
	struct wp_cond_op ops[WPB_COND_OPS];
	struct wpb_cond cd;
	size_t i, k;
	int stop;

	for (i = 0; i < w->nt && i < WPB_SLOTS; i++) {
		memset(&cd, 0, sizeof cd);
		cd.nops = (__u32)filter_compiled(w, i, ops, WPB_COND_OPS,
		    &stop);
		cd.stop = (__u32)stop;
		for (k = 0; k < cd.nops; k++) {
			cd.stores |= ops[k].op == WP_COP_VALUE ||
			    ops[k].op == WP_COP_CHANGED ||
			    ops[k].op == WP_COP_UNCHANGED;
			cd.op[k].op = ops[k].op;
			cd.op[k].cmp = ops[k].cmp;
			cd.op[k].negate = ops[k].negate;
			cd.op[k].a = ops[k].a;
			cd.op[k].b = ops[k].b;
			memcpy(cd.op[k].name, ops[k].name, sizeof cd.op[k].name);
			cd.comm |= ops[k].op == WP_COP_COMM;
		}
		bpfw_cond(s->prog, i, &cd);
		if (!cd.stores)
			continue;
		/* the value from the store: the writers the program can
		   know before the first hit, so that none is pending */
		o->has_learning = 1;
		if (filter_csample(w) != NULL)
			csample_reaching(filter_csample(w), w->t[i].addr,
			    w->t[i].addr + (uint64_t)w->t[i].len, WPB_STORES / 2 -
			    o->writers_prelearned, prelearn, w);
	}
}

static int
bpf_arm(struct watch *w, struct wp_error *e)
{
	struct bpf_state *s = w->state;
	struct perf_layout lay;
	size_t i;

	memset(&lay, 0, sizeof lay);	/* the events carry no samples */
	s->written = wp_xcalloc(w->nchains + 1, sizeof *s->written);
	/* --if changed: a target's first write compares with its value */
	watch_read_initial(w);
	for (i = 0; i < w->nt && i < WPB_SLOTS; i++)
		if (w->t[i].has_initial)
			bpfw_seed(s->prog, i, w->t[i].initial);
	if (bpev_open(&s->ev, w, &bpf_ops, &lay, e) == -1)
		goto fail;
	for (i = 0; i < w->nt; i++)
		bpfw_conf(s->prog, w, i);
	conditions(w, s);
	follow_mode(w, s);
	if (bpev_arm(&s->ev, w, e) == 0)
		return 0;
fail:
	release(w);
	return -1;
}

static void
bpf_run(struct watch *w, uint64_t until)
{
	struct bpf_state *s = w->state;
	int fds[2];
	size_t n = 0;

	if ((fds[n] = bpfw_fd(s->prog)) != -1)
		n++;
	if (s->hold != NULL)
		fds[n++] = hold_fd(s->hold);
	bpev_wait(&s->ev, w, until, fds, n);
	drain_all(w);
	if (s->hold != NULL)
		hold_service(s->hold, drain_cb, w);
	bpev_settle(&s->ev, w);
}

/*
 * The program's totals: each entry's samples, the budget they were
 * taken by, and whether it tallied all.
 */
static void
totals(struct watch *w, struct bpf_state *s)
{
	struct wp_obs_bpf *o = &((struct bpf_obs *)w->obs)->bpf;
	struct wpb_tot tot;
	size_t k;

	o->samples_sent = o->samples_dropped = o->samples_skipped = 0;
	o->samples_capped = o->tally_full = o->read_errors = 0;
	o->samples_pending = 0;
	o->all_hits = bpfw_all_hits(s->prog);
	o->budget_first = WPB_FIRST;
	o->budget_first_per_writer = WPB_FIRST_KEY;
	o->budget_interval_ns = WPB_PERIOD_NS;
	for (k = 0; k < WPB_SLOTS && k < w->nt; k++) {
		if (bpfw_total(s->prog, k, &tot) == -1)
			continue;
		o->samples_sent += tot.sent;
		o->samples_dropped += tot.drops;
		o->samples_capped += tot.capped;
		o->samples_skipped += tot.skipped;
		o->samples_pending += tot.pending;
		o->tally_full += tot.tally_full;
		o->read_errors += tot.readerr;
		w->t[k].tallied = 0;
		w->t[k].tallied_known = tot.tally_full == 0;
	}
}

/*
 * One read's tallies of one record's key (target, thread, trap IP and
 * chain as written): the program's keys are its stack ids, and two
 * stacks read the same once cut to --callchain-depth, or where neither
 * could be read; a tally record replaces the one before it of its key,
 * so those are summed into one, lest the later hide the earlier.
 */
struct mtally {
	struct wp_tally_rec t;
	uint64_t	 chain[WATCH_MAXCHAIN];
	char		 status[96];
};

struct mread {
	struct watch	*w;
	struct wp_hmap	 m;		/* -> struct mtally */
};

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

static int
on_tally(void *arg, const struct wpb_key *key, const struct wpb_val *v)
{
	struct mread *rd = arg;
	struct watch *w = rd->w;
	struct bpf_state *s = w->state;
	uint64_t chain[WATCH_MAXCHAIN], *pm, k1, k2;
	struct mtally *y;
	const char *st = NULL;
	size_t n = 0;
	int isnew;
	struct wp_tally_rec t = {
		.tid = (pid_t)key->tid, .ip = key->ip, .hits = v->hits,
		.first = v->first, .last = v->last, .unchanged = v->unchanged,
		.has_matched = filter_matched(w), .matched = v->matched
	};

	if (key->slot >= w->nt)
		return 0;
	if ((pm = wp_hmap_get(&s->pmatched, PKEY_A(key->tid, key->stack),
	    PKEY_B(key->slot, key->ip))) != NULL)
		t.matched += *pm;
	w->t[key->slot].tallied += v->hits;
	if (bpfw_chains(s->prog))
		st = bpfw_callers(s->prog, w, key->stack, key->ip, chain, &n);
	k1 = mix(mix(0xcbf29ce484222325ULL, chain, n * sizeof chain[0]),
	    st ? st : "", st ? strlen(st) : 0);
	k2 = key->ip ^ ((uint64_t)key->tid << 32 | key->slot) ^ n << 56;
	y = wp_hmap_put(&rd->m, k1, k2, &isnew);
	if (!isnew) {
		y->t.hits += t.hits;
		y->t.matched += t.matched;
		y->t.unchanged += t.unchanged;
		y->t.last = t.last;
		return 0;
	}
	watch_role(w, key->slot, &t.role, &t.level);
	t.target = w->t[key->slot].id;
	y->t = t;
	memcpy(y->chain, chain, n * sizeof chain[0]);
	y->t.nchain = n;
	if (st != NULL) {
		snprintf(y->status, sizeof y->status, "%s", st);
		y->t.chain_status = y->status;
	}
	return 0;
}

/* Each of one read's tallies, summed as on_tally says: a record each. */
static void
tallies(struct watch *w, struct bpf_state *s)
{
	struct mread rd = { w, { 0 } };
	struct mtally *y;
	size_t i;

	wp_hmap_init(&rd.m, sizeof(struct mtally));
	bpfw_tallies(s->prog, on_tally, &rd);
	for (i = 0; i < rd.m.cap; i++) {
		if ((y = wp_hmap_slot(&rd.m, i)) == NULL)
			continue;
		/* the table may have moved it: the chain where it is now */
		if (y->t.chain_status != NULL) {
			y->t.chain_status = y->status;
			y->t.chain = y->chain;
		}
		y->t.time_ns = watch_time(w, wp_now_ns());
		if (emit_tally(w, &y->t) == -1)
			break;
	}
	wp_hmap_free(&rd.m);
}

/* The events' counts, and the program's tallies: a record each. */
static void
bpf_count(struct watch *w)
{
	struct bpf_state *s = w->state;

	bpev_count(&s->ev, w);
	totals(w, s);
	tallies(w, s);
}

static int
on_last(void *arg, size_t slot, const struct wpb_last *l)
{
	struct watch *w = arg;
	struct bpf_state *s = w->state;
	struct wp_hit_rec h;
	uint64_t chain[WATCH_MAXCHAIN];

	memset(&h, 0, sizeof h);
	h.tid = (pid_t)l->tid;
	h.time_ns = watch_time(w, l->time_ns);
	h.ip = l->ip;
	if (bpfw_chains(s->prog)) {
		h.chain_status = bpfw_callers(s->prog, w, l->stack, l->ip,
		    chain, &h.nchain);
		h.chain = chain;
	}
	filter_keep(w, slot, &h, l->known != 0, l->value);
	return 0;
}

/* --last: the program's rings, for filter.c to write at the end. */
static void
last_writes(struct watch *w, struct bpf_state *s)
{
	size_t i;

	for (i = 0; i < w->nt && i < WPB_SLOTS && w->last > 0; i++)
		bpfw_lasts(s->prog, i, on_last, w);
}

static void
bpf_rearm(struct watch *w, size_t ti)
{
	struct bpf_state *s = w->state;

	bpev_move(&s->ev, w, ti);
	bpfw_conf(s->prog, w, ti);
}

static void
bpf_disarm(struct watch *w)
{
	struct bpf_state *s = w->state;
	struct bpf_obs *o = w->obs;

	bpev_disable(&s->ev);
	drain_all(w);
	if (s->hold != NULL) {
		hold_service(s->hold, drain_cb, w);
		hold_counts(s->hold, &o->bpf.writers_held,
		    &o->bpf.signals_passed);
	}
	bpev_exits(&s->ev, w, 1);
	bpf_count(w);
	last_writes(w, s);
	bpev_quiet(w);
	release(w);
}

static void
bpf_observe(struct watch *w, struct wp_observation *o)
{
	struct bpf_obs *ob = w->obs;

	bpev_observe(w, o);
	o->bpf = &ob->bpf;
}

const struct backend backend_bpf = {
	.id = WP_BK_BPF,
	.caps = BK_TALLIES | BK_RING | BK_DEBUGREGS | BK_FOLLOWMODES,
	.chosen = "the bpf backend (every write tallied per writer in the "
	    "kernel, a budget of them sampled)",
	.cond_where = CW_KERNEL, .obs_size = sizeof(struct bpf_obs),
	.fits = bp_fits, .probe = bpf_probe, .open = bpf_open,
	.arm = bpf_arm, .run = bpf_run, .count = bpf_count,
	.rearm = bpf_rearm, .disarm = bpf_disarm, .observe = bpf_observe
};
