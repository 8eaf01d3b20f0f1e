/* The one walker of --follow pointer chains. */
#include <errno.h>
#include <string.h>

#include "chain.h"
#include "proc.h"

/* What keeps address p from being watched as len bytes, or NULL. */
static const char *
unusable(int memfd, uint64_t p, size_t len)
{
	unsigned char b;

	if (p % len != 0)
		return "misaligned";
	if (wp_proc_read(memfd, p, &b, 1) == -1)
		return errno == ESRCH ? "exited" : "unmapped";
	return NULL;
}

void
wp_chain_walk(int memfd, uint64_t slot, const int64_t *offs, size_t noffs,
    size_t leaflen, struct wp_walk *w)
{
	uint64_t p = slot, val;
	size_t i;

	memset(w, 0, sizeof *w);
	w->binding = "bound";
	for (i = 0; i < noffs; i++) {
		w->addr[i] = p;
		w->at = i;
		if ((w->binding = unusable(memfd, p, 8)) != NULL)
			return;
		if (wp_proc_read(memfd, p, &val, sizeof val) == -1) {
			w->binding = errno == ESRCH ? "exited" : "unmapped";
			return;
		}
		w->value[w->nread++] = val;
		if (val == 0) {
			w->binding = "null_pointer";
			return;
		}
		p = val + (uint64_t)offs[i];
	}
	w->addr[noffs] = p;
	w->at = noffs;
	if ((w->binding = unusable(memfd, p, leaflen)) == NULL)
		w->binding = "bound";
}

int
wp_chain_armed(const struct wp_walk *w, size_t k)
{
	if (k < w->at)
		return 1;
	if (k > w->at)
		return 0;
	return strcmp(w->binding, "bound") == 0 ||
	    strcmp(w->binding, "null_pointer") == 0;
}
