/* A command's options as one table: getopt_long's, and its --help. */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"
#include "util.h"

#define HELP_WIDTH	80	/* --help's lines are shorter */
#define HELP_COLUMN	30	/* an option wider than this has its own
				   line, its help below */

/* What every command takes. */
static const struct wp_opt common[] = {
	{ 'h', "-h, --help", "this help" },
	{ 'V', "-V, --version", "the version" },
	{ 0, NULL, NULL }
};

static size_t
count(const struct wp_opt *o)
{
	size_t n;

	for (n = 0; o[n].spec != NULL; n++)
		;
	return n;
}

/*
 * o's spec as getopt_long's option in lo (its name allocated, for the
 * process's life), and its short name, if any, added to so.
 */
static void
parse(const struct wp_opt *o, struct option *lo, char **so)
{
	const char *s = o->spec, *name;
	char *copy;
	size_t n;
	int letter = 0;

	if (s[0] == '-' && s[1] != '-') {
		letter = s[1];
		s += strcspn(s, " ") + 1;
	}
	name = s + 2;
	n = strcspn(name, " [");
	copy = wp_xcalloc(1, n + 1);
	memcpy(copy, name, n);
	*lo = (struct option){ copy, no_argument, NULL, o->ch };
	if (name[n] == ' ')
		lo->has_arg = required_argument;
	else if (name[n] == '[')
		lo->has_arg = optional_argument;
	if (letter == 0)
		return;
	*(*so)++ = (char)letter;
	if (lo->has_arg != no_argument)
		*(*so)++ = ':';
	if (lo->has_arg == optional_argument)
		*(*so)++ = ':';
}

int
wp_getopt(int argc, char *argv[], const struct wp_usage *u)
{
	static struct option *lo;
	static char *so;
	const struct wp_opt *o;
	size_t n;
	char *s;
	int ch;

	if (lo == NULL) {
		n = count(u->opts) + count(common) + 1;
		lo = wp_xcalloc(n, sizeof *lo);
		so = s = wp_xcalloc(n, 3);
		for (n = 0, o = u->opts; o->spec != NULL; o++)
			if (o->ch != 0)
				parse(o, &lo[n++], &s);
		for (o = common; o->spec != NULL; o++)
			parse(o, &lo[n++], &s);
	}
	ch = getopt_long(argc, argv, so, lo, NULL);
	if (ch == 'h')
		wp_usage(u, 0);
	if (ch == 'V') {
		printf("%s %s\n", u->name, WP_VERSION);
		exit(0);
	}
	if (ch == '?' || ch == ':')
		wp_usage(u, WP_EXIT_USAGE);
	return ch;
}

/* o's part of its --help line: "  -d, --duration duration". */
static size_t
label(const struct wp_opt *o, char *buf, size_t bufsz)
{
	int n;

	n = snprintf(buf, bufsz, "%s%s", o->ch == 0 || o->spec[1] != '-' ?
	    "  " : "      ", o->spec);
	if (n < 0)
		return 0;
	return (size_t)n < bufsz ? (size_t)n : bufsz - 1;
}

/* The column the help starts at: after the widest label that fits. */
static size_t
column(const struct wp_opt *o, size_t col)
{
	char buf[HELP_WIDTH];
	size_t n;

	for (; o->spec != NULL; o++)
		if ((n = label(o, buf, sizeof buf) + 2) > col &&
		    n <= HELP_COLUMN)
			col = n;
	return col;
}

/* help, its words wrapped into lines from column col on. */
static void
wrap(const char *help, size_t col)
{
	size_t at = col, w;

	while (*help != '\0') {
		w = strcspn(help, " ");
		if (at > col && at + 1 + w >= HELP_WIDTH) {
			printf("\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			putchar(' ');
			at++;
		}
		printf("%.*s", (int)w, help);
		at += w;
		help += w + strspn(help + w, " ");
	}
	putchar('\n');
}

/* A line (or more) per entry of o: its options, or its operands. */
static void
help(const struct wp_opt *o, int operands, size_t col)
{
	char buf[HELP_WIDTH];

	for (; o->spec != NULL; o++) {
		if ((o->ch == 0) != operands)
			continue;
		if (label(o, buf, sizeof buf) + 2 > col)
			printf("%s\n%*s", buf, (int)col, "");
		else
			printf("%-*s", (int)col, buf);
		wrap(o->help, col);
	}
}

void
wp_usage(const struct wp_usage *u, int status)
{
	char text[HELP_WIDTH];
	struct wp_opt file[2] = { { 0, "file", text }, { 0, NULL, NULL } };
	size_t col;

	fputs(u->usage, status ? stderr : stdout);
	if (status == 0) {
		col = column(common, column(u->opts, 0));
		putchar('\n');
		help(u->opts, 0, col);
		help(common, 0, col);
		help(u->opts, 1, col);
		if (u->stream != NULL) {
			snprintf(text, sizeof text, "the stream to %s "
			    "(default: standard input)", u->stream);
			help(file, 1, col);
		}
	}
	exit(status);
}

const char *
wp_opt_stream(int argc, char *argv[], const struct wp_usage *u)
{
	if (argc - optind > 1)
		wp_usage(u, WP_EXIT_USAGE);
	return argc - optind == 1 ? argv[optind] : NULL;
}

const char *
wp_opt_word(const char *opt, const char *arg, const char *const *words)
{
	char list[200];
	size_t i, n = 0;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(arg, words[i]) == 0)
			return arg;
	list[0] = '\0';
	for (i = 0; words[i] != NULL && n < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
		    i == 0 ? "" : words[i + 1] == NULL ? " or " : ", ",
		    words[i]);
	errx(WP_EXIT_USAGE, "%s %s: expected %s", opt, arg, list);
}

uint64_t
wp_opt_number(const char *opt, const char *arg, uint64_t min, uint64_t max,
    const char *what)
{
	uint64_t u;

	if (wp_parse_u64(arg, &u) == -1 || u < min || u > max)
		errx(WP_EXIT_USAGE, "%s %s: not %s (%ju to %ju)", opt, arg,
		    what, (uintmax_t)min, (uintmax_t)max);
	return u;
}
