/*
 * Symbols by name, through libdwfl: a function of any module, a
 * module, and every definition of a data or TLS symbol in one module.
 */
#include <gelf.h>
#include <string.h>

#include "dwfl.h"

/* Whether symbol name is want, a version (memcpy@@GLIBC_2.14) aside. */
static int
same_symbol(const char *name, const char *want)
{
	size_t n = strlen(want);

	return strncmp(name, want, n) == 0 &&
	    (name[n] == '\0' || name[n] == '@');
}

struct named {
	const char	*name;
	int		 found;
	uint64_t	 start, end, bias;	/* the module's */
	struct wp_func	*f;
};

/* dwfl_getmodules callback: the function named a->name, or the module. */
static int
named_module(Dwfl_Module *mod, void **ud, const char *mname,
    Dwarf_Addr start, void *arg)
{
	struct named *a = arg;
	const char *base, *s;
	GElf_Addr addr, end, bias;
	GElf_Sym sym;
	int i, n;

	(void)ud;
	if (a->f == NULL) {
		base = (base = strrchr(mname, '/')) ? base + 1 : mname;
		if (strcmp(base, a->name) != 0 && strcmp(mname, a->name) != 0)
			return DWARF_CB_OK;
		dwfl_module_info(mod, NULL, NULL, &end, NULL, NULL, NULL,
		    NULL);
		if (dwfl_module_getelf(mod, &bias) == NULL)
			bias = start;
		a->start = start;
		a->end = end;
		a->bias = bias;
		a->found = 1;
		return DWARF_CB_ABORT;
	}
	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		s = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL,
		    NULL);
		if (s == NULL || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_value == 0 || !same_symbol(s, a->name))
			continue;
		a->f->name = a->name;
		a->f->addr = addr;
		a->f->size = sym.st_size ? sym.st_size : 1;
		a->found = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int
wp_dwfl_func_named(struct wp_dwfl *d, const char *name, struct wp_func *f)
{
	struct named a = { name, 0, 0, 0, 0, f };

	dwfl_getmodules(d->dwfl, named_module, &a, 0);
	return a.found ? 0 : -1;
}

int
wp_dwfl_symbol(void *module, const char *name, uint64_t *value,
    uint64_t *size, int *tls)
{
	Dwfl_Module *mod = module;
	uint64_t vals[16];
	GElf_Addr addr;
	GElf_Word shndx;
	GElf_Sym sym;
	const char *s;
	size_t j, nvals = 0;
	int i, n;

	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		s = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL,
		    NULL);
		if (s == NULL || strcmp(s, name) != 0 ||
		    sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
		    GELF_ST_TYPE(sym.st_info) == STT_FILE)
			continue;
		/* the file's value: an address, or a TLS block's offset */
		for (j = 0; j < nvals && vals[j] != sym.st_value; j++)
			;
		if (j < nvals)
			continue;
		if (nvals == 0) {
			*value = sym.st_value;
			*size = sym.st_size;
			*tls = GELF_ST_TYPE(sym.st_info) == STT_TLS;
		}
		if (nvals < sizeof vals / sizeof vals[0])
			vals[nvals++] = sym.st_value;
	}
	return (int)nvals;
}

int
wp_dwfl_module_named(struct wp_dwfl *d, const char *name, uint64_t *start,
    uint64_t *end, uint64_t *bias)
{
	struct named a = { name, 0, 0, 0, 0, NULL };

	dwfl_getmodules(d->dwfl, named_module, &a, 0);
	*start = a.start;
	*end = a.end;
	*bias = a.bias;
	return a.found ? 0 : -1;
}
