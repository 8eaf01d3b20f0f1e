/*
 * What a sample of the perf backend tells an --if condition about the
 * value written: a data breakpoint traps after the writer, so the
 * writer is the instruction that ends at the trap IP (found by sweeping
 * from its function's start, or, without symbols, the one instruction
 * that can end there and write), and a register or immediate store's
 * value is in the sampled registers.  Other stores' values (a
 * read-modify-write's) are not known: value tests are false for them.
 * Before any hit, the writers that store to a global by its address,
 * for the bpf program to know from their first hit.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwfl.h"
#include "filter.h"
#include "hmap.h"
#include "proc.h"
#include "regs.h"
#include "util.h"
#include "watch.h"
#include "x86.h"

#define SWEEP_MAX	65536	/* bytes of a function swept at most */

/* The writer behind one trap IP, decoded once. */
struct csite {
	int			 known;
	struct wp_x86_insn	 in;
};

struct csample {
	int		 memfd;
	struct wp_maps	 maps;		/* at the start: code once it is gone */
	struct wp_dwfl	*dwfl;		/* NULL: no symbols */
	struct wp_hmap	 sites;		/* trap IP -> csite */
};

struct csample *
csample_open(pid_t pid)
{
	struct csample *cs = wp_xcalloc(1, sizeof *cs);
	struct wp_error e;

	cs->memfd = wp_proc_mem_open(pid);
	if (wp_proc_maps(pid, &cs->maps) == -1)
		memset(&cs->maps, 0, sizeof cs->maps);
	cs->dwfl = wp_dwfl_open_pid(pid, &e);
	wp_hmap_init(&cs->sites, sizeof(struct csite));
	wp_x86_init();
	return cs;
}

void
csample_close(struct csample *cs)
{
	if (cs == NULL)
		return;
	wp_close_fd(&cs->memfd);
	wp_dwfl_close(cs->dwfl);
	wp_proc_maps_free(&cs->maps);
	wp_hmap_free(&cs->sites);
	free(cs);
}

/*
 * len bytes of code at addr: from the process, or once it is gone (its
 * last samples are read after it died) from the file it mapped there.
 */
