/* Fuzzes the instruction decoder of lib/x86.c on raw bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "x86.h"

#define ADDR	0x401000	/* where the bytes are taken to be */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_x86_insn in;
	struct wp_x86_regs all, none;
	uint64_t lo, hi;
	size_t off = 0;
	int k;

	memset(&none, 0, sizeof none);
	for (k = 0; k < WP_NREGS; k++)
		all.v[k] = 0x7ffff0000000ULL + (uint64_t)k * 0x1008;
	all.v[WP_RFLAGS] = size & 1 ? 0x400 : 0;
	all.have = (1u << WP_NREGS) - 1;
	/* each instruction in turn, and where none decodes, the next byte */
	while (off < size) {
		if (wp_x86_decode(data + off, size - off, ADDR + off, &in) == -1) {
			off++;
			continue;
		}
		if (in.size < 1 || (size_t)in.size > size - off ||
		    memchr(in.text, '\0', sizeof in.text) == NULL)
			abort();
		for (k = 0; k < 2; k++) {
			if (wp_x86_store_range(&in, &all, k, &lo, &hi) == 0 &&
			    !in.writes)
				abort();
			wp_x86_store_range(&in, &none, k, &lo, &hi);
		}
		wp_x86_load_range(&in, &all, &lo, &hi);
		wp_x86_load_range(&in, &none, &lo, &hi);
		off += (size_t)in.size;
	}
	return 0;
}
