/*
 * Writers' names in the table: the symbol, or the module and the offset
 * in it, cut in the middle of the name to fit a column while the rows
 * of a table stay apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

void
label_symbol(const char *module, const char *symbol, char *buf, size_t sz)
{
	/* the vDSO's clock_gettime is not libc's */
	if (module != NULL && strcmp(module, "[vdso]") == 0 &&
	    strncmp(symbol, "__vdso_", 7) != 0)
		snprintf(buf, sz, "[vdso]:%s", symbol);
	else
		snprintf(buf, sz, "%s", symbol);
}

void
label_writer(const struct wp_writer_in *w, const char *fallback, char *buf,
    size_t sz)
{
	const char *base;
	char off[24];

	if (w->symbol != NULL)
		label_symbol(w->module, w->symbol, buf, sz);
	else if (w->module != NULL && w->has_writer_static) {
		off[wp_fmt_hex(off, w->writer_static)] = '\0';
		base = strrchr(w->module, '/');
		snprintf(buf, sz, "%s+%s", base ? base + 1 : w->module, off);
	} else
		snprintf(buf, sz, "%s", fallback);
}

/* Where the "+0xOFF" of a name starts: its end when it has none. */
static const char *
offset_of(const char *s)
{
	const char *p = strrchr(s, '+');

	return p != NULL && strncmp(p, "+0x", 3) == 0 ? p : s + strlen(s);
}

/* s cut to width in the middle of what comes before tail, kept whole. */
static void
cut(const char *s, const char *tail, size_t width, char *buf, size_t sz)
{
	size_t keep, head;

	if (width >= sz)
		width = sz - 1;
	if (strlen(s) <= width) {
		snprintf(buf, sz, "%s", s);
		return;
	}
	if (width < strlen(tail) + 1) {
		/* no room for the tail: cut at the end */
		snprintf(buf, sz, "%.*s~", (int)(width > 0 ? width - 1 : 0), s);
		return;
	}
	keep = width - strlen(tail) - 1;
	head = keep / 2;
	snprintf(buf, sz, "%.*s~%.*s%s", (int)head, s, (int)(keep - head),
	    tail - (keep - head), tail);
}

void
label_shorten(const char *s, size_t width, char *buf, size_t sz)
{
	cut(s, offset_of(s), width, buf, sz);
}

void
label_shorten_source(const char *s, size_t width, char *buf, size_t sz)
{
	const char *line = strrchr(s, ':');

	cut(s, line != NULL ? line : s + strlen(s), width, buf, sz);
}

struct cut {
	const char	*name;
	char		*text;
};

static int
cmp_cut(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	return c != 0 ? c : strcmp(x->name, y->name);
}

/* Whether two names that differ are cut to the same text at width. */
static int
collide(struct cut *c, size_t n, size_t width)
{
	size_t i;

	for (i = 0; i < n; i++)
		label_shorten(c[i].name, width, c[i].text, width + 1);
	qsort(c, n, sizeof *c, cmp_cut);
	for (i = 1; i < n; i++)
		if (strcmp(c[i - 1].text, c[i].text) == 0 &&
		    strcmp(c[i - 1].name, c[i].name) != 0)
			return 1;
	return 0;
}

size_t
label_distinct_width(char *const *names, size_t n, size_t width, size_t max)
{
	struct cut *c;
	char *texts;
	size_t i;

	if (n < 2 || width >= max)
		return width;
	c = wp_xcalloc(n, sizeof *c);
	texts = wp_xcalloc(n, max + 1);
	for (i = 0; i < n; i++) {
		c[i].name = names[i];
		c[i].text = texts + i * (max + 1);
	}
	while (width < max && collide(c, n, width))
		width++;
	free(texts);
	free(c);
	return width;
}
