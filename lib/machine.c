/* The instruction sets of the record contract, and the one running. */
#include <sys/utsname.h>

#include <elf.h>
#include <string.h>

#include "machine.h"

const char *const wp_machine_titles[WP_NMACHINES] = {
	[WP_MACH_X86_64] = "x86-64",
	[WP_MACH_AARCH64] = "AArch64",
};

int
wp_machine_elf(enum wp_machine m)
{
	return m == WP_MACH_AARCH64 ? EM_AARCH64 : EM_X86_64;
}

int
wp_machine_of(const char *name)
{
	return wp_vocab_find(wp_machine_names, WP_NMACHINES, name,
	    strlen(name));
}

int
wp_machine_here(void)
{
	struct utsname u;

	if (uname(&u) == -1)
		return -1;
	return wp_machine_of(u.machine);
}
