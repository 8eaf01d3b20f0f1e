/* wp-resolve: check a process and the addresses to watch in it. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "elf.h"
#include "hwbp.h"
#include "stream.h"
#include "target.h"
#include "util.h"
#include "view.h"

struct options {
	pid_t			 pid;
	const char		*bin;
	int			 force_bin;
	struct target_opts	 o;
	struct follow	*follows;	/* --follow, parsed */
	const char		**fin;		/* and as written */
	size_t			 nf;
	char			**addrv;	/* the ADDR operands */
	size_t			 naddr;
};

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: wp-resolve -p pid [-l len] [-a w|rw] [--bin path] "
	    "[--force-bin]\n"
	    "                  [--debug-file file]... [--debug-dir dir]... "
	    "[--tid tid]\n"
	    "                  [--follow slot+off]... [--no-slot-limit] "
	    "[--] addr ...\n");
	if (status == 0)
		fputs("\n"
		    "  -p, --pid pid         the process to watch\n"
		    "  -l, --len len         bytes to watch (default: the "
		    "symbol's size, else 4)\n"
		    "  -a, --access w|rw     writes only (default), or reads "
		    "too\n"
		    "      --bin path        the program's file, when "
		    "/proc/PID/exe is not it\n"
		    "      --force-bin       use --bin even if its build-id "
		    "differs\n"
		    "      --debug-file file a separate debug file (matched "
		    "by build-id)\n"
		    "      --debug-dir dir   where debug files are "
		    "(default /usr/lib/debug)\n"
		    "      --tid tid         the thread whose thread-local "
		    "copy to watch\n"
		    "      --follow chain    a pointer chain, re-bound when "
		    "a pointer changes\n"
		    "      --no-slot-limit   more than 4 slots (ptrace "
		    "backend)\n"
		    "  -h, --help            this help\n"
		    "  -V, --version         the version\n"
		    "addr: 0xHEX, static:0xHEX, MODULE:0xHEX, MODULE+0xOFF, "
		    "[MODULE:]SYMBOL[+OFF]\n", stdout);
	exit(status);
}

static const struct option longopts[] = {
	{ "pid",		required_argument,	NULL, 'p' },
	{ "len",		required_argument,	NULL, 'l' },
	{ "access",		required_argument,	NULL, 'a' },
	{ "bin",		required_argument,	NULL, 'b' },
	{ "force-bin",		no_argument,		NULL, 'F' },
	{ "follow",		required_argument,	NULL, 'f' },
	{ "no-slot-limit",	no_argument,		NULL, 'N' },
	{ "debug-file",		required_argument,	NULL, 'D' },
	{ "debug-dir",		required_argument,	NULL, 'G' },
	{ "tid",		required_argument,	NULL, 'T' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL,			0,			NULL, 0 }
};

static void
option(int ch, const char *arg, struct options *op)
{
	char errbuf[512];
	struct wp_error e;
	uint64_t u;

	switch (ch) {
	case 'p':
		if (wp_parse_u64(arg, &u) == -1 || u == 0 || u > INT32_MAX)
			errx(WP_EXIT_USAGE, "-p %s: not a process id", arg);
		op->pid = (pid_t)u;
		break;
	case 'l':
		if (wp_parse_u64(arg, &u) == -1 || u == 0 || u > 1 << 20)
			errx(WP_EXIT_USAGE, "-l %s: not a length", arg);
		op->o.len = (size_t)u;
		break;
	case 'a':
		if (strcmp(arg, "w") != 0 && strcmp(arg, "rw") != 0)
			errx(WP_EXIT_USAGE, "-a %s: access is w or rw", arg);
		op->o.rw = strcmp(arg, "rw") == 0;
		break;
	case 'b':
		op->bin = arg;
		break;
	case 'F':
		op->force_bin = 1;
		break;
	case 'f':
		if (addr_follow_parse(arg, &op->follows[op->nf], errbuf,
		    sizeof errbuf) == -1)
			errx(WP_EXIT_USAGE, "--follow %s: %s", arg, errbuf);
		op->fin[op->nf++] = arg;
		break;
	case 'N':
		op->o.no_slot_limit = 1;
		break;
	case 'D':
		if (wp_elf_debug_file(arg, &e) == -1)
			errx(WP_EXIT_USAGE, "--debug-file %s: %s", arg, e.msg);
		break;
	case 'G':
		wp_elf_debug_dir(arg);
		break;
	case 'T':
		if (wp_parse_u64(arg, &u) == -1 || u == 0 || u > INT32_MAX)
			errx(WP_EXIT_USAGE, "--tid %s: not a thread id", arg);
		op->o.tid = (pid_t)u;
		break;
	case 'h':
		usage(0);
		break;
	case 'V':
		printf("wp-resolve %s\n", WP_VERSION);
		exit(0);
	default:
		usage(WP_EXIT_USAGE);
	}
}

static void
parse_options(int argc, char *argv[], struct options *op)
{
	int ch;

	memset(op, 0, sizeof *op);
	op->follows = wp_xcalloc((size_t)argc, sizeof *op->follows);
	op->fin = wp_xcalloc((size_t)argc, sizeof *op->fin);
	while ((ch = getopt_long(argc, argv, "p:l:a:hV", longopts, NULL)) != -1)
		option(ch, optarg, op);
	op->addrv = argv + optind;
	op->naddr = (size_t)(argc - optind);
	if (op->pid == 0) {
		warnx("-p pid is required");
		usage(WP_EXIT_USAGE);
	}
	if (op->naddr == 0 && op->nf == 0) {
		warnx("no address to watch");
		usage(WP_EXIT_USAGE);
	}
	if (op->o.len != 0 && !op->o.no_slot_limit &&
	    !wp_hwbp_len_ok(op->o.len))
		errx(WP_EXIT_USAGE, "-l %zu: debug registers watch 1, 2, 4 or "
		    "8 bytes (--no-slot-limit allows any length)", op->o.len);
}

