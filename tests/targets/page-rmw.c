/*
 * page-rmw [-n rounds]
 *
 * Read-modify-writes of wpt_rmw (a 64-byte struct on a page of its
 * own) in every width, for the page backend's emulation: prints one
 * JSON line (pid, the struct's address), waits for SIGUSR1, then runs
 * rounds rounds (default 100) of the 20 stores below, and after each
 * store folds the field, the arithmetic flags and the registers the
 * instruction writes (xadd, xchg, cmpxchg) into a hash.  Prints
 * "stores N" (the stores made), "hash HEX" and "done": a watch that
 * emulates a store wrongly (its value, a flag, a register) changes the
 * hash.
 */
#include <stdint.h>

#include "wpt.h"

struct rmw {
	volatile uint64_t	 q;
	volatile uint32_t	 d;
	volatile uint16_t	 w;
	volatile uint8_t	 b, pad;
	char			 rest[48];
};

struct rmw wpt_rmw __attribute__((aligned(4096)));
static uint64_t hash = 0xcbf29ce484222325ULL;

static void
fold(uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		hash ^= (v >> (8 * i)) & 0xff;
		hash *= 0x100000001b3ULL;
	}
}

/* The flags after the instruction, less those the ALU does not set. */
#define FLAGS(f)	((f) & 0x8d5)

/* One instruction on field m with operand s (a register, "+r"). */
#define RMW(insn, m, s) do {						\
	uint64_t f_;							\
	__asm__ volatile(insn "\n\tpushfq\n\tpopq %1"			\
	    : "+m"(m), "=r"(f_), "+r"(s) : : "cc");			\
	fold(m); fold(FLAGS(f_)); fold((uint64_t)s);			\
} while (0)

/* One with an immediate or no operand. */
#define RMW1(insn, m) do {						\
	uint64_t f_;							\
	__asm__ volatile(insn "\n\tpushfq\n\tpopq %1"			\
	    : "+m"(m), "=r"(f_) : : "cc");				\
	fold(m); fold(FLAGS(f_));					\
} while (0)

static void
round_of(uint64_t i)
{
	uint64_t q = i * 0x9e3779b97f4a7c15ULL, a;
	uint32_t d = (uint32_t)(i * 2654435761u);
	uint16_t w = (uint16_t)(i * 40503u);
	uint8_t b = (uint8_t)(i * 151u);

	RMW("lock addq %2, %0", wpt_rmw.q, q);
	RMW("lock subl %2, %0", wpt_rmw.d, d);
	RMW("lock andw %2, %0", wpt_rmw.w, w);
	RMW("lock orb %2, %0", wpt_rmw.b, b);
	RMW("lock xorq %2, %0", wpt_rmw.q, q);
	RMW1("lock incl %0", wpt_rmw.d);
	RMW1("lock decw %0", wpt_rmw.w);
	RMW1("lock negb %0", wpt_rmw.b);
	RMW1("lock notq %0", wpt_rmw.q);
	RMW1("lock addl $-7, %0", wpt_rmw.d);
	RMW1("addb $200, %0", wpt_rmw.b);
	RMW("stc\n\tlock adcq %2, %0", wpt_rmw.q, q);
	RMW("stc\n\tlock sbbw %2, %0", wpt_rmw.w, w);
	RMW("lock xaddl %2, %0", wpt_rmw.d, d);
	RMW("lock xaddb %2, %0", wpt_rmw.b, b);
	RMW("xchgq %2, %0", wpt_rmw.q, q);
	RMW("xchgw %2, %0", wpt_rmw.w, w);
	/* cmpxchg: equal (the source goes in) on odd rounds */
	a = i & 1 ? wpt_rmw.q : wpt_rmw.q + 1;
	__asm__ volatile("lock cmpxchgq %2, %0" : "+m"(wpt_rmw.q), "+a"(a)
	    : "r"(q) : "cc");
	fold(wpt_rmw.q); fold(a);
	a = i & 1 ? wpt_rmw.d : (uint32_t)(wpt_rmw.d + 1);
	__asm__ volatile("lock cmpxchgl %2, %0" : "+m"(wpt_rmw.d), "+a"(a)
	    : "r"(d) : "cc");
	fold(wpt_rmw.d); fold(a);
	RMW1("lock btsq $3, %0", wpt_rmw.q);
}

#define STORES	20

int
main(int argc, char **argv)
{
	long n = 100, i;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		switch (opt) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	wpt_block_go();
	printf("{\"pid\":%d,\"rmw\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_rmw));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++)
		round_of((uint64_t)i);
	printf("stores %ld\nhash %016llx\ndone\n", n * STORES,
	    (unsigned long long)hash);
	return 0;
}
