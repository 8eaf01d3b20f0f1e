/* The instruction sets of the record contract, and the one running. */
#include <sys/utsname.h>

#include <elf.h>
#include <string.h>

#include "machine.h"

const char *const wp_machine_names[WP_NMACHINES] = {
	[WP_MACH_X86_64] = "x86_64",
	[WP_MACH_AARCH64] = "aarch64",
};

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
	int m;

	for (m = 0; m < WP_NMACHINES; m++)
		if (strcmp(name, wp_machine_names[m]) == 0)
			return m;
	return -1;
}

int
wp_machine_here(void)
{
	struct utsname u;

	if (uname(&u) == -1)
		return -1;
	return wp_machine_of(u.machine);
}
