/*
 * machine: the instruction sets of the session's "machine" (their
 * names: vocab.h), the ELF machine of their programs, and the one this
 * machine runs.
 */
#ifndef WP_MACHINE_H
#define WP_MACHINE_H

#include "vocab.h"

/* What wp-resolve calls them: "x86-64", "AArch64". */
extern const char *const wp_machine_titles[WP_NMACHINES];

/* The ELF e_machine of each. */
int	 wp_machine_elf(enum wp_machine m);
/* The machine named name, or -1. */
int	 wp_machine_of(const char *name);
/* The machine wp runs on (uname), or -1 when it is none of these. */
int	 wp_machine_here(void);

#endif
