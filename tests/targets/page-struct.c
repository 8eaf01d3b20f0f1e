/*
 * page-struct [-u] [-n writes] [-N neighbour_writes] [-r] [-f] [-w]
 *
 * A 512-byte struct for the page backend: page-aligned (the symbol
 * wpt_ps, 512 bytes), or with -u at 0xf00 into a page, so that it spans
 * two.  Prints one JSON line (pid,
 * the struct's address and length, the neighbour's, whether the CPU has
 * AVX), waits for SIGUSR1, then three threads write their fields n
 * times each (default 1000), in tight loops:
 *   imm:   movq $imm, (mem)                     1 store a write
 *   lock:  lock addq $1, (mem)                  1 store a write
 *   copy:  a memcpy of 64 bytes: 4 movdqu       4 stores a write
 *   avx:   vmovdqu %ymm0, (mem) (32 bytes)      1 store a write, or
 *          without AVX 2 movdqu of 16 bytes     2 stores a write
 * and on arm64 str of a register, stadd (LSE), 4 str q, and stp q0, q1
 * (32 bytes, 1 store a write: "avx" there),
 * (the third thread alternates copy and avx), and a fourth writes the
 * neighbour, a long on the same page as the struct (past its end), N
 * times (default 0).  Each writer is its own function: write_imm,
 * write_lock, write_copy, write_avx, write_neighbour.  Then:
 *   -r  read(2) from a pipe 64 known bytes into the struct's rd field;
 *       prints "read 64 sum HEX" (FNV-1a of the field after the read)
 *   -f  fork a child that writes imm once and the neighbour once,
 *       prints "child imm 1 neighbour 1" and exits 7; the parent
 *       prints "child status 7"
 * It prints a line per writer, "WRITER writes N stores S", then
 * "lock value V" and "done", and with -w waits for another SIGUSR1
 * before exiting 0.
 */
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include "wpt.h"

struct ps {
	volatile long	 imm;
	char		 pad0[56];
	volatile long	 lock;
	char		 pad1[56];
	unsigned char	 copy[64];	/* 128 */
	char		 pad2[64];
	unsigned char	 avx[32];	/* 256, aligned to 32 */
	char		 pad3[32];
	unsigned char	 rd[64];	/* 320 */
	char		 pad4[128];
};
_Static_assert(sizeof(struct ps) == 512, "the struct is 512 bytes");

/* wpt_ps names the page-aligned struct (the one watched without -u) */
unsigned char wpt_area[3 * 4096] __attribute__((aligned(4096)));
__asm__(".globl wpt_ps\n\t.type wpt_ps, @object\n\t"
    ".set wpt_ps, wpt_area\n\t.size wpt_ps, 512");
static struct ps *ps;
static volatile long *neighbour;
static long nwrites = 1000, nneighbour;
static int have_avx;
static pthread_barrier_t go;
static const unsigned char src[64] __attribute__((aligned(16))) = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
	33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
	49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64
};

#if defined(__aarch64__)
static int
cpu_avx(void)
{
	return 1;	/* stp q0, q1: 32 bytes at once */
}

__attribute__((noinline)) static void
write_imm(void)
{
	__asm__ volatile("str %1, [%0]" : : "r"(&ps->imm), "r"(0x5a5aL) :
	    "memory");
}

__attribute__((noinline)) static void
write_lock(void)
{
	__asm__ volatile(".arch_extension lse\n\tstadd %0, [%1]" : :
	    "r"(1L), "r"(&ps->lock) : "memory");
}

__attribute__((noinline)) static void
write_copy(void)
{
	__asm__ volatile(
	    "ldr q0, [%1]\n\tstr q0, [%0]\n\t"
	    "ldr q0, [%1, #16]\n\tstr q0, [%0, #16]\n\t"
	    "ldr q0, [%1, #32]\n\tstr q0, [%0, #32]\n\t"
	    "ldr q0, [%1, #48]\n\tstr q0, [%0, #48]"
	    : : "r"(ps->copy), "r"(src) : "v0", "memory");
}

__attribute__((noinline)) static void
write_avx(void)
{
	__asm__ volatile("ldp q0, q1, [%1]\n\tstp q0, q1, [%0]"
	    : : "r"(ps->avx), "r"(src) : "v0", "v1", "memory");
}
#else
/* AVX, and an OS that saves the ymm registers. */
static int
cpu_avx(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) ||
	    !(c & bit_OSXSAVE))
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

__attribute__((noinline)) static void
write_imm(void)
{
	__asm__ volatile("movq $0x5a5a, %0" : "=m"(ps->imm));
}

__attribute__((noinline)) static void
write_lock(void)
{
	__asm__ volatile("lock addq $1, %0" : "+m"(ps->lock));
}

/* A memcpy of 64 bytes as a compiler inlines one: four 16-byte stores. */
__attribute__((noinline)) static void
write_copy(void)
{
	__asm__ volatile(
	    "movdqu 0(%1), %%xmm0\n\tmovdqu %%xmm0, 0(%0)\n\t"
	    "movdqu 16(%1), %%xmm0\n\tmovdqu %%xmm0, 16(%0)\n\t"
	    "movdqu 32(%1), %%xmm0\n\tmovdqu %%xmm0, 32(%0)\n\t"
	    "movdqu 48(%1), %%xmm0\n\tmovdqu %%xmm0, 48(%0)"
	    : : "r"(ps->copy), "r"(src) : "xmm0", "memory");
}