static int
read_code(struct csample *cs, uint64_t addr, void *buf, size_t len)
{
	const struct wp_map *m;
	int fd, rc;

	if (wp_proc_read(cs->memfd, addr, buf, len) == 0)
		return 0;
	if ((m = wp_proc_maps_find(&cs->maps, addr)) == NULL ||
	    m->path == NULL || addr + len > m->end ||
	    (fd = open(m->path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = pread(fd, buf, len, (off_t)(addr - m->start + m->offset)) ==
	    (ssize_t)len ? 0 : -1;
	close(fd);
	return rc;
}

/*
 * The instruction that ends at trap, swept from its function's start
 * (its symbol's, or in a stripped module its unwind table's FDE's).
 */
static int
swept(struct csample *cs, uint64_t trap, struct wp_x86_insn *in)
{
	struct wp_func f;
	uint8_t *code;
	uint64_t a;
	size_t n;
	int rc = -1;

	if (cs->dwfl == NULL || (wp_dwfl_func(cs->dwfl, trap - 1, &f) == -1 &&
	    wp_dwfl_fde_func(cs->dwfl, trap - 1, &f) == -1) ||
	    trap - f.addr > SWEEP_MAX)
		return -1;
	n = (size_t)(trap - f.addr);
	code = wp_xcalloc(1, n);
	if (read_code(cs, f.addr, code, n) == 0) {
		for (a = f.addr; a < trap; a += (uint64_t)in->size) {
			if (wp_x86_decode(code + (a - f.addr), (size_t)(trap - a),
			    a, in) == -1)
				break;
			if (a + (uint64_t)in->size == trap)
				rc = in->writes ? 0 : -1;
		}
	}
	free(code);
	return rc;
}

/* Without symbols: the one writing instruction that can end at trap. */
static int
scanned(struct csample *cs, uint64_t trap, struct wp_x86_insn *in)
{
	struct wp_x86_insn c;
	uint8_t code[15];
	size_t k;
	int n = 0;

	if (trap < sizeof code ||
	    read_code(cs, trap - sizeof code, code, sizeof code) == -1)
		return -1;
	for (k = 1; k <= sizeof code; k++)
		if (wp_x86_decode(code + sizeof code - k, k, trap - k, &c) == 0 &&
		    c.size == (int)k && c.writes && n++ == 0)
			*in = c;
	return n == 1 ? 0 : -1;
}

static const struct csite *
site(struct csample *cs, uint64_t trap)
{
	struct csite *s;
	int isnew;

	s = wp_hmap_put(&cs->sites, trap, 0, &isnew);
	/* not on a machine whose instructions are not decoded (regs.h) */
	if (isnew)
		s->known = tr_decode_missing == NULL &&
		    (swept(cs, trap, &s->in) == 0 ||
		    scanned(cs, trap, &s->in) == 0);
	return s;
}

/* The bytes a store of unknown width (xsave, ...) is taken to reach. */
#define STORE_MAX	512

/* csample_reaching's: what it looks for, and what it found. */
struct reach {
	struct csample	*cs;
	uint64_t	 lo, hi;
	size_t		 max, n;
	void		(*fn)(void *, uint64_t);
	void		*arg;
};

/*
 * Whether code (n bytes at addr) holds 4 bytes that, as a rip-relative
 * displacement of an instruction ending 0 to 4 bytes (an immediate)
 * after them, would reach [lo - STORE_MAX, hi): if not, no instruction
 * of it stores there rip-relatively, and it need not be decoded.
 */
static int
may_reach(const uint8_t *code, size_t n, uint64_t addr, uint64_t lo,
    uint64_t hi)
{
	uint64_t t;
	int32_t d;
	size_t p;

	for (p = 0; p + 4 <= n; p++) {
		memcpy(&d, code + p, sizeof d);
		t = addr + p + 4 + (uint64_t)(int64_t)d;
		if (t + 4 + STORE_MAX >= lo && t < hi)
			return 1;
	}
	return 0;
}

/*
 * The function f decoded from its start, its stores that reach r's,
 * each kept as its trap's site: a stripped module's writer, which no
 * symbol's start decodes at its hit, is known all the same.
 */
static int
reach_func(void *arg, const struct wp_func *f)
{
	struct reach *r = arg;
	struct wp_x86_insn in;
	uint64_t a, end = f->addr + f->size, t;
	struct csite *s;
	uint8_t *code;
	int isnew;

	if (f->size > SWEEP_MAX)
		return 0;
	code = wp_xcalloc(1, (size_t)f->size);
	if (read_code(r->cs, f->addr, code, (size_t)f->size) == 0 &&
	    may_reach(code, (size_t)f->size, f->addr, r->lo, r->hi))
		for (a = f->addr; a < end && r->n < r->max;
		    a += (uint64_t)in.size) {
			if (wp_x86_decode(code + (a - f->addr), (size_t)(end - a),
			    a, &in) == -1)
				break;
			t = a + (uint64_t)in.size + (uint64_t)in.mem.disp;
			if (!in.writes || !in.has_mem || !in.mem.rip_rel ||
			    t >= r->hi || t + (uint64_t)(in.width > 0 ?
			    in.width : STORE_MAX) <= r->lo)
				continue;
			s = wp_hmap_put(&r->cs->sites, a + (uint64_t)in.size, 0,
			    &isnew);
			s->known = 1;
			s->in = in;
			r->fn(r->arg, a + (uint64_t)in.size);
			r->n++;
		}
	free(code);
	return r->n < r->max ? 0 : -1;
}

size_t
csample_reaching(struct csample *cs, uint64_t lo, uint64_t hi, size_t max,
    void (*fn)(void *, uint64_t), void *arg)
{
	struct reach r = { cs, lo, hi, max, 0, fn, arg };
	const struct wp_map *m;
	uint64_t at = lo;

	if (cs->dwfl == NULL || tr_decode_missing != NULL)
		return 0;
	/* a .bss past the module's file: the anonymous memory after it */
	if ((m = wp_proc_maps_find(&cs->maps, lo)) != NULL &&
	    m->path == NULL && m > cs->maps.v && m[-1].end == m->start &&
	    m[-1].path != NULL)
		at = m[-1].start;
	wp_dwfl_module_funcs(cs->dwfl, at, reach_func, &r);
	return r.n;
}

int
csample_writer(struct csample *cs, uint64_t trap, uint64_t *writer_ip)
{
	const struct csite *s;

	if (!(s = site(cs, trap))->known)
		return -1;
	*writer_ip = s->in.addr;
	return 0;
}

/*
 * Whether the writer is a store whose value its source register or
 * immediate holds at the trap, and whose address the registers there
 * still give.
 */
static int
plain(const struct csite *s)
{
	return s->known && !s->in.addr_clobbered && (s->in.kind ==
	    WP_X86_IMM_STORE || (s->in.kind == WP_X86_REG_STORE &&
	    s->in.src_reg >= 0 && s->in.src_reg < WP_NGPREGS));
}

int
csample_store(struct csample *cs, uint64_t trap, const struct wp_x86_insn **in)
{
	const struct csite *s = site(cs, trap);

	if (!plain(s))
		return -1;
	*in = &s->in;
	return 0;
}

int
csample_value(struct csample *cs, const struct wtarget *t,
    const struct wp_hit_rec *h, uint64_t *value)
{
	const struct csite *s;
	uint64_t v, lo, hi, bits;
	int src;

	if (h->regs == NULL || t->len > 8)
		return -1;
	s = site(cs, h->ip);
	if (!plain(s) ||
	    wp_x86_store_range(&s->in, h->regs, 1, &lo, &hi) == -1 ||
	    lo > t->addr || hi < t->addr + (uint64_t)t->len)
		return -1;
	src = s->in.src_reg;
	if (s->in.kind == WP_X86_IMM_STORE)
		v = s->in.imm;
	else if (h->regs->have & (1u << src))
		v = h->regs->v[src] >> s->in.src_shift;
	else
		return -1;
	bits = 8 * (t->addr - lo);
	v = bits >= 64 ? 0 : v >> bits;
	*value = t->len >= 8 ? v : v & ((1ULL << (8 * t->len)) - 1);
	return 0;
}
