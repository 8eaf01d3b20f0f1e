/*
 * The record contract of wp-records(7): one builder per record type
 * (the readers are in reader.c).  The order of members is the order the
 * page lists them in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "util.h"

/* ---- helpers of the builders ---- */

static void
strings(struct wp_jw *w, const char *key, const char *const *s, size_t n)
{
	size_t i;

	wp_jw_arr(w, key);
	for (i = 0; i < n; i++)
		wp_jw_str(w, NULL, s[i]);
	wp_jw_end(w);
}

/* initial_value (little-endian, up to 8 bytes) and initial_bytes. */
static void
value_bytes(struct wp_jw *w, const char *vkey, const char *bkey,
    const unsigned char *b, size_t len)
{
	WP_JW_OR_NULL(wp_jw_hex, w, vkey, b != NULL && len <= 8,
	    b ? wp_le64(b, len) : 0);
	if (b != NULL)
		wp_jw_bytes(w, bkey, b, len);
	else
		wp_jw_null(w, bkey);
}

static void
place(struct wp_jw *w, const char *prefix, const struct wp_place *p)
{
	char key[32];

	snprintf(key, sizeof key, "%sstatic_addr", prefix);
	WP_JW_OR_NULL(wp_jw_hex, w, key, p->has_static, p->static_addr);
	snprintf(key, sizeof key, "%smodule", prefix);
	wp_jw_str(w, key, p->module);
	snprintf(key, sizeof key, "%sregion", prefix);
	wp_jw_str(w, key, p->region);
	snprintf(key, sizeof key, "%sperms", prefix);
	wp_jw_str(w, key, p->perms);
}

/* ---- session ---- */

static void
module(struct wp_jw *w, const void *p)
{
	const struct wp_module_rec *m = p;

	wp_jw_str(w, "path", m->path);
	wp_jw_str(w, "file", m->file);
	wp_jw_str(w, "build_id", m->build_id);
	wp_jw_hex(w, "load_bias", m->load_bias);
	wp_jw_str(w, "kind", m->kind);
	wp_jw_bool(w, "main", m->main);
}

static void
mapping(struct wp_jw *w, const void *p)
{
	const struct wp_mapping_rec *m = p;

	wp_jw_hex(w, "start", m->start);
	wp_jw_hex(w, "end", m->end);
	wp_jw_str(w, "perms", m->perms);
	wp_jw_hex(w, "offset", m->offset);
	wp_jw_str(w, "path", m->path);
	WP_JW_OR_NULL(wp_jw_hex, w, "load_bias", m->has_bias, m->load_bias);
}

void
wp_rec_made_by(struct wp_jw *w, const char *tool)
{
	wp_jw_int(w, "schema_version", WP_SCHEMA_VERSION);
	wp_jw_str(w, "tool", tool);
	wp_jw_str(w, "tool_version", WP_VERSION);
}

void
wp_rec_session(struct wp_jw *w, const struct wp_session *s)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "session");
	wp_rec_made_by(w, "wp-resolve");
	wp_jw_int(w, "pid", s->pid);
	wp_jw_uint(w, "start_time", s->start_time);
	wp_jw_str(w, "exe", s->exe);
	wp_jw_str(w, "exe_build_id", s->exe_build_id);
	wp_jw_str(w, "bin", s->bin);
	wp_jw_str(w, "bin_build_id", s->bin_build_id);
	wp_jw_str(w, "binary_match", s->binary_match);
	wp_jw_str(w, "arch", "x86_64");
	wp_jw_bool(w, "pie", s->pie);
	wp_jw_hex(w, "pie_slide", s->pie_slide);
	if (s->slot_limit)
		wp_jw_int(w, "slot_limit", s->slot_limit);
	else
		wp_jw_null(w, "slot_limit");
	if (s->limits != NULL)
		wp_jw_str(w, "limits", s->limits);
	if (s->comm != NULL)
		wp_jw_str(w, "comm", s->comm);
	wp_jw_objects(w, "modules", s->mods, s->nmods, sizeof *s->mods,
	    module);
	wp_jw_objects(w, "mappings", s->maps, s->nmaps, sizeof *s->maps,
	    mapping);
	strings(w, "warnings", (const char *const *)s->warnings, s->nwarnings);
	wp_jw_end(w);
}