static struct addr *
parse_addrs(const struct options *op)
{
	struct addr *a = wp_xcalloc(op->naddr, sizeof *a);
	char errbuf[512];
	size_t i;

	for (i = 0; i < op->naddr; i++)
		if (addr_parse(op->addrv[i], &a[i], errbuf,
		    sizeof errbuf) == -1)
			errx(WP_EXIT_USAGE, "%s: %s", op->addrv[i], errbuf);
	return a;
}

static void
check_slots(const struct options *op)
{
	size_t i, slots = op->naddr;

	for (i = 0; i < op->nf; i++)
		slots += wp_hwbp_follow_slots(op->follows[i].noffs);
	if (!op->o.no_slot_limit && slots > WP_HWBP_SLOTS)
		errx(WP_EXIT_ERROR, "%zu hardware slots requested (%zu "
		    "address%s, %zu follow chain%s): x86-64 has %d (DR0..DR3); "
		    "watch fewer, or use --no-slot-limit with the ptrace "
		    "backend", slots, op->naddr, op->naddr == 1 ? "" : "es",
		    op->nf, op->nf == 1 ? "" : "s", WP_HWBP_SLOTS);
}

static const char *
input_of(const struct options *op, size_t i)
{
	return i < op->naddr ? op->addrv[i] : op->fin[i - op->naddr];
}

/* Plain targets may not overlap; pointer slots may be shared. */
static int
overlaps(const struct options *op, const struct target *t, size_t i)
{
	size_t j;
	int bad = 0;

	for (j = 0; j < i && i < op->naddr; j++)
		if (t[j].line != NULL && t[i].addr < t[j].addr + t[j].len &&
		    t[j].addr < t[i].addr + t[i].len) {
			warnx("%s: overlaps target %zu (%s) at 0x%" PRIx64
			    "; watch it once", input_of(op, i), j,
			    input_of(op, j), t[j].addr);
			bad = 1;
		}
	return bad;
}

/* Resolves every address; returns 0, or 1 when one failed. */
static int
resolve_all(struct view *v, const struct options *op,
    const struct addr *addrs, struct target *t)
{
	char errbuf[512];
	size_t i;
	int bad = 0, rc;

	for (i = 0; i < op->naddr + op->nf; i++) {
		if (i < op->naddr)
			rc = target_resolve(v, (int)i, op->addrv[i], &addrs[i],
			    &op->o, &t[i], errbuf, sizeof errbuf);
		else
			rc = target_follow(v, (int)i, input_of(op, i),
			    &op->follows[i - op->naddr], &op->o, &t[i], errbuf,
			    sizeof errbuf);
		if (rc == -1) {
			warnx("%s: %s", input_of(op, i), errbuf);
			bad = 1;
		} else if (overlaps(op, t, i))
			bad = 1;
	}
	return bad;
}

static int
emit_all(struct view *v, const struct options *op, const struct target *t)
{
	struct wp_jw w = { 0 };
	size_t i;
	int rc;

	for (i = 0; i < op->naddr; i++) {
		if (t[i].warning != NULL)
			warnx("%s: warning: %s", op->addrv[i], t[i].warning);
		if (t[i].past[0] != '\0')
			warnx("%s: warning: %s", op->addrv[i], t[i].past);
	}
	wp_stream_out_init(stdout);
	view_session_record(v, !op->o.no_slot_limit, &w);
	rc = wp_stream_write_jw(&w);
	wp_jw_free(&w);
	for (i = 0; i < op->naddr + op->nf && rc == 0; i++)
		rc = wp_stream_write(t[i].line, t[i].linelen);
	if (rc == 0)
		rc = wp_stream_flush();
	if (rc == -1 && errno == EPIPE)
		return 0;	/* the reader took what it wanted (| head) */
	if (rc == -1)
		warn("stdout");
	return rc;
}

int
main(int argc, char *argv[])
{
	struct options op;
	struct view v;
	struct addr *addrs;
	struct target *t;
	size_t i, nt;
	int status = WP_EXIT_OK;

	parse_options(argc, argv, &op);
	addrs = parse_addrs(&op);
	check_slots(&op);
	nt = op.naddr + op.nf;
	t = wp_xcalloc(nt, sizeof *t);
	if (view_open(&v, op.pid, op.bin, op.force_bin) == -1)
		status = WP_EXIT_PROCESS;
	else if (resolve_all(&v, &op, addrs, t) != 0 || emit_all(&v, &op,
	    t) == -1)
		status = WP_EXIT_ERROR;
	for (i = 0; i < nt; i++)
		target_free(&t[i]);
	for (i = 0; i < op.naddr; i++)
		addr_free(&addrs[i]);
	for (i = 0; i < op.nf; i++)
		addr_free(&op.follows[i].slot);
	free(t);
	free(addrs);
	free(op.follows);
	free(op.fin);
	view_close(&v);
	return status;
}
