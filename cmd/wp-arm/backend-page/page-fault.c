/*
 * A fault on a guarded page: which bytes the instruction stores (and
 * with -a rw loads), the hits they make, and the store made by
 * emulation or by a step with the page given for it, the other threads
 * held; a rep string instruction's rounds are stepped one by one, and
 * each round whose element reaches a target is a hit, as a debug
 * register and single-stepping count them; the rounds between that
 * reach none (a rep stos or rep movs) are made by wp-arm at once.
 */
#include <sys/ptrace.h>
#include <sys/user.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page.h"
#include "proc.h"
#include "traced.h"
#include "util.h"
#include "watch.h"
#include "x86.h"

#define STEP_MAX	(1 << 20)	/* steps of one rep instruction */

/*
 * The steps of one rep instruction made at a time, the other threads
 * held: STEP_MAX, or WP_PAGE_REP_STEPS (for tests: see wp-arm(1)).
 */
static uint64_t
step_max(void)
{
	static uint64_t n;
	const char *e;

	if (n == 0 && ((e = getenv("WP_PAGE_REP_STEPS")) == NULL ||
	    wp_parse_u64(e, &n) == -1 || n == 0))
		n = STEP_MAX;
	return n;
}

/*
 * t's instruction in, stepped, was left unfinished (u: its registers
 * now): another stop came before it ran, or a rep string one's rounds
 * were not all made (its step limit, another stop).  t's next fault
 * there, on from there, is the same fault (cut_resumed).
 */
static void
step_cut(struct tr_thread *t, const struct wp_x86_insn *in,
    const struct user_regs_struct *u)
{
	struct pthr *pt = pthr_of(t);

	if (tr_pc(u) != in->addr)
		return;
	pt->cut = 1;
	pt->cut_u = *u;
	pt->cut_elem = in->rep && in->kind == WP_X86_STRING ?
	    (uint64_t)in->width : 0;
}

/*
 * Whether t's fault (u its registers) is its cut instruction's, on from
 * where it was cut: the same registers (a signal's handler returned to
 * it), or for a rep string one as many rounds fewer left as its
 * pointers moved elements.  A fault there on the same stack spends the
 * cut either way; one on another (a handler's) leaves it.
 */
static int
cut_resumed(struct tr_thread *t, const struct user_regs_struct *u)
{
	struct pthr *pt = pthr_of(t);
	const struct user_regs_struct *c = &pt->cut_u;
	uint64_t d;

	if (!pt->cut || tr_pc(u) != tr_pc(c) || tr_sp(u) != tr_sp(c))
		return 0;
	pt->cut = 0;
	if (pt->cut_elem == 0)
		return tr_same_regs(u, c);
	if (tr_str_count(u) > tr_str_count(c))
		return 0;
	d = (tr_str_count(c) - tr_str_count(u)) * pt->cut_elem;
	if (tr_str_down(u))
		d = -d;
	return (tr_str_dst(u) == tr_str_dst(c) ||
	    tr_str_dst(u) == tr_str_dst(c) + d) &&
	    (tr_str_src(u) == tr_str_src(c) ||
	    tr_str_src(u) == tr_str_src(c) + d);
}

/* Whether [lo, hi) reaches a pointer of a follow chain. */
static int
pointer_at(struct watch *w, uint64_t lo, uint64_t hi)
{
	size_t ti;

	for (ti = 0; ti < w->nt; ti++)
		if (w->t[ti].chain >= 0 && (size_t)w->t[ti].level <
		    w->chains[w->t[ti].chain].noffs &&
		    page_overlaps(lo, hi, &w->t[ti]))
			return 1;
	return 0;
}

/*
 * A round of rep string instruction in has run, from registers b: a hit
 * for each target its element reaches (the bytes now, after it).
 */