/* ---- target and follow ---- */

void
wp_rec_target(struct wp_jw *w, const struct wp_target_rec *t)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "target");
	wp_jw_int(w, "id", t->id);
	wp_jw_str(w, "input", t->input);
	wp_jw_hex(w, "runtime_addr", t->addr);
	place(w, "", &t->place);
	wp_jw_uint(w, "len", t->len);
	wp_jw_str(w, "access", t->rw ? "rw" : "w");
	wp_jw_int(w, "slots", 1);
	value_bytes(w, "initial_value", "initial_bytes", t->initial, t->len);
	strings(w, "warnings", t->warnings, t->nwarnings);
	wp_jw_end(w);
}

void
wp_rec_follow(struct wp_jw *w, const struct wp_follow_rec *f)
{
	size_t i;
	int bound = strcmp(f->binding, "bound") == 0;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "follow");
	wp_jw_int(w, "id", f->id);
	wp_jw_str(w, "input", f->input);
	wp_jw_hex(w, "slot_addr", f->slot);
	place(w, "slot_", &f->place);
	wp_jw_arr(w, "offsets");
	for (i = 0; i < f->noffs; i++)
		wp_jw_shex(w, NULL, f->offs[i]);
	wp_jw_end(w);
	wp_jw_uint(w, "len", f->len);
	wp_jw_str(w, "access", f->rw ? "rw" : "w");
	wp_jw_uint(w, "slots", f->noffs + 1);
	wp_jw_arr(w, "chain");
	for (i = 0; i < f->nptrs; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_hex(w, "addr", f->ptr_addr[i]);
		wp_jw_hex(w, "value", f->ptr_value[i]);
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_str(w, "binding", f->binding);
	WP_JW_OR_NULL(wp_jw_hex, w, "leaf_addr", bound, f->leaf);
	value_bytes(w, "initial_value", "initial_bytes",
	    bound ? f->initial : NULL, f->len);
	wp_jw_end(w);
}

/* ---- records of wp-arm ---- */

/* v, or null where it is negative (not known) */
static void
int_or_null(struct wp_jw *w, const char *key, long v)
{
	WP_JW_OR_NULL(wp_jw_int, w, key, v >= 0, v);
}

void
wp_rec_armed(struct wp_jw *w, const struct wp_armed_rec *a)
{
	size_t i;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "armed");
	wp_jw_str(w, "backend", a->backend);
	wp_jw_int(w, "pid", a->pid);
	wp_jw_uint(w, "threads", a->threads);
	wp_jw_uint(w, "targets", a->targets);
	int_or_null(w, "cpus", a->cpus);
	int_or_null(w, "events", a->events);
	int_or_null(w, "ring_pages", a->ring_pages);
	wp_jw_bool(w, "regs", a->regs);
	wp_jw_str(w, "clock", "CLOCK_MONOTONIC");
	wp_jw_hex(w, "time_base_ns", a->time_base_ns);
	int_or_null(w, "duration_ms", a->duration_ms);
	if (a->callchain != NULL) {
		wp_jw_str(w, "callchain", a->callchain);
		wp_jw_uint(w, "callchain_depth", a->callchain_depth);
	}
	if (a->ninitial > 0) {
		wp_jw_arr(w, "initial");
		for (i = 0; i < a->ninitial; i++) {
			wp_jw_obj(w, NULL);
			wp_jw_int(w, "id", a->initial[i].id);
			WP_JW_OR_NULL(wp_jw_hex, w, "initial_value",
			    a->initial[i].known, a->initial[i].value);
			wp_jw_end(w);
		}
		wp_jw_end(w);
	}
	if (a->condition != NULL) {
		wp_jw_str(w, "condition", a->condition);
		wp_jw_str(w, "condition_where", a->condition_where);
	}
	wp_jw_end(w);
}

