/*
 * The record contract of wp-records(7): one builder per record type
 * (the readers are in reader.c).  The order of members is the order the
 * page lists them in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "record.h"
#include "util.h"

/* ---- helpers of the builders ---- */

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
	wp_jw_str(w, "arch", wp_machine_names[s->machine]);
	wp_jw_str(w, "machine", wp_machine_names[s->machine]);
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
	wp_jw_strs(w, "warnings", (const char *const *)s->warnings, s->nwarnings);
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
	wp_jw_strs(w, "warnings", t->warnings, t->nwarnings);
	wp_jw_end(w);
}

void
wp_rec_site(struct wp_jw *w, const struct wp_site_rec *s)
{
	const struct wp_x86_mem *m = &s->in->mem;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "site");
	wp_jw_int(w, "id", s->id);
	wp_jw_str(w, "input", s->input);
	wp_jw_hex(w, "runtime_addr", s->addr);
	place(w, "", &s->place);
	WP_JW_OR_NULL(wp_jw_hex, w, "file_offset", s->has_file_offset,
	    s->file_offset);
	wp_jw_str(w, "insn", s->in->text);
	wp_jw_int(w, "insn_len", s->in->size);
	wp_jw_str(w, "access", s->rw ? "rw" : "w");
	wp_jw_obj(w, "operand");
	wp_jw_bool(w, "writes", s->in->writes);
	wp_jw_bool(w, "reads", s->in->reads);
	wp_jw_int(w, "width", s->in->width);
	wp_jw_str(w, "segment", m->seg == WP_FS_BASE ? "fs" :
	    m->seg == WP_GS_BASE ? "gs" : NULL);
	wp_jw_str(w, "base", m->base >= 0 ? wp_x86_reg_names[m->base] : NULL);
	wp_jw_str(w, "index", m->index >= 0 ? wp_x86_reg_names[m->index] :
	    NULL);
	wp_jw_int(w, "scale", m->scale);
	wp_jw_shex(w, "disp", m->disp);
	wp_jw_bool(w, "rip_relative", m->rip_rel);
	wp_jw_int(w, "addr_bytes", m->base_bytes);
	wp_jw_end(w);
	if (s->value != NULL)
		wp_rec_value(w, s->value);
	wp_jw_strs(w, "warnings", s->warnings, s->nwarnings);
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
	wp_jw_int_known(w, "cpus", a->cpus);
	wp_jw_int_known(w, "events", a->events);
	wp_jw_int_known(w, "ring_pages", a->ring_pages);
	wp_jw_bool(w, "regs", a->regs);
	wp_jw_str(w, "clock", "CLOCK_MONOTONIC");
	wp_jw_hex(w, "time_base_ns", a->time_base_ns);
	wp_jw_int_known(w, "duration_ms", a->duration_ms);
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
	wp_jw_int_known(w, "signal", h->signal > 0 ? h->signal : -1);
}

/* The keys of a register table, each with its quotes, colon and "0x". */
struct regkeys {
	char		 qkey[WP_A64_NREGS][16];	/* ,"rax":" (12 at most) */
	size_t		 qlen[WP_A64_NREGS];
};

/*
 * "regs":{...}: a member per register sampled (bit i of have), in the
 * register table's order (names, n of them: x86-64's or AArch64's).
 * A hit of wp-arm --regs carries 18 of them (34), so they are written
 * at once: each key is made once.
 */
