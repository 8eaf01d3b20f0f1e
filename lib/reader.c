/*
 * The readers of the records wp-decode and wp-report read: each record
 * parsed once, in one pass over its members, into a typed struct.  No
 * tool looks a record's member up by its name.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "util.h"

/* ---- one pass over a record's members ---- */

/* The members of object o, each as its name and its value's token. */
struct member {
	const char	*name;
	size_t		 len;
	int		 v;
};

static int
next_member(const struct wp_json *j, int o, int *at, struct member *m,
    char *buf, size_t sz)
{
	const struct wp_jtok *k;
	int n;

	for (; *at < (int)j->t[o].end; *at = (int)j->t[*at].end + 1) {
		m->v = *at;
		k = &j->t[m->v - 1];
		*at = (int)j->t[m->v].end + 1;
		if (!k->esc) {
			m->name = j->text + k->start + 1;
			m->len = k->len - 2;
			return 1;
		}
		if ((n = wp_json_str(j, m->v - 1, buf, sz)) >= 0) {
			m->name = buf;
			m->len = (size_t)n;
			return 1;
		}
	}
	return 0;
}

#define FOREACH_MEMBER(j, o, m)						\
	for (int at_ = (o) + 2; next_member(j, o, &at_, &(m), name_,	\
	    sizeof name_);)
#define IS(m, s)	((m).len == sizeof s - 1 &&			\
			    wp_same_bytes((m).name, s, sizeof s - 1))

static int
word_of(const struct wp_json *j, int v, const char *const *names, size_t n)
{
	if (!wp_json_is(j, v, WP_JSTRING) || j->t[v].esc)
		return -1;
	return wp_vocab_find(names, n, j->text + j->t[v].start + 1,
	    j->t[v].len - 2);
}

static const char *
raw_of(const struct wp_json *j, int v, size_t *n)
{
	return wp_json_raw(j, v, n);
}

/* ---- hit and tally ---- */

static unsigned
flags_of(const struct wp_json *j, int a)
{
	unsigned bits = 0;
	int v, f;

	if (!wp_json_is(j, a, WP_JARRAY))
		return 0;
	for (v = wp_json_first(j, a); v >= 0; v = wp_json_next(j, a, v))
		if ((f = word_of(j, v, wp_flag_names, WP_NFLAGS)) >= 0)
			bits |= 1u << f;
	return bits;
}

static void
chain_of(const struct wp_json *j, int a, struct wp_hit_in *h)
{
	uint64_t ip;
	int v;

	h->chain_json = raw_of(j, a, &h->nchain_json);
	if (!wp_json_is(j, a, WP_JARRAY))
		return;
	h->has_chain = 1;
	for (v = wp_json_first(j, a); v >= 0 && h->nchain < WP_CALLCHAIN_MAX;
	    v = wp_json_next(j, a, v))
		if (wp_json_hex(j, v, &ip) == 0 && ip != 0)
			h->chain[h->nchain++] = ip;
}

/* The members of a hit that say what was written and by whom. */
static int
hit_member(const struct wp_json *j, const struct member *m,
    struct wp_hit_in *h)
{
	int64_t i;

	if (IS(*m, "writer_ip"))
		h->exact = wp_json_hex(j, m->v, &h->writer_ip) == 0;
	else if (IS(*m, "flags"))
		h->flags = flags_of(j, m->v);
	else if (IS(*m, "signal"))
		h->signal = wp_json_int(j, m->v, &i) == 0 && i > 0 &&
		    i < 1024 ? (int)i : 0;
	else if (IS(*m, "new_value")) {
		h->has_value_members = 1;
		h->has_new_value = wp_json_hex(j, m->v, &h->new_value) == 0;
	} else if (IS(*m, "new_bytes")) {
		h->has_value_members = 1;
		if (wp_json_is(j, m->v, WP_JSTRING))
			h->new_bytes = raw_of(j, m->v, &h->nnew_bytes);
	} else if (IS(*m, "store_addr"))
		h->has_store = wp_json_hex(j, m->v, &h->store_addr) == 0;
	else if (IS(*m, "store_len") && wp_json_int(j, m->v, &i) == 0)
		h->store_len = i > 0 ? i : 0;
	else if (IS(*m, "store_bytes") && wp_json_is(j, m->v, WP_JSTRING)) {
		h->store_bytes = raw_of(j, m->v, &h->nstore_bytes);
		h->store_bytes_tok = m->v;
	} else if (IS(*m, "regs"))
		h->regs_tok = m->v;
	else if (IS(*m, "user_stack"))
		h->stack_tok = m->v;
	else if (IS(*m, "writer"))
		h->writer_tok = m->v;
	else if (IS(*m, "written_value"))
		h->value_tok = m->v;
	else if (IS(*m, "callchain"))
		chain_of(j, m->v, h);
	else if (IS(*m, "callchain_status"))
		h->status_json = raw_of(j, m->v, &h->nstatus_json);
	else if (IS(*m, "callers"))
		h->callers_json = raw_of(j, m->v, &h->ncallers_json);
	else
		return 0;
	return 1;
}

