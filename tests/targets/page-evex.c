/*
 * page-evex [-n rounds]
 *
 * AVX-512 stores, as glibc's memmove and memset make them, into fields
 * of one page-aligned area for the page backend, each field a symbol
 * of its size: wpt_zmm (64 bytes), wpt_ymm (32), wpt_mk (64), wpt_pre
 * (32) and wpt_edge (32, right after wpt_pre).  Prints one JSON line
 * (pid, "skip": whether the CPU lacks avx512f or avx512bw), waits for
 * SIGUSR1, then two threads make n rounds each (default 1000), in tight
 * loops; round i (from 1) stores:
 *   thread 1  write_zmm:    odd rounds vmovdqu64 [zmm], zmm16, even
 *                           vmovups [zmm], zmm1      byte k: i + k
 *             write_ymm:    vmovdqu64 [ymm], ymm17   byte k: 3i + k
 *   thread 2  write_masked: [mk], zmm18 {k1}: odd rounds vmovdqu8, k1
 *                           selecting bytes, even vmovdqu32, 4-byte
 *                           elements; byte k of the operand: 7i + k
 *             write_edge:   vmovdqu8 [pre], zmm19 {k2}: 64 bytes over
 *                           pre and edge; odd rounds k2 selects bytes
 *                           of pre only, even rounds bytes of edge only
 * (low bytes of i).  After each store the thread compares the field
 * with what the store should have left there (only the elements the
 * mask selects written) and counts each difference as bad.  Then it
 * prints "FIELD writes N stores S" (S: stores that wrote a byte of
 * the field), "bad B", a line "FIELD HEX" per store of a field, with
 * its bytes after that store (memory order), "sum HEX" (FNV-1a of the
 * area's 256 bytes) and "done".
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wpt.h"

/* the fields, at their offsets into the area */
enum { ZMM = 0, YMM = 64, MK = 128, PRE = 192, EDGE = 224, AREA = 256 };
unsigned char wpt_evarea[4096] __attribute__((aligned(4096)));
__asm__(".globl wpt_zmm, wpt_ymm, wpt_mk, wpt_pre, wpt_edge\n\t"
    ".type wpt_zmm, @object\n\t.set wpt_zmm, wpt_evarea\n\t"
    ".size wpt_zmm, 64\n\t"
    ".type wpt_ymm, @object\n\t.set wpt_ymm, wpt_evarea + 64\n\t"
    ".size wpt_ymm, 32\n\t"
    ".type wpt_mk, @object\n\t.set wpt_mk, wpt_evarea + 128\n\t"
    ".size wpt_mk, 64\n\t"
    ".type wpt_pre, @object\n\t.set wpt_pre, wpt_evarea + 192\n\t"
    ".size wpt_pre, 32\n\t"
    ".type wpt_edge, @object\n\t.set wpt_edge, wpt_evarea + 224\n\t"
    ".size wpt_edge, 32");

static unsigned char *const area = wpt_evarea;
static long rounds = 1000;
static long bad;
static pthread_mutex_t badmu = PTHREAD_MUTEX_INITIALIZER;

/* Each field's bytes after each of its stores, in order. */
struct logf {
	const char	*name;
	int		 off, len;
	long		 writes, stores;
	unsigned char	*after;
};
static struct logf logs[] = {
	{ "zmm", ZMM, 64, 0, 0, NULL }, { "ymm", YMM, 32, 0, 0, NULL },
	{ "mk", MK, 64, 0, 0, NULL }, { "edge", EDGE, 32, 0, 0, NULL },
	{ "pre", PRE, 32, 0, 0, NULL }
};

/* odd: zmm16, all of it in XSAVE's Hi16_ZMM; even: zmm1, in three */
__attribute__((noinline, target("avx512f,avx512bw"))) static void
write_zmm(const unsigned char *src, int low)
{
	if (low)
		__asm__ volatile("vmovups (%1), %%zmm1\n\t"
		    "vmovups %%zmm1, (%0)"
		    : : "r"(area + ZMM), "r"(src) : "xmm1", "memory");
	else
		__asm__ volatile("vmovdqu64 (%1), %%zmm16\n\t"
		    "vmovdqu64 %%zmm16, (%0)"
		    : : "r"(area + ZMM), "r"(src) : "xmm16", "memory");
}

__attribute__((noinline, target("avx512f,avx512bw"))) static void
write_ymm(const unsigned char *src)
{
	__asm__ volatile("vmovdqu64 (%1), %%ymm17\n\t"
	    "vmovdqu64 %%ymm17, (%0)"
	    : : "r"(area + YMM), "r"(src) : "xmm17", "memory");
}

/* odd: vmovdqu8, a bit a byte; even: vmovdqu32, a bit 4 bytes */
__attribute__((noinline, target("avx512f,avx512bw"))) static void
write_masked(const unsigned char *src, uint64_t m, int dwords)
{
	if (dwords)
		__asm__ volatile("vmovdqu8 (%1), %%zmm18\n\tkmovq %2, %%k1\n\t"
		    "vmovdqu32 %%zmm18, (%0)%{%%k1%}"
		    : : "r"(area + MK), "r"(src), "r"(m)
		    : "xmm18", "k1", "memory");
	else
		__asm__ volatile("vmovdqu8 (%1), %%zmm18\n\tkmovq %2, %%k1\n\t"
		    "vmovdqu8 %%zmm18, (%0)%{%%k1%}"
		    : : "r"(area + MK), "r"(src), "r"(m)
		    : "xmm18", "k1", "memory");
}