static void
rep_round(struct watch *w, struct page_state *s, struct tr_thread *t,
    const struct wp_x86_insn *in, const struct user_regs_struct *b,
    uint64_t ip)
{
	struct wp_x86_regs r;
	uint64_t lo, hi, rlo, rhi;
	int st, ld;
	size_t ti;

	if (tr_str_count(b) == 0)
		return;
	tr_regs(b, &r);
	st = wp_x86_store_range(in, &r, 0, &lo, &hi) == 0;
	ld = wp_x86_load_range(in, &r, &rlo, &rhi) == 0;
	for (ti = 0; ti < w->nt; ti++) {
		s->el_lo = st ? lo : 0;
		s->el_hi = st ? hi : 0;
		if (st && page_overlaps(lo, hi, &w->t[ti]))
			page_emit(w, s, ti, t->tid, ip, in->addr, 0, 0, &r);
		else if (ld && w->t[ti].rw &&
		    page_overlaps(rlo, rhi, &w->t[ti])) {
			s->el_lo = s->el_hi = rlo;	/* nothing written */
			page_emit(w, s, ti, t->tid, ip, in->addr,
			    WP_HIT_READ, 0, &r);
		}
	}
	s->el_lo = s->el_hi = 0;
}

/*
 * Of the n rounds of e bytes from a on (down: df), the first whose
 * element reaches [lo, hi); n when none does.
 */
static uint64_t
first_reaching(uint64_t a, uint64_t e, uint64_t n, int df, uint64_t lo,
    uint64_t hi)
{
	uint64_t k;

	if (!df && hi <= a)
		return n;
	if (df && lo >= a + e)
		return n;
	if (!df)
		k = lo > a ? (lo - a) / e : 0;
	else
		k = hi > a ? 0 : (a - hi) / e + 1;
	return k < n ? k : n;
}

/*
 * Rep string store in of t (u: its registers): the rounds before the
 * first whose element reaches a target (whose source does, on a target
 * read as well) are made at once (page_emulate_rep), REP_BULK_MAX bytes
 * at most: none of them is a hit.  The rounds made, u past them.
 */
static uint64_t
rep_bulk(struct watch *w, struct page_state *s, struct tr_thread *t,
    const struct wp_x86_insn *in, struct user_regs_struct *u)
{
	uint64_t e = (uint64_t)in->width, k = tr_str_count(u), lo, hi;
	int df = tr_str_down(u);
	size_t ti;

	if (!in->rep || in->kind != WP_X86_STRING || e == 0)
		return 0;
	for (ti = 0; ti < w->nt && k > 0; ti++) {
		lo = w->t[ti].addr;
		hi = lo + (uint64_t)w->t[ti].len;
		k = first_reaching(tr_str_dst(u), e, k, df, lo, hi);
		if (w->t[ti].rw)
			k = first_reaching(tr_str_src(u), e, k, df, lo, hi);
	}
	if (k > REP_BULK_MAX / e)
		k = REP_BULK_MAX / e;
	if (k < 2 || page_emulate_rep(s, t, u, in, k) == -1)
		return 0;
	return k;
}

/*
 * Steps t over in (*u: its registers, then those it has after) with the
 * page writable, every other thread held, and the signals a step forces
 * unblocked (tr_unblock_forced); a page more that it faults on is given
 * too.  A rep string instruction is stepped round by round,
 * each round's hits made here (rounds: 1).  A trap at which it had not
 * moved is the target's own SIGTRAP, come first.  Returns 1 when the
 * instruction ran (all its rep rounds), 0 when another stop came first
 * (queued; it runs again later, from the round it stopped at: cut), -1
 * when t is gone.
 */
static int
step_over(struct watch *w, struct page_state *s, struct tr_thread *t,
    const struct wp_x86_insn *in, struct user_regs_struct *u,
    struct ppage *p, int *rounds)
{
	struct user_regs_struct b;
	struct ppage *opened[16], *q;
	size_t nopen = 0, k;
	uint64_t n, mask;
	int r = -1, ran, unmasked;

