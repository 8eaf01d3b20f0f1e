/*
 * The --if condition: a recursive-descent parser over a small tokenizer
 * (cond.h has the grammar), a tree of nodes in one array, and its
 * evaluation at each write.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "dwfl.h"
#include "proc.h"
#include "util.h"
#include "x86.h"

enum kind {
	K_OR, K_AND, K_NOT, K_CHANGED, K_UNCHANGED, K_VALUE, K_TID, K_COMM,
	K_WRITER, K_ADDR
};
/* what a writer test compares to */
enum where { W_ADDR, W_FUNC, W_MODOFF, W_MODULE };

struct node {
	enum kind	 kind;
	int		 a, b;		/* operands of or, and, not */
	enum wp_cmp	 cmp;
	int		 has_mask;	/* value & mask [cmp num] */
	uint64_t	 mask;
	int		 has_num;
	uint64_t	 num;
	int		 neg;		/* num is -num */
	int		 negate;	/* writer != / not in */
	enum where	 where;
	char		*name;		/* comm, function, module */
	uint64_t	 off;		/* MODULE+0xOFF */
	int		 bound;
	uint64_t	 lo, hi;	/* [lo, hi) once bound */
	int		 trap_bound;
	uint64_t	 tlo, thi;	/* the trap IPs of its writes */
};

struct wp_cond {
	struct node	*n;
	size_t		 nn;
	int		 root;
	char		*text;
	unsigned	 uses;
};

/* The parser: text, where it is, and the token there. */
enum tok { T_END, T_LP, T_RP, T_NOT, T_AND, T_OR, T_AMP, T_CMP, T_WORD,
	T_BAD };
struct parser {
	const char	*s;
	size_t		 pos;		/* of the token */
	size_t		 len;
	enum tok	 tok;
	enum wp_cmp	 cmp;
	struct wp_cond	*c;
	struct wp_error	*e;
};

static int
wordch(int ch)
{
	return ch != '\0' && (isalnum(ch) || strchr("_.$@/+-:~", ch) != NULL);
}

/* The operators, longest first. */
static const struct { const char *s; enum tok t; enum wp_cmp c; } ops[] = {
	{ "==", T_CMP, WP_CMP_EQ }, { "!=", T_CMP, WP_CMP_NE },
	{ "<=", T_CMP, WP_CMP_LE }, { ">=", T_CMP, WP_CMP_GE },
	{ "&&", T_AND, 0 }, { "||", T_OR, 0 },
	{ "<", T_CMP, WP_CMP_LT }, { ">", T_CMP, WP_CMP_GT }, { "&", T_AMP, 0 },
	{ "!", T_NOT, 0 }, { "(", T_LP, 0 }, { ")", T_RP, 0 }
};

/* Moves to the next token. */
static void
next(struct parser *p)
{
	const char *s;
	size_t i;

	p->pos += p->len;
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
	s = p->s + p->pos;
	p->len = 0;
	if (*s == '\0') {
		p->tok = T_END;
		return;
	}
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strncmp(s, ops[i].s, strlen(ops[i].s)) == 0) {
			p->tok = ops[i].t;
			p->cmp = ops[i].c;
			p->len = strlen(ops[i].s);
			return;
		}
	while (wordch((unsigned char)s[p->len]))
		p->len++;
	p->tok = p->len > 0 ? T_WORD : T_BAD;
	if (p->tok == T_BAD)
		p->len = 1;
	if (p->tok == T_WORD && ((p->len == 3 && strncmp(s, "and", 3) == 0) ||
	    (p->len == 2 && strncmp(s, "or", 2) == 0) ||
	    (p->len == 3 && strncmp(s, "not", 3) == 0)))
		p->tok = s[0] == 'a' ? T_AND : s[0] == 'o' ? T_OR : T_NOT;
}

/* An error at the current token: -1. */
static int
fail(struct parser *p, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return wp_error_set(p->e, WP_EXIT_MALFORMED, "column %zu: %s",
	    p->pos + 1, msg);
}

