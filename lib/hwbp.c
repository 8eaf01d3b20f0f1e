/* The x86-64 debug-register rules. */
#include "hwbp.h"

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
wp_hwbp_follow_slots(size_t noffs)
{
	return noffs + 1;
}
