/*
 * cond: the condition of wp-arm --if, parsed once and evaluated at each
 * write.  The grammar (wp-arm(1), CONDITIONS):
 *
 *	expr	:= and { ("or" | "||") and }
 *	and	:= unary { ("and" | "&&") unary }
 *	unary	:= ("not" | "!") unary | "(" expr ")" | test
 *	test	:= "changed" | "unchanged"
 *		 | "value" CMP NUM | "value" "&" NUM [CMP NUM]
 *		 | "tid" CMP NUM | "comm" ("==" | "!=") NAME
 *		 | "writer" ("==" | "!=") WHERE | "writer" ["not"] "in" NAME
 *		 | "addr" CMP NUM
 *	WHERE	:= FUNCTION | MODULE+0xOFF | 0xADDR
 *	CMP	:= "==" | "!=" | "<" | "<=" | ">" | ">="
 *
 * Functions and modules are names until wp_cond_resolve binds them to
 * run-time address ranges of the watched process.
 */
#ifndef WP_COND_H
#define WP_COND_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "cond-ops.h"
#include "util.h"

struct wp_cond;
struct wp_dwfl;

/* What a condition may ask of one write. */
struct wp_cond_write {
	int		 has_value;	/* value: the watched bytes after the */
	uint64_t	 value;		/* write, little-endian, up to 8 */
	size_t		 width;		/* of value in bytes, 1 to 8 */
	int		 has_prev;	/* prev: the value before it */
	uint64_t	 prev;
	int		 has_writer;	/* writer_ip: the instruction that */
	uint64_t	 writer_ip;	/* wrote */
	/*
	 * Without a writer: the trap IP of a data breakpoint, the address
	 * after the writer (wp_cond_resolve_traps must have run).
	 */
	int		 has_trap;
	uint64_t	 trap_ip;
	pid_t		 tid;
	const char	*comm;		/* the thread's name; NULL: unknown */
	int		 has_addr;	/* addr: the address a site's execution */
	uint64_t	 addr;		/* accessed (wp-arm's site records) */
};

/* What a condition uses (wp_cond_uses): bits. */
#define WP_COND_VALUE	0x1	/* value, changed, unchanged */
#define WP_COND_WRITER	0x2
#define WP_COND_THREAD	0x4	/* tid, comm */
#define WP_COND_ADDR	0x8	/* addr */
#define WP_COND_COMM	0x10	/* comm (with WP_COND_THREAD) */
#define WP_COND_PREV	0x20	/* changed, unchanged (with WP_COND_VALUE) */

/*
 * Parses text into *c (freed with wp_cond_free; text is not kept): 0,
 * or -1 with e set (status WP_EXIT_MALFORMED) to a one-line message that
 * names the column (from 1) where the expression went wrong.
 */
int	 wp_cond_parse(const char *text, struct wp_cond **c,
	    struct wp_error *e);
/* The expression as given, spaces at its ends trimmed; lives as long
 * as c. */
const char *wp_cond_text(const struct wp_cond *c);
/* WP_COND_* bits of what c asks of a write. */
unsigned wp_cond_uses(const struct wp_cond *c);
/*
 * Binds the functions and modules c names to their run-time ranges in
 * the process d reports: 0, or -1 with e set naming the first that is
 * in no module of it.  Conditions on writer addresses alone need none.
 */
int	 wp_cond_resolve(struct wp_cond *c, struct wp_dwfl *d,
	    struct wp_error *e);
/*
 * Binds c's writer tests to trap IPs too, for writes known by the trap
 * IP of a data breakpoint alone (after the writer): a function's or
 * module's range moves up a byte, and a single instruction (0xADDR,
 * MODULE+0xOFF) is decoded from the process's memory (memfd,
 * /proc/PID/mem) for its length.  After wp_cond_resolve.  0, or -1
 * with e set naming an address where no instruction can be read.
 */
int	 wp_cond_resolve_traps(struct wp_cond *c, int memfd,
	    struct wp_error *e);
/*
 * c as a postfix program for an evaluator of its own (wp-arm's BPF
 * program, which keeps a stack of truth values): each test pushes its
 * truth, not flips the top, and and or pop two and push one.  Numbers
 * are cut to a value of width bytes; writer tests are on trap IPs
 * (wp_cond_resolve_traps), a name not bound is WP_COP_FALSE, and so is
 * addr (a site's, which no BPF program tests); comm
 * names are cut to 15 bytes, as the kernel keeps them.
 */

struct wp_cond_op {
	uint32_t	 op;		/* WP_COP_* */
	uint32_t	 cmp;		/* WP_CMP_* */
	uint32_t	 negate;	/* comm !=, writer != or not in */
	uint64_t	 a;		/* VALUE: the mask (~0: none); TRAP:
					   [a, b) */
	uint64_t	 b;		/* VALUE, TID: the number */
	char		 name[16];	/* COMM */
};

/* Its ops into ops (max of them): their count, or 0 when more. */
size_t	 wp_cond_compile(const struct wp_cond *c, size_t width,
	    struct wp_cond_op *ops, size_t max);

/*
 * Whether write w matches c.  A test of something w does not know (no
 * value, no writer, no comm) is false, and so is an unbound name.
 */
int	 wp_cond_eval(const struct wp_cond *c, const struct wp_cond_write *w);
void	 wp_cond_free(struct wp_cond *c);

#endif