static int
is_word(const struct parser *p, const char *w)
{
	return p->tok == T_WORD && p->len == strlen(w) &&
	    strncmp(p->s + p->pos, w, p->len) == 0;
}

/* The current token's text, allocated. */
static char *
word(const struct parser *p)
{
	return strndup(p->s + p->pos, p->len);
}

static int
add(struct parser *p, enum kind k)
{
	struct wp_cond *c = p->c;

	c->n = wp_xrealloc(c->n, (c->nn + 1) * sizeof *c->n);
	memset(&c->n[c->nn], 0, sizeof c->n[c->nn]);
	c->n[c->nn].kind = k;
	return (int)c->nn++;
}

/* A number, optionally negative, at the current token into node n. */
static int
number(struct parser *p, uint64_t *v, int *neg)
{
	char *s;
	int rc;

	if (p->tok != T_WORD)
		return fail(p, "expected a number");
	s = word(p);
	*neg = s[0] == '-';
	rc = wp_parse_u64(s + *neg, v);
	if (rc == -1) {
		fail(p, "bad number '%s' (decimal, or hex with 0x)", s);
		free(s);
		return -1;
	}
	free(s);
	next(p);
	return 0;
}

/* CMP NUM into node n. */
static int
compare(struct parser *p, int n)
{
	if (p->tok != T_CMP)
		return fail(p, "expected ==, !=, <, <=, > or >=");
	p->c->n[n].cmp = p->cmp;
	next(p);
	p->c->n[n].has_num = 1;
	return number(p, &p->c->n[n].num, &p->c->n[n].neg);
}

static int
value_test(struct parser *p, int n)
{
	struct node *d = &p->c->n[n];
	int neg;

	p->c->uses |= WP_COND_VALUE;
	if (p->tok == T_AMP) {
		next(p);
		d->has_mask = 1;
		if (number(p, &d->mask, &neg) == -1)
			return -1;
		if (neg)
			d->mask = -d->mask;
		return p->tok == T_CMP ? compare(p, n) : 0;
	}
	if (p->tok != T_CMP)
		return fail(p, "expected ==, !=, <, <=, >, >= or & after "
		    "'value'");
	return compare(p, n);
}

/* WHERE after writer == or !=: 0xADDR, MODULE+0xOFF or FUNCTION. */
static int
writer_where(struct parser *p, struct node *d)
{
	char *s, *plus;
	int neg;

	if (p->tok != T_WORD)
		return fail(p, "expected a function, MODULE+0xOFF or 0xADDR");
	s = word(p);
	if (isdigit((unsigned char)s[0]) || s[0] == '-') {
		free(s);
		d->where = W_ADDR;
		if (number(p, &d->lo, &neg) == -1)
			return -1;
		if (neg)
			return fail(p, "a writer's address is not negative");
		d->hi = d->lo + 1;
		d->bound = 1;
		return 0;
	}
	d->name = s;
	d->where = W_FUNC;
	if ((plus = strrchr(s, '+')) != NULL && plus != s) {
		if (wp_parse_u64(plus + 1, &d->off) == -1)
			return fail(p, "bad offset '%s' in '%s' (MODULE+0xOFF)",
			    plus + 1, s);
		*plus = '\0';
		d->where = W_MODOFF;
	}
	next(p);
	return 0;
}

static int
writer_test(struct parser *p, int n)
{
	struct node *d = &p->c->n[n];

	p->c->uses |= WP_COND_WRITER;
	if (p->tok == T_NOT || is_word(p, "in")) {
		d->negate = p->tok == T_NOT;
		if (d->negate)
			next(p);
		if (!is_word(p, "in"))
			return fail(p, "expected 'in' after 'writer not'");
		next(p);
		if (p->tok != T_WORD)
			return fail(p, "expected a module after 'in'");
		d->where = W_MODULE;
		d->name = word(p);
		next(p);
		return 0;
	}
	if (p->tok != T_CMP || (p->cmp != WP_CMP_EQ && p->cmp != WP_CMP_NE))
		return fail(p, "expected ==, != or in after 'writer'");
	d->negate = p->cmp == WP_CMP_NE;
	next(p);
	return writer_where(p, d);
}

