/*
 * ptrace-xol: the scratch page of the site mode's out-of-line steps
 * (ptrace-xol.c).
 */
#ifndef WPARM_PTRACE_XOL_H
#define WPARM_PTRACE_XOL_H

#include <stddef.h>
#include <stdint.h>

#include "tracee.h"
#include "x86.h"

#define XOL_SLOT	32	/* bytes a site's copy takes in the page */

/*
 * Maps the scratch page near address near, running mmap in a stopped
 * thread: its address, or 0 (none: every site steps in place).
 */
uint64_t xol_map(struct tracee *tr, uint64_t near);
/*
 * Unmaps it, running munmap in a stopped thread (page 0, or none
 * stopped: the process is gone, nothing).
 */
void	 xol_unmap(struct tracee *tr, uint64_t page);
/*
 * Writes slot k of the page through memfd: the instruction in (its
 * bytes code, at addr) as it runs from there, then a jmp back to the
 * one after it.  The slot's address, or 0 where it cannot run out of
 * line (a branch, out of reach, a displacement not found).
 */
uint64_t xol_slot(int memfd, uint64_t page, size_t k, uint64_t addr,
	    const uint8_t *code, const struct wp_x86_insn *in);

#endif
