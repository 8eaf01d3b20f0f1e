/*
 * The table's drawing: lines cut to the width, cells cut to fit, and
 * columns laid out in the width, the writers' names kept apart.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "util.h"

static size_t width = 100;	/* the table's columns at most */
static int nocut;		/* table_whole: lines are not cut */
static char line[MAXWIDTH + 2];
static size_t linelen;

void
table_begin(size_t columns)
{
	width = columns < 1 || columns > MAXWIDTH ? MAXWIDTH : columns;
	linelen = 0;
}

void
table_whole(int on)
{
	nocut = on;
}

size_t
table_width(void)
{
	return width;
}

/*
 * printf to the table: a line longer than the width is cut there, the
 * cut shown by a final '~'.
 */
void
out(FILE *f, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	size_t i, n;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	n = k < 0 ? 0 : (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1;
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (linelen < sizeof line - 1)
				line[linelen++] = buf[i];
			continue;
		}
		if (linelen > width && !nocut) {
			linelen = width;
			line[width - 1] = '~';
		}
		fwrite(line, 1, linelen, f);
		putc('\n', f);
		linelen = 0;
	}
}

const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Copies s into buf, cut to width with a trailing '~'. */
const char *
fit(char *buf, size_t sz, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (width >= sz)
		width = sz - 1;
	if (width == 0)
		width = 1;
	if (n <= width)
		return strcpy(buf, s);
	memcpy(buf, s, width - 1);
	buf[width - 1] = '~';
	buf[width] = '\0';
	return buf;
}

/* s for a terminal: control characters as '?'. */
const char *
printable(char *buf, size_t sz, const char *s)
{
	size_t i;

	snprintf(buf, sz, "%s", s);
	for (i = 0; buf[i] != '\0'; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	return buf;
}

size_t
least(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The columns left after fixed ones. */
size_t
room(size_t fixed)
{
	size_t lw = width < MINLAYOUT ? MINLAYOUT : width;

	return lw > fixed ? lw - fixed : 1;
}

void
need(struct col *c, size_t n)
{
	if (c->need < n)
		c->need = n;
}

/*
 * Lays out columns c[0..n), the most wanted first, in avail columns:
 * each gets its width at 100 columns (less, in proportion, when avail
 * is short), then each in turn, while its cells need more, takes what
 * is spare and what the others do not need of theirs.
 */
static void
spread(struct col *c, size_t n, size_t avail)
{
	size_t i, k, sum = 0, spare = avail, more;

	for (i = 0; i < n; i++)
		sum += c[i].def;
	for (i = 0; i < n; i++) {
		c[i].w = sum > avail ? c[i].def * avail / sum : c[i].def;
		if (c[i].w == 0)
			c[i].w = 1;
		spare -= least(spare, c[i].w);
	}
	for (i = 0; i < n; i++) {
		if (c[i].need <= c[i].w)
			continue;
		more = least(spare, c[i].need - c[i].w);
		c[i].w += more;
		spare -= more;
		for (k = 0; k < n && c[i].w < c[i].need; k++) {
			if (k == i || c[k].w <= c[k].need)
				continue;
			more = least(c[k].w - c[k].need, c[i].need - c[i].w);
			c[k].w -= more;
			c[i].w += more;
		}
	}
}

/* How wide c[0] can get, the others giving up to MINCOL each. */
static size_t
widest(const struct col *c, size_t n)
{
	size_t k, w = c[0].w;

	for (k = 1; k < n; k++)
		if (c[k].w > MINCOL)
			w += c[k].w - MINCOL;
	return w;
}

/* Widens c[0] to w, taking from the others in turn. */
static void
widen(struct col *c, size_t n, size_t w)
{
	size_t k, more;

	for (k = 1; k < n && c[0].w < w; k++) {
		if (c[k].w <= MINCOL)
			continue;
		more = least(c[k].w - MINCOL, w - c[0].w);
		c[k].w -= more;
		c[0].w += more;
	}
}

/* Lays out columns whose first holds the nn names, kept apart. */
void
layout(struct col *c, size_t n, size_t avail, char *const *names,
    size_t nn)
{
	spread(c, n, avail);
	widen(c, n, label_distinct_width(names, nn, c[0].w,
	    least(widest(c, n), c[0].need)));
}

char **
names_new(size_t n)
{
	return wp_xcalloc(n + 1, sizeof(char *));
}

void
names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* " s" on the line, or on the next, indented, when it would not fit. */
void
item(FILE *f, const char *s, size_t indent)
{
	if (linelen > indent && linelen + 1 + strlen(s) > width)
		out(f, "\n%*s", (int)indent, "");
	out(f, " %s", s);
}
