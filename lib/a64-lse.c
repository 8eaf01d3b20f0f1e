/*
 * The ARMv8.1 atomics (LSE: ldadd and the other ld<op>, st<op>, swp,
 * cas, casp), which capstone 4 does not decode: from their encodings
 * (Arm ARM C4.1.94, "Atomic memory operations" and "Compare and swap").
 */
#include <stdio.h>
#include <string.h>

#include "a64-insn.h"

static const char *const ops[8] = {
	"add", "clr", "eor", "set", "smax", "smin", "umax", "umin"
};

/* A register of a 32-bit (w) or 64-bit (x) operand: zr for 31. */
static int
reg(int n, int x, char *name, size_t sz)
{
	if (n == 31) {
		snprintf(name, sz, "%czr", x ? 'x' : 'w');
		return WP_A64_ZR;
	}
	snprintf(name, sz, "%c%d", x ? 'x' : 'w', n);
	return WP_A64_X0 + n;
}

static const char *
size_suffix(unsigned size)
{
	return size == 0 ? "b" : size == 1 ? "h" : "";
}

int
wp_a64_lse(uint32_t w, uint64_t addr, struct wp_a64_insn *in)
{
	unsigned size = w >> 30, rs = w >> 16 & 31, rn = w >> 5 & 31,
	    rt = w & 31, x = size == 3, a, l, opc, o3;
	char sname[8], tname[8], s2[8], t2[8], base[8];

	snprintf(base, sizeof base, rn == 31 ? "sp" : "x%u", rn);
	in->base = rn == 31 ? WP_A64_SP : WP_A64_X0 + (int)rn;
	in->addr = addr;
	in->size = 4;
	in->writes = in->reads = 1;
	if ((w & 0x3f200c00) == 0x38200000) {
		a = w >> 23 & 1;
		l = w >> 22 & 1;
		o3 = w >> 15 & 1;
		opc = w >> 12 & 7;
		if (o3 && opc == 4 && rs == 31) {	/* ldapr: a load */
			in->writes = 0;
			snprintf(in->mnemonic, sizeof in->mnemonic, "ldapr%s",
			    size_suffix(size));
			reg((int)rt, (int)x, tname, sizeof tname);
			snprintf(in->text, sizeof in->text, "%s %s, [%s]",
			    in->mnemonic, tname, base);
			return 0;
		}
		if (o3 && opc != 0)
			return -1;
		in->src[0] = reg((int)rs, (int)x, sname, sizeof sname);
		reg((int)rt, (int)x, tname, sizeof tname);
		in->kind = o3 ? WP_A64_SWAP : WP_A64_ATOMIC;
		snprintf(in->mnemonic, sizeof in->mnemonic, "%s%s%s%s%s",
		    o3 ? "swp" : rt == 31 && !a ? "st" : "ld", o3 ? "" :
		    ops[opc], a ? "a" : "", l ? "l" : "", size_suffix(size));
		if (!o3 && rt == 31 && !a)
			snprintf(in->text, sizeof in->text, "%s %s, [%s]",
			    in->mnemonic, sname, base);
		else
			snprintf(in->text, sizeof in->text, "%s %s, %s, [%s]",
			    in->mnemonic, sname, tname, base);
	} else if ((w & 0x3fa07c00) == 0x08a07c00) {
		/* cas ws, wt, [xn]: wt stored where [xn] held ws */
		reg((int)rs, (int)x, sname, sizeof sname);
		in->src[0] = reg((int)rt, (int)x, tname, sizeof tname);
		in->kind = WP_A64_CAS;
		snprintf(in->mnemonic, sizeof in->mnemonic, "cas%s%s%s",
		    w >> 22 & 1 ? "a" : "", w >> 15 & 1 ? "l" : "",
		    size_suffix(size));
		snprintf(in->text, sizeof in->text, "%s %s, %s, [%s]",
		    in->mnemonic, sname, tname, base);
	} else if ((w & 0xbfa07c00) == 0x08207c00 && rs % 2 == 0 &&
	    rt % 2 == 0) {
		/* casp ws, ws+1, wt, wt+1, [xn] */
		x = w >> 30 & 1;
		size = x ? 3 : 2;
		reg((int)rs, (int)x, sname, sizeof sname);
		reg((int)rs + 1, (int)x, s2, sizeof s2);
		in->src[0] = reg((int)rt, (int)x, tname, sizeof tname);
		in->src[1] = reg((int)rt + 1, (int)x, t2, sizeof t2);
		snprintf(in->src_name[1], sizeof in->src_name[1], "%s", t2);
		in->nsrc = 2;
		in->kind = WP_A64_CAS;
		snprintf(in->mnemonic, sizeof in->mnemonic, "casp%s%s",
		    w >> 22 & 1 ? "a" : "", w >> 15 & 1 ? "l" : "");
		snprintf(in->text, sizeof in->text, "%s %s, %s, %s, %s, [%s]",
		    in->mnemonic, sname, s2, tname, t2, base);
	} else
		return -1;
	snprintf(in->src_name[0], sizeof in->src_name[0], "%s",
	    in->kind == WP_A64_CAS ? tname : sname);
	if (in->nsrc == 0)
		in->nsrc = 1;
	in->src_bytes = 1 << size;
	in->width = in->src_bytes * in->nsrc;
	return 0;
}
