#ifndef WP_ELF_H
#define WP_ELF_H

#include <stddef.h>
#include <stdint.h>

struct wp_elf_load {
	uint64_t	vaddr, memsz, offset, filesz;
	int		flags;		/* PF_R | PF_W | PF_X */
};

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
};

struct wp_elf	*wp_elf_open(const char *, char *, size_t);
void		 wp_elf_close(struct wp_elf *);
int		 wp_elf_symbol(struct wp_elf *, const char *, uint64_t *,
		    uint64_t *);
int		 wp_elf_bias(struct wp_elf *, uint64_t, uint64_t, uint64_t *);
const struct wp_elf_load *wp_elf_load_at(struct wp_elf *, uint64_t);
const struct wp_elf_func *wp_elf_func_at(struct wp_elf *, uint64_t);
size_t		 wp_elf_read(struct wp_elf *, uint64_t, void *, size_t);
int		 wp_elf_srcline(struct wp_elf *, uint64_t, const char **, int *);

#endif
