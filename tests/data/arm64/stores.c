/*
 * A tiny static AArch64 program whose functions each store once, the
 * way a watch on arm64 sees them (make.sh builds it and the hits of
 * tests/34-decode-arm64.bats from its objdump).  No libc: _start calls
 * every store, then exits.
 */
#include <stdint.h>

struct pair {
	uint64_t	 a, b;
};

uint64_t	 score;
uint32_t	 lives;
uint8_t		 level;
struct pair	 pos;
uint64_t	 hits;
uint32_t	 lock;
uint64_t	 slot;
uint64_t	 spins;

void
set_score(uint64_t v)
{
	score = v;
}

void
set_pos(uint64_t a, uint64_t b)
{
	pos.a = a;
	pos.b = b;
}

void
set_level(uint8_t v)
{
	level = v;
}

void
publish(uint64_t v)
{
	__atomic_store_n(&slot, v, __ATOMIC_RELEASE);
}

uint64_t
count_hit(uint64_t n)
{
	return __atomic_fetch_add(&hits, n, __ATOMIC_RELAXED);
}

int
take_lock(uint32_t old, uint32_t new)
{
	return __atomic_compare_exchange_n(&lock, &old, new, 0,
	    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

uint32_t
swap_lives(uint32_t v)
{
	return __atomic_exchange_n(&lives, v, __ATOMIC_ACQ_REL);
}

/* an exclusive pair, as code built without LSE atomics has them */
void
spin_add(uint64_t n)
{
	uint64_t old, status;

	__asm__ volatile(
	    "1:	ldxr	%0, [%2]\n"
	    "	add	%0, %0, %3\n"
	    "	stxr	%w1, %0, [%2]\n"
	    "	cbnz	%w1, 1b\n"
	    : "=&r"(old), "=&r"(status) : "r"(&spins), "r"(n) : "memory");
}

void
_start(void)
{
	set_score(1000);
	set_pos(3, 4);
	set_level(7);
	publish(42);
	count_hit(1);
	take_lock(0, 1);
	swap_lives(9);
	spin_add(5);
	__asm__ volatile("mov x0, #0\n mov x8, #93\n svc #0" ::: "x0", "x8");
	for (;;)
		;
}
