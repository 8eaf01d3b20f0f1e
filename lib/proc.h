#ifndef WP_PROC_H
#define WP_PROC_H

#include <sys/types.h>
#include <stdint.h>

struct wp_map {
	uint64_t	 start, end, offset;
	char		 perms[5];
	char		*path;		/* NULL for anonymous memory */
};

struct wp_maps {
	struct wp_map	*v;
	size_t		 n;
};

int	 wp_proc_exists(pid_t);
int	 wp_proc_starttime(pid_t, unsigned long long *);
int	 wp_proc_exe(pid_t, char *, size_t);
int	 wp_proc_maps(pid_t, struct wp_maps *);
void	 wp_proc_maps_free(struct wp_maps *);
const struct wp_map *wp_proc_maps_find(const struct wp_maps *, uint64_t);
int	 wp_proc_mem_open(pid_t);
int	 wp_proc_read(int, uint64_t, void *, size_t);
int	 wp_proc_tasks(pid_t, pid_t **, size_t *);

#endif
