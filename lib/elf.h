/*
 * elf: what wp reads from ELF files (libelf, libdw): the build-id, the
 * loadable segments and the load bias, symbols, function bounds, code
 * bytes and source lines.
 */
#ifndef WP_ELF_H
#define WP_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct wp_elf_load {
	uint64_t	vaddr, memsz, offset, filesz;
	int		flags;		/* PF_R | PF_W | PF_X */
};

/* A function symbol; name points into the ELF file's string table. */
struct wp_elf_func {
	uint64_t	 addr, size;
	const char	*name;
};

struct wp_elf {
	char			*path;
	int			 fd;
	void			*elf;		/* Elf * */
	int			 type;		/* ET_EXEC, ET_DYN, ... */
	int			 machine;	/* EM_X86_64, ... */
	int			 is64;
	char			 build_id[128];	/* hex, "" when none */
	struct wp_elf_load	*loads;
	size_t			 nloads;
	struct wp_elf_func	*funcs;		/* sorted, built on demand */
	size_t			 nfuncs;
	int			 funcs_done;
	void			*dwarf;		/* Dwarf *, on demand */
	int			 dwarf_done;
	unsigned char		*mem;		/* an image read from memory */
	size_t			 memlen;
	int			 nocode;	/* a debug-only file: its code
						   sections hold no bytes */
	struct wp_elf		*debug;		/* its separate debug file */
	int			 debug_done;
	char			*debug_why;	/* why none was found */
	int			 debuginfod;	/* what debuginfod said: 0 not
						   asked, -1 no libdebuginfod,
						   else an errno */
};

/*
 * Opens path (kept open until wp_elf_close).  NULL with err set when it
 * cannot be read, is not a regular file (a FIFO or a device is never
 * opened for reading) or is not an ELF file.
 */
struct wp_elf	*wp_elf_open(const char *path, struct wp_error *err);
/*
 * The same for an image in memory, such as a process's [vdso]; the
 * image is copied, name is what messages call it.
 */
struct wp_elf	*wp_elf_open_mem(const void *image, size_t len,
		    const char *name, struct wp_error *err);
void		 wp_elf_close(struct wp_elf *e);

/*
 * Separate debug files, the way distributions ship them, are looked up
 * when a file lacks symbols or DWARF: first among the files given to
 * wp_elf_debug_file (matched by build-id), then DIR/.build-id/xx/yyyy.debug
 * under each debug directory (default /usr/lib/debug), then the
 * .gnu_debuglink name beside the file, in its .debug/ and under each
 * debug directory, and last through debuginfod when DEBUGINFOD_URLS is
 * set and libdebuginfod is installed.  A debug file is used only when
 * its build-id is the file's.
 */
/* Adds dir to the debug directories (the first call replaces the
 * default); dir must outlive every wp_elf. */
void		 wp_elf_debug_dir(const char *dir);
/* Opens path as a debug file for the file of the same build-id. */
int		 wp_elf_debug_file(const char *path, struct wp_error *err);
/* e's debug file, or NULL (e itself has what it has). */
struct wp_elf	*wp_elf_debug(struct wp_elf *e);
/* Why e has no source lines (neither it nor a debug file has DWARF): a
 * sentence that lives as long as e; NULL when it has DWARF. */
const char	*wp_elf_debug_why(struct wp_elf *e);
/* Makes debug (taken over) e's debug file. */
void		 wp_elf_set_debug(struct wp_elf *e, struct wp_elf *debug);
/*
 * Looks name up in .symtab and .dynsym, then in the debug file's:
 * returns the number of distinct addresses found, 0 (unknown), 1
 * (*value and *size set) or more.  *tls is set when the symbol is
 * thread-local (*value is then its offset in the module's TLS block).
 */
int		 wp_elf_symbol(struct wp_elf *e, const char *name,
		    uint64_t *value, uint64_t *size, int *tls);
/* Whether neither e nor its debug file has a .symtab (only exported
 * names, in .dynsym, can be looked up). */
int		 wp_elf_stripped(struct wp_elf *e);
/* The static address of the module's dynamic section: 0, or -1. */
int		 wp_elf_dynamic(struct wp_elf *e, uint64_t *vaddr);
/* The module's PT_TLS segment: 0 with its size and alignment, or -1. */
int		 wp_elf_tls(struct wp_elf *e, uint64_t *memsz, uint64_t *align);
/*
 * The load bias of the module from one of its file mappings: the
 * segment whose page holds map_offset was placed at map_start.
 */
int		 wp_elf_bias(struct wp_elf *e, uint64_t map_start,
		    uint64_t map_offset, uint64_t *bias);
/* The loadable segment that holds static address vaddr, or NULL. */
const struct wp_elf_load *wp_elf_load_at(struct wp_elf *e, uint64_t vaddr);
/* The function whose [addr, addr + size) holds vaddr, or NULL (the
 * debug file's symbols are used when e has none there). */
const struct wp_elf_func *wp_elf_func_at(struct wp_elf *e, uint64_t vaddr);
/* Reads the file bytes of [vaddr, vaddr + len): the count read (0 for
 * a debug-only file). */
size_t		 wp_elf_read(struct wp_elf *e, uint64_t vaddr, void *buf,
		    size_t len);
/*
 * Source file and line of vaddr from DWARF, e's or its debug file's: 0,
 * or -1 when there is none.  *file lives as long as e.
 */
int		 wp_elf_srcline(struct wp_elf *e, uint64_t vaddr,
		    const char **file, int *line);
/*
 * The functions inlined at vaddr, innermost first, at most max into
 * names (which live as long as e), from e's DWARF or its debug file's:
 * their count, 0 when none or no DWARF.
 */
int		 wp_elf_inlined(struct wp_elf *e, uint64_t vaddr,
		    const char **names, int max);

#endif
