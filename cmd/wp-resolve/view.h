/*
 * view: what wp-resolve learns about a live process: its executable and
 * build-id, the --bin check, its mappings and the ELF modules mapped.
 */
#ifndef WPRESOLVE_VIEW_H
#define WPRESOLVE_VIEW_H

#include <sys/types.h>
#include <limits.h>
#include <stdint.h>

#include "json.h"
#include "proc.h"
#include "vocab.h"

struct wp_elf;

/* A loaded ELF module of the process and where it sits. */
struct module {
	char		*path;		/* as in /proc/PID/maps */
	struct wp_elf	*elf;		/* NULL when the file cannot be read */
	uint64_t	 bias;		/* runtime = static + bias */
	int		 is_main;
};

struct view {
	pid_t			 pid;
	unsigned long long	 start_time;
	char			 exe[PATH_MAX];
	/* the names it was started by: through a link, not exe's */
	char			 comm[64];	/* /proc/PID/comm; "" unread */
	char			 argv0[PATH_MAX];	/* its base name; "" */
	char			 exe_build_id[128];
	const char		*bin;		/* --bin, or NULL */
	char			 bin_build_id[128];
	const char		*binary_match;
	int			 machine;	/* enum wp_machine: this one's */
	struct wp_maps		 maps;
	struct module		*mods;
	size_t			 nmods;
	struct module		*main;
	int			 memfd;		/* /proc/PID/mem */
	const char		*warnings[4];
	size_t			 nwarnings;
	int			 tls_resolved;	/* a thread's copy located
						   (--tid) */
};

/*
 * Opens process pid: checks that it exists, can be read, is x86-64, and
 * that bin (when not NULL) is the same build as /proc/PID/exe unless
 * force_bin.  Prints why and returns -1 when it cannot be used; the view
 * is to be closed either way.  bin must outlive the view.
 */
int	 view_open(struct view *v, pid_t pid, const char *bin, int force_bin);
void	 view_close(struct view *v);
/*
 * Whether name names module m: its path, its base name, or that without
 * its version ("libc" for libc.so.6); the main program also by the
 * names it was started by (a link's: comm, argv[0]'s base name).
 */
int	 view_module_named(const struct view *v, const struct module *m,
	    const char *name);
/* The module whose loaded segments hold addr, and its static address. */
struct module *view_module_at(struct view *v, uint64_t addr, uint64_t *saddr);
/* A mapping's name as records give it: a path, or "[anon]". */
const char *view_region(const struct wp_map *mp);
/* Writes the session record of the view into w; limits is the rule the
 * targets were checked by (wp_limits_names names it). */
void	 view_session_record(struct view *v, enum wp_limits limits,
	    struct wp_jw *w);

#endif