__attribute__((noinline)) static void
write_avx(void)
{
	if (have_avx)
		__asm__ volatile("vmovdqu (%1), %%ymm0\n\t"
		    "vmovdqu %%ymm0, (%0)\n\tvzeroupper"
		    : : "r"(ps->avx), "r"(src) : "xmm0", "memory");
	else
		__asm__ volatile(
		    "movdqu 0(%1), %%xmm0\n\tmovdqu %%xmm0, 0(%0)\n\t"
		    "movdqu 16(%1), %%xmm0\n\tmovdqu %%xmm0, 16(%0)"
		    : : "r"(ps->avx), "r"(src) : "xmm0", "memory");
}
#endif

__attribute__((noinline)) static void
write_neighbour(long v)
{
	*neighbour = v;
}

static void *
thread_imm(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&go);
	for (i = 0; i < nwrites; i++)
		write_imm();
	return NULL;
}

static void *
thread_lock(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&go);
	for (i = 0; i < nwrites; i++)
		write_lock();
	return NULL;
}

static void *
thread_copy_avx(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&go);
	for (i = 0; i < nwrites; i++) {
		write_copy();
		write_avx();
	}
	return NULL;
}

static void *
thread_neighbour(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&go);
	for (i = 0; i < nneighbour; i++)
		write_neighbour(i);
	return NULL;
}

/* read(2) 64 known bytes from a pipe into ps->rd; prints their sum. */
static int
pipe_read(void)
{
	unsigned char buf[64];
	uint32_t h = 2166136261u;
	int p[2], i;

	for (i = 0; i < 64; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	if (pipe(p) == -1 || write(p[1], buf, 64) != 64 ||
	    read(p[0], ps->rd, 64) != 64)
		return -1;
	close(p[0]);
	close(p[1]);
	for (i = 0; i < 64; i++)
		h = (h ^ ps->rd[i]) * 16777619u;
	printf("read 64 sum %08x\n", (unsigned)h);
	return 0;
}

/* A child that writes the watched page and the neighbour, exits 7. */
static int
fork_child(void)
{
	pid_t c;
	int st;

	fflush(stdout);
	if ((c = fork()) == -1)
		return -1;
	if (c == 0) {
		write_imm();
		write_neighbour(-1);
		printf("child imm 1 neighbour 1\n");
		fflush(stdout);
		_exit(7);
	}
	if (waitpid(c, &st, 0) != c)
		return -1;
	printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) :
	    128 + WTERMSIG(st));
	return 0;
}

/* The writers, created before the ready line: they wait for go. */
static void
start(pthread_t *th)
{
	pthread_barrier_init(&go, NULL, 5);
	pthread_create(&th[0], NULL, thread_imm, NULL);
	pthread_create(&th[1], NULL, thread_lock, NULL);
	pthread_create(&th[2], NULL, thread_copy_avx, NULL);
	pthread_create(&th[3], NULL, thread_neighbour, NULL);
}

static void
run(pthread_t *th)
{
	int i;

	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
}

int
main(int argc, char *argv[])
{
	pthread_t th[4];
	int ch, unaligned = 0, kread = 0, child = 0, waitend = 0;

	while ((ch = getopt(argc, argv, "un:N:rfw")) != -1) {
		switch (ch) {
		case 'u': unaligned = 1; break;
		case 'n': nwrites = atol(optarg); break;
		case 'N': nneighbour = atol(optarg); break;
		case 'r': kread = 1; break;
		case 'f': child = 1; break;
		case 'w': waitend = 1; break;
		default: return 64;
		}
	}
	ps = (struct ps *)(wpt_area + (unaligned ? 0xf00 : 0));
	neighbour = (volatile long *)((unsigned char *)ps + 512 + 64);
	have_avx = cpu_avx();
	wpt_block_go();
	start(th);
	printf("{\"pid\":%d,\"ps\":\"0x%lx\",\"len\":512,\"neighbour\":"
	    "\"0x%lx\",\"imm\":\"0x%lx\",\"rd\":\"0x%lx\",\"avx\":%s}\n",
	    (int)getpid(), WPT_ADDR(ps), WPT_ADDR(neighbour),
	    WPT_ADDR(&ps->imm), WPT_ADDR(ps->rd), have_avx ? "true" : "false");
#if defined(__aarch64__)
	printf("avx arm64: stp q0, q1, 1 store a write\n");
#else
	printf("avx %s\n", have_avx ? "yes: vmovdqu ymm, 1 store a write" :
	    "no: the CPU has no AVX (cpuid), 2 movdqu stores a write");
#endif
	fflush(stdout);
	run(th);
	printf("imm writes %ld stores %ld\n", nwrites, nwrites);
	printf("lock writes %ld stores %ld\n", nwrites, nwrites);
	printf("copy writes %ld stores %ld\n", nwrites, 4 * nwrites);
	printf("avx writes %ld stores %ld\n", nwrites,
	    (have_avx ? 1 : 2) * nwrites);
	printf("neighbour writes %ld stores %ld\n", nneighbour, nneighbour);
	printf("lock value %ld\n", ps->lock);
	if ((kread && pipe_read() == -1) || (child && fork_child() == -1))
		return 1;
	printf("done\n");
	fflush(stdout);
	if (waitend)
		wpt_wait_go();
	return 0;
}