static int
comm_test(struct parser *p, int n)
{
	struct node *d = &p->c->n[n];

	p->c->uses |= WP_COND_THREAD | WP_COND_COMM;
	if (p->tok != T_CMP || (p->cmp != WP_CMP_EQ && p->cmp != WP_CMP_NE))
		return fail(p, "expected == or != after 'comm'");
	d->negate = p->cmp == WP_CMP_NE;
	next(p);
	if (p->tok != T_WORD)
		return fail(p, "expected a thread name after 'comm'");
	d->name = word(p);
	next(p);
	return 0;
}

/* A test: a field and what it is compared to. */
static int
test(struct parser *p)
{
	static const struct { const char *w; enum kind k; } fields[] = {
		{ "changed", K_CHANGED }, { "unchanged", K_UNCHANGED },
		{ "value", K_VALUE }, { "tid", K_TID }, { "comm", K_COMM },
		{ "writer", K_WRITER }, { "addr", K_ADDR }
	};
	size_t i;
	char *w;
	int n, rc = 0;

	if (p->tok == T_END)
		return fail(p, "the expression ends where a test was expected");
	if (p->tok != T_WORD)
		return fail(p, "expected a test (value, changed, unchanged, "
		    "writer, tid, comm, addr) or '('");
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (is_word(p, fields[i].w))
			break;
	if (i == sizeof fields / sizeof fields[0]) {
		w = word(p);
		fail(p, "unknown field '%s' (value, changed, unchanged, "
		    "writer, tid, comm, addr)", w);
		free(w);
		return -1;
	}
	n = add(p, fields[i].k);
	next(p);
	switch (fields[i].k) {
	case K_CHANGED:
	case K_UNCHANGED:
		p->c->uses |= WP_COND_VALUE | WP_COND_PREV;
		break;
	case K_VALUE:
		rc = value_test(p, n);
		break;
	case K_TID:
		p->c->uses |= WP_COND_THREAD;
		rc = compare(p, n);
		break;
	case K_COMM:
		rc = comm_test(p, n);
		break;
	case K_ADDR:
		p->c->uses |= WP_COND_ADDR;
		rc = compare(p, n);
		break;
	default:
		rc = writer_test(p, n);
	}
	return rc == -1 ? -1 : n;
}

static int expr(struct parser *);

/* A node of kind k over operands a and b: its index. */
static int
join(struct parser *p, enum kind k, int a, int b)
{
	int n = add(p, k);

	p->c->n[n].a = a;
	p->c->n[n].b = b;
	return n;
}

static int
unary(struct parser *p)
{
	size_t open;
	int n, a;

	if (p->tok == T_NOT) {
		next(p);
		return (a = unary(p)) == -1 ? -1 : join(p, K_NOT, a, 0);
	}
	if (p->tok != T_LP)
		return test(p);
	open = p->pos;
	next(p);
	if ((n = expr(p)) == -1)
		return -1;
	if (p->tok != T_RP) {
		if (p->tok != T_END)
			return fail(p, "expected ')' or an operator");
		p->pos = open;
		return fail(p, "'(' is not closed");
	}
	next(p);
	return n;
}

/* Operands of op (T_AND or T_OR) joined, each parsed by sub. */
static int
chain(struct parser *p, enum tok op, enum kind k, int (*sub)(struct parser *))
{
	int a, b;

	if ((a = sub(p)) == -1)
		return -1;
	while (p->tok == op) {
		next(p);
		if ((b = sub(p)) == -1)
			return -1;
		a = join(p, k, a, b);
	}
	return a;
}

static int
conjunction(struct parser *p)
{
	return chain(p, T_AND, K_AND, unary);
}

static int
expr(struct parser *p)
{
	return chain(p, T_OR, K_OR, conjunction);
}

