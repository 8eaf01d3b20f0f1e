/* Parsing the address forms of wp-resolve. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "util.h"

/* 0xHEX, or 0xHEX+OFF (OFF decimal or 0xHEX): the sum. */
static int
parse_hex(const char *s, uint64_t *v)
{
	const char *plus = strchr(s, '+');
	uint64_t off = 0;

	if (plus == NULL)
		plus = s + strlen(s);
	else if (wp_parse_u64(plus + 1, &off) == -1)
		return -1;
	if (wp_parse_hexn(s, (size_t)(plus - s), v) == -1 || *v + off < *v)
		return -1;
	*v += off;
	return 0;
}

static int
is_symchar(int c)
{
	/* '-' for module names: mt-writer+0x40, ld-linux-x86-64.so.2 */
	return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@' ||
	    c == '-';
}

int
addr_parse(const char *s, struct addr *a, char *err, size_t errsz)
{
	const char *colon, *plus, *sym;
	char *tmp;
	size_t i;

	memset(a, 0, sizeof *a);
	if (*s == '\0') {
		snprintf(err, errsz, "empty address");
		return -1;
	}
	if (strncmp(s, "static:", 7) == 0) {
		a->kind = ADDR_STATIC;
		if (parse_hex(s + 7, &a->value) == -1) {
			snprintf(err, errsz, "static address must be 0xHEX "
			    "or 0xHEX+OFF");
			return -1;
		}
		return 0;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		a->kind = ADDR_RUNTIME;
		if (parse_hex(s, &a->value) == -1) {
			snprintf(err, errsz, "not a hex address (0xHEX or "
			    "0xHEX+OFF)");
			return -1;
		}
		return 0;
	}
	if (isdigit((unsigned char)s[0])) {
		snprintf(err, errsz, "addresses are written 0xHEX");
		return -1;
	}
	a->kind = ADDR_SYMBOL;
	colon = strrchr(s, ':');
	sym = s;
	if (colon != NULL) {
		if (colon == s || colon[1] == '\0') {
			snprintf(err, errsz, "expected MODULE:SYMBOL");
			return -1;
		}
		a->module = wp_xcalloc(1, (size_t)(colon - s) + 1);
		memcpy(a->module, s, (size_t)(colon - s));
		sym = colon + 1;
		if (sym[0] == '0' && (sym[1] == 'x' || sym[1] == 'X')) {
			/* MODULE:0xHEX, a static address in MODULE */
			a->kind = ADDR_STATIC;
			if (parse_hex(sym, &a->value) == -1) {
				snprintf(err, errsz, "not a hex address (0xHEX or "
				    "0xHEX+OFF)");
				addr_free(a);
				return -1;
			}
			return 0;
		}
	}
	plus = strchr(sym, '+');
	tmp = wp_xstrdup(sym);
	if (plus != NULL) {
		a->has_off = 1;
		tmp[plus - sym] = '\0';
		if (wp_parse_s64(plus + 1, &a->off) == -1 || plus[1] == '-') {
			snprintf(err, errsz, "bad offset '%s'", plus + 1);
			free(tmp);
			addr_free(a);
			return -1;
		}
	}
	for (i = 0; tmp[i] != '\0'; i++)
		if (!is_symchar((unsigned char)tmp[i]))
			break;
	if (tmp[0] == '\0' || tmp[0] == '-' || tmp[i] != '\0') {
		snprintf(err, errsz, "not an address or symbol name");
		free(tmp);
		addr_free(a);
		return -1;
	}
	a->symbol = tmp;
	return 0;
}

void
addr_free(struct addr *a)
{
	free(a->module);
	free(a->symbol);
	a->module = a->symbol = NULL;
}

/* "[X]", "[X]+OFF", "[X]-OFF": returns the offset, *inner the X text. */
static int
bracket(const char *s, size_t len, char **inner, int64_t *off, char *err,
    size_t errsz)
{
	size_t i, close = 0;
	int depth = 0;
	char *tail;

	for (i = 0; i < len; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && --depth == 0) {
			close = i;
			break;
		}
	}
	if (depth != 0 || close == 0) {
		snprintf(err, errsz, "unbalanced brackets");
		return -1;
	}
	*off = 0;
	if (close + 1 < len) {
		tail = wp_xcalloc(1, len - close);
		memcpy(tail, s + close + 1, len - close - 1);
		if ((tail[0] != '+' && tail[0] != '-') ||
		    wp_parse_s64(tail, off) == -1) {
			snprintf(err, errsz, "bad offset '%s' after ]", tail);
			free(tail);
			return -1;
		}
		free(tail);
	}
	*inner = wp_xcalloc(1, close);
	memcpy(*inner, s + 1, close - 1);
	return 0;
}

int
addr_follow_parse(const char *s, struct follow *f, char *err,
    size_t errsz)
{
	int64_t stack[WP_CHAIN_MAXDEPTH];
	size_t n = 0, i;
	char *cur, *inner, *plus;
	int64_t off;
	int rc;

	memset(f, 0, sizeof *f);
	if (s[0] != '[') {
		/* Short form SLOT+OFF is [SLOT]+OFF. */
		if ((plus = strrchr(s, '+')) == NULL || plus == s) {
			snprintf(err, errsz,
			    "expected SLOT+OFF or [SLOT]+OFF");
			return -1;
		}
		if (wp_parse_s64(plus + 1, &f->offs[0]) == -1) {
			snprintf(err, errsz, "bad offset '%s'", plus + 1);
			return -1;
		}
		f->noffs = 1;
		cur = wp_xcalloc(1, (size_t)(plus - s) + 1);
		memcpy(cur, s, (size_t)(plus - s));
		rc = addr_parse(cur, &f->slot, err, errsz);
		free(cur);
		return rc;
	}
	cur = wp_xstrdup(s);
	while (cur[0] == '[') {
		if (n == WP_CHAIN_MAXDEPTH) {
			snprintf(err, errsz, "more than %d levels",
			    WP_CHAIN_MAXDEPTH);
			free(cur);
			return -1;
		}
		if (bracket(cur, strlen(cur), &inner, &off, err, errsz) == -1) {
			free(cur);
			return -1;
		}
		stack[n++] = off;
		free(cur);
		cur = inner;
	}
	rc = addr_parse(cur, &f->slot, err, errsz);
	free(cur);
	if (rc == -1)
		return -1;
	/* Innermost bracket is dereferenced first. */
	for (i = 0; i < n; i++)
		f->offs[i] = stack[n - 1 - i];
	f->noffs = n;
	return 0;
}