static void
regs_member(struct wp_jw *w, struct regkeys *k, const char *const *names,
    int n, const uint64_t *v, uint64_t have)
{
	char *buf, *p;
	size_t first;
	int i;

	if (k->qlen[0] == 0)
		for (i = 0; i < n; i++)
			k->qlen[i] = (size_t)snprintf(k->qkey[i],
			    sizeof k->qkey[i], ",\"%s\":\"", names[i]);
	p = buf = wp_jw_raw_begin(w, "regs", (size_t)n * 32 + 2);
	*p++ = '{';
	for (i = 0; i < n; i++) {
		if (!(have & (1ULL << i)))
			continue;
		first = p == buf + 1;	/* no comma */
		/* a fixed size: no call; the bytes after are written over */
		memcpy(p, k->qkey[i] + first, 14);
		p += k->qlen[i] - first;
		p += wp_fmt_hex(p, v[i]);
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
wp_rec_frame(struct wp_jw *w, const struct wp_frame_in *f)
{
	size_t i;

	if (f->bare) {
		wp_jw_str(w, NULL, f->ip);
		return;
	}
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "ip", f->ip);
	wp_jw_str(w, "module", f->module);
	wp_jw_str(w, "static_ip", f->static_ip);
	wp_jw_str(w, "symbol", f->symbol);
	if (f->source_file != NULL) {
		wp_jw_obj(w, "source");
		wp_jw_str(w, "file", f->source_file);
		wp_jw_int(w, "line", f->source_line);
		wp_jw_end(w);
	} else
		wp_jw_null(w, "source");
	/* the call is in code inlined into the function: say whose */
	if (f->ninlined > 0) {
		wp_jw_arr(w, "inlined");
		for (i = 0; i < f->ninlined; i++)
			wp_jw_str(w, NULL, f->inlined[i]);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static struct regkeys x86keys, a64keys;

void
wp_rec_hit(struct wp_jw *w, const struct wp_hit_rec *h)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "hit");
	wp_jw_int(w, "target", h->target);
	wp_jw_int(w, "pid", h->pid);
	wp_jw_int(w, "tid", h->tid);
	wp_jw_int_known(w, "cpu", h->cpu);
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
		regs_member(w, &x86keys, wp_x86_reg_names, WP_NREGS,
		    h->regs->v, h->regs->have);
	else if (h->a64_regs != NULL)
		regs_member(w, &a64keys, wp_a64_reg_names, WP_A64_NREGS,
		    h->a64_regs->v, h->a64_regs->have);
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
		wp_jw_int_known(w, "by_tid", t->by_tid ? t->by_tid : -1);
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
	wp_jw_int_known(w, "cpu", cpu);
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
wp_rec_access(struct wp_jw *w, const struct wp_access_rec *a)
{
	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "access");
	wp_jw_int(w, "site", a->site);
	wp_jw_hex(w, "addr", a->addr);
	wp_jw_int(w, "tid", a->tid);
	wp_jw_uint(w, "writes", a->writes);
	wp_jw_uint(w, "reads", a->reads);
	wp_jw_int(w, "time_ns", a->time_ns);
	if (a->region[0] != '\0') {
		wp_jw_str(w, "region", a->region);
		wp_jw_hex(w, "mapping_start", a->map_start);
	}
	if (a->name[0] != '\0')
		wp_jw_str(w, "name", a->name);
	if (a->stack_of > 0)
		wp_jw_int(w, "stack_of", a->stack_of);
	if (a->tls_of > 0) {
		wp_jw_int(w, "tls_of", a->tls_of);
		wp_jw_shex(w, "tls_offset", a->tls_off);
	}
	if (a->has_values) {
		wp_jw_hex(w, "first_value", a->first);
		wp_jw_hex(w, "last_value", a->last);
	}
	if (a->nvals > 0) {
		size_t i;

		wp_jw_arr(w, "values");
		for (i = 0; i < a->nvals && i < WP_ACCESS_NVALS; i++) {
			wp_jw_obj(w, NULL);
			wp_jw_hex(w, "value", a->vals[i]);
			wp_jw_uint(w, "count", a->vn[i]);
			wp_jw_end(w);
		}
		wp_jw_end(w);
		wp_jw_uint(w, "values_other", a->vother);
	}
	if (a->has_match) {
		wp_jw_uint(w, "matched", a->matched);
		wp_jw_uint(w, "match_unknown", a->match_unknown);
	}
	if (a->backend != NULL)
		wp_jw_str(w, "backend", a->backend);
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
	wp_jw_int_known(w, "rearm_ns", rearm_ns);
	wp_jw_bool(w, "held", held);
	WP_JW_OR_NULL(wp_jw_bool, w, "missed_in_window", missed >= 0, missed);
}