static void
flag_words(struct wp_jw *w, unsigned flags)
{
	int i;

	wp_jw_arr(w, "flags");
	for (i = 0; i < WP_NFLAGS; i++)
		if (flags & (1u << i))
			wp_jw_str(w, NULL, wp_flag_names[i]);
	wp_jw_end(w);
}

static void
hit_flags(struct wp_jw *w, const struct wp_hit_rec *h)
{
	flag_words(w, h->flags);
	int_or_null(w, "signal", h->signal > 0 ? h->signal : -1);
}

/*
 * "regs":{...}: a member per register sampled, in the register table's
 * order.  A hit of wp-arm --regs carries 18 of them, so they are
 * written at once: each key is made once, with its quotes, colon and
 * the value's "0x".
 */
static void
regs_member(struct wp_jw *w, const struct wp_x86_regs *r)
{
	static char qkey[WP_NREGS][16];	/* ,"rax":" (12 at most) */
	static size_t qlen[WP_NREGS];
	char *buf, *p;
	size_t first;
	int i;

	if (qlen[0] == 0)
		for (i = 0; i < WP_NREGS; i++)
			qlen[i] = (size_t)snprintf(qkey[i], sizeof qkey[i],
			    ",\"%s\":\"", wp_x86_reg_names[i]);
	p = buf = wp_jw_raw_begin(w, "regs", WP_NREGS * 32 + 2);
	*p++ = '{';
	for (i = 0; i < WP_NREGS; i++) {
		if (!(r->have & (1u << i)))
			continue;
		first = p == buf + 1;	/* no comma */
		/* a fixed size: no call; the bytes after are written over */
		memcpy(p, qkey[i] + first, 14);
		p += qlen[i] - first;
		p += wp_fmt_hex(p, r->v[i]);
		*p++ = '"';
	}
	*p++ = '}';
	wp_jw_raw_end(w, (size_t)(p - buf));
}

/* --callchain: the callers' return addresses, and the chain's status */
static void
chain_member(struct wp_jw *w, const char *status, const uint64_t *chain,
    size_t n)
{
	size_t i;

	wp_jw_arr(w, "callchain");
	for (i = 0; i < n; i++)
		wp_jw_hex(w, NULL, chain[i]);
	wp_jw_end(w);
	wp_jw_str(w, "callchain_status", status);
}

/* Where an exact hit's write landed in the target, and what it left. */
static void
hit_store(struct wp_jw *w, const struct wp_hit_rec *h)
{
	if (h->store_len == 0) {
		wp_jw_null(w, "store_addr");
		wp_jw_null(w, "store_len");
		wp_jw_null(w, "store_bytes");
		return;
	}
	wp_jw_hex(w, "store_addr", h->store_addr);
	wp_jw_uint(w, "store_len", h->store_len);
	wp_jw_bytes(w, "store_bytes", h->store_bytes,
	    h->store_len < WP_STORE_BYTES_MAX ? h->store_len :
	    WP_STORE_BYTES_MAX);
}

void
wp_rec_hit(struct wp_jw *w, const struct wp_hit_rec *h)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "hit");
	wp_jw_int(w, "target", h->target);
	wp_jw_int(w, "pid", h->pid);
	wp_jw_int(w, "tid", h->tid);
	int_or_null(w, "cpu", h->cpu);
	wp_jw_int(w, "time_ns", h->time_ns);
	wp_jw_hex(w, "ip", h->ip);
	if (h->exact)
		WP_JW_OR_NULL(wp_jw_hex, w, "writer_ip", h->has_writer_ip,
		    h->writer_ip);
	if (h->exact || h->bytes != NULL)
		value_bytes(w, "new_value", "new_bytes", h->bytes, h->nbytes);
	if (h->exact) {
		hit_store(w, h);
		hit_flags(w, h);
	}
	if (h->role != WP_ROLE_NONE)
		wp_jw_str(w, "role", wp_role_names[h->role]);
	if (h->role == WP_ROLE_POINTER)
		wp_jw_int(w, "level", h->level);
	else if (h->role == WP_ROLE_LEAF)
		wp_jw_uint(w, "generation", h->generation);
	if (h->role != WP_ROLE_NONE) {
		wp_jw_hex(w, "addr", h->addr);
		wp_jw_int(w, "len", h->len);
	}
	if (h->regs != NULL)
		regs_member(w, h->regs);
	if (h->chain_status != NULL)
		chain_member(w, h->chain_status, h->chain, h->nchain);
	if (h->stack != NULL)
		wp_jw_bytes(w, "user_stack", h->stack, h->nstack);
	wp_jw_end(w);
}

