/* Fuzzes wp-resolve's ADDR and --follow parsers (cmd/wp-resolve/addr.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

#define MAXARG	4096	/* an argument, as the command line gives it */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct addr a;
	struct follow f;
	char err[256], *s;

	if (size > MAXARG)
		return 0;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	if (addr_parse(s, &a, err, sizeof err) == 0) {
		if (a.kind == ADDR_SYMBOL && a.symbol == NULL)
			abort();
		addr_free(&a);
	}
	if (addr_follow_parse(s, &f, err, sizeof err) == 0) {
		if (f.noffs < 1 || f.noffs > WP_CHAIN_MAXDEPTH)
			abort();
		addr_free(&f.slot);
	}
	free(s);
	return 0;
}
