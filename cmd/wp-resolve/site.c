/*
 * Instructions to count (--insn): each located as an ADDR is, in
 * executable code, decoded from the start of the function that holds it
 * to be sure it starts an instruction, its memory operand named, and
 * written as a site record.
 */
#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwfl.h"
#include "machine.h"
#include "proc.h"
#include "record.h"
#include "site.h"
#include "util.h"
#include "x86.h"

/* The most code decoded from a function's start to reach a site. */
#define SITE_MAXWALK	(1024 * 1024)

/* Up to len bytes of code at addr, within its mapping: how many. */
static size_t
code_at(struct view *v, const struct wp_map *mp, uint64_t addr,
    uint8_t *buf, size_t len)
{
	if (len > mp->end - addr)
		len = mp->end - addr;
	if (wp_proc_read(v->memfd, addr, buf, len) == -1)
		return 0;
	return len;
}

/*
 * Whether addr starts an instruction, decoding from the start of the
 * function (symbol, else unwind entry) that holds it: 1 yes, 0 no
 * (*at: the instruction that covers it), -1 not known (no function).
 */
static int
starts_insn(struct view *v, const struct wp_map *mp, uint64_t addr,
    struct wp_x86_insn *at)
{
	struct wp_dwfl *d;
	struct wp_error e;
	struct wp_func f;
	uint8_t *code;
	uint64_t pc;
	size_t n;
	int rc = -1;

	if ((d = wp_dwfl_open_pid(v->pid, &e)) == NULL)
		return -1;
	if ((wp_dwfl_func(d, addr, &f) == 0 || wp_dwfl_fde_func(d, addr,
	    &f) == 0) && f.addr >= mp->start && addr - f.addr < SITE_MAXWALK) {
		n = (size_t)(addr - f.addr) + 16;
		code = wp_xmalloc(n);
		n = code_at(v, mp, f.addr, code, n);
		for (pc = f.addr; pc < addr && pc - f.addr < n; pc += at->size)
			if (wp_x86_decode(code + (pc - f.addr),
			    n - (size_t)(pc - f.addr), pc, at) == -1)
				break;
		if (pc == addr)
			rc = 1;
		else if (pc > addr)
			rc = 0;
		free(code);
	}
	wp_dwfl_close(d);
	return rc;
}

/*
 * What keeps in from being counted, into err; 0 when nothing does.  A
 * lock-prefixed instruction, on which the kernel puts no uprobe, is
 * wp-arm's ptrace backend's to count (an int3 there).
 */
static int
refuse(const struct wp_x86_insn *in, const struct target_opts *o,
    char *err, size_t errsz)
{
	if (!in->writes && !in->reads)
		snprintf(err, errsz, "'%s' accesses no memory", in->text);
	else if (in->writes && in->unmodeled && !in->has_mem)
		snprintf(err, errsz, "'%s' accesses no one operand's "
		    "address (a scatter or masked store)", in->text);
	else if (!in->writes && !o->rw)
		snprintf(err, errsz, "'%s' only reads memory: -a rw counts "
		    "its reads", in->text);
	else
		return 0;
	return -1;
}

int
site_resolve(struct view *v, int id, const char *input,
    const struct addr *a, const struct target_opts *o, struct target *t,
    char *err, size_t errsz)
{
	struct wp_x86_insn in, insn;
	char at[40] = "";
	struct wp_site_rec r;
	struct wp_x86_regs regs;
	struct wp_value_rec val;
	struct wp_jw w = { 0 };
	const struct wp_map *mp;
	const char *warn[2];
	char why[300];
	uint8_t code[16];
	uint64_t symsize;
	size_t n;

	memset(t, 0, sizeof *t);
	t->input = input;
	if (v->machine != WP_MACH_X86_64) {
		snprintf(err, errsz, "%s: instruction sites are decoded on "
		    "x86-64 only, not on %s yet", input,
		    wp_machine_titles[v->machine]);
		return -1;
	}
	if (target_locate(v, a, o, &t->addr, &symsize, err, errsz) == -1)
		return -1;
	if (a->kind != ADDR_RUNTIME)
		snprintf(at, sizeof at, "at 0x%" PRIx64 ": ", t->addr);
	if ((mp = wp_proc_maps_find(&v->maps, t->addr)) == NULL) {
		snprintf(err, errsz, "%snot mapped in pid %d", at,
		    (int)v->pid);
		return -1;
	}
	if (strchr(mp->perms, 'x') == NULL) {
		snprintf(err, errsz, "%snot in executable code (%s %s)",
		    at, view_region(mp), mp->perms);
		return -1;
	}
	if (wp_x86_init() == -1 || (n = code_at(v, mp, t->addr, code,
	    sizeof code)) == 0 || wp_x86_decode(code, n, t->addr, &in) == -1) {
		snprintf(err, errsz, "%snot an instruction", at);
		return -1;
	}
	switch (starts_insn(v, mp, t->addr, &insn)) {
	case 0:
		snprintf(err, errsz, "%snot the start of an instruction "
		    "(inside '%s' at 0x%" PRIx64 ")", at, insn.text, insn.addr);
		return -1;
	case -1:
		warnx("%s: warning: no function holds 0x%" PRIx64 ": not "
		    "checked to start an instruction", input, t->addr);
		break;
	}
	in.reads = wp_x86_operand_reads(&in);
	if (refuse(&in, o, why, sizeof why) == -1) {
		snprintf(err, errsz, "%s%s", at, why);
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.id = id;
	r.input = input;
	r.addr = t->addr;
	target_place(v, t->addr, &r.place);
	r.has_file_offset = mp->path != NULL && mp->path[0] == '/';
	r.file_offset = t->addr - mp->start + mp->offset;
	r.in = &in;
	r.rw = o->rw;
	/* what it stores: a register's (its value each execution's, not
	   known here), an immediate, or not known and why */
	memset(&regs, 0, sizeof regs);
	regs.have = ~0u;
	memset(&val, 0, sizeof val);
	wp_value_of(&in, &regs, &val);
	val.has_value = val.kind == WP_VALUE_IMMEDIATE;
	if (in.writes)
		r.value = &val;
	r.warnings = warn;
	if (in.rep)
		warn[r.nwarnings++] = "a rep string instruction: the address "
		    "of its first element is counted";
	wp_rec_site(&w, &r);
	target_keep_line(t, &w);
	wp_jw_free(&w);
	return 0;
}