/* Whether v is an integer that fits an int, then in *out. */
static int
int32_of(const struct wp_json *j, int v, int *out)
{
	int64_t i;

	if (wp_json_int(j, v, &i) == -1 || i < INT32_MIN || i > INT32_MAX)
		return 0;
	*out = (int)i;
	return 1;
}

/* The members of a hit that say where and when. */
static void
place_member(const struct wp_json *j, const struct member *m,
    struct wp_hit_in *h)
{
	int64_t i;

	if (IS(*m, "target"))
		h->has_target = int32_of(j, m->v, &h->target);
	else if (IS(*m, "tid"))
		h->has_tid = int32_of(j, m->v, &h->tid);
	else if (IS(*m, "time_ns"))
		h->has_time = wp_json_int(j, m->v, &h->time_ns) == 0;
	else if (IS(*m, "ip"))
		h->has_ip = wp_json_hex(j, m->v, &h->ip) == 0;
	else if (IS(*m, "role") &&
	    (i = word_of(j, m->v, wp_role_names, WP_NROLES)) > 0)
		h->role = (int)i;
	else if (IS(*m, "level") && wp_json_int(j, m->v, &i) == 0)
		h->level = i >= 0 && i < 64 ? (int)i : 0;
	else if (IS(*m, "generation") && wp_json_int(j, m->v, &i) == 0) {
		h->has_generation = 1;
		h->generation = (uint64_t)i;
	} else if (IS(*m, "addr"))
		h->has_addr = wp_json_hex(j, m->v, &h->addr) == 0;
	else if (IS(*m, "len"))
		wp_json_int(j, m->v, &h->len);
	else if (IS(*m, "hits") && wp_json_int(j, m->v, &i) == 0)
		h->hits = i > 0 ? (uint64_t)i : 0;
	else if (IS(*m, "matched") && wp_json_int(j, m->v, &i) == 0)
		h->matched = i > 0 ? (uint64_t)i : 0;
	else if (IS(*m, "seq"))
		h->has_seq = wp_json_int(j, m->v, &h->seq) == 0;
	else if (IS(*m, "of"))
		h->has_of = wp_json_int(j, m->v, &h->of) == 0;
	else if (IS(*m, "end"))
		h->end_tok = m->v;
}

void
wp_rec_read_hit(const struct wp_record *rec, struct wp_hit_in *h)
{
	const struct wp_json *j = rec->j;
	struct member m;
	char name_[64];

	/* all but the chain's addresses, up to nchain */
	memset(h, 0, offsetof(struct wp_hit_in, chain));
	h->nchain = 0;
	memset(&h->chain_json, 0, sizeof *h -
	    offsetof(struct wp_hit_in, chain_json));
	h->rec = rec;
	h->tally = rec->kind == WP_REC_TALLY;
	h->len = 1;
	h->regs_tok = h->stack_tok = h->writer_tok = h->value_tok = -1;
	h->end_tok = h->store_bytes_tok = -1;
	FOREACH_MEMBER(j, 0, m)
		if (!hit_member(j, &m, h))
			place_member(j, &m, h);
	h->has_store = h->has_store && h->store_len > 0;
	h->has_regs = h->regs_tok >= 0;
	h->has_stack = h->stack_tok >= 0;
	h->has_writer = h->writer_tok >= 0;
}

/*
 * The registers of a hit in need, from its "regs" object: no other one
 * is looked at.  names: the register table's (n of them); at: where
 * each was in the last hit (hits list them in one order).
 */
