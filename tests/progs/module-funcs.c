/*
 * module-funcs FILE: the functions wp_dwfl_module_funcs gives for the
 * ELF file FILE (at its file addresses), one line each, "0xADDR 0xSIZE
 * NAME" (NAME "-" for an unwind table's range), for
 * tests/33-module-funcs.bats to compare with nm and readelf; then on
 * stderr how many and how long it took.
 * module-funcs FILE ADDR...: for each file address, the range of the
 * unwind table's FDE that holds it (wp_dwfl_fde_func), "0xADDR 0xSIZE",
 * or "none".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dwfl.h"

static size_t nsym, nfde;

static int
show(void *arg, const struct wp_func *f)
{
	(void)arg;
	printf("%#llx %#llx %s\n", (unsigned long long)f->addr,
	    (unsigned long long)f->size, f->name != NULL ? f->name : "-");
	if (f->name != NULL)
		nsym++;
	else
		nfde++;
	return 0;
}

/* Each address's FDE range (the module is loaded at 0). */
static void
fde_at(struct wp_dwfl *d, char **addr)
{
	struct wp_func f;

	for (; *addr != NULL; addr++)
		if (wp_dwfl_fde_func(d, strtoull(*addr, NULL, 0), &f) == 0)
			printf("%#llx %#llx\n", (unsigned long long)f.addr,
			    (unsigned long long)f.size);
		else
			printf("none\n");
}

int
main(int argc, char *argv[])
{
	struct timespec t0, t1;
	struct wp_error e;
	struct wp_dwfl *d;
	Dwfl_Module *mod;
	Dwarf_Addr start;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: module-funcs FILE [ADDR ...]\n");
		return 64;
	}
	if ((fd = open(argv[1], O_RDONLY)) == -1) {
		perror(argv[1]);
		return 1;
	}
	if ((d = wp_dwfl_open(&e)) == NULL ||
	    (mod = wp_dwfl_add(d, argv[1], argv[1], fd, NULL, 0, 0)) == NULL) {
		fprintf(stderr, "module-funcs: %s: not an ELF module\n",
		    argv[1]);
		return 1;
	}
	dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	if (argc > 2)
		fde_at(d, argv + 2);
	else {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		wp_dwfl_module_funcs(d, start, show, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "%zu from symbols, %zu from FDEs in %.1f ms\n",
		    nsym, nfde, (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	}
	/* closed either way: make asan-check counts a leak a failure */
	wp_dwfl_close(d);
	close(fd);
	return 0;
}
