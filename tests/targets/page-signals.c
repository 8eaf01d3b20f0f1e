/*
 * page-signals [-n writes] [-s signal]
 *
 * wpt_sig, a 24-byte struct alone on its page, written by the main
 * thread while a second thread sends it a signal (default SIGUSR2) at
 * each write, for the page backend: the signal comes while the
 * thread's fault is being made, so that it is pending when wp-arm
 * steps the instruction or emulates it.  Prints one JSON line (pid, the
 * struct's address), waits for SIGUSR1, then n times (default 200):
 *   write_stepped:  movsq (no rep) of i into .stepped    (stepped)
 *   write_emulated: movq %reg of i into .emulated        (emulated)
 * each after asking the sender for one signal, and waits (5 s at most)
 * for its handler, on_signal, which stores the count of signals it
 * took into .handled (movq, emulated) and notes whether the write under
 * way had been made or not yet (early: the signal came before it ran).
 * Then it prints
 *   stepped writes N early E
 *   emulated writes N early E
 *   handled writes H
 *   signals sent S handled H lost L
 *   values S E H
 * (lost: a write whose signal never came; values: the struct's fields,
 * N N H when every write was made once) and "done", and exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "wpt.h"

struct sg {
	volatile uint64_t	 stepped;
	volatile uint64_t	 emulated;
	volatile uint64_t	 handled;
	char			 pad[4096 - 24];	/* the page its own */
};

struct sg wpt_sig __attribute__((aligned(4096)));
static volatile uint64_t from;		/* movsq's source, unwatched */
static volatile uint64_t *cur;		/* the write under way, its value */
static volatile uint64_t want;
static volatile long nhandled, early[2], got;
static int req, stop;
static pid_t writer;
static int sig = SIGUSR2;

__attribute__((noinline)) static void
write_stepped(uint64_t v)
{
	void *d = (void *)&wpt_sig.stepped, *s = (void *)&from;

	from = v;
	__asm__ volatile("movsq" : "+D"(d), "+S"(s) : : "memory");
}

__attribute__((noinline)) static void
write_emulated(uint64_t v)
{
	__asm__ volatile("movq %1, %0" : "=m"(wpt_sig.emulated) : "r"(v));
}

static void
on_signal(int s)
{
	uint64_t n = (uint64_t)++nhandled;

	(void)s;
	if (*cur != want)
		early[cur == &wpt_sig.emulated]++;
	__asm__ volatile("movq %1, %0" : "=m"(wpt_sig.handled) : "r"(n));
	got = 1;
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Sends the writer one signal each time it asks. */
static void *
sender(void *arg)
{
	long *sent = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_exchange_n(&req, 0, __ATOMIC_ACQ_REL)) {
			syscall(SYS_tgkill, writer, writer, sig);
			(*sent)++;
		} else
			__builtin_ia32_pause();
	}
	return NULL;
}


/* One write of v by fn into *field, a signal asked for; 0, or 1: lost. */
static int
one(void (*fn)(uint64_t), volatile uint64_t *field, uint64_t v)
{
	uint64_t end;

	got = 0;
	cur = field;
	want = v;
	__atomic_store_n(&req, 1, __ATOMIC_RELEASE);
	fn(v);
	for (end = now_us() + 5000000; !got && now_us() < end; )
		__builtin_ia32_pause();
	return !got;
}

int
main(int argc, char *argv[])
{
	struct sigaction sa;
	pthread_t th;
	long n = 200, i, lost = 0, sent = 0;
	int ch;

	while ((ch = getopt(argc, argv, "n:s:")) != -1) {
		switch (ch) {
		case 'n': n = atol(optarg); break;
		case 's': sig = atoi(optarg); break;
		default: return 64;
		}
	}
	writer = getpid();
	cur = &wpt_sig.stepped;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	if (sigaction(sig, &sa, NULL) == -1)
		return 64;
	wpt_block_go();
	if (pthread_create(&th, NULL, sender, &sent) != 0)
		return 1;
	printf("{\"pid\":%d,\"sig\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(&wpt_sig));
	fflush(stdout);
	wpt_wait_go();
	for (i = 1; i <= n; i++) {
		lost += one(write_stepped, &wpt_sig.stepped, (uint64_t)i);
		lost += one(write_emulated, &wpt_sig.emulated, (uint64_t)i);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("stepped writes %ld early %ld\nemulated writes %ld early %ld\n"
	    "handled writes %ld\nsignals sent %ld handled %ld lost %ld\n"
	    "values %llu %llu %llu\ndone\n", n, early[0], n, early[1],
	    nhandled, sent, nhandled, lost, (unsigned long long)wpt_sig.stepped,
	    (unsigned long long)wpt_sig.emulated,
	    (unsigned long long)wpt_sig.handled);
	fflush(stdout);
	return 0;
}
