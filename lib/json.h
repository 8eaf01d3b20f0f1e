#ifndef WP_JSON_H
#define WP_JSON_H

#include <stddef.h>
#include <stdint.h>

/* A member of a JSON object: key without quotes, value as raw text. */
struct wp_json_field {
	const char	*key;
	size_t		 klen;
	const char	*val;
	size_t		 vlen;
};

#define WP_JSON_MAXFIELDS 64

int	 wp_json_scan(const char *, size_t, struct wp_json_field *, size_t *,
	    const char **, size_t *);
const struct wp_json_field *wp_json_find(const struct wp_json_field *,
	    size_t, const char *);
int	 wp_json_member(const char *, size_t, const char *, const char **,
	    size_t *);
int	 wp_json_hexval(const char *, size_t, uint64_t *);
int	 wp_json_intval(const char *, size_t, int64_t *);

#endif
