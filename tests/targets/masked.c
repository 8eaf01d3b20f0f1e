/*
 * Masked and unmodeled stores, each iteration once a thread:
 *   -m k  AVX-512 vmovdqu8 [buf]{k1}: once bytes 0-3, once bytes 8-11
 *   -m v  AVX vmaskmovps [buf]: once element 0, once element 2
 *   -m x  fxsave [fx] and xsave [xs] after a new x87 control word
 * with -t threads of -n iterations; the ready line says where buf, fx
 * and xs are, or "skip" when the CPU lacks what the mode needs.  Then
 * exits with no more library code (exit_group).
 */
#include <cpuid.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "wpt.h"

static unsigned char buf[64] __attribute__((aligned(64)));
static unsigned char fx[512] __attribute__((aligned(64)));
/* the XSAVE area of every XCR0 feature: 11008 bytes with AMX's tiles
   (8192 overran into fx and buf there, and the test counted xsave's
   stores to them); a CPU with a larger one is skipped */
static unsigned char xs[16384] __attribute__((aligned(64)));
static int iters = 1000, mode = 'k';

__attribute__((noinline)) static void
store_k(uint64_t m)
{
	__asm__ volatile("kmovq %0, %%k1\n"
	    "vmovdqu8 %%zmm0, (%1)%{%%k1%}\n" :: "r"(m), "r"(buf) :
	    "memory");	/* k1: not the compiler's without -mavx512f */
}

__attribute__((noinline)) static void
store_v(int el)
{
	int32_t mask[8] __attribute__((aligned(32))) = { 0 };

	mask[el] = -1;
	__asm__ volatile("vmovdqa (%0), %%ymm1\n"
	    "vmaskmovps %%ymm0, %%ymm1, (%1)\n" :: "r"(mask), "r"(buf) :
	    "xmm1", "memory");
}

__attribute__((noinline)) static void
save_x(uint16_t cw, uint64_t rfbm)
{
	__asm__ volatile("fldcw %0\nfxsave64 (%1)\n" :: "m"(cw), "r"(fx) :
	    "memory");
	__asm__ volatile("xsave64 (%0)\n" :: "r"(xs), "a"((uint32_t)rfbm),
	    "d"((uint32_t)(rfbm >> 32)) : "memory");
}

static void *
run(void *arg)
{
	uint32_t lo, hi;
	int i;

	(void)arg;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	for (i = 0; i < iters; i++)
		switch (mode) {
		case 'k':
			store_k(0xf);
			store_k(0xf00);
			break;
		case 'v':
			store_v(0);
			store_v(2);
			break;
		default:
			save_x(i % 2 ? 0x37f : 0x27f,
			    ((uint64_t)hi << 32 | lo) & 3);
		}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[16];
	int c, n = 1, i, ok;

	while ((c = getopt(argc, argv, "m:n:t:")) != -1)
		switch (c) {
		case 'm': mode = optarg[0]; break;
		case 'n': iters = atoi(optarg); break;
		case 't': n = atoi(optarg) < 16 ? atoi(optarg) : 16; break;
		default: return 64;
		}
	__builtin_cpu_init();
	ok = mode == 'k' ? __builtin_cpu_supports("avx512bw") :
	    mode == 'v' ? __builtin_cpu_supports("avx") :
	    __builtin_cpu_supports("xsave") != 0;
	if (mode == 'x' && ok) {
		unsigned a, b, cx, d;

		ok = __get_cpuid_count(0xd, 0, &a, &b, &cx, &d) &&
		    b <= sizeof xs;
	}
	wpt_block_go();
	printf("{\"pid\":%d,\"buf\":\"0x%lx\",\"fx\":\"0x%lx\",\"xs\":\"0x%lx\","
	    "\"skip\":%s}\n", (int)getpid(), WPT_ADDR(buf), WPT_ADDR(fx),
	    WPT_ADDR(xs), ok ? "false" : "true");
	fflush(stdout);
	/* without the instruction, alive all the same until told: a test
	   that only resolves its addresses (and decodes made-up hits) runs
	   on any CPU */
	wpt_wait_go();
	if (!ok)
		return 0;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	__asm__ volatile("syscall" :: "a"(231), "D"(0));
	return 0;
}
