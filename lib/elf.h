/*
 * elf: the ELF facts libdwfl (dwfl.h) does not give, for wp-resolve and
 * for reading code: the build-id, the loadable segments and the load
 * bias, symbols by name (thread-local ones too), code bytes.
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
	unsigned char		*mem;		/* an image read from memory */
	size_t			 memlen;
	int			 nocode;	/* a debug-only file: its code
						   sections hold no bytes */
	struct wp_dwfl		*dwfl;		/* for symbols by name: */
	void			*dmod;		/* its Dwfl_Module, or NULL */
};

/*
 * Opens path (kept open until wp_elf_close).  NULL with err set when it
 * cannot be read, is not a regular file (a FIFO or a device is never
 * opened for reading) or is not an ELF file.
 */
struct wp_elf	*wp_elf_open(const char *path, struct wp_error *err);
/*
 * Opens a file that input names (wp-decode's modules), by
 * wp_open_file's rules (util.h): a regular file on disk, never a device,
 * FIFO or /proc file, then only when it starts with the ELF magic and,
 * when build_id is not NULL, its build-id is build_id.  NULL with err
 * set (why, for a file the user named).
 */
struct wp_elf	*wp_elf_open_file(const char *path, const char *build_id,
		    struct wp_error *err);
/*
 * The same for an image in memory, such as a process's [vdso]; the
 * image is copied, name is what messages call it.
 */
struct wp_elf	*wp_elf_open_mem(const void *image, size_t len,
		    const char *name, struct wp_error *err);
void		 wp_elf_close(struct wp_elf *e);

/*
 * Looks name up in the symbol table libdwfl takes (.symtab, else the
 * debug file's, found as dwfl.h says, else .dynsym):
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
/*
 * The load bias of the module from one of its file mappings: the
 * segment whose page holds map_offset was placed at map_start.
 */
int		 wp_elf_bias(struct wp_elf *e, uint64_t map_start,
		    uint64_t map_offset, uint64_t *bias);
/* The loadable segment that holds static address vaddr, or NULL. */
const struct wp_elf_load *wp_elf_load_at(struct wp_elf *e, uint64_t vaddr);
/* Reads the file bytes of [vaddr, vaddr + len): the count read (0 for
 * a debug-only file). */
size_t		 wp_elf_read(struct wp_elf *e, uint64_t vaddr, void *buf,
		    size_t len);

#endif
