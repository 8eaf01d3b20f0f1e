/*
 * Where an AArch64 store decoded by a64-insn.c writes, from the
 * registers before it ran (no capstone here: readers of records link it).
 */
#include "a64-insn.h"

static int
known(const struct wp_a64_regs *r, int reg)
{
	return reg == WP_A64_ZR || (reg >= 0 && (r->have & (1ULL << reg)));
}

static uint64_t
value(const struct wp_a64_regs *r, int reg)
{
	return reg == WP_A64_ZR ? 0 : r->v[reg];
}

uint64_t
wp_a64_needs(const struct wp_a64_insn *in)
{
	uint64_t m = 0;
	int i;

	if (in->base >= 0)
		m |= 1ULL << in->base;
	if (in->index >= 0)
		m |= 1ULL << in->index;
	for (i = 0; i < in->nsrc; i++)
		if (in->src[i] >= 0)
			m |= 1ULL << in->src[i];
	return m;
}

int
wp_a64_store_range(const struct wp_a64_insn *in, const struct wp_a64_regs *r,
    uint64_t *lo, uint64_t *hi)
{
	uint64_t a, x;

	if (!in->writes || in->width == 0 || !known(r, in->base) ||
	    (in->index >= 0 && !known(r, in->index)))
		return -1;
	a = value(r, in->base);
	if (!in->post_index)
		a += (uint64_t)in->disp;
	if (in->index >= 0) {
		x = value(r, in->index);
		if (in->index_ext == 'w')
			x = (uint32_t)x;
		else if (in->index_ext == 's')
			x = (uint64_t)(int64_t)(int32_t)x;
		a += x << in->index_shift;
	}
	*lo = a;
	*hi = a + (uint64_t)in->width;
	return 0;
}
