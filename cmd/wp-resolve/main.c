/* wp-resolve: check a process and the addresses to watch in it. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "dwfl.h"
#include "hwbp.h"
#include "proc.h"
#include "site.h"
#include "stream.h"
#include "target.h"
#include "usage.h"
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
	struct addr		*sites;		/* --insn, parsed */
	const char		**sin;		/* and as written */
	size_t			 ns;
	char			**addrv;	/* the ADDR operands */
	size_t			 naddr;
	const char		*backend;	/* --backend */
	int			 no_slot_limit;
};

static const char usage_text[] =
    "usage: wp-resolve -p pid [-l len] [-a w|rw] [--bin path] "
    "[--force-bin]\n"
    "                  [--debug-file file]... [--debug-dir dir]... "
    "[--tid tid]\n"
    "                  [--follow slot+off]... [--insn site]...\n"
    "                  [--backend auto|bpf|perf|ptrace|page|uprobe] "
    "[--no-slot-limit]\n"
    "                  [--] addr ...\n";

static const struct wp_opt opts[] = {
	{ 'p', "-p, --pid pid", "the process to watch" },
	{ 'l', "-l, --len len", "bytes to watch (default: the symbol's size, "
	    "else 4)" },
	{ 'a', "-a, --access w|rw", "writes only (default), or reads too" },
	{ 'b', "--bin path", "the program's file, when /proc/PID/exe is not "
	    "it" },
	{ 'F', "--force-bin", "use --bin even if its build-id differs" },
	{ 'D', "--debug-file file", "a separate debug file (matched by "
	    "build-id)" },
	{ 'G', "--debug-dir dir", "where debug files are (default "
	    "/usr/lib/debug)" },
	{ 'T', "--tid tid", "the thread whose thread-local copy to watch" },
	{ 'f', "--follow chain", "a pointer chain, re-bound when a pointer "
	    "changes" },
	{ 'I', "--insn site", "an instruction whose memory addresses to count "
	    "(an addr form; -a rw: its reads too)" },
	{ 'B', "--backend name", "whose limits to check: bpf, perf (debug "
	    "registers: 4 slots of 1, 2, 4 or 8 aligned bytes), ptrace, page "
	    "(none), uprobe (--insn sites only), or auto (the default: the slots when the targets fit "
	    "them)" },
	{ 'N', "--no-slot-limit", "any length and number: --backend ptrace or "
	    "page" },
	{ 0, "addr", "0xHEX, static:0xHEX, MODULE:0xHEX, MODULE+0xOFF, "
	    "[MODULE:]SYMBOL[+OFF]" },
	{ 0, NULL, NULL }
};

static const struct wp_usage use = { "wp-resolve", usage_text, opts,
    NULL };

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
		if (wp_parse_u64(arg, &u) == -1 || u == 0 ||
		    u > WP_TARGET_MAXLEN)
			errx(WP_EXIT_USAGE, "-l %s: not a length", arg);
		/* ADDR -l 8 ADDR -l 64 would watch both with 64 bytes */
		if (op->o.len != 0 && op->o.len != u)
			errx(WP_EXIT_USAGE, "-l %s: -l %zu was given too: one "
			    "length applies to every addr", arg, op->o.len);
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
	case 'D':
		if (wp_dwfl_debug_file(arg, &e) == -1)
			errx(WP_EXIT_USAGE, "--debug-file %s: %s", arg, e.msg);
		break;
	case 'G':
		wp_dwfl_debug_dir(arg);
		break;
	case 'T':
		if (wp_parse_u64(arg, &u) == -1 || u == 0 || u > INT32_MAX)
			errx(WP_EXIT_USAGE, "--tid %s: not a thread id", arg);
		op->o.tid = (pid_t)u;
		break;
	case 'f':
		if (addr_follow_parse(arg, &op->follows[op->nf], errbuf,
		    sizeof errbuf) == -1)
			errx(WP_EXIT_USAGE, "--follow %s: %s", arg, errbuf);
		op->fin[op->nf++] = arg;
		break;
	case 'I':
		if (addr_parse(arg, &op->sites[op->ns], errbuf,
		    sizeof errbuf) == -1)
			errx(WP_EXIT_USAGE, "--insn %s: %s", arg, errbuf);
		op->sin[op->ns++] = arg;
		break;
	case 'B':
		op->backend = wp_opt_word("--backend", arg, wp_backend_words);
		break;
	case 'N':
		op->no_slot_limit = 1;
		break;
	}
}