static uint64_t
hit_regs(const struct wp_hit_in *h, const char *const *names, int n,
    int *at, uint64_t need, uint64_t *val)
{
	const struct wp_json *j = h->rec->j;
	const struct wp_jtok *t;
	int o = h->regs_tok, k, v;
	uint64_t have = 0;

	if (o < 0 || j->t[o].type != WP_JOBJECT)
		return 0;
	for (k = 0; k < n; k++) {
		if (!(need & (1ULL << k)))
			continue;
		/* values of one token each: member i's is at o + 2 + 2i */
		v = o + 2 + 2 * at[k];
		t = &j->t[v - 1];
		if ((j->t[o].kinds & (1u << WP_JOBJECT | 1u << WP_JARRAY)) ||
		    v >= (int)j->t[o].end || t->esc ||
		    t->len != strlen(names[k]) + 2 ||
		    memcmp(j->text + t->start + 1, names[k],
		    t->len - 2) != 0) {
			if ((v = wp_json_get(j, o, names[k])) < 0)
				continue;
			if (!(j->t[o].kinds & (1u << WP_JOBJECT |
			    1u << WP_JARRAY)))
				at[k] = (v - o - 2) / 2;
		}
		if (wp_json_hex(j, v, &val[k]) == 0)
			have |= 1ULL << k;
	}
	return have;
}

int
wp_rec_hit_regs(const struct wp_hit_in *h, uint32_t need,
    struct wp_x86_regs *r)
{
	static int at[WP_NREGS];

	r->have = (uint32_t)hit_regs(h, wp_x86_reg_names, WP_NREGS, at, need,
	    r->v);
	return r->have != 0;
}

int
wp_rec_hit_regs_a64(const struct wp_hit_in *h, uint64_t need,
    struct wp_a64_regs *r)
{
	static int at[WP_A64_NREGS];

	r->have = hit_regs(h, wp_a64_reg_names, WP_A64_NREGS, at, need, r->v);
	return r->have != 0;
}

ssize_t
wp_rec_hit_stack(const struct wp_hit_in *h, unsigned char **buf,
    size_t *cap)
{
	const struct wp_json *j = h->rec->j;
	size_t len, n;

	if (h->stack_tok < 0)
		return -1;
	wp_json_raw(j, h->stack_tok, &len);
	if (len / 2 > *cap) {
		*buf = wp_xrealloc(*buf, len / 2);
		*cap = len / 2;
	}
	if (wp_json_bytes(j, h->stack_tok, *buf, *cap, &n) == -1)
		return -1;
	return (ssize_t)n;
}

/* ---- what wp-decode added ---- */

static void
source_of(const struct wp_json *j, int o, struct wp_writer_in *w)
{
	struct member m;
	char name_[64];

	if (!wp_json_is(j, o, WP_JOBJECT))
		return;
	FOREACH_MEMBER(j, o, m)
		if (IS(m, "file")) {
			free(w->source_file);
			w->source_file = wp_json_strdup(j, m.v);
		} else if (IS(m, "line"))
			wp_json_int(j, m.v, &w->source_line);
}

static void
writer_strings(const struct wp_json *j, const struct member *m,
    struct wp_writer_in *w)
{
	char **s = IS(*m, "module") ? &w->module : IS(*m, "function") ?
	    &w->function : IS(*m, "symbol") ? &w->symbol : IS(*m, "insn") ?
	    &w->insn : IS(*m, "reason") ? &w->reason : IS(*m, "caveat") ?
	    &w->caveat : NULL;

	if (s != NULL) {
		free(*s);
		*s = wp_json_strdup(j, m->v);
	}
}

int
wp_rec_read_writer(const struct wp_hit_in *h, struct wp_writer_in *w,
    int strings)
{
	const struct wp_json *j = h->rec->j;
	struct member m;
	char name_[64];
	int o = h->writer_tok, k;

	memset(w, 0, sizeof *w);
	w->kind = WP_KIND_WRITE;
	w->conf = WP_CONF_UNKNOWN;
	if (o < 0 || !wp_json_is(j, o, WP_JOBJECT))
		return -1;
	FOREACH_MEMBER(j, o, m) {
		if (IS(m, "kind"))
			w->kind = (k = word_of(j, m.v, wp_kind_names,
			    WP_NKINDS)) >= 0 ? k : WP_KIND_WRITE;
		else if (IS(m, "confidence"))
			w->conf = (k = word_of(j, m.v, wp_conf_names,
			    WP_NCONFS)) >= 0 ? k : WP_CONF_UNKNOWN;
		else if (IS(m, "trap_static_ip"))
			w->has_trap_static = wp_json_hex(j, m.v,
			    &w->trap_static) == 0;
		else if (IS(m, "writer_ip"))
			w->has_writer_ip = wp_json_hex(j, m.v,
			    &w->writer_ip) == 0;
		else if (IS(m, "writer_static_ip"))
			w->has_writer_static = wp_json_hex(j, m.v,
			    &w->writer_static) == 0;
		else if (!strings)
			continue;
		else if (IS(m, "source"))
			source_of(j, m.v, w);
		else
			writer_strings(j, &m, w);
	}
	return 0;
}