__attribute__((noinline, target("avx512f,avx512bw"))) static void
write_edge(const unsigned char *src, uint64_t m)
{
	__asm__ volatile("vmovdqu8 (%1), %%zmm19\n\tkmovq %2, %%k2\n\t"
	    "vmovdqu8 %%zmm19, (%0)%{%%k2%}"
	    : : "r"(area + PRE), "r"(src), "r"(m)
	    : "xmm19", "k2", "memory");
}

/*
 * The model: src's elements (elem bytes each) whose bit of m is set put
 * into want (len bytes at area + off); then the area compared with it
 * and the fields that store wrote logged.  Its own fields only: the
 * other thread writes others.
 */
static void
check(int off, int len, const unsigned char *src, uint64_t m, int elem,
    unsigned char *want)
{
	size_t f;
	int k, n = 0;

	for (k = 0; k < len; k++)
		if (m >> (k / elem) & 1)
			want[off + k] = src[k];
	for (k = 0; k < len; k++)
		n += area[off + k] != want[off + k];
	for (f = 0; f < sizeof logs / sizeof logs[0]; f++) {
		struct logf *l = &logs[f];
		uint64_t bits = 0;

		if (l->off < off || l->off + l->len > off + len)
			continue;
		for (k = l->off - off; k < l->off - off + l->len; k++)
			bits |= (uint64_t)(m >> (k / elem) & 1);
		l->writes++;
		if (bits)
			memcpy(l->after + l->len * l->stores++, area + l->off,
			    (size_t)l->len);
	}
	if (n > 0) {
		pthread_mutex_lock(&badmu);
		bad += n;
		pthread_mutex_unlock(&badmu);
	}
}

static void *
thread_full(void *arg)
{
	static unsigned char want[AREA];
	unsigned char src[64];
	long i;
	int k;

	(void)arg;
	for (i = 1; i <= rounds; i++) {
		for (k = 0; k < 64; k++)
			src[k] = (unsigned char)(i + k);
		write_zmm(src, i % 2 == 0);
		check(ZMM, 64, src, ~0ULL, 1, want);
		for (k = 0; k < 32; k++)
			src[k] = (unsigned char)(3 * i + k);
		write_ymm(src);
		check(YMM, 32, src, ~0ULL, 1, want);
	}
	return NULL;
}

static void *
thread_masked(void *arg)
{
	static unsigned char want[AREA];
	unsigned char src[64];
	uint64_t m;
	long i;
	int k;

	(void)arg;
	for (i = 1; i <= rounds; i++) {
		for (k = 0; k < 64; k++)
			src[k] = (unsigned char)(7 * i + k);
		/* never 0: every round writes some of mk */
		m = 0x0123456789abcdefULL;
		m = m << (i % 64) | m >> ((64 - i % 64) % 64);
		if (i % 2) {
			write_masked(src, m, 0);
			check(MK, 64, src, m, 1, want);
		} else {
			write_masked(src, m & 0xffff, 1);
			check(MK, 64, src, m & 0xffff, 4, want);
		}
		m = (uint64_t)i * 0x01010101ULL;
		m = i % 2 ? m & 0x0f0f0f0fULL : m << 32 & 0xf0f0f0f000000000ULL;
		if (m == 0)
			m = i % 2 ? 1 : 1ULL << 63;
		write_edge(src, m);
		check(PRE, 64, src, m, 1, want);
	}
	return NULL;
}

static void
print_logs(void)
{
	size_t f;
	long s;
	int k;

	for (f = 0; f < sizeof logs / sizeof logs[0]; f++)
		printf("%s writes %ld stores %ld\n", logs[f].name,
		    logs[f].writes, logs[f].stores);
	printf("bad %ld\n", bad);
	for (f = 0; f < sizeof logs / sizeof logs[0]; f++)
		for (s = 0; s < logs[f].stores; s++) {
			printf("%s ", logs[f].name);
			for (k = 0; k < logs[f].len; k++)
				printf("%02x", logs[f].after[s * logs[f].len +
				    k]);
			printf("\n");
		}
}

int
main(int argc, char *argv[])
{
	pthread_t th[2];
	uint32_t h = 2166136261u;
	size_t f;
	int ch, i, ok;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		switch (ch) {
		case 'n': rounds = atol(optarg); break;
		default: return 64;
		}
	}
	__builtin_cpu_init();
	ok = __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw");
	for (f = 0; f < sizeof logs / sizeof logs[0]; f++)
		if ((logs[f].after = malloc((size_t)(rounds * 2 + 1) *
		    (size_t)logs[f].len)) == NULL)
			return 1;
	wpt_block_go();
	printf("{\"pid\":%d,\"area\":\"0x%lx\",\"skip\":%s}\n", (int)getpid(),
	    WPT_ADDR(area), ok ? "false" : "true");
	fflush(stdout);
	/* without AVX-512, alive all the same until told (see masked.c) */
	wpt_wait_go();
	if (!ok)
		return 0;
	pthread_create(&th[0], NULL, thread_full, NULL);
	pthread_create(&th[1], NULL, thread_masked, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	print_logs();
	for (i = 0; i < AREA; i++)
		h = (h ^ area[i]) * 16777619u;
	printf("sum %08x\ndone\n", (unsigned)h);
	return 0;
}