int
wp_cond_parse(const char *text, struct wp_cond **cp, struct wp_error *e)
{
	struct parser p;
	struct wp_cond *c = wp_xcalloc(1, sizeof *c);
	size_t b, n;

	memset(&p, 0, sizeof p);
	p.s = text;
	p.c = c;
	p.e = e;
	next(&p);
	if ((c->root = expr(&p)) != -1 && p.tok != T_END)
		c->root = fail(&p, p.tok == T_RP ? "')' without '('" :
		    "expected and, or or the end");
	if (c->root == -1) {
		wp_cond_free(c);
		return -1;
	}
	for (b = 0; isspace((unsigned char)text[b]); b++)
		;
	for (n = strlen(text); n > b && isspace((unsigned char)text[n - 1]);
	    n--)
		;
	c->text = strndup(text + b, n - b);
	*cp = c;
	return 0;
}

const char *
wp_cond_text(const struct wp_cond *c)
{
	return c->text;
}

unsigned
wp_cond_uses(const struct wp_cond *c)
{
	return c->uses;
}

void
wp_cond_free(struct wp_cond *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nn; i++)
		free(c->n[i].name);
	free(c->n);
	free(c->text);
	free(c);
}

/* Binds node d, a writer test by name, in d's process. */
static int
bind(struct node *n, struct wp_dwfl *d, struct wp_error *e)
{
	struct wp_func f;
	uint64_t start, end, bias;

	if (n->where == W_FUNC) {
		if (wp_dwfl_func_named(d, n->name, &f) == -1)
			return wp_error_set(e, WP_EXIT_ERROR, "writer == %s: no "
			    "function of that name in the process (a "
			    "module's offset is MODULE+0xOFF)", n->name);
		n->lo = f.addr;
		n->hi = f.addr + f.size;
	} else {
		if (wp_dwfl_module_named(d, n->name, &start, &end, &bias) == -1)
			return wp_error_set(e, WP_EXIT_ERROR, "writer %s %s: no "
			    "module of that name in the process", n->negate ?
			    (n->where == W_MODULE ? "not in" : "!=") :
			    (n->where == W_MODULE ? "in" : "=="), n->name);
		n->lo = n->where == W_MODULE ? start : bias + n->off;
		n->hi = n->where == W_MODULE ? end : n->lo + 1;
	}
	n->bound = 1;
	return 0;
}

int
wp_cond_resolve(struct wp_cond *c, struct wp_dwfl *d, struct wp_error *e)
{
	size_t i;

	for (i = 0; i < c->nn; i++)
		if (c->n[i].kind == K_WRITER && c->n[i].where != W_ADDR &&
		    bind(&c->n[i], d, e) == -1)
			return -1;
	return 0;
}

/*
 * The trap IPs of writes by node n's writers: after each instruction of
 * a range, or after the one instruction (a rep string store also traps
 * on itself, between its iterations).
 */
static int
bind_trap(struct node *n, int memfd, struct wp_error *e)
{
	struct wp_x86_insn in;
	uint8_t code[16];

	if (n->where == W_FUNC || n->where == W_MODULE) {
		n->tlo = n->lo + 1;
		n->thi = n->hi + 1;
	} else {
		if (wp_proc_read(memfd, n->lo, code, sizeof code) == -1 ||
		    wp_x86_decode(code, sizeof code, n->lo, &in) == -1)
			return wp_error_set(e, WP_EXIT_ERROR, "writer %s 0x%llx: "
			    "no instruction can be read there", n->negate ?
			    "!=" : "==", (unsigned long long)n->lo);
		n->tlo = in.rep && in.kind == WP_X86_STRING ? n->lo :
		    n->lo + (uint64_t)in.size;
		n->thi = n->lo + (uint64_t)in.size + 1;
	}
	n->trap_bound = 1;
	return 0;
}

int
wp_cond_resolve_traps(struct wp_cond *c, int memfd, struct wp_error *e)
{
	size_t i;

	for (i = 0; i < c->nn; i++)
		if (c->n[i].kind == K_WRITER && c->n[i].bound &&
		    bind_trap(&c->n[i], memfd, e) == -1)
			return -1;
	return 0;
}

/* num truncated to width bytes, a negative one as two's complement. */
static uint64_t
at_width(uint64_t num, int neg, size_t width)
{
	uint64_t v = neg ? -num : num;

	return width >= 8 ? v : v & ((1ULL << (8 * width)) - 1);
}

