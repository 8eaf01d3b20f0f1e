/*
 * Text on the report page.  Every string from the stream is untrusted:
 * it is written escaped (a symbol named "<script>" is text), control
 * characters, which HTML does not allow, as '?'.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "html.h"
#include "util.h"

/* The characters written as entities. */
static const char *const entity[128] = {
	['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;",
	['\''] = "&#39;"
};

void
html_text(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; s != NULL && *p != '\0'; p++)
		if (*p < 128 && entity[*p] != NULL)
			fputs(entity[*p], f);
		else if (*p == '\n' || *p == '\t')
			putc(*p, f);
		else
			putc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
}

void
html_fmt(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		wp_fatal_nomem();
	va_end(ap);
	html_text(f, s);
	free(s);
}

void
html_dur(char *buf, size_t sz, int64_t ns)
{
	static const struct {
		int64_t		 per;
		const char	*unit;
	} u[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
	    { 1, "ns" } };
	size_t i;
	int64_t a = ns < 0 ? -ns : ns;

	if (ns == 0) {
		snprintf(buf, sz, "0");
		return;
	}
	for (i = 0; i < 3 && a < u[i].per; i++)
		;
	snprintf(buf, sz, "%.4g %s", (double)ns / (double)u[i].per,
	    u[i].unit);
}
