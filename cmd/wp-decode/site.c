/*
 * Writer candidates per trap IP, cached: x86 traps after the writing
 * instruction, so the writer is the instruction that ends at the trap
 * IP, found by sweeping from the function's start or, without symbols,
 * by scanning backwards.  AArch64 reports the writer's own address: the
 * instruction there is the one candidate.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dwfl.h"
#include "elf.h"
#include "machine.h"
#include "util.h"

#define EXACT_KEY	1	/* second key word: keyed by the writer IP */

/* Sweeps from the function start, then scans backwards. */
static void
find_writers(struct site *st, const uint8_t *code, size_t ncode,
    uint64_t code_addr, uint64_t trap, int from_func)
{
	struct wp_x86_insn in;
	uint64_t a = code_addr;
	size_t k;

	if (from_func) {
		while (a < trap) {
			if (wp_x86_decode(code + (a - code_addr),
			    (size_t)(trap - a), a, &in) == -1)
				break;
			a += (uint64_t)in.size;
			if (a == trap) {
				st->sweep = 1;
				if (in.writes || in.reads)
					st->cand[st->ncand++] = in;
				st->reader = !in.writes && in.reads;
			}
		}
		if (st->sweep)
			return;		/* the boundaries are known */
	}
	for (k = 1; k <= 15 && k <= trap - code_addr && k <= ncode; k++) {
		if (wp_x86_decode(code + ncode - k, k, trap - k, &in) == -1 ||
		    in.size != (int)k || !in.writes)
			continue;
		if (st->ncand < MAXCAND)
			st->cand[st->ncand++] = in;
	}
}

static size_t
read_code(struct image *im, struct dmod *m, uint64_t bias, uint64_t sa,
    void *buf, size_t len)
{
	size_t n;

	/* a debug-only file has no code: the live process's is the same */
	if (m != NULL && (n = wp_elf_read(m->elf, sa, buf, len)) > 0)
		return n;
	return image_read_live(im, sa + bias, buf, len);
}

/*
 * A rep string store traps between iterations with the IP still on the
 * instruction itself: the candidate when nothing ends at the trap IP,
 * else the alternative to what does (a CPU with fast strings traps
 * there, after the load of the count, say).
 */
static void
rep_at_trap(struct image *im, struct dmod *m, struct site *st, uint64_t trap)
{
	struct wp_x86_insn in;
	uint8_t code[16];
	size_t n;

	n = read_code(im, m, st->bias, trap - st->bias, code, sizeof code);
	if (n == 0 || wp_x86_decode(code, n, trap, &in) == -1 || !in.rep ||
	    in.kind != WP_X86_STRING)
		return;
	st->cand[st->ncand] = in;
	if (st->ncand > 0) {
		st->rep_alt = 1;
		return;
	}
	st->ncand++;
	st->sweep = 1;
	st->at_trap = 1;
}

/* The code to decode: the whole function up to the trap, or 15 bytes. */
static void
code_window(const struct site *st, const struct dmap *mp,
    const struct wp_func *fn, uint64_t sip, int exact, uint64_t *from,
    size_t *want)
{
	if (exact) {
		*from = sip;
		*want = 16;
	} else if (fn != NULL && sip - fn->addr <= 65536) {
		*from = fn->addr;
		*want = (size_t)(sip - fn->addr);
	} else {
		*from = sip >= 15 ? sip - 15 : 0;
		if (*from + st->bias < mp->start)	/* not before the mapping */
			*from = mp->start - st->bias;
		*want = (size_t)(sip - *from);
	}
}

static void
find_candidates(struct image *im, struct dmod *m, struct site *st,
    const struct dmap *mp, const struct wp_func *fn, uint64_t trap,
    int exact)
{
	uint64_t sip = trap - st->bias, from;
	uint8_t *code;
	size_t n, want;

	code_window(st, mp, fn, sip, exact, &from, &want);
	code = wp_xmalloc(want + 1);
	n = read_code(im, m, st->bias, from, code, want);
	if (st->a64) {
		if (n >= 4 && wp_a64_decode(code, n, trap, &st->a64insn) == 0) {
			st->ncand = 1;
			st->sweep = 1;
		} else
			st->reason = m ? "no instruction at the writer IP" :
			    image_live_why(im);
	} else if (exact) {
		if (n > 0 && wp_x86_decode(code, n, trap, &st->cand[0]) == 0) {
			st->ncand = 1;
			st->sweep = 1;
		} else
			st->reason = m ? "no code bytes at the writer IP" :
			    image_live_why(im);
	} else if (n == want && want > 0) {
		find_writers(st, code, n, from + st->bias, trap,
		    fn != NULL && from == fn->addr);
		rep_at_trap(im, m, st, trap);
	} else
		st->reason = m ? "no code bytes in the module file" :
		    image_live_why(im);
	if (!st->reason && st->ncand == 0)
		st->reason = st->sweep ? "the instruction before the trap IP "
		    "writes no memory" : "no memory-writing instruction ends "
		    "at the trap IP";
	free(code);
}

static void
build(struct image *im, struct site *st, uint64_t trap, int exact)
{
	const struct wp_func *fn = NULL;
	const struct dmap *mp;
	struct dmod *m = NULL;
	struct wp_func f;

	st->mod = -1;
	st->a64 = im->session.machine == WP_MACH_AARCH64;
	if (st->a64)
		exact = 1;	/* the IP is the writer's */
	mp = image_map_at(im, exact ? trap : trap - 1);
	if (mp == NULL) {
		st->reason = "trap IP is in no mapping of the session";
		return;
	}
	if (mp->mod >= 0) {
		st->mod = mp->mod;
		st->bias = im->mods[mp->mod].rec->load_bias;
		if ((m = image_module(im, mp->mod)) == NULL) {
			st->reason = "module file missing or changed";
			return;
		}
		/* fn->addr: static, as the code window's */
		if (wp_dwfl_func(im->dwfl, trap - (exact ? 0 : 1), &f) == 0) {
			f.addr -= st->bias;
			fn = &f;
			st->fname = wp_xstrdup(fn->name);
			st->faddr = fn->addr;
		}
	}
	find_candidates(im, m, st, mp, fn, trap, exact);
}

struct site *
site_get(struct wp_hmap *sites, struct image *im, uint64_t trap, int exact)
{
	struct site *st;
	int isnew;

	st = wp_hmap_put(sites, trap, exact ? EXACT_KEY : 0, &isnew);
	if (isnew)
		build(im, st, trap, exact);
	return st;
}

void
site_free_all(struct wp_hmap *sites)
{
	struct site *st;
	size_t i;
	int j;

	for (i = 0; i < sites->cap; i++) {
		if ((st = wp_hmap_slot(sites, i)) == NULL)
			continue;
		free(st->fname);
		for (j = 0; j < st->nvar; j++)
			free(st->var[j].text);
	}
	wp_hmap_clear(sites);
}
