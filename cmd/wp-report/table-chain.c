/*
 * A writer's call chains in the table, a line each: hits, then the
 * callers, the innermost (with its source line) first.  A chain is kept
 * as the JSON text wp-decode wrote ({"status":..,"callers":[..]}); its
 * frames are read here, in lib's parser, as the table shows them.
 */
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* Value v as the table shows it, into buf: "-" when absent or null. */
static const char *
jtext(const struct wp_json *j, int v, char *buf, size_t sz)
{
	const char *raw;
	char *s;
	size_t n;

	if (v < 0 || j->t[v].type == WP_JNULL)
		snprintf(buf, sz, "-");
	else if (j->t[v].type == WP_JSTRING) {
		s = wp_json_strdup(j, v);
		snprintf(buf, sz, "%s", s ? s : "-");
		free(s);
	} else {
		raw = wp_json_raw(j, v, &n);
		snprintf(buf, sz, "%.*s", (int)n, raw);
	}
	return buf;
}

/* Member k of object o, or -1. */
static int
member(const struct wp_json *j, int o, const char *k)
{
	return o >= 0 && j->t[o].type == WP_JOBJECT ? wp_json_get(j, o, k) :
	    -1;
}

static int
present(const struct wp_json *j, int v)
{
	return v >= 0 && j->t[v].type != WP_JNULL;
}

/* A frame's "file:line", the file's base name, or "-". */
static void
frame_source(const struct wp_json *j, int src, char *buf, size_t sz)
{
	char file[512], line[64];

	if (src < 0 || j->t[src].type != WP_JOBJECT)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%s:%s", base(jtext(j, member(j, src,
		    "file"), file, sizeof file)), jtext(j, member(j, src,
		    "line"), line, sizeof line));
}

/* A caller: the functions inlined at the call, marked, then its symbol,
 * else module+0xOFF, else its address. */
static void
frame_label(const struct wp_json *j, int fr, char *buf, size_t sz)
{
	int inl = member(j, fr, "inlined"), x;
	char a[512], b[512];
	size_t n = 0;
	int k;

	if (inl >= 0 && j->t[inl].type == WP_JARRAY)
		for (x = wp_json_first(j, inl); x >= 0 && n < sz;
		    x = wp_json_next(j, inl, x)) {
			k = snprintf(buf + n, sz - n, "%s (inline) < ",
			    jtext(j, x, a, sizeof a));
			n += k > 0 ? (size_t)k : 0;
		}
	if (n >= sz)
		return;
	buf += n;
	sz -= n;
	if (present(j, member(j, fr, "symbol")))
		jtext(j, member(j, fr, "symbol"), buf, sz);
	else if (present(j, member(j, fr, "module")) &&
	    present(j, member(j, fr, "static_ip")))
		snprintf(buf, sz, "%s+%s", base(jtext(j, member(j, fr,
		    "module"), a, sizeof a)), jtext(j, member(j, fr,
		    "static_ip"), b, sizeof b));
	else if (j->t[fr].type == WP_JSTRING)
		jtext(j, fr, buf, sz);
	else
		jtext(j, member(j, fr, "ip"), buf, sz);
}

/* The chain's callers after its status, when that is not complete. */
static void
chain_line(const struct wp_json *j, char *line, size_t sz)
{
	int callers = member(j, 0, "callers"), fr, len = 0;
	char b[512], src[512];
	size_t k = 0;

	jtext(j, member(j, 0, "status"), b, sizeof b);
	if (strcmp(b, "complete") != 0)
		len = snprintf(line, sz, "[%s] ", b);
	fr = callers >= 0 && j->t[callers].type == WP_JARRAY ?
	    wp_json_first(j, callers) : -1;
	for (; fr >= 0 && len < (int)sz - 1;
	    fr = wp_json_next(j, callers, fr), k++) {
		frame_label(j, fr, b, sizeof b);
		len += snprintf(line + len, sz - (size_t)len, "%s%s",
		    k ? " < " : "by ", b);
		if (k == 0 && present(j, member(j, fr, "source")) &&
		    len < (int)sz - 1) {
			frame_source(j, member(j, fr, "source"), src,
			    sizeof src);
			len += snprintf(line + len, sz - (size_t)len, " (%s)",
			    src);
		}
	}
	if (k == 0 && len < (int)sz - 1)
		snprintf(line + len, sz - (size_t)len, "no callers");
}

void
table_chains(const struct rsite *s, FILE *f)
{
	struct wp_json j = { 0 };
	char line[1024];
	size_t i;

	for (i = 0; i < s->nshown; i++) {
		line[0] = '\0';
		if (wp_json_parse(&j, s->shown[i]->text,
		    strlen(s->shown[i]->text)) == 0)
			chain_line(&j, line, sizeof line);
		out(f, "  %9s  %9llu  %s\n", "",
		    (unsigned long long)s->shown[i]->hits, line);
	}
	wp_json_free(&j);
	if (s->chains.n > 0 || s->chains_other > 0) {
		if (s->chains_rest > 0)
			out(f, "  %9s  %9llu  in other call chains\n", "",
			    (unsigned long long)s->chains_rest);
		if (s->chains_none > 0)
			out(f, "  %9s  %9llu  without a call chain (not "
			    "sampled)\n", "", (unsigned long long)s->chains_none);
	}
}
