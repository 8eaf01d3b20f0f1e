/*
 * page-movs [-q] [-p pages] [-n copies]
 *
 * wpt_span, 20 pages (page-aligned), written whole by one string
 * instruction at a time, for the page backend: a rep movsb or rep stosb
 * that runs over more pages than wp-arm gives back at once for one
 * step.  Prints one JSON line (pid, the span's address and length),
 * waits for SIGUSR1, then n times (default 3) copies a source over the
 * span with one rep movsb (copy_span) and fills it with one rep stosb
 * (fill_span), each round's bytes its own; with -q, rep movsq and rep
 * stosq, 8-byte elements, the same bytes; with -p, over the span's
 * first pages only (2 at least: for a single-stepping tracer).  Then it prints
 *   movs N / stos N / sum HEX
 * (sum: a checksum of the span, the same watched or not) and "done",
 * and exits 0.
 */
#include <stdint.h>
#include <string.h>

#include "wpt.h"

#define SPAN	(20 * 4096)

unsigned char wpt_span[SPAN] __attribute__((aligned(4096)));
static unsigned char src[SPAN];
static size_t span = SPAN;	/* the bytes written (-p) */

__attribute__((noinline)) static void
copy_span(void)
{
	void *d = wpt_span, *s = src;
	size_t n = span;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : :
	    "memory");
}

__attribute__((noinline)) static void
fill_span(unsigned char v)
{
	void *d = wpt_span;
	size_t n = span;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(v) :
	    "memory");
}

__attribute__((noinline)) static void
copy_span_q(void)
{
	void *d = wpt_span, *s = src;
	size_t n = span / 8;

	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : :
	    "memory");
}

__attribute__((noinline)) static void
fill_span_q(unsigned char v)
{
	void *d = wpt_span;
	size_t n = span / 8;

	__asm__ volatile("rep stosq" : "+D"(d), "+c"(n) :
	    "a"(v * 0x0101010101010101ul) : "memory");
}

/*
 * A checksum of the span, a word at a time (a single-stepping tracer
 * steps every instruction of it).
 */
static uint64_t
sum(uint64_t h)
{
	uint64_t x;
	size_t k;

	for (k = 0; k < span; k += 8) {
		memcpy(&x, wpt_span + k, 8);
		h = (h ^ x) * 0x100000001b3ull;
	}
	return h;
}

int
main(int argc, char *argv[])
{
	uint64_t h = 0xcbf29ce484222325ull, x;
	long n = 3, i, movs = 0, stos = 0;
	size_t k;
	int ch, q = 0;

	while ((ch = getopt(argc, argv, "n:p:q")) != -1) {
		switch (ch) {
		case 'n': n = atol(optarg); break;
		case 'q': q = 1; break;
		case 'p': span = (size_t)atol(optarg) * 4096; break;
		default: return 64;
		}
	}
	if (span < 2 * 4096 || span > SPAN)
		return 64;
	wpt_block_go();
	printf("{\"pid\":%d,\"span\":\"0x%lx\",\"len\":%d}\n",
	    (int)getpid(), WPT_ADDR(wpt_span), (int)span);
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++) {
		for (k = 0; k < span; k += 8) {
			x = k * 0x0807060504030201ull ^
			    (uint64_t)i * 0x0101010101010101ull;
			memcpy(src + k, &x, 8);
		}
		if (q)
			copy_span_q();
		else
			copy_span();
		movs++;
		h = sum(h);
		if (q)
			fill_span_q((unsigned char)(0x40 + i));
		else
			fill_span((unsigned char)(0x40 + i));
		stos++;
		h = sum(h);
	}
	printf("movs %ld\nstos %ld\nsum %016llx\ndone\n", movs, stos,
	    (unsigned long long)h);
	fflush(stdout);
	return 0;
}
