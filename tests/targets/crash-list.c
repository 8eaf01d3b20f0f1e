/*
 * crash-list [-n pushes]
 *
 * Prints one JSON line (pid, the list head's address), waits for
 * SIGUSR1, then pushes nodes on a list from three sites in turn
 * (push_front, push_spare, push_again: n writes of wpt_head in all), and
 * a fourth site, corrupt_head, writes garbage (0xdead0000) there; then
 * prints "pushes N" and "garbage 0xdead0000" and walks the list, which
 * dies of SIGSEGV at the garbage.
 */
#include <stdint.h>

#include "wpt.h"

struct node {
	struct node	*next;
	long		 v;
};

struct node *volatile wpt_head;
static struct node pool[4096];

__attribute__((noinline)) void
push_front(struct node *n)
{
	n->next = wpt_head;
	wpt_head = n;
}

__attribute__((noinline)) void
push_spare(struct node *n)
{
	n->next = wpt_head;
	wpt_head = n;
}

__attribute__((noinline)) void
push_again(struct node *n)
{
	n->next = wpt_head;
	wpt_head = n;
}

__attribute__((noinline)) void
corrupt_head(uintptr_t junk)
{
	wpt_head = (struct node *)junk;
}

__attribute__((noinline)) static long
walk(void)
{
	struct node *n;
	long sum = 0;

	for (n = wpt_head; n != NULL; n = n->next)
		sum += n->v;
	return sum;
}

int
main(int argc, char *argv[])
{
	long n = 30, i;
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		switch (ch) {
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	}
	if (n < 0 || n > 4096)
		return 64;
	wpt_block_go();
	printf("{\"pid\":%d,\"head\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_head));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++) {
		pool[i].v = i;
		if (i % 3 == 0)
			push_front(&pool[i]);
		else if (i % 3 == 1)
			push_spare(&pool[i]);
		else
			push_again(&pool[i]);
	}
	printf("pushes %ld\ngarbage 0xdead0000\n", n);
	fflush(stdout);
	corrupt_head(0xdead0000);
	printf("sum %ld\n", walk());
	return 0;
}
