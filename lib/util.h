#ifndef WP_UTIL_H
#define WP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define WP_VERSION "0.1.0"
#define WP_SCHEMA_VERSION 1

/* Exit statuses shared by every tool (see wp-records(7)). */
#define WP_EXIT_OK		0
#define WP_EXIT_ERROR		1	/* a fatal error, message on stderr */
#define WP_EXIT_MALFORMED	2	/* bad input lines skipped, rest processed */
#define WP_EXIT_INCOMPLETE	3	/* input ended without an observation */
#define WP_EXIT_PROCESS		4	/* the process cannot be used */
#define WP_EXIT_NOBP		5	/* hardware breakpoints do not fire here */
#define WP_EXIT_USAGE		64

void	*wp_xmalloc(size_t);
void	*wp_xcalloc(size_t, size_t);
void	*wp_xrealloc(void *, size_t);
char	*wp_xstrdup(const char *);
int	 wp_parse_u64(const char *, uint64_t *);
int	 wp_parse_s64(const char *, int64_t *);
int	 wp_parse_duration_ms(const char *, uint64_t *);
void	 wp_hex(char *, size_t, uint64_t);
uint64_t wp_now_ns(void);

#endif