/* The strings a writer and a value read own, by their offsets. */
#define WRITER(f)	offsetof(struct wp_writer_in, f)
static const size_t writer_owns[] = {
	WRITER(module), WRITER(function), WRITER(symbol), WRITER(insn),
	WRITER(reason), WRITER(caveat), WRITER(source_file)
};
#define VALUE(f)	offsetof(struct wp_value_in, f)
static const size_t value_owns[] = {
	VALUE(kind_word), VALUE(reg), VALUE(bytes), VALUE(reason)
};
#define NOWNS(a)	(sizeof (a) / sizeof (a)[0])

/* The strings at offsets off[0..n) of the struct at base, copied. */
static void
owns_dup(void *base, const size_t *off, size_t n)
{
	char **s;
	size_t i;

	for (i = 0; i < n; i++) {
		s = (char **)((char *)base + off[i]);
		if (*s != NULL)
			*s = wp_xstrdup(*s);
	}
}

/* The strings at offsets off[0..n) of the struct at base, freed. */
static void
owns_free(void *base, const size_t *off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(*(char **)((char *)base + off[i]));
}

void
wp_writer_in_copy(struct wp_writer_in *dst, const struct wp_writer_in *src)
{
	*dst = *src;
	owns_dup(dst, writer_owns, NOWNS(writer_owns));
}

void
wp_writer_in_free(struct wp_writer_in *w)
{
	owns_free(w, writer_owns, NOWNS(writer_owns));
	memset(w, 0, sizeof *w);
}

int
wp_rec_read_value(const struct wp_hit_in *h, struct wp_value_in *v)
{
	const struct wp_json *j = h->rec->j;
	struct member m;
	char name_[64];
	int o = h->value_tok;

	memset(v, 0, sizeof *v);
	v->kind = -1;
	if (o < 0 || !wp_json_is(j, o, WP_JOBJECT))
		return -1;
	FOREACH_MEMBER(j, o, m) {
		if (IS(m, "kind")) {
			v->kind = word_of(j, m.v, wp_vkind_names, WP_NVKINDS);
			free(v->kind_word);
			v->kind_word = wp_json_strdup(j, m.v);
		} else if (IS(m, "register")) {
			free(v->reg);
			v->reg = wp_json_strdup(j, m.v);
		} else if (IS(m, "width"))
			v->has_width = wp_json_int(j, m.v, &v->width) == 0;
		else if (IS(m, "value")) {
			v->has_value_member = 1;
			v->has_value = wp_json_hex(j, m.v, &v->value) == 0;
		} else if (IS(m, "bytes")) {
			v->has_bytes_member = 1;
			free(v->bytes);
			v->bytes = wp_json_strdup(j, m.v);
		} else if (IS(m, "reason")) {
			free(v->reason);
			v->reason = wp_json_strdup(j, m.v);
		}
	}
	return 0;
}

void
wp_value_in_free(struct wp_value_in *v)
{
	owns_free(v, value_owns, NOWNS(value_owns));
	memset(v, 0, sizeof *v);
}

/* ---- thread, rebind, armed, lost ---- */

/* A frame's source: its file and line. */
static void
frame_source(const struct wp_json *j, int o, struct wp_frame_in *f)
{
	struct member m;
	char name_[64];

	FOREACH_MEMBER(j, o, m)
		if (IS(m, "file"))
			f->source_file = wp_json_strdup(j, m.v);
		else if (IS(m, "line"))
			wp_json_int(j, m.v, &f->source_line);
}

static void
frame_member(const struct wp_json *j, const struct member *m,
    struct wp_frame_in *f)
{
	int x;

