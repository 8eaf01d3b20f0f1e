/*
 * What an instruction a traced thread stops at may write, for the
 * ptrace backend: decoded (lib/x86) once per address, and classed by
 * what it takes to step it (I_*): whether it writes memory, only its
 * decoded store, and which registers tell where.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptrace.h"
#include "x86.h"

/* The length of the prefix of s in list, or 0. */
static size_t
listed(const char *s, const char *const *list)
{
	size_t i, n;

	for (i = 0; list[i] != NULL; i++)
		if (strncmp(s, list[i], n = strlen(list[i])) == 0)
			return n;
	return 0;
}

static int
needs_regs(const struct wp_x86_mem *m)
{
	return m->base >= 0 || m->index >= 0 || m->seg != 0;
}

/*
 * The I_* flags of a decoded instruction, and where the instruction
 * after it is when that does not depend on registers (0: it does).
 */
static unsigned
iflags(const struct wp_x86_insn *in, uint64_t *next)
{
	static const char *const prefixes[] = { "lock ", "rep ", "repe ",
	    "repz ", "repne ", "repnz ", "notrack ", "bnd ", "xacquire ",
	    "xrelease ", "data16 ", NULL };
	/* jumps, calls, returns, traps and the ways into the kernel */
	static const char *const jumps[] = { "j", "ljmp", "call", "lcall",
	    "ret", "lret", "iret", "uiret", "loop", "int", "sys", "ud", "hlt",
	    "xbegin", "xabort", "xend", "enclu", "vmcall", "vmfunc",
	    "mov ss,", NULL };
	/* jumps and calls to an address of their own */
	static const char *const direct[] = { "jmp 0x", "call 0x", NULL };
	/* writes of memory that no operand names */
	static const char *const hidden[] = { "maskmov", "vmaskmovdqu",
	    "int", "sys", NULL };
	/* stores of their operand and nothing else */
	static const char *const moves[] = { "mov", "vmov", NULL };
	static const char *const alu[] = { "add ", "sub ", "adc ", "sbb ",
	    "and ", "or ", "xor ", "inc ", "dec ", "neg ", "not ", "shl ",
	    "shr ", "sal ", "sar ", "rol ", "ror ", "rcl ", "rcr ", "set",
	    NULL };
	const char *mn = in->text;
	unsigned f = 0;
	size_t n;
	char *end;

	while ((n = listed(mn, prefixes)) != 0)
		mn += n;
	*next = 0;
	if (listed(mn, direct)) {
		*next = strtoull(strchr(mn, ' ') + 1, &end, 16);
		if (*end != '\0')
			*next = 0;
	} else if (!in->rep && !in->is_syscall && !listed(mn, jumps))
		*next = in->addr + (uint64_t)in->size;
	if (!in->writes && !listed(mn, hidden))
		f |= I_QUIET;
	if (in->kind == WP_X86_REG_STORE || in->kind == WP_X86_IMM_STORE ||
	    (in->kind == WP_X86_XCHG && in->width > 0) ||
	    (in->kind == WP_X86_PUSH && strncmp(mn, "enter", 5) != 0) ||
	    (in->kind == WP_X86_RMW && listed(mn, alu)) ||
	    (in->kind == WP_X86_SIMD && in->width > 0 && listed(mn, moves)))
		f |= I_EXACT;
	if (in->is_syscall || (in->writes && needs_regs(&in->mem)))
		f |= I_REGS_W;
	if (in->reads && needs_regs(&in->mem))
		f |= I_REGS_R;
	return f;
}

/*
 * Decodes the instruction at rip into p->insn, once per address while
 * its slot of the cache keeps it: nothing is allocated here.
 */
void
pt_decode(struct ptrace_state *s, uint64_t rip, struct pthr *p)
{
	struct icached *c;
	uint8_t code[16];

	c = &s->ic[(rip * 0x9e3779b97f4a7c15ULL) >> (64 - ICACHE_BITS)];
	if (c->rip == rip && rip != 0) {
		p->insn = c->insn;
		p->iflags = c->flags;
		p->next = c->next;
		return;
	}
	memset(code, 0, sizeof code);
	if (pread(s->tr.memfd, code, sizeof code, (off_t)rip) <= 0 ||
	    tr_decode(code, sizeof code, rip, &p->insn) == -1) {
		/* not decoded: unless it surely accesses no memory, it may
		   write anything: compared after it, a change credited to
		   it, flagged unmodeled, and no change a write perhaps
		   missed */
		memset(&p->insn, 0, sizeof p->insn);
		p->insn.addr = rip;
		p->insn.kind = WP_X86_OTHER;
		p->insn.writes = !tr_undecoded_quiet(code, sizeof code);
		p->insn.unmodeled = 1;
		p->insn.mem.base = p->insn.mem.index = -1;
		p->iflags = I_REGS_W;
		p->next = 0;
		return;
	}
	p->iflags = iflags(&p->insn, &p->next);
	c->rip = rip;
	c->insn = p->insn;
	c->flags = p->iflags;
	c->next = p->next;
}
