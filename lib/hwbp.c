/* The debug-register rules of x86-64 and arm64. */
#include "hwbp.h"

size_t
wp_hwbp_follow_slots(size_t noffs)
{
	return noffs + 1;
}

#if defined(__aarch64__)
/* a byte-select mask over an aligned doubleword: 1 to 8 bytes in it */
int
wp_hwbp_len_ok(size_t len)
{
	return len >= 1 && len <= 8;
}

int
wp_hwbp_aligned(uint64_t addr, size_t len)
{
	return len != 0 && addr % 8 + len <= 8;
}

size_t
wp_hwbp_split(uint64_t addr, size_t len, size_t *plen, size_t max)
{
	size_t n = 0, sz;

	for (; len > 0; n++, addr += sz, len -= sz) {
		sz = 8 - addr % 8;
		if (sz > len)
			sz = len;
		if (n < max)
			plen[n] = sz;
	}
	return n;
}
#else
int
wp_hwbp_len_ok(size_t len)
{
	return len == 1 || len == 2 || len == 4 || len == 8;
}

int
wp_hwbp_aligned(uint64_t addr, size_t len)
{
	return len != 0 && addr % len == 0;
}

size_t
wp_hwbp_split(uint64_t addr, size_t len, size_t *plen, size_t max)
{
	size_t n = 0, sz;

	while (len > 0) {
		for (sz = 8; sz > 1; sz /= 2)
			if (sz <= len && addr % sz == 0)
				break;
		if (n < max)
			plen[n] = sz;
		n++;
		addr += sz;
		len -= sz;
	}
	return n;
}
#endif
