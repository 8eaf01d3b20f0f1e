/*
 * The callers in a kernel call chain, for the perf and bpf backends, and
 * the check every chain gets: a return address outside the process's
 * executable mappings is not a caller (frame pointers walked where a
 * function kept none: a timespec, a pointer, a counter read as one).
 */
#include <linux/perf_event.h>

#include "kchain.h"
#include "proc.h"
#include "util.h"

/* How often the maps are read again for an address not in them. */
#define REREAD_NS	100000000ULL

static struct {
	pid_t		 pid;
	int		 known;		/* m read; 0: unreadable (gone) */
	struct wp_maps	 m;
	uint64_t	 read_ns;
} code;

/*
 * Whether addr lies in an executable mapping of pid; 1 too when the
 * maps cannot be read (the process gone before its samples were read:
 * nothing can be told apart then).
 */
static int
in_code(pid_t pid, uint64_t addr)
{
	const struct wp_map *mp;
	uint64_t now;

	if (code.pid == pid && code.known &&
	    (mp = wp_proc_maps_find(&code.m, addr)) != NULL)
		return mp->perms[2] == 'x';
	/* mapped since (dlopen, a JIT): read the maps again, not too often */
	now = wp_now_ns();
	if (code.pid == pid && now - code.read_ns < REREAD_NS)
		return !code.known;
	if (code.known)
		wp_proc_maps_free(&code.m);
	code.pid = pid;
	code.read_ns = now;
	code.known = wp_proc_maps(pid, &code.m) == 0;
	if (code.known && code.m.n == 0) {
		/* a zombie's maps are empty */
		wp_proc_maps_free(&code.m);
		code.known = 0;
	}
	if (!code.known)
		return 1;
	mp = wp_proc_maps_find(&code.m, addr);
	return mp != NULL && mp->perms[2] == 'x';
}

const char *
kchain_code_only(pid_t pid, uint64_t *ips, size_t *n, const char *status)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!in_code(pid, ips[i])) {
			*n = i;
			return "outside_code";
		}
	return status;
}

const char *
kchain_callers(pid_t pid, const uint64_t *chain, size_t nchain, size_t cap,
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
			return kchain_code_only(pid, ips, n, "truncated");
		ips[(*n)++] = chain[i];
	}
	return kchain_code_only(pid, ips, n,
	    i == nchain && nchain >= cap ? "truncated" : "frame_pointers");
}
