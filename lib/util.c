#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

void *
wp_xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		err(WP_EXIT_ERROR, "malloc");
	return p;
}

void *
wp_xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n ? n : 1, sz ? sz : 1)) == NULL)
		err(WP_EXIT_ERROR, "calloc");
	return p;
}

void *
wp_xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n ? n : 1)) == NULL)
		err(WP_EXIT_ERROR, "realloc");
	return p;
}

char *
wp_xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		err(WP_EXIT_ERROR, "strdup");
	return p;
}

/* Decimal, or hex with 0x.  The whole string must be a number. */
int
wp_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		return -1;
	*v = x;
	return 0;
}

int
wp_parse_s64(const char *s, int64_t *v)
{
	uint64_t u;
	int neg = 0;

	if (s != NULL && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	if (wp_parse_u64(s, &u) == -1 || u > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* "500ms", "5s", "2m", "1h"; a bare number is milliseconds. */
int
wp_parse_duration_ms(const char *s, uint64_t *ms)
{
	char *end;
	unsigned long long x;
	uint64_t mul;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (*end == '\0' || strcmp(end, "ms") == 0)
		mul = 1;
	else if (strcmp(end, "s") == 0)
		mul = 1000;
	else if (strcmp(end, "m") == 0)
		mul = 60000;
	else if (strcmp(end, "h") == 0)
		mul = 3600000;
	else
		return -1;
	if (x > UINT64_MAX / mul)
		return -1;
	*ms = x * mul;
	return 0;
}

void
wp_hex(char *buf, size_t sz, uint64_t v)
{
	snprintf(buf, sz, "0x%" PRIx64, v);
}

uint64_t
wp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
