/*
 * The table's parts: its drawing (layout.c), the process and the watch
 * (table.c), and per target its writers, threads and samples
 * (table-watch.c) with their call chains (table-chain.c).  Lines are
 * written through out(), which keeps the line being written until its
 * newline, then cuts it to the width.
 */
#ifndef WPREPORT_TABLE_H
#define WPREPORT_TABLE_H

#include <stdio.h>

#include "report.h"

#define MAXWIDTH	1024	/* the widest table */
#define MINLAYOUT	60	/* columns are laid out for at least this */
#define MINCOL		8	/* a column given up to a writer's name */

/* A column: its width at 100 columns, what its cells need, its width. */
struct col {
	size_t		 def, need, w;
};

/* layout.c */
/* Starts a table of width columns (1 to MAXWIDTH; 0: MAXWIDTH, a file
   or a pipe, where lines get the width they need). */
void	 table_begin(size_t width);
size_t	 table_width(void);
/* While on, lines are not cut to the width (what must be read whole). */
void	 table_whole(int on);
/* printf to the table: a line longer than the width is cut there, the
   cut shown by a final '~'. */
void	 out(FILE *f, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* " s" on the line, or on the next, indented, when it would not fit. */
void	 item(FILE *f, const char *s, size_t indent);
/* The base name of path p (in p). */
const char *base(const char *p);
/* s into buf, cut to width with a trailing '~'; returns buf. */
const char *fit(char *buf, size_t sz, const char *s, size_t width);
/* s into buf for a terminal, control characters as '?'; returns buf. */
const char *printable(char *buf, size_t sz, const char *s);
size_t	 least(size_t a, size_t b);
/* The columns left after fixed ones. */
size_t	 room(size_t fixed);
/* Column c needs n at least. */
void	 need(struct col *c, size_t n);
/* Lays out columns c[0..n) in avail, c[0] holding the nn names apart. */
void	 layout(struct col *c, size_t n, size_t avail, char *const *names,
	    size_t nn);
/* n names (the caller fills them with allocated strings), and free. */
char	**names_new(size_t n);
void	 names_free(char **names, size_t n);

/* table-watch.c: a target's section, and a follow chain's writers */
void	 table_watch(const struct report *r, const struct rtarget *t,
	    FILE *f);
void	 table_leaf_writers(const struct rtarget *t, FILE *f);
/* Of a conditioned target (or leaf): "N tallied by writer; M matched
   --if 'EXPR'" (split: what follows N) */
void	 table_matched(const struct report *r, const struct rtarget *t,
	    const char *split, FILE *f);
/* The last writes of each target (last.c), the table's first section. */
void	 table_last(const struct report *r, FILE *f);

/* table-chain.c: the site's call chains shown, a line each */
void	 table_chains(const struct rsite *s, FILE *f);
/* After the sections: what the chains shown tell (r's notes), once. */
void	 table_chain_notes(const struct report *r, FILE *f);

#endif
