/* The callers in a kernel call chain, for the perf and bpf backends. */
#include <linux/perf_event.h>

#include "kchain.h"

const char *
kchain_callers(const uint64_t *chain, size_t nchain, size_t cap,
    uint64_t ip, uint64_t *ips, size_t max, size_t *n)
{
	size_t i;
	int first = 1;

	*n = 0;
	for (i = 0; i < nchain && chain[i] != 0; i++) {
		if (chain[i] >= PERF_CONTEXT_MAX)
			continue;
		if (first) {
			first = 0;
			if (chain[i] == ip)
				continue;
		}
		if (*n == max)
			return "truncated";
		ips[(*n)++] = chain[i];
	}
	return i == nchain && nchain >= cap ? "truncated" : "frame_pointers";
}
