/*
 * wp-demo: a small game-like loop for wp's demo.  The score is written
 * by a few functions at different rates; the program prints its pid and
 * the score's address, then plays until it is killed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile int score;
volatile int lives = 3;

__attribute__((noinline)) static void
pick_coin(void)
{
	score += 10;
}

__attribute__((noinline)) static void
hit_enemy(int bonus)
{
	score = score + 100 * bonus;
}

__attribute__((noinline)) static void
new_level(void)
{
	score = 0;
	lives = 3;
}

int
main(void)
{
	struct timespec tick = { 0, 2000000 };
	unsigned long frame;

	printf("wp-demo: pid %d, score at %p\n", (int)getpid(),
	    (void *)&score);
	fflush(stdout);
	for (frame = 1;; frame++) {
		pick_coin();
		if (frame % 5 == 0)
			hit_enemy((int)(frame % 3) + 1);
		if (frame % 250 == 0)
			new_level();
		nanosleep(&tick, NULL);
	}
}
