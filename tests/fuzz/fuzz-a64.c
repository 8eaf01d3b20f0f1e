/* Fuzzes the AArch64 instruction decoder of lib/a64-*.c on raw bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "a64-insn.h"
#include "record.h"

#define ADDR	0x400000	/* where the bytes are taken to be */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_a64_insn in;
	struct wp_a64_regs all, none;
	struct wp_value_rec v;
	uint64_t lo, hi;
	size_t off;
	int k;

	memset(&none, 0, sizeof none);
	for (k = 0; k < WP_A64_NREGS; k++)
		all.v[k] = 0x7ffff0000000ULL + (uint64_t)k * 0x1008;
	all.have = (1ULL << WP_A64_NREGS) - 1;
	/* instructions are 4 bytes, aligned */
	for (off = 0; off + 4 <= size; off += 4) {
		if (wp_a64_decode(data + off, size - off, ADDR + off, &in) == -1)
			continue;
		if (in.size != 4 || memchr(in.text, '\0', sizeof in.text) ==
		    NULL || in.nsrc > 2 || in.width < 0 || in.width > 64)
			abort();
		if (wp_a64_store_range(&in, &all, &lo, &hi) == 0 &&
		    (!in.writes || hi - lo != (uint64_t)in.width))
			abort();
		wp_a64_store_range(&in, &none, &lo, &hi);
		memset(&v, 0, sizeof v);
		wp_a64_value_of(&in, &all, ADDR, &v);
		wp_a64_value_of(&in, &none, ADDR, &v);
	}
	return 0;
}
