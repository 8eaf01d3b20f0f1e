/*
 * machine: the instruction sets wp knows, as the session record names
 * them ("machine"), the ELF machine of their programs, and the one this
 * machine runs.
 */
#ifndef WP_MACHINE_H
#define WP_MACHINE_H

enum wp_machine {
	WP_MACH_X86_64,		/* "x86_64": older streams, without one */
	WP_MACH_AARCH64,	/* "aarch64" */
	WP_NMACHINES
};

/* Their names, as uname(2) gives them; and what wp-resolve says. */
extern const char *const wp_machine_names[WP_NMACHINES];
extern const char *const wp_machine_titles[WP_NMACHINES];

/* The ELF e_machine of each. */
int	 wp_machine_elf(enum wp_machine m);
/* The machine named name, or -1. */
int	 wp_machine_of(const char *name);
/* The machine wp runs on (uname), or -1 when it is none of these. */
int	 wp_machine_here(void);

#endif