void
wp_rec_thread(struct wp_jw *w, const struct wp_thread_rec *t)
{
	int fork = strcmp(t->event, "fork_process") == 0;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "thread");
	wp_jw_str(w, "event", t->event);
	if (fork)
		wp_jw_int(w, "pid", t->pid);
	else
		wp_jw_int(w, "tid", t->tid);
	if (t->comm != NULL)
		wp_jw_str(w, "comm", t->comm);
	if (fork || strcmp(t->event, "start") == 0)
		int_or_null(w, "by_tid", t->by_tid ? t->by_tid : -1);
	if (strcmp(t->event, "start") == 0)
		wp_jw_str(w, "coverage", t->coverage);
	if (strcmp(t->event, "arm_failed") == 0) {
		wp_jw_int(w, "errno", t->err);
		wp_jw_str(w, "error", strerror(t->err));
	}
	if (t->has_time)
		wp_jw_int(w, "time_ns", t->time_ns);
	wp_jw_end(w);
}

void
wp_rec_lost(struct wp_jw *w, uint64_t count, int cpu, int64_t time_ns)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "lost");
	wp_jw_uint(w, "count", count);
	int_or_null(w, "cpu", cpu);
	wp_jw_int(w, "time_ns", time_ns);
	wp_jw_end(w);
}

static void
role(struct wp_jw *w, int r, int level)
{
	if (r == WP_ROLE_NONE)
		return;
	wp_jw_str(w, "role", wp_role_names[r]);
	wp_jw_int(w, "level", level);
}

void
wp_rec_count(struct wp_jw *w, const struct wp_count_rec *c)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "count");
	wp_jw_int(w, "target", c->target);
	role(w, c->role, c->level);
	wp_jw_uint(w, "counted", c->counted);
	wp_jw_uint(w, "sampled", c->sampled);
	wp_jw_int(w, "time_ns", c->time_ns);
	wp_jw_end(w);
}

void
wp_rec_tally(struct wp_jw *w, const struct wp_tally_rec *t)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "tally");
	wp_jw_int(w, "target", t->target);
	role(w, t->role, t->level);
	wp_jw_int(w, "tid", t->tid);
	wp_jw_hex(w, "ip", t->ip);
	wp_jw_uint(w, "hits", t->hits);
	wp_jw_hex(w, "first_value", t->first);
	wp_jw_hex(w, "last_value", t->last);
	wp_jw_uint(w, "unchanged", t->unchanged);
	wp_jw_int(w, "time_ns", t->time_ns);
	if (t->has_writer_ip)
		wp_jw_hex(w, "writer_ip", t->writer_ip);
	else if (t->flags != 0)
		flag_words(w, t->flags);
	if (t->has_matched)
		wp_jw_uint(w, "matched", t->matched);
	if (t->chain_status != NULL)
		chain_member(w, t->chain_status, t->chain, t->nchain);
	wp_jw_end(w);
}

void
wp_rec_last_write(struct wp_jw *w, const struct wp_last_write_rec *r)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "last_write");
	wp_jw_int(w, "target", r->target);
	wp_jw_uint(w, "seq", r->seq);
	wp_jw_uint(w, "of", r->of);
	wp_jw_str(w, "end", r->end);
	wp_jw_int(w, "tid", r->tid);
	wp_jw_int(w, "time_ns", r->time_ns);
	wp_jw_hex(w, "ip", r->ip);
	WP_JW_OR_NULL(wp_jw_hex, w, "writer_ip", r->has_writer_ip, r->writer_ip);
	flag_words(w, r->flags);
	WP_JW_OR_NULL(wp_jw_hex, w, "new_value", r->has_value, r->value);
	if (r->chain_status != NULL)
		chain_member(w, r->chain_status, r->chain, r->nchain);
	wp_jw_end(w);
}

