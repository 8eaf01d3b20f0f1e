/*
 * usage: a command's options, declared once as a table, from which
 * getopt_long's options, its short-option string and --help are made.
 * Every tool takes -h (--help) and -V (--version) besides its own.
 */
#ifndef WP_USAGE_H
#define WP_USAGE_H

#include <stdint.h>

/*
 * An option of a command or, with ch 0, an operand.  spec is the option
 * as --help writes it: "-d, --duration duration" (a short and a long
 * name, and an argument), "--regs" (a long name only, no argument),
 * "--live[=how]" (an argument that may be left out), "file" (an
 * operand).  ch is what wp_getopt returns for it: for an option with a
 * short name, that letter.
 */
struct wp_opt {
	int		 ch;
	const char	*spec;
	const char	*help;	/* its line of --help, wrapped to fit */
};

/*
 * A command: usage is the "usage: NAME ..." lines, as its man page's
 * SYNOPSIS gives them; opts its options and then its operands, ending
 * with an entry whose spec is NULL.  A command that reads one stream
 * names what it does with it in stream ("decode"): its operand is then
 * the stream's file, standard input when there is none (wp_opt_stream).
 * All static.
 */
struct wp_usage {
	const char		*name;
	const char		*usage;
	const struct wp_opt	*opts;
	const char		*stream;	/* or NULL */
};

/*
 * getopt_long(3) over u's options: the next option's ch (optarg its
 * argument), or -1 at the first operand (optind).  -h prints the help
 * on stdout and exits 0, -V the version; an unknown option or a missing
 * argument prints the usage on stderr and exits 64.  Every call of a
 * process names the same u.
 */
int	 wp_getopt(int argc, char *argv[], const struct wp_usage *u);

/*
 * The usage on stderr and exit(status); status 0: on stdout, with a
 * line per option and operand.
 */
void	 wp_usage(const struct wp_usage *u, int status)
	    __attribute__((noreturn));

/*
 * After the options of a command that reads one stream: its operand, the
 * stream's file, or NULL (standard input); more is the usage error.
 */
const char *wp_opt_stream(int argc, char *argv[], const struct wp_usage *u);

/*
 * arg, when it is one of words (ending with NULL); else the usage
 * error "OPT ARG: expected a, b or c", exit 64.
 */
const char *wp_opt_word(const char *opt, const char *arg,
	    const char *const *words);

/*
 * arg as a number from min to max; else the usage error
 * "OPT ARG: not WHAT (MIN to MAX)", exit 64.
 */
uint64_t wp_opt_number(const char *opt, const char *arg, uint64_t min,
	    uint64_t max, const char *what);

#endif
