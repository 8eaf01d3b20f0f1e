/* Fuzzes wp-arm's input: the records that say what to watch (input.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "util.h"
#include "watch.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* cmd/wp-arm/main.c's */
int	input_read(struct watch *, long *, struct wp_error *);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *out;

	(void)argc;
	(void)argv;
	if ((out = fopen("/dev/null", "we")) == NULL)
		abort();
	wp_stream_out_init(out);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct watch w;
	struct wp_error e;
	FILE *in, *saved = stdin;
	size_t i, n;
	long nbad = 0;
	int rc;

	if ((in = fmemopen((void *)(uintptr_t)data, size, "r")) == NULL)
		return 0;
	memset(&w, 0, sizeof w);
	stdin = in;
	rc = input_read(&w, &nbad, &e);
	stdin = saved;
	fclose(in);
	if (rc > 0 || nbad < 0)
		abort();
	/* what the backends rely on: every entry in range, chains whole */
	for (i = 0; i < w.nt; i++)
		if (w.t[i].len < 1 || w.t[i].len > (1 << 20) ||
		    (w.t[i].chain >= 0 && (size_t)w.t[i].chain >= w.nchains))
			abort();
	for (i = n = 0; i < w.nchains; i++) {
		if (w.chains[i].noffs < 1 ||
		    w.chains[i].noffs > WP_CHAIN_MAXDEPTH ||
		    w.chains[i].base + w.chains[i].noffs >= w.nt)
			abort();
		n += w.chains[i].noffs + 1;
	}
	if (n > w.nt)
		abort();
	watch_free(&w);
	return 0;
}
