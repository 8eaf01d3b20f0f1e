/*
 * kchain: the callers in a call chain the kernel gathered, as the perf
 * backend's samples carry it and the bpf backend's stack map holds it.
 */
#ifndef WPARM_KCHAIN_H
#define WPARM_KCHAIN_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The callers of a hit at ip from a kernel call chain (a sample's, with
 * its context markers, or a stack map's, ended by a 0): innermost first,
 * at most max into ips, the markers and the trap IP at its head left
 * out; *n set.  Returns "truncated" when there were more than max, or
 * when the chain filled the cap entries the kernel could give (there may
 * have been more), else "frame_pointers"; "outside_code" as
 * kchain_code_only says, for pid's chain.
 */
const char *kchain_callers(pid_t pid, const uint64_t *chain, size_t nchain,
	    size_t cap, uint64_t ip, uint64_t *ips, size_t max, size_t *n);
/*
 * Ends the n return addresses in ips (a chain of process pid) before the
 * first that lies outside its executable mappings (its maps are read
 * again, at most every 100 ms, for an address not in them): returns
 * "outside_code" when it cut, else status.
 */
const char *kchain_code_only(pid_t pid, uint64_t *ips, size_t *n,
	    const char *status);

#endif
