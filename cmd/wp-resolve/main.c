/* wp-resolve: check a process and the addresses to watch in it. */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "record.h"
#include "target.h"
#include "util.h"
#include "view.h"

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: wp-resolve -p pid [-l len] [-a w|rw] [--bin path] "
	    "[--force-bin]\n"
	    "                  [--follow slot+off]... [--no-slot-limit] "
	    "addr ...\n");
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
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL,			0,			NULL, 0 }
};

int
main(int argc, char *argv[])
{
	struct wp_target_opts o = { 0, 0, 0 };
	struct wp_view v;
	struct wp_addr *addrs;
	struct wp_follow *follows;
	struct wp_target *t;
	json_object **recs;
	const char **fin;
	const char *bin = NULL;
	char errbuf[512];
	uint64_t u, pid = 0;
	size_t i, j, nf = 0, nt, slots = 0;
	int ch, force_bin = 0, bad = 0;

	follows = wp_xcalloc((size_t)argc, sizeof *follows);
	fin = wp_xcalloc((size_t)argc, sizeof *fin);
	while ((ch = getopt_long(argc, argv, "p:l:a:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			if (wp_parse_u64(optarg, &pid) == -1 || pid == 0 ||
			    pid > INT32_MAX)
				errx(WP_EXIT_USAGE, "-p %s: not a process id",
				    optarg);
			break;
		case 'l':
			if (wp_parse_u64(optarg, &u) == -1 || u == 0 ||
			    u > 1 << 20)
				errx(WP_EXIT_USAGE, "-l %s: not a length",
				    optarg);
			o.len = (size_t)u;
			break;
		case 'a':
			if (strcmp(optarg, "w") == 0)
				o.rw = 0;
			else if (strcmp(optarg, "rw") == 0)
				o.rw = 1;
			else
				errx(WP_EXIT_USAGE, "-a %s: access is w or rw",
				    optarg);
			break;
		case 'b':
			bin = optarg;
			break;
		case 'F':
			force_bin = 1;
			break;
		case 'f':
			if (wp_addr_follow_parse(optarg, &follows[nf], errbuf,
			    sizeof errbuf) == -1)
				errx(WP_EXIT_USAGE, "--follow %s: %s", optarg,
				    errbuf);
			fin[nf++] = optarg;
			break;
		case 'N':
			o.no_slot_limit = 1;
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			printf("wp-resolve %s\n", WP_VERSION);
			return 0;
		default:
			usage(WP_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (pid == 0) {
		warnx("-p pid is required");
		usage(WP_EXIT_USAGE);
	}
	if (argc == 0 && nf == 0) {
		warnx("no address to watch");
		usage(WP_EXIT_USAGE);
	}
	if (o.len != 0 && !o.no_slot_limit && o.len != 1 && o.len != 2 &&
	    o.len != 4 && o.len != 8)
		errx(WP_EXIT_USAGE, "-l %zu: debug registers watch 1, 2, 4 or "
		    "8 bytes (--no-slot-limit allows any length)", o.len);
	addrs = wp_xcalloc((size_t)argc, sizeof *addrs);
	for (i = 0; i < (size_t)argc; i++)
		if (wp_addr_parse(argv[i], &addrs[i], errbuf, sizeof errbuf) == -1)
			errx(WP_EXIT_USAGE, "%s: %s", argv[i], errbuf);
	slots = (size_t)argc;
	for (i = 0; i < nf; i++)
		slots += follows[i].noffs + 1;
	if (!o.no_slot_limit && slots > WP_HW_SLOTS)
		errx(WP_EXIT_ERROR, "%zu hardware slots requested (%d "
		    "address%s, %zu follow chain%s): x86-64 has %d (DR0..DR3); "
		    "watch fewer, or use --no-slot-limit with the ptrace "
		    "backend", slots, argc, argc == 1 ? "" : "es", nf,
		    nf == 1 ? "" : "s", WP_HW_SLOTS);

	nt = (size_t)argc + nf;
	recs = wp_xcalloc(nt, sizeof *recs);
	t = wp_xcalloc(nt, sizeof *t);
	if (wp_view_open(&v, (pid_t)pid, bin, force_bin) == -1) {
		bad = 3;
		nt = 0;
	}
	for (i = 0; i < nt; i++) {
		if (i < (size_t)argc)
			recs[i] = wp_target_record(&v, (int)i, argv[i],
			    &addrs[i], &o, &t[i], errbuf, sizeof errbuf);
		else
			recs[i] = wp_target_follow_record(&v, (int)i,
			    fin[i - argc], &follows[i - argc], &o, &t[i],
			    errbuf, sizeof errbuf);
		if (recs[i] == NULL) {
			warnx("%s: %s", i < (size_t)argc ? argv[i] :
			    fin[i - argc], errbuf);
			bad = 1;
			continue;
		}
		/* pointer slots may be shared: chains through one object */
		for (j = 0; j < i && i < (size_t)argc; j++)
			if (recs[j] != NULL && t[i].addr < t[j].addr + t[j].len &&
			    t[j].addr < t[i].addr + t[i].len) {
				warnx("%s: overlaps target %zu (%s) at 0x%" PRIx64
				    "; watch it once", i < (size_t)argc ?
				    argv[i] : fin[i - argc], j, j < (size_t)argc ?
				    argv[j] : fin[j - argc], t[j].addr);
				bad = 1;
			}
	}
	if (!bad) {
		for (i = 0; i < (size_t)argc; i++) {
			json_object *w;
			size_t k;

			json_object_object_get_ex(recs[i], "warnings", &w);
			for (k = 0; k < json_object_array_length(w); k++)
				warnx("%s: warning: %s", argv[i],
				    json_object_get_string(
				    json_object_array_get_idx(w, k)));
		}
		wp_record_out_init(stdout);
		json_object *s = wp_view_session_record(&v, !o.no_slot_limit);
		if (wp_record_emit(s) == -1)
			bad = 2;
		json_object_put(s);
		for (i = 0; i < nt && bad == 0; i++)
			if (wp_record_emit(recs[i]) == -1)
				bad = 2;
		if (bad == 0 && wp_record_out_flush() == -1)
			bad = 2;
		if (bad == 2)
			warn("stdout");
	}
	for (i = 0; i < nt; i++)
		if (recs[i] != NULL)
			json_object_put(recs[i]);
	for (i = 0; i < (size_t)argc; i++)
		wp_addr_free(&addrs[i]);
	for (i = 0; i < nf; i++)
		wp_addr_free(&follows[i].slot);
	free(recs);
	free(t);
	free(addrs);
	free(follows);
	free(fin);
	wp_view_close(&v);
	return bad == 3 ? WP_EXIT_PROCESS : bad ? WP_EXIT_ERROR : WP_EXIT_OK;
}
