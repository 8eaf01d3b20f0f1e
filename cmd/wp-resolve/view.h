#ifndef WP_VIEW_H
#define WP_VIEW_H

#include <sys/types.h>
#include <limits.h>
#include <stdint.h>

#include <json-c/json.h>

#include "proc.h"

struct wp_elf;

/* A loaded ELF module of the process and where it sits. */
struct wp_module {
	char		*path;		/* as in /proc/PID/maps */
	struct wp_elf	*elf;		/* NULL when the file cannot be read */
	uint64_t	 bias;		/* runtime = static + bias */
	int		 is_main;
};

/* What wp-resolve learns about a live process. */
struct wp_view {
	pid_t			 pid;
	unsigned long long	 start_time;
	char			 exe[PATH_MAX];
	char			 exe_build_id[128];
	const char		*bin;		/* --bin, or NULL */
	char			 bin_build_id[128];
	const char		*binary_match;
	struct wp_maps		 maps;
	struct wp_module	*mods;
	size_t			 nmods;
	struct wp_module	*main;
	int			 memfd;
	json_object		*warnings;
};

int	 wp_view_open(struct wp_view *, pid_t, const char *, int);
void	 wp_view_close(struct wp_view *);
struct wp_module *wp_view_module_at(struct wp_view *, uint64_t, uint64_t *);
json_object *wp_view_session_record(struct wp_view *, int);
const char *wp_view_region(const struct wp_map *);

#endif