	*rounds = in->rep && in->kind == WP_X86_STRING;
	if (!s->holding)
		tr_hold(&s->tr, t);
	if (page_mprotect(s, t, p, p->own) == 0)
		opened[nopen++] = p;
	unmasked = tr_unblock_forced(t, &mask);
	for (n = 0; n < step_max(); n++) {
		/* rounds that reach no target: made at once, not stepped */
		if (*rounds && rep_bulk(w, s, t, in, u) > 0 &&
		    tr_pc(u) != in->addr) {
			r = 1;
			break;
		}
		b = *u;
		if ((r = tr_step(&s->tr, t, 0)) == -1 ||
		    tr_getregs(t->tid, u) == -1) {
			r = -1;
			break;
		}
		ran = tr_pc(u) != in->addr ||
		    (*rounds && tr_str_count(u) != tr_str_count(&b));
		if (ran && *rounds)
			rep_round(w, s, t, in, &b, tr_pc(u));
		if (r == 1 && !ran && t->stop == TR_SIGNAL &&
		    page_fault_ours(s, t, &q, NULL) &&
		    nopen < sizeof opened / sizeof opened[0] &&
		    page_mprotect(s, t, q, q->own) == 0) {
			opened[nopen++] = q;
			continue;
		}
		if (r == 0 && ran && tr_pc(u) == in->addr)
			continue;	/* a rep round made, more to make */
		if (r == 1 || !ran)
			t->queued = 1;	/* another stop: a trap it had made
					   is still pending, and taken after */
		r = tr_pc(u) != in->addr;
		break;
	}
	if (unmasked && t->state == TR_STOPPED)
		tr_set_mask(t, mask);
	if (r == 0)
		step_cut(t, in, u);
	if (t->state != TR_STOPPED)
		t = page_injectable(s);
	for (k = 0; k < nopen && t != NULL; k++)
		if (opened[k]->open == 0)
			page_mprotect(s, t, opened[k],
			    page_guard_prot(opened[k]));
	if (!s->holding)
		tr_release(&s->tr);
	return r;
}

/* Whether [a, a + n) lies in mappings of pid none of them writable. */
static int
unwritable(pid_t pid, uint64_t a, size_t n)
{
	const struct wp_map *m, *m2;
	struct wp_maps maps;
	int r;

	if (wp_proc_maps(pid, &maps) == -1)
		return 0;
	m = wp_proc_maps_find(&maps, a);
	m2 = wp_proc_maps_find(&maps, a + n - 1);
	r = m != NULL && m2 != NULL && m->perms[1] != 'w' &&
	    m2->perms[1] != 'w';
	wp_proc_maps_free(&maps);
	return r;
}

/*
 * The instruction at rip, decoded once while its bytes stay the same:
 * read again each time, but where they are on a page that is not
 * writable, which only a call that changes the mappings can change
 * (traced: s->maps_gen).  0, or -1 when it is none.
 */
static int
decode_at(struct watch *w, struct page_state *s, uint64_t rip,
    struct wp_x86_insn *in)
{
	struct pdecoded *d = &s->dc[(rip ^ rip >> 7) % PAGE_DCACHE];
	uint8_t code[sizeof d->code];

	if (d->valid && d->rip == rip && d->stable && d->gen == s->maps_gen) {
		*in = d->in;
		return 0;
	}
	memset(code, 0, sizeof code);
	if (pread(s->tr.memfd, code, sizeof code, (off_t)rip) <= 0)
		return -1;
	if (d->valid && d->rip == rip && memcmp(d->code, code,
	    sizeof code) == 0) {
		*in = d->in;
		return 0;
	}
	if (tr_decode(code, sizeof code, rip, in) == -1)
		return -1;
	d->valid = 1;
	d->rip = rip;
	memcpy(d->code, code, sizeof code);
	d->stable = unwritable(w->pid, rip, sizeof code);
	d->gen = s->maps_gen;
	d->in = *in;
	return 0;
}

/*
 * Whether a read-modify-write of [lo, hi) made here is atomic: no
 * other thread can write there meanwhile, the page being protected
 * (not given back to a system call) and the range on it alone.
 */
static int
atomic_here(const struct ppage *p, uint64_t lo, uint64_t hi)
{
	return p->guarded && p->open == 0 && lo >= p->addr &&
	    hi <= p->addr + PAGE_SZ;
}

/* What the instruction at a fault does to memory. */
struct fault {
	uint64_t	 lo, hi;	/* the bytes it stores, or the faulting one */
	int		 stored;	/* lo, hi: its decoded store */
	uint64_t	 rlo, rhi;	/* those it loads, on an rw page (else none) */
	/* rw page: the decoder places no access at the fault, so the
	   faulting byte was read or written: the bytes after the step say */
	int		 unplaced;
	/* a masked store's mask bits (bit i: element i written), read
	   from XSTATE; in NULL: unmasked, or its bits unreadable */
	const struct wp_x86_insn *in;
	uint64_t	 bits;
};

