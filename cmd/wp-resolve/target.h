#ifndef WP_TARGET_H
#define WP_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct wp_view;
struct wp_addr;
struct wp_follow;

#define WP_HW_SLOTS 4

struct wp_target_opts {
	size_t		 len;		/* 0: the symbol's size, else 4 */
	int		 rw;		/* -a rw */
	int		 no_slot_limit;
};

struct wp_target {
	uint64_t	 addr;
	size_t		 len;
};

int	 wp_target_locate(struct wp_view *, const struct wp_addr *,
	    uint64_t *, uint64_t *, char *, size_t);
json_object *wp_target_record(struct wp_view *, int, const char *,
	    const struct wp_addr *, const struct wp_target_opts *,
	    struct wp_target *, char *, size_t);
json_object *wp_target_follow_record(struct wp_view *, int, const char *,
	    const struct wp_follow *, const struct wp_target_opts *,
	    struct wp_target *, char *, size_t);
const char *wp_target_chain(struct wp_view *, uint64_t, const int64_t *,
	    size_t, size_t, uint64_t *, uint64_t *);

#endif
