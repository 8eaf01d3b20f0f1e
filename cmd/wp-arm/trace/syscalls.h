/*
 * syscalls: which user memory an x86-64 system call may write, from its
 * arguments, for the ptrace backend: a change across a call is the
 * call's only if the call writes there.
 */
#ifndef WPARM_SYSCALLS_H
#define WPARM_SYSCALLS_H

#include <stdint.h>

enum { SC_NO, SC_YES, SC_UNKNOWN };

/*
 * Whether system call nr with arguments a[0..5] (rdi, rsi, rdx, r10,
 * r8, r9) may write [lo, hi): SC_YES, SC_NO, or SC_UNKNOWN for a call
 * this table does not describe (or whose iovec array, read through
 * memfd, the target's /proc/PID/mem, cannot be read).
 */
int	 syscall_writes(int memfd, long nr, const uint64_t a[6], uint64_t lo,
	    uint64_t hi);
/*
 * Whether the call, which returned ret, certainly wrote some byte of
 * [lo, hi) (read(2) of ret bytes, stat(2) that succeeded): a write
 * whether or not the bytes changed.  span (NULL: not asked): the part
 * of [lo, hi) it certainly wrote, span[0] to span[1] (the hull of its
 * buffers there; empty: none).
 */
int	 syscall_wrote(int memfd, long nr, const uint64_t a[6], int64_t ret,
	    uint64_t lo, uint64_t hi, uint64_t *span);

#endif