/*
 * [*lo, *hi), a string instruction's element, widened to what its rep
 * rounds reach from registers r on (rcx rounds, down when DF is set).
 */
static void
rep_reach(const struct wp_x86_insn *in, const struct wp_x86_regs *r,
    uint64_t *lo, uint64_t *hi)
{
	uint64_t e = *hi - *lo, n = r->v[WP_RCX];

	if (!in->rep || in->kind != WP_X86_STRING || n < 2 || e == 0)
		return;
	if (n > UINT64_MAX / e)
		n = UINT64_MAX / e;
	if (r->v[WP_RFLAGS] & 0x400)
		*lo = *lo > (n - 1) * e ? *lo - (n - 1) * e : 0;
	else
		*hi = *lo < UINT64_MAX - n * e ? *lo + n * e : UINT64_MAX;
}

/* A masked store's mask bits, of thread tid, into f (f->in set). */
static void
mask_of(pid_t tid, const struct wp_x86_insn *in, struct fault *f)
{
	const uint8_t *xs;
	size_t len;

	if (in->mask != WP_X86_MASK_NONE && !in->unmodeled &&
	    (xs = tr_xstate(tid, &len)) != NULL &&
	    wp_x86_xsave_mask(in, xs, len, &f->bits) == 0)
		f->in = in;
}

/*
 * Fault at addr on page p of thread tid's instruction in (decoded) with
 * registers u (as the records have them: r).
 */
static void
place(const struct ppage *p, pid_t tid, const struct wp_x86_insn *in,
    int decoded, const struct user_regs_struct *u,
    const struct wp_x86_regs *r, uint64_t addr, struct fault *f)
{
	int st, ld;

	memset(f, 0, sizeof *f);
	if (!(st = decoded && tr_store_range(in, u, r, &f->lo,
	    &f->hi) == 0)) {
		f->lo = addr;
		f->hi = addr + 1;
	} else {
		rep_reach(in, r, &f->lo, &f->hi);
		mask_of(tid, in, f);
	}
	f->stored = st;
	if (!p->rw)
		return;
	if (!(ld = decoded && wp_x86_load_range(in, r, &f->rlo,
	    &f->rhi) == 0))
		f->rlo = f->rhi = 0;
	else
		rep_reach(in, r, &f->rlo, &f->rhi);
	if (!st)
		f->lo = f->hi = 0;
	if ((st && f->lo <= addr && addr < f->hi) ||
	    (ld && f->rlo <= addr && addr < f->rhi))
		return;
	f->lo = addr;
	f->hi = addr + 1;
	f->rlo = f->rhi = 0;
	f->unplaced = 1;
	f->in = NULL;
	f->stored = 0;
}

/* Whether fault f's store writes a byte of target t. */
static int
stored_on(const struct fault *f, const struct wtarget *t)
{
	if (!page_overlaps(f->lo, f->hi, t))
		return 0;
	return f->in == NULL || wp_x86_masked_writes(f->in, f->lo, f->bits,
	    t->addr, t->addr + (uint64_t)t->len);
}

/*
 * The hit fault f is on target t: its flags (0, a write; WP_HIT_READ),
 * or -1, none.  An unplaced one is a write when the bytes changed (the
 * other threads held), else a read that may have been a write of the
 * same bytes (unmodeled); told after the step (after).
 */
static int
hit_flags(struct page_state *s, const struct fault *f,
    const struct wtarget *t, size_t ti, int after)
{
	if (stored_on(f, t)) {
		if (!f->unplaced || !after)
			return 0;
		if (pread(s->tr.memfd, s->buf, (size_t)t->len,
		    (off_t)t->addr) == t->len &&
		    memcmp(s->buf, s->last[ti], (size_t)t->len) != 0)
			return 0;
		return t->rw ? WP_HIT_READ | WP_HIT_UNMODELED : -1;
	}
	if (t->rw && page_overlaps(f->rlo, f->rhi, t))
		return WP_HIT_READ;
	return -1;
}

/*
 * Makes the store of in (decoded) by emulation, or else steps it: 2
 * (emulated), 1 (stepped), 0 (not run yet), u where t is now; *rounds
 * set where a rep instruction's rounds made their hits as they ran.
 */