/* The limits --backend and --no-slot-limit say to check. */
static void
limits_of(struct options *op)
{
	const char *b = op->backend ? op->backend : "auto";

	if (strcmp(b, "bpf") == 0 || strcmp(b, "perf") == 0) {
		if (op->no_slot_limit)
			errx(WP_EXIT_USAGE, "--no-slot-limit: the %s backend "
			    "watches with the debug registers (4 slots); "
			    "--backend page or ptrace has no limit", b);
		op->o.limits = LIMITS_DR;
	} else if (strcmp(b, "auto") == 0 && !op->no_slot_limit)
		op->o.limits = LIMITS_AUTO;
	else
		op->o.limits = LIMITS_NONE;
}

static void
parse_options(int argc, char *argv[], struct options *op)
{
	int ch;

	memset(op, 0, sizeof *op);
	op->follows = wp_xcalloc((size_t)argc, sizeof *op->follows);
	op->fin = wp_xcalloc((size_t)argc, sizeof *op->fin);
	op->sites = wp_xcalloc((size_t)argc, sizeof *op->sites);
	op->sin = wp_xcalloc((size_t)argc, sizeof *op->sin);
	while ((ch = wp_getopt(argc, argv, &use)) != -1)
		option(ch, optarg, op);
	op->addrv = argv + optind;
	op->naddr = (size_t)(argc - optind);
	if (op->pid == 0) {
		warnx("-p pid is required");
		wp_usage(&use, WP_EXIT_USAGE);
	}
	if (op->naddr == 0 && op->nf == 0 && op->ns == 0) {
		warnx("no address to watch");
		wp_usage(&use, WP_EXIT_USAGE);
	}
	limits_of(op);
	/* wider than 8 bytes goes in several slots; a value no register
	 * holds cannot be split without counting one store twice */
	if (op->o.limits == LIMITS_DR && op->o.len != 0 && op->o.len <= 8 &&
	    !wp_hwbp_len_ok(op->o.len))
		errx(WP_EXIT_USAGE, "-l %zu: debug registers watch 1, 2, 4 or "
		    "8 bytes (--backend page or ptrace watches any length)",
		    op->o.len);
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

/* The plan of the watch: the limits checked, and each target's slots. */
struct plan {
	enum wp_limits	 limits;
	size_t		*np;		/* per address: its slots (1: whole) */
	size_t		(*plen)[WP_HWBP_SLOTS];
	char		 note[512];	/* auto: why there are no limits */
};

static size_t
follow_slots(const struct options *op)
{
	size_t i, slots = 0;

	for (i = 0; i < op->nf; i++)
		slots += wp_hwbp_follow_slots(op->follows[i].noffs);
	return slots;
}

static void
too_many(const struct options *op, size_t slots, char *msg, size_t msgsz)
{
	snprintf(msg, msgsz, "%zu hardware slots requested (%zu address%s, "
	    "%zu follow chain%s): x86-64 has %d (DR0..DR3)", slots, op->naddr,
	    op->naddr == 1 ? "" : "es", op->nf, op->nf == 1 ? "" : "s",
	    WP_HWBP_SLOTS);
}

/* Before anything is resolved: one slot an address at least. */
static void
check_slots(const struct options *op)
{
	char msg[256];
	size_t slots = op->naddr + follow_slots(op);

	if (op->o.limits != LIMITS_DR || slots <= WP_HWBP_SLOTS)
		return;
	too_many(op, slots, msg, sizeof msg);
	errx(WP_EXIT_ERROR, "%s; watch fewer, or use --backend page or ptrace "
	    "(no slot limit)", msg);
}

/*
 * Whether the debug registers can watch every target, each in as many
 * slots as it needs: 1, or -1 with why (the first reason) and *wide
 * set when it is one target's size.
 */
static int
fits(const struct options *op, const struct target *t, struct plan *pl,
    char *why, size_t whysz, int *wide)
{
	size_t i, slots = follow_slots(op);

	*wide = 0;
	for (i = 0; i < op->naddr; i++) {
		pl->np[i] = wp_hwbp_split(t[i].addr, t[i].len, pl->plen[i],
		    WP_HWBP_SLOTS);
		slots += pl->np[i];
		if (t[i].len <= 8 && pl->np[i] > 1) {
			snprintf(why, whysz, "%s: %zu bytes at 0x%" PRIx64
			    " fit no debug register (1, 2, 4 or 8 bytes, "
			    "aligned to their length)", t[i].input, t[i].len,
			    t[i].addr);
			return -1;
		}
		if (pl->np[i] > WP_HWBP_SLOTS) {
			snprintf(why, whysz, "%s: %zu bytes need %zu debug-"
			    "register slots, x86-64 has %d (DR0..DR3)",
			    t[i].input, t[i].len, pl->np[i], WP_HWBP_SLOTS);
			*wide = 1;
			return -1;
		}
	}
	if (slots > WP_HWBP_SLOTS) {
		too_many(op, slots, why, whysz);
		return -1;
	}
	return 0;
}

/* A target watched in several slots: say how, once. */
static void
say_split(const struct target *t, const size_t *plen, size_t np)
{
	size_t i;
	uint64_t last = 0;

	for (i = 0; i + 1 < np; i++)
		last += plen[i];
	if (t->a->kind == ADDR_SYMBOL)
		warnx("%s: %zu bytes, watched in %zu debug-register slots "
		    "(%s%s%s+0x%" PRIx64 " to +0x%" PRIx64 ")", t->input,
		    t->len, np, t->a->module ? t->a->module : "",
		    t->a->module ? ":" : "", t->a->symbol,
		    (uint64_t)t->a->off, (uint64_t)t->a->off + last);
	else
		warnx("%s: %zu bytes, watched in %zu debug-register slots "
		    "(0x%" PRIx64 " to 0x%" PRIx64 ")", t->input, t->len, np,
		    t->addr, t->addr + last);
}

/*
 * Decides the limits and the slots of each target.  Returns 0, or 1
 * when the debug registers were asked for and cannot watch them (said).
 */
static int
plan_slots(const struct options *op, const struct target *t,
    struct plan *pl)
{
	char why[400];
	size_t i;
	int wide;

	pl->limits = WP_LIMITS_NONE;
	for (i = 0; i < op->naddr; i++)
		pl->np[i] = 1;
	if (op->o.limits == LIMITS_NONE)
		return 0;
	if (fits(op, t, pl, why, sizeof why, &wide) == -1) {
		for (i = 0; i < op->naddr; i++)
			pl->np[i] = 1;
		if (op->o.limits == LIMITS_AUTO) {
			/* in the session record: wp-arm says what it uses */
			snprintf(pl->note, sizeof pl->note, "%s: only the page or "
			    "ptrace backend can watch %s", why, wide ? "it whole" :
			    "these targets");
			return 0;
		}
		if (wide)
			warnx("%s: watch it whole with --backend page (or "
			    "ptrace), or a part of it with -l LEN and ADDR+OFF",
			    why);
		else
			warnx("%s; watch fewer, or use --backend page or ptrace "
			    "(no slot limit)", why);
		return 1;
	}
	pl->limits = WP_LIMITS_DEBUG_REGISTERS;
	for (i = 0; i < op->naddr; i++)
		if (pl->np[i] > 1)
			say_split(&t[i], pl->plen[i], pl->np[i]);
	return 0;
}

/* Plain targets may not overlap; pointer slots may be shared. */
static int
overlaps(const struct options *op, const struct target *t, size_t i)
{
	size_t j;
	int bad = 0;

	for (j = 0; j < i; j++)
		if (t[j].len != 0 && t[i].addr < t[j].addr + t[j].len &&
		    t[j].addr < t[i].addr + t[i].len) {
			warnx("%s: overlaps target %zu (%s) at 0x%" PRIx64
			    "; watch it once", op->addrv[i], j, op->addrv[j],
			    t[j].addr);
			bad = 1;
		}
	return bad;
}

/*
 * Resolves every address, then every chain (their ids after the
 * targets' records); returns 0, or 1 when one failed.
 */
static int
resolve_all(struct view *v, const struct options *op,
    const struct addr *addrs, struct target *t, struct plan *pl)
{
	char errbuf[512];
	size_t i;
	int bad = 0, id = 0;

	for (i = 0; i < op->naddr; i++) {
		if (target_resolve(v, op->addrv[i], &addrs[i], &op->o, &t[i],
		    errbuf, sizeof errbuf) == -1) {
			warnx("%s: %s", op->addrv[i], errbuf);
			t[i].len = 0;
			bad = 1;
		} else if (overlaps(op, t, i))
			bad = 1;
	}
	if (!bad)
		bad = plan_slots(op, t, pl);
	for (i = 0; i < op->naddr; i++)
		id += (int)pl->np[i];
	for (i = 0; i < op->nf; i++)
		if (target_follow(v, id++, op->fin[i], &op->follows[i], &op->o,
		    &t[op->naddr + i], errbuf, sizeof errbuf) == -1) {
			warnx("%s: %s", op->fin[i], errbuf);
			bad = 1;
		}
	for (i = 0; i < op->ns; i++)
		if (site_resolve(v, (int)i, op->sin[i], &op->sites[i], &op->o,
		    &t[op->naddr + op->nf + i], errbuf, sizeof errbuf) == -1) {
			warnx("%s: %s", op->sin[i], errbuf);
			bad = 1;
		}
	return bad;
}

static int
emit_all(struct view *v, const struct options *op, struct target *t,
    struct plan *pl)
{
	struct wp_jw w = { 0 };
	size_t i, j;
	int rc, id = 0;

	for (i = 0; i < op->naddr; i++)
		target_records(v, &id, &op->o, &t[i], pl->plen[i], pl->np[i]);
	if (pl->note[0] != '\0' && v->nwarnings < sizeof v->warnings /
	    sizeof v->warnings[0])
		v->warnings[v->nwarnings++] = pl->note;
	wp_stream_out_init(stdout);
	view_session_record(v, pl->limits, &w);
	rc = wp_stream_write_jw(&w);
	wp_jw_free(&w);
	for (i = 0; i < op->naddr + op->nf + op->ns && rc == 0; i++)
		for (j = 0; j < t[i].nlines && rc == 0; j++)
			rc = wp_stream_write(t[i].lines[j],
			    strlen(t[i].lines[j]));
	if (rc == 0)
		rc = wp_stream_flush();
	if (rc == -1 && errno == EPIPE)
		return 0;	/* the reader took what it wanted (| head) */
	if (rc == -1)
		warn("stdout");
	return rc;
}

/* --tid where no address was thread-local: it changed nothing. */
static void
tid_unused(const struct options *op, const struct view *v)
{
	if (op->o.tid == 0 || v->tls_resolved)
		return;
	if (!wp_proc_task_exists(op->pid, op->o.tid))
		warnx("--tid %d: no such thread of pid %d, and no addr is "
		    "thread-local: ignored", (int)op->o.tid, (int)op->pid);
	else
		warnx("--tid %d: no addr is thread-local: every thread's "
		    "writes are watched", (int)op->o.tid);
}

int
main(int argc, char *argv[])
{
	struct options op;
	struct view v;
	struct addr *addrs;
	struct target *t;
	struct plan pl;
	size_t i, nt;
	int status = WP_EXIT_OK;

	parse_options(argc, argv, &op);
	wp_need_fds("wp-resolve", 16);
	addrs = parse_addrs(&op);
	check_slots(&op);
	nt = op.naddr + op.nf + op.ns;
	t = wp_xcalloc(nt, sizeof *t);
	memset(&pl, 0, sizeof pl);
	pl.np = wp_xcalloc(op.naddr + 1, sizeof *pl.np);
	pl.plen = wp_xcalloc(op.naddr + 1, sizeof *pl.plen);
	if (view_open(&v, op.pid, op.bin, op.force_bin) == -1)
		status = WP_EXIT_PROCESS;
	else if (resolve_all(&v, &op, addrs, t, &pl) != 0)
		status = WP_EXIT_ERROR;
	else {
		tid_unused(&op, &v);
		if (emit_all(&v, &op, t, &pl) == -1)
			status = WP_EXIT_ERROR;
	}
	for (i = 0; i < nt; i++)
		target_free(&t[i]);
	for (i = 0; i < op.naddr; i++)
		addr_free(&addrs[i]);
	for (i = 0; i < op.nf; i++)
		addr_free(&op.follows[i].slot);
	for (i = 0; i < op.ns; i++)
		addr_free(&op.sites[i]);
	free(op.sites);
	free(op.sin);
	free(t);
	free(addrs);
	free(pl.np);
	free(pl.plen);
	free(op.follows);
	free(op.fin);
	view_close(&v);
	return status;
}