void
wp_rec_rebind(struct wp_jw *w, const struct wp_rebind_rec *r)
{
	size_t i;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "rebind");
	wp_jw_int(w, "target", r->target);
	wp_jw_uint(w, "generation", r->generation);
	wp_jw_str(w, "binding", r->binding);
	WP_JW_OR_NULL(wp_jw_hex, w, "old_leaf", r->old_leaf != 0, r->old_leaf);
	WP_JW_OR_NULL(wp_jw_hex, w, "new_leaf", r->new_leaf != 0, r->new_leaf);
	wp_jw_arr(w, "pointers");
	for (i = 0; i < r->npointers; i++)
		wp_jw_hex(w, NULL, r->pointers[i]);
	wp_jw_end(w);
	wp_jw_int(w, "time_ns", r->time_ns);
	wp_rec_rearm_members(w, r->rearm_ns, r->held, r->missed);
	wp_jw_end(w);
}

void
wp_rec_rearm_members(struct wp_jw *w, int64_t rearm_ns, int held, int missed)
{
	int_or_null(w, "rearm_ns", rearm_ns);
	wp_jw_bool(w, "held", held);
	WP_JW_OR_NULL(wp_jw_bool, w, "missed_in_window", missed >= 0, missed);
}

static void
coverage(struct wp_jw *w, const struct wp_observation *o)
{
	size_t i;

	wp_jw_obj(w, "thread_coverage");
	wp_jw_uint(w, "seeded_tids", o->seeded);
	wp_jw_uint(w, "inherited_tids", o->inherited);
	wp_jw_uint(w, "dynamically_attached_tids", o->attached_late);
	wp_jw_uint(w, "unattached_tids", o->unattached);
	wp_jw_uint(w, "exited_tids", o->exited);
	wp_jw_arr(w, "failed_tids");
	for (i = 0; i < o->nfailed; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "tid", o->failed[i].tid);
		wp_jw_int(w, "errno", o->failed[i].err);
		wp_jw_str(w, "error", strerror(o->failed[i].err));
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_uint(w, "forked_processes", o->forked);
	wp_jw_uint(w, "excluded_other_process_events", o->excluded);
	wp_jw_uint(w, "ambiguous_events", o->ambiguous);
	wp_jw_uint(w, "unparsed_records", o->unparsed);
	wp_jw_bool(w, "partial_coverage", o->npartial > 0);
	strings(w, "partial_coverage_reasons", o->partial_reasons, o->npartial);
	wp_jw_end(w);
}