static int
eval(const struct wp_cond *c, int i, const struct wp_cond_write *w)
{
	const struct node *d = &c->n[i];
	uint64_t v;

	switch (d->kind) {
	case K_OR:
		return eval(c, d->a, w) || eval(c, d->b, w);
	case K_AND:
		return eval(c, d->a, w) && eval(c, d->b, w);
	case K_NOT:
		return !eval(c, d->a, w);
	case K_CHANGED:
	case K_UNCHANGED:
		return w->has_value && w->has_prev &&
		    (w->value != w->prev) == (d->kind == K_CHANGED);
	case K_VALUE:
		if (!w->has_value)
			return 0;
		v = d->has_mask ? w->value & d->mask : w->value;
		if (!d->has_num)
			return v != 0;
		return wp_cmp_holds(v, d->cmp,
		    at_width(d->num, d->neg, w->width));
	case K_TID:
		return wp_cmp_holds((uint64_t)w->tid, d->cmp,
		    at_width(d->num, d->neg, sizeof w->tid));
	case K_COMM:
		return w->comm != NULL &&
		    (strcmp(w->comm, d->name) == 0) != d->negate;
	case K_ADDR:
		return w->has_addr && wp_cmp_holds(w->addr, d->cmp,
		    at_width(d->num, d->neg, 8));
	default:
		if (w->has_writer)
			return d->bound && (w->writer_ip >= d->lo &&
			    w->writer_ip < d->hi) != d->negate;
		return w->has_trap && d->trap_bound && (w->trap_ip >= d->tlo &&
		    w->trap_ip < d->thi) != d->negate;
	}
}

/* Node i and its operands as postfix ops from ops[n]: the next n. */
static size_t
compile(const struct wp_cond *c, int i, size_t width, struct wp_cond_op *ops,
    size_t n, size_t max)
{
	static const uint32_t kop[] = { [K_OR] = WP_COP_OR,
	    [K_AND] = WP_COP_AND, [K_NOT] = WP_COP_NOT,
	    [K_CHANGED] = WP_COP_CHANGED, [K_UNCHANGED] = WP_COP_UNCHANGED,
	    [K_VALUE] = WP_COP_VALUE, [K_TID] = WP_COP_TID,
	    [K_COMM] = WP_COP_COMM, [K_WRITER] = WP_COP_TRAP,
	    [K_ADDR] = WP_COP_FALSE };
	const struct node *d = &c->n[i];
	struct wp_cond_op *o;

	if (d->kind == K_OR || d->kind == K_AND || d->kind == K_NOT)
		n = compile(c, d->a, width, ops, n, max);
	if (d->kind == K_OR || d->kind == K_AND)
		n = compile(c, d->b, width, ops, n, max);
	if (n >= max)
		return max + 1;
	o = &ops[n];
	memset(o, 0, sizeof *o);
	o->op = kop[d->kind];
	o->cmp = (uint32_t)d->cmp;
	o->negate = (uint32_t)d->negate;
	if (d->kind == K_VALUE) {
		o->a = d->has_mask ? d->mask : ~0ULL;
		o->b = at_width(d->num, d->neg, width);
		o->cmp = d->has_num ? o->cmp : WP_CMP_TRUE;
	} else if (d->kind == K_TID)
		o->b = at_width(d->num, d->neg, sizeof(pid_t));
	else if (d->kind == K_COMM)
		snprintf(o->name, sizeof o->name, "%s", d->name);
	else if (d->kind == K_WRITER && !d->trap_bound)
		o->op = WP_COP_FALSE;
	else if (d->kind == K_WRITER) {
		o->a = d->tlo;
		o->b = d->thi;
	}
	return n + 1;
}

size_t
wp_cond_compile(const struct wp_cond *c, size_t width, struct wp_cond_op *ops,
    size_t max)
{
	size_t n = compile(c, c->root, width, ops, 0, max);

	return n > max ? 0 : n;
}

int
wp_cond_eval(const struct wp_cond *c, const struct wp_cond_write *w)
{
	return eval(c, c->root, w);
}
