/*
 * Restartable sequences (rseq(2)) under the single-step backend.  The
 * kernel aborts a thread's critical section when it resumes the thread
 * after the thread was scheduled out, and a ptrace stop is: each step in
 * a section would move the thread to its abort IP before the stepped
 * instruction ran, and no section would ever commit.  So a section a
 * thread enters while stepped (its store of the descriptor to its area's
 * rseq_cs is seen) is stepped with that pointer hidden (0 in the area,
 * what the kernel writes there once a section is left) and no other
 * thread of the target running an instruction meanwhile: one unit, as
 * the kernel guarantees it, each instruction of it still decoded.  The
 * pointer is put back before the thread takes a signal or a system call
 * inside the section, or is let go there: the kernel then aborts it, as
 * it would have.  A section entered before the watch began is left to
 * the kernel: the first resume aborts it.
 */
#include <stdint.h>
#include <unistd.h>

#include "ptrace.h"
#include "tracee.h"

void
pt_rseq_area(struct pthr *p)
{
	struct tr_rseq rs;

	tr_rseq(p->tid, &rs);
	p->rseq = rs.area;
}

void
pt_rseq_stored(struct ptrace_state *s, struct pthr *p, uint64_t lo,
    uint64_t hi)
{
	struct tr_rseq_cs cs;
	uint64_t at = p->rseq + TR_RSEQ_CS_AT;

	if (p->rseq == 0 || hi <= at || lo >= at + sizeof at)
		return;
	p->cs = 0;
	if (tr_rseq_cs(s->tr.memfd, p->rseq, &cs) == -1)
		return;
	p->cs = cs.ptr;
	p->cs_start = cs.start;
	p->cs_end = cs.end;
}

/* Writes v to p's area's rseq_cs: 0, or -1. */
static int
put(struct ptrace_state *s, struct pthr *p, uint64_t v)
{
	return tr_rseq_cs_put(s->tr.memfd, p->rseq, v);
}

/* p is out of its section, or to be aborted: not stepped alone now. */
static void
leave(struct ptrace_state *s, struct pthr *p, int back)
{
	if (p->cs_hidden && back)
		put(s, p, p->cs);
	p->cs_hidden = 0;
	p->cs = 0;
	if (s->cs_thread != NULL && pt_of(s->cs_thread) == p)
		s->cs_thread = NULL;
}

int
pt_rseq_resume(struct ptrace_state *s, struct tr_thread *t, int plain)
{
	struct pthr *p = pt_of(t);
	int inside;

	if (p->cs == 0)
		return 0;
	inside = tr_pc(&p->pre) - p->cs_start < p->cs_end - p->cs_start;
	if (!inside || !plain) {
		/* left: the kernel clears rseq_cs; else it aborts */
		leave(s, p, inside);
		return inside ? -1 : 0;
	}
	if (!p->cs_hidden && put(s, p, 0) == -1) {
		p->cs = 0;
		return -1;
	}
	p->cs_hidden = 1;
	s->cs_thread = t;
	return 0;
}

void
pt_rseq_unhide(void *arg)
{
	struct ptrace_state *s = arg;
	size_t i;

	for (i = 0; i < s->tr.n; i++)
		if (s->tr.t[i]->user != NULL && pt_of(s->tr.t[i])->cs_hidden)
			leave(s, pt_of(s->tr.t[i]), 1);
}