	if (IS(*m, "ip"))
		f->ip = wp_json_strdup(j, m->v);
	else if (IS(*m, "module"))
		f->module = wp_json_strdup(j, m->v);
	else if (IS(*m, "static_ip"))
		f->static_ip = wp_json_strdup(j, m->v);
	else if (IS(*m, "symbol"))
		f->symbol = wp_json_strdup(j, m->v);
	else if (IS(*m, "source") && wp_json_is(j, m->v, WP_JOBJECT))
		frame_source(j, m->v, f);
	else if (IS(*m, "inlined") && wp_json_is(j, m->v, WP_JARRAY)) {
		f->inlined = wp_xcalloc(wp_json_count(j, m->v) + 1,
		    sizeof *f->inlined);
		for (x = wp_json_first(j, m->v); x >= 0;
		    x = wp_json_next(j, m->v, x))
			if (wp_json_is(j, x, WP_JSTRING))
				f->inlined[f->ninlined++] = wp_json_strdup(j, x);
	}
}

size_t
wp_rec_read_frames(const struct wp_json *j, int arr, struct wp_frame_in **fp)
{
	struct wp_frame_in *f;
	struct member m;
	char name_[64];
	size_t n = 0;
	int x;

	*fp = NULL;
	if (!wp_json_is(j, arr, WP_JARRAY) || wp_json_count(j, arr) == 0)
		return 0;
	f = wp_xcalloc(wp_json_count(j, arr), sizeof *f);
	for (x = wp_json_first(j, arr); x >= 0; x = wp_json_next(j, arr, x),
	    n++) {
		if (wp_json_is(j, x, WP_JSTRING)) {
			f[n].ip = wp_json_strdup(j, x);
			f[n].bare = 1;
		} else if (wp_json_is(j, x, WP_JOBJECT))
			FOREACH_MEMBER(j, x, m)
				frame_member(j, &m, &f[n]);
	}
	*fp = f;
	return n;
}

void
wp_frames_in_free(struct wp_frame_in *f, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		free(f[i].ip);
		free(f[i].module);
		free(f[i].static_ip);
		free(f[i].symbol);
		free(f[i].source_file);
		for (k = 0; k < f[i].ninlined; k++)
			free(f[i].inlined[k]);
		free(f[i].inlined);
	}
	free(f);
}

void
wp_rec_read_thread(const struct wp_record *rec, struct wp_thread_in *t)
{
	const struct wp_json *j = rec->j;
	struct member m;
	char name_[64];
	int64_t i;

	memset(t, 0, sizeof *t);
	t->event = -1;
	FOREACH_MEMBER(j, 0, m)
		if (IS(m, "event"))
			t->event = word_of(j, m.v, wp_event_names, WP_NEVENTS);
		else if (IS(m, "tid") && wp_json_int(j, m.v, &i) == 0) {
			t->has_tid = 1;
			t->tid = (pid_t)i;
		} else if (IS(m, "comm"))
			t->has_comm = wp_json_str(j, m.v, t->comm,
			    sizeof t->comm) >= 0;
}

static void
rebind_member(const struct wp_json *j, const struct member *m,
    struct wp_rebind_in *r)
{
	int64_t i;

	if (IS(*m, "target"))
		r->has_target = int32_of(j, m->v, &r->target);
	else if (IS(*m, "generation") && wp_json_int(j, m->v, &i) == 0)
		r->generation = (uint64_t)i;
	else if (IS(*m, "binding"))
		wp_json_str(j, m->v, r->binding, sizeof r->binding);
	else if (IS(*m, "new_leaf"))
		wp_json_hex(j, m->v, &r->new_leaf);
	else if (IS(*m, "time_ns"))
		wp_json_int(j, m->v, &r->time_ns);
	else if (IS(*m, "rearm_ns") && wp_json_int(j, m->v, &r->rearm_ns) == -1)
		r->rearm_ns = -1;
	else if (IS(*m, "held") && wp_json_bool(j, m->v, &r->held) == -1)
		r->held = 0;
	else if (IS(*m, "missed_in_window") &&
	    wp_json_bool(j, m->v, &r->missed) == -1)
		r->missed = -1;
}

void
wp_rec_read_rebind(const struct wp_record *rec, struct wp_rebind_in *r)
{
	struct member m;
	char name_[64];

	memset(r, 0, sizeof *r);
	r->rearm_ns = -1;
	r->missed = -1;
	FOREACH_MEMBER(rec->j, 0, m)
		rebind_member(rec->j, &m, r);
}