static int
make(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct ppage *p, struct user_regs_struct *u,
    const struct wp_x86_regs *r, struct wp_x86_insn *in, int decoded,
    const struct fault *f, uint64_t addr, unsigned char *stored,
    int *rounds)
{
	*rounds = 0;
	if (decoded && page_emulable(in) && f->lo <= addr && addr < f->hi &&
	    ((in->kind != WP_X86_RMW && in->kind != WP_X86_XCHG) ||
	    atomic_here(p, f->lo, f->hi)) &&
	    page_emulate(s, t, u, r, in, f->lo, stored) == 0) {
		/* a masked store's target bytes are read after it */
		s->st = in->mask == WP_X86_MASK_NONE ? stored : NULL;
		s->st_lo = f->lo;
		s->st_hi = f->lo + (uint64_t)in->width;
		return 2;
	}
	/* a load, made while nothing else can write the page */
	if (decoded && f->rlo <= addr && addr < f->rhi &&
	    atomic_here(p, f->rlo, f->rhi) &&
	    page_emulate_load(s, t, u, in, f->rlo) == 0)
		return 2;
	if (!decoded) {
		memset(in, 0, sizeof *in);
		in->addr = tr_pc(u);
	}
	return step_over(w, s, t, in, u, p, rounds) == 1;
}

/*
 * A fault of t on page p: the store's range from the decoded
 * instruction (or the faulting byte), and on an rw page its load's, a
 * hit for each target they reach, made by emulation or a step.
 */
void
page_on_fault(struct watch *w, struct page_state *s, struct tr_thread *t,
    struct ppage *p, uint64_t addr)
{
	struct user_regs_struct u, at;
	struct wp_x86_regs r;
	struct wp_x86_insn in;
	struct fault f;
	unsigned char stored[64];
	size_t ti, nhit;
	int decoded, done, ptr, held, fl, rounds, cont;

	if (tr_getregs(t->tid, &u) == -1)
		return;
	if (page_rseq_fault(w, s, t, &u, &p, &addr)) {
		if (!t->queued)
			page_resume(w, s, t, 0);
		return;
	}
again:
	at = u;
	nhit = 0;
	tr_regs(&u, &r);
	decoded = decode_at(w, s, tr_pc(&u), &in) == 0;
	place(p, t->tid, &in, decoded, &u, &r, addr, &f);
	for (ti = 0; ti < w->nt; ti++)
		nhit += w->t[ti].armed && hit_flags(s, &f, &w->t[ti], ti, 0) >= 0;
	/* the fault of an instruction made on from a cut was counted */
	cont = cut_resumed(t, &u);
	if (!cont && nhit > 0)
		obs(w)->faults_watched++;
	else if (!cont)
		obs(w)->faults_neighbour++;
	/* no thread runs from a pointer's store to its leaf's re-arm */
	ptr = w->nchains > 0 && pointer_at(w, f.lo, f.hi);
	if ((held = ptr && !s->holding) != 0) {	/* not by an rseq retry */
		tr_hold(&s->tr, t);
		s->holding = 1;
	}
	done = make(w, s, t, p, &u, &r, &in, decoded, &f, addr, stored,
	    &rounds);
	if (done == 1 && decoded && !tr_store_held(t->tid, &in))
		f.lo = f.hi = 0;	/* an exclusive store that failed */
	if (!cont && done == 2)
		obs(w)->emulated++;
	else if (!cont)
		obs(w)->stepped++;
	s->el_lo = f.stored ? f.lo : 0;		/* a step's store */
	s->el_hi = f.stored ? f.hi : 0;
	if (!rounds && done)
		for (ti = 0; ti < w->nt && nhit > 0; ti++)
			if (w->t[ti].armed &&
			    (fl = hit_flags(s, &f, &w->t[ti], ti, 1)) >= 0)
				page_emit(w, s, ti, t->tid, tr_pc(&u), tr_pc(&at),
				    (unsigned)fl, 0, &r);
	s->st = NULL;
	s->el_lo = s->el_hi = 0;
	if (ptr)
		page_follow(w, s);
	if (held) {
		s->holding = 0;
		tr_release(&s->tr);
	}
	if (page_rseq_more(w, s, t, &u, &p, &addr) == 0)
		goto again;
	if (!t->queued)
		page_resume(w, s, t, 0);
}

