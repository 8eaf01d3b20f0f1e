/*
 * dwfl: one symbol and debug-info lookup, through libdwfl.  One Dwfl
 * holds the modules of a watched process (reported from /proc while it
 * runs) or of a saved session (reported one by one at their recorded
 * load biases); its find_debuginfo callback looks separate debug files
 * up the way wp's options say.  Function symbols, source lines, inlined
 * functions and unwinding (dwunwind.h) all go through it.
 */
#ifndef WP_DWFL_H
#define WP_DWFL_H

#include <sys/types.h>
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct wp_dwfl {
	Dwfl	*dwfl;
	pid_t	 pid;		/* the live process reported, or 0 */
	char	**names;	/* symbol names without their version */
	size_t	 nnames;
};

/* A function symbol: name lives as long as the wp_dwfl. */
struct wp_func {
	const char	*name;
	uint64_t	 addr, size;	/* run-time address */
};

/*
 * Where separate debug files are looked for, the way distributions ship
 * them: first among the files given to wp_dwfl_debug_file (matched by
 * build-id), then DIR/.build-id/xx/yyyy.debug under each debug directory
 * (default /usr/lib/debug), then the .gnu_debuglink name beside the
 * file, in its .debug/ and under each debug directory, and last through
 * debuginfod when DEBUGINFOD_URLS is set and libdebuginfod is installed.
 * A debug file is used only when its build-id is the file's.  These
 * settings are the process's, for every wp_dwfl.
 */
/* Adds dir to the debug directories (the first call replaces the
 * default); dir must outlive every wp_dwfl. */
void	 wp_dwfl_debug_dir(const char *dir);
/*
 * Adds dir, where module files were copied (wp-decode --module-dir), to
 * the places searched: DIR/.build-id/xx/yyyy.debug, and the debug link's
 * name in DIR and DIR/.debug/; the debug directories stay as they are.
 * dir must outlive every wp_dwfl.
 */
void	 wp_dwfl_module_dir(const char *dir);
/* Takes path as the debug file of the module of its build-id: 0, or -1
 * with err set. */
int	 wp_dwfl_debug_file(const char *path, struct wp_error *err);
/* The build-id of elf (an Elf *) as hex into out, "" when none. */
void	 wp_dwfl_build_id(void *elf, char *out, size_t outsz);
/*
 * The same search outside a Dwfl, for the ELF file at path (elf: an
 * Elf * of it, for its build-id and debuglink): the debug file's path
 * (the caller frees it), or NULL.
 */
char	*wp_dwfl_debug_path(const char *path, void *elf);

/* A Dwfl for a saved session, its modules added by wp_dwfl_add: NULL
 * with err set when libdwfl cannot start one. */
struct wp_dwfl *wp_dwfl_open(struct wp_error *err);
/*
 * Reports the module mapped as name at load bias bias, read from file
 * through fd (opened by the caller, who keeps it; libdwfl gets its own
 * duplicate, so file is never opened again by name), or when image is
 * not NULL from those len bytes (a [vdso]): the module, or NULL.
 */
Dwfl_Module	*wp_dwfl_add(struct wp_dwfl *d, const char *name,
		    const char *file, int fd, const void *image, size_t len,
		    uint64_t bias);
/*
 * A Dwfl for live process pid, its modules read from /proc/PID/maps and
 * its threads (which this process traces) attached for unwinding: NULL
 * with err set.
 */
struct wp_dwfl *wp_dwfl_open_pid(pid_t pid, struct wp_error *err);
/* Reports a live process's modules again (a library loaded since). */
int	 wp_dwfl_refresh(struct wp_dwfl *d);
void	 wp_dwfl_close(struct wp_dwfl *d);

/* The function symbol whose [addr, addr + size) holds run-time address
 * addr into *f (its name without a symbol version: memcpy, not
 * memcpy@@GLIBC_2.14): 0, or -1. */
int	 wp_dwfl_func(struct wp_dwfl *d, uint64_t addr, struct wp_func *f);
/*
 * The functions of the module that holds run-time address addr, to fn
 * until fn returns -1 (lib/dwfl-funcs.c): each function symbol's
 * run-time range, then each range of an FDE of its unwind table
 * (.eh_frame_hdr's) whose start no symbol holds (f->name NULL): a
 * stripped module's functions.  0, or -1 when no module holds addr.
 */
int	 wp_dwfl_module_funcs(struct wp_dwfl *d, uint64_t addr,
	    int (*fn)(void *, const struct wp_func *), void *arg);
/*
 * The range of the FDE of its module's unwind table that holds run-time
 * address addr into *f (f->name NULL), for a stripped module's code
 * that no symbol holds: 0, or -1.
 */
int	 wp_dwfl_fde_func(struct wp_dwfl *d, uint64_t addr, struct wp_func *f);
/*
 * By name, for wp-arm --if: the function symbol name (a version aside)
 * in the first module that has one, its run-time range into *f (f->name
 * is name): 0, or -1.  The module whose file's name (or path) is name,
 * its run-time [start, end) and load bias: 0, or -1.
 */
int	 wp_dwfl_func_named(struct wp_dwfl *d, const char *name,
	    struct wp_func *f);
/*
 * Definitions of name in module (a Dwfl_Module *, as wp_dwfl_add gives
 * it), its symbol table as libdwfl takes it: the number of distinct
 * values, 0, 1 (*value, the file's, *size and *tls set) or more.
 */
int	 wp_dwfl_symbol(void *module, const char *name, uint64_t *value,
	    uint64_t *size, int *tls);
int	 wp_dwfl_module_named(struct wp_dwfl *d, const char *name,
	    uint64_t *start, uint64_t *end, uint64_t *bias);
/* Source file and line of addr: 0, or -1.  *file lives as long as d. */
int	 wp_dwfl_srcline(struct wp_dwfl *d, uint64_t addr, const char **file,
	    int *line);
/*
 * The functions inlined at addr, innermost first, at most max into names
 * (which live as long as d): their count, 0 when none or no DWARF.
 */
int	 wp_dwfl_inlined(struct wp_dwfl *d, uint64_t addr, const char **names,
	    int max);
/*
 * Why the module at addr has no source lines (neither it nor a debug
 * file has DWARF): a sentence that lives as long as d; NULL when it has
 * DWARF or no module is there.
 */
const char *wp_dwfl_debug_why(struct wp_dwfl *d, uint64_t addr);

#endif
