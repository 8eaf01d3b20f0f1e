/*
 * A writer's call chains in the table, a line each: hits, then the
 * callers, the innermost (with its source line) first.
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "table.h"

/* A chain shown ended outside executable code (its note, once). */
static int outside_shown;
/* A frame-pointer chain shown had no callers (its note, once). */
static int fp_none_shown;

/* A frame's "file:line", the file's base name. */
static void
frame_source(const struct wp_frame_in *fr, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s:%lld", base(fr->source_file),
	    (long long)fr->source_line);
}

/* A caller: the functions inlined at the call, marked, then its symbol,
 * else module+0xOFF, else its address. */
static void
frame_label(const struct wp_frame_in *fr, char *buf, size_t sz)
{
	size_t i, n = 0;
	int k;

	for (i = 0; i < fr->ninlined && n < sz; i++) {
		k = snprintf(buf + n, sz - n, "%s (inline) < ", fr->inlined[i]);
		n += k > 0 ? (size_t)k : 0;
	}
	if (n >= sz)
		return;
	buf += n;
	sz -= n;
	if (fr->symbol != NULL)
		label_symbol(fr->module, fr->symbol, buf, sz);
	else if (fr->module != NULL && fr->static_ip != NULL)
		snprintf(buf, sz, "%s+%s", base(fr->module), fr->static_ip);
	else
		snprintf(buf, sz, "%s", fr->ip ? fr->ip : "-");
}

/* The callers after the chain's status, when that is not complete. */
static void
chain_line(const struct rchain *c, char *line, size_t sz)
{
	const struct wp_frame_in *fr = c->fr;
	char b[512], src[512];
	size_t k, n = c->nfr;
	int len = 0;

	snprintf(b, sizeof b, "%s", c->status[0] ? c->status : "-");
	if (strcmp(b, "complete") != 0)
		len = snprintf(line, sz, "[%s] ", b);
	if (strcmp(b, "outside_code") == 0)
		outside_shown = 1;
	for (k = 0; k < n && len < (int)sz - 1; k++) {
		frame_label(&fr[k], b, sizeof b);
		len += snprintf(line + len, sz - (size_t)len, "%s%s",
		    k ? " < " : "by ", b);
		if (k == 0 && fr[k].source_file != NULL &&
		    len < (int)sz - 1) {
			frame_source(&fr[k], src, sizeof src);
			len += snprintf(line + len, sz - (size_t)len, " (%s)",
			    src);
		}
	}
	if (n == 0) {
		snprintf(line + len, sz - (size_t)len, "no callers");
		fp_none_shown |= strcmp(b, "frame_pointers") == 0;
	}
}

void
table_chains(const struct rsite *s, FILE *f)
{
	char line[1024];
	size_t i;

	for (i = 0; i < s->nshown; i++) {
		line[0] = '\0';
		chain_line(s->shown[i], line, sizeof line);
		out(f, "  %9s  %9llu  %s\n", "",
		    (unsigned long long)s->shown[i]->hits, line);
	}
	if (s->chains.n > 0 || s->chains_other > 0) {
		if (s->chains_rest > 0)
			out(f, "  %9s  %9llu  in other call chains\n", "",
			    (unsigned long long)s->chains_rest);
		if (s->chains_none > 0)
			out(f, "  %9s  %9llu  without a call chain (not "
			    "sampled)\n", "",
			    (unsigned long long)s->chains_none);
	}
}

void
table_chain_notes(const char *callchain, FILE *f)
{
	int kernel_fp;

	/* Debian's code keeps no frame pointers: the kernel's walk stops
	   at the writer */
	if (fp_none_shown)
		out(f, "\nnote     no callers: the frame pointers ended at the "
		    "writer (code built without them,\n         as Debian's "
		    "is); --callchain dwarf unwinds with the modules' call "
		    "frame information\n");
	fp_none_shown = 0;
	if (!outside_shown)
		return;
	outside_shown = 0;
	/* the armed record's: the kernel walked frame pointers */
	kernel_fp = callchain != NULL && strcmp(callchain, "fp") == 0;
	out(f, "\nnote     outside_code: a chain stopped at a return address "
	    "outside executable code (dropped):\n%s\n", kernel_fp ?
	    "         frame pointers walked through a function built without "
	    "them; --callchain dwarf\n         unwinds with the modules' call "
	    "frame information" : "         a function without call frame "
	    "information, whose frame pointer libdw walked");
}