void
wp_rec_read_armed(const struct wp_record *rec, struct wp_armed_in *a)
{
	const struct wp_json *j = rec->j;
	struct member m;
	char name_[64];

	a->duration_ms = -1;
	a->callchain_depth = 0;
	FOREACH_MEMBER(j, 0, m)
		if (IS(m, "duration_ms") &&
		    wp_json_int(j, m.v, &a->duration_ms) == -1)
			a->duration_ms = -1;
		else if (IS(m, "callchain_depth") &&
		    wp_json_int(j, m.v, &a->callchain_depth) == -1)
			a->callchain_depth = 0;
}

uint64_t
wp_rec_read_lost(const struct wp_record *rec)
{
	int64_t n;

	return wp_rec_int(rec, "count", &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

int
wp_rec_read_id(const struct wp_record *rec, int *id)
{
	int64_t v;

	if (wp_rec_int(rec, "id", &v) == -1 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*id = (int)v;
	return 0;
}

/* ---- access ---- */

int
wp_rec_read_access(const struct wp_record *rec, struct wp_access_rec *a,
    struct wp_error *err)
{
	int64_t site, tid, w, r, t;
	char bk[32];
	int arr, x;

	memset(a, 0, sizeof *a);
	if (wp_rec_int(rec, "site", &site) == -1 || site < 0 ||
	    site > INT32_MAX || wp_rec_hex(rec, "addr", &a->addr) == -1 ||
	    wp_rec_int(rec, "tid", &tid) == -1 || tid < 0 ||
	    tid > INT32_MAX || wp_rec_int(rec, "writes", &w) == -1 || w < 0 ||
	    wp_rec_int(rec, "reads", &r) == -1 || r < 0 ||
	    wp_rec_int(rec, "time_ns", &t) == -1) {
		wp_error_set(err, WP_EXIT_MALFORMED, "access record without "
		    "site, addr, tid, writes, reads or time_ns");
		return -1;
	}
	a->site = (int)site;
	a->tid = (pid_t)tid;
	a->writes = (uint64_t)w;
	a->reads = (uint64_t)r;
	a->time_ns = t;
	if (wp_json_str(rec->j, wp_rec_get(rec, "region"), a->region,
	    sizeof a->region) == -1)
		a->region[0] = '\0';
	else if (wp_rec_hex(rec, "mapping_start", &a->map_start) == -1)
		a->map_start = 0;
	a->has_values = wp_rec_hex(rec, "first_value", &a->first) == 0 &&
	    wp_rec_hex(rec, "last_value", &a->last) == 0;
	if (wp_json_str(rec->j, wp_rec_get(rec, "name"), a->name,
	    sizeof a->name) == -1)
		a->name[0] = '\0';
	if ((arr = wp_rec_get(rec, "values")) >= 0 &&
	    wp_rec_int(rec, "values_other", &t) == 0 && t >= 0) {
		a->vother = (uint64_t)t;
		for (x = wp_json_first(rec->j, arr); x >= 0 &&
		    a->nvals < WP_ACCESS_NVALS; x = wp_json_next(rec->j, arr,
		    x))
			if (wp_json_hex(rec->j, wp_json_get(rec->j, x, "value"),
			    &a->vals[a->nvals]) == 0 && wp_json_int(rec->j,
			    wp_json_get(rec->j, x, "count"), &t) == 0 && t >= 0)
				a->vn[a->nvals++] = (uint64_t)t;
	}
	if (wp_rec_int(rec, "matched", &t) == 0 && t >= 0) {
		a->has_match = 1;
		a->matched = (uint64_t)t;
		if (wp_rec_int(rec, "match_unknown", &t) == 0 && t >= 0)
			a->match_unknown = (uint64_t)t;
	}
	if (wp_json_str(rec->j, wp_rec_get(rec, "backend"), bk,
	    sizeof bk) != -1 && (x = wp_vocab_find(wp_backend_names,
	    WP_NBACKENDS, bk, strlen(bk))) >= 0)
		a->backend = wp_backend_names[x];
	if (wp_rec_int(rec, "stack_of", &t) == 0 && t > 0 && t <= INT32_MAX)
		a->stack_of = (pid_t)t;
	if (wp_rec_int(rec, "tls_of", &t) == 0 && t > 0 && t <= INT32_MAX &&
	    wp_json_shex(rec->j, wp_rec_get(rec, "tls_offset"),
	    &a->tls_off) == 0)
		a->tls_of = (pid_t)t;
	return 0;
}