static void
obs_targets(struct wp_jw *w, const struct wp_observation *o)
{
	const struct wp_obs_target *t;
	const struct wp_obs_follow *f;
	size_t i;

	wp_jw_arr(w, "targets");
	for (i = 0; i < o->ntargets; i++) {
		t = &o->targets[i];
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", t->id);
		wp_jw_uint(w, "hits", t->hits);
		WP_JW_OR_NULL(wp_jw_uint, w, "counted", t->counted_known,
		    t->counted);
		WP_JW_OR_NULL(wp_jw_uint, w, "lost", t->counted_known, t->lost);
		WP_JW_OR_NULL(wp_jw_hex, w, "latest_value", t->has_latest,
		    t->latest);
		if (t->has_pages_dropped)
			wp_jw_uint(w, "pages_dropped", t->pages_dropped);
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_arr(w, "follows");
	for (i = 0; i < o->nfollows; i++) {
		f = &o->follows[i];
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", f->id);
		wp_jw_uint(w, "generation", f->generation);
		wp_jw_str(w, "binding", f->binding);
		WP_JW_OR_NULL(wp_jw_hex, w, "leaf_addr", f->leaf != 0, f->leaf);
		wp_jw_uint(w, "pointer_hits", f->pointer_hits);
		wp_jw_uint(w, "leaf_hits", f->leaf_hits);
		WP_JW_OR_NULL(wp_jw_uint, w, "pointer_counted",
		    f->counted_known, f->pointer_counted);
		WP_JW_OR_NULL(wp_jw_uint, w, "leaf_counted", f->counted_known,
		    f->leaf_counted);
		wp_jw_uint(w, "rebinds", f->rebinds);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
obs_page(struct wp_jw *w, const struct wp_obs_page *p)
{
	wp_jw_obj(w, "page");
	wp_jw_uint(w, "pages", p->pages);
	wp_jw_uint(w, "pages_dropped", p->pages_dropped);
	wp_jw_uint(w, "faults_watched", p->faults_watched);
	wp_jw_uint(w, "faults_neighbour", p->faults_neighbour);
	wp_jw_uint(w, "emulated", p->emulated);
	wp_jw_uint(w, "stepped", p->stepped);
	wp_jw_uint(w, "kernel_writes", p->kernel_writes);
	wp_jw_uint(w, "windows", p->windows);
	wp_jw_uint(w, "windows_shared", p->windows_shared);
	wp_jw_uint(w, "signals_passed", p->signals_passed);
	wp_jw_uint(w, "forks_restored", p->forks_restored);
	if (p->handlers_restored > 0)
		wp_jw_uint(w, "handlers_restored", p->handlers_restored);
	if (p->unexplained > 0)
		wp_jw_uint(w, "unexplained_changes", p->unexplained);
	if (p->rseq_retries > 0) {
		wp_jw_uint(w, "rseq_retries", p->rseq_retries);
		wp_jw_uint(w, "rseq_retry_calls", p->rseq_retry_calls);
		wp_jw_uint(w, "rseq_retries_cut", p->rseq_retries_cut);
	}
	if (p->async_io > 0)
		wp_jw_uint(w, "async_io", p->async_io);
	wp_jw_uint(w, "stopped_us", p->stopped_ns / 1000);
	wp_jw_uint(w, "stops", p->stops);
	wp_jw_uint(w, "watched_us", p->watched_ns / 1000);
	if (p->watched_ns > 0)
		wp_jw_uint(w, "native_run_us", (p->watched_ns -
		    (p->delay_ns < p->watched_ns ? p->delay_ns :
		    p->watched_ns)) / 1000);
	wp_jw_end(w);
}

static void
obs_bpf(struct wp_jw *w, const struct wp_obs_bpf *b)
{
	wp_jw_obj(w, "bpf");
	wp_jw_uint(w, "samples_sent", b->samples_sent);
	wp_jw_uint(w, "samples_dropped", b->samples_dropped);
	wp_jw_uint(w, "samples_capped", b->samples_capped);
	wp_jw_uint(w, "tally_full", b->tally_full);
	wp_jw_uint(w, "read_errors", b->read_errors);
	wp_jw_uint(w, "writers_held", b->writers_held);
	wp_jw_uint(w, "signals_passed", b->signals_passed);
	wp_jw_uint(w, "samples_skipped", b->samples_skipped);
	if (b->has_learning) {
		wp_jw_uint(w, "samples_pending",
		    b->samples_pending);
		wp_jw_uint(w, "writers_prelearned",
		    b->writers_prelearned);
	}
	if (b->all_hits)
		wp_jw_null(w, "sample_budget");
	else {
		wp_jw_obj(w, "sample_budget");
		wp_jw_uint(w, "first", b->budget_first);
		wp_jw_uint(w, "first_per_writer",
		    b->budget_first_per_writer);
		wp_jw_uint(w, "interval_ns", b->budget_interval_ns);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
obs_perf(struct wp_jw *w, const struct wp_obs_perf *p)
{
	wp_jw_obj(w, "perf");
	wp_jw_str(w, "formatter", p->formatter);
	wp_jw_str(w, "formatter_reason", p->formatter_reason);
	wp_jw_uint(w, "queue_cap_bytes", p->queue_cap_bytes);
	wp_jw_uint(w, "queued_peak_bytes", p->queued_peak_bytes);
	wp_jw_uint(w, "queued_peak_records", p->queued_peak_records);
	wp_jw_uint(w, "formatter_wait_max_ms", p->formatter_wait_max_ms);
	wp_jw_uint(w, "cap_reached", p->cap_reached);
	wp_jw_end(w);
}

void
wp_rec_observation(struct wp_jw *w, const struct wp_observation *o)
{
	const struct wp_obs_ptrace *p = o->ptrace;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "observation");
	wp_jw_str(w, "backend", o->backend);
	int_or_null(w, "pid", o->pid > 0 ? o->pid : -1);
	wp_jw_uint(w, "duration_requested_ms", o->duration_ms);
	wp_jw_uint(w, "elapsed_ms", o->elapsed_ms);
	wp_jw_uint(w, "max_events", o->max_events);
	wp_jw_str(w, "stop_reason", o->stop_reason);
	wp_jw_str(w, "stop_detail", o->stop_detail);
	wp_jw_str(w, "error", o->error);
	wp_jw_bool(w, "truncated_by_max_events", o->truncated);
	wp_jw_uint(w, "accepted_hits", o->accepted);
	coverage(w, o);
	wp_jw_obj(w, "lost_events");
	wp_jw_bool(w, "known", o->lost_known);
	if (!o->lost_known)
		wp_jw_str(w, "reason", o->lost_reason);
	wp_jw_uint(w, "total", o->lost);
	wp_jw_uint(w, "lost_records", o->lost_records);
	if (o->undelivered > 0)
		wp_jw_uint(w, "undelivered_records", o->undelivered);
	strings(w, "reasons", o->lost_reasons, o->nlost_reasons);
	wp_jw_end(w);
	wp_jw_bool(w, "counts_are_lower_bound", o->lower_bound);
	wp_jw_bool(w, "tallied", o->tallied);
	wp_jw_str(w, "follow_mode", o->follow_mode);
	wp_jw_str(w, "follow_mode_reason", o->follow_reason);
	obs_targets(w, o);
	if (p != NULL) {
		wp_jw_obj(w, "ptrace");
		wp_jw_uint(w, "steps", p->steps);
		wp_jw_uint(w, "steps_per_second", p->steps_per_second);
		wp_jw_uint(w, "unexplained_changes", p->unexplained);
		wp_jw_uint(w, "kernel_writes", p->kernel_writes);
		wp_jw_uint(w, "signals_passed", p->signals_passed);
		if (p->unmodeled > 0)
			wp_jw_uint(w, "unmodeled_stores", p->unmodeled);
		if (p->native_ips > 0) {
			wp_jw_uint(w, "native_instructions_per_second",
			    p->native_ips);
			wp_jw_uint(w, "blocked_us", p->blocked_ns / 1000);
			wp_jw_uint(w, "native_run_us", (uint64_t)
			    ((unsigned __int128)p->steps * 1000000 /
			    p->native_ips) + p->blocked_ns / 1000);
		}
		wp_jw_end(w);
	}
	if (o->bpf != NULL)
		obs_bpf(w, o->bpf);
	if (o->page != NULL)
		obs_page(w, o->page);
	if (o->perf != NULL)
		obs_perf(w, o->perf);
	if (o->alive >= 0)
		wp_jw_bool(w, "target_alive_after", o->alive);
	else
		wp_jw_null(w, "target_alive_after");
	if (o->stopped.tid > 0) {
		wp_jw_obj(w, "stopped_at");
		wp_jw_int(w, "tid", o->stopped.tid);
		WP_JW_OR_NULL(wp_jw_hex, w, "writer_ip", o->stopped.has_writer,
		    o->stopped.writer_ip);
		wp_jw_hex(w, "ip", o->stopped.ip);
		wp_jw_str(w, "core", o->stopped.core);
		if (o->stopped.late)
			wp_jw_uint(w, "late_us", o->stopped.late_us);
		if (o->stopped.process != NULL)
			wp_jw_str(w, "process", o->stopped.process);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}
