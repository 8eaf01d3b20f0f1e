/*
 * The live progress line of wp-report on a terminal: "wp: watching
 * 1.2 s, 345 hits", or "wp: watching 1.2 s of 60 s, 345 hits" when the
 * armed record says how long the watch is to last (its duration_ms; "of
 * 0.25 s" for 250 ms), redrawn four times a second from a timer, in
 * async-signal-safe code.
 */
#include <sys/time.h>

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reader.h"
#include "report.h"

static volatile sig_atomic_t hits, on;
static volatile long total_ms = -1;	/* the duration; -1: unknown */
static struct timespec t0;

static size_t
fmt_u(char *p, unsigned long v)
{
	char tmp[24];
	size_t n = 0, i;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* Writes ms milliseconds in seconds: "60", "1.5", "0.25", "0.005". */
static size_t
fmt_ms(char *p, unsigned long ms)
{
	unsigned long frac = ms % 1000, div;
	size_t n;

	n = fmt_u(p, ms / 1000);
	if (frac != 0) {
		p[n++] = '.';
		for (div = 100; frac != 0; div /= 10) {
			p[n++] = (char)('0' + frac / div);
			frac %= div;
		}
	}
	return n;
}

static void
on_tick(int sig)
{
	struct timespec now;
	char buf[128];
	size_t n;
	long ds;

	(void)sig;
	if (!on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ds = (now.tv_sec - t0.tv_sec) * 10 +
	    (now.tv_nsec - t0.tv_nsec) / 100000000;
	memcpy(buf, "\rwp: watching ", 14);
	n = 14;
	n += fmt_u(buf + n, (unsigned long)(ds / 10));
	buf[n++] = '.';
	n += fmt_u(buf + n, (unsigned long)(ds % 10));
	if (total_ms >= 0) {
		memcpy(buf + n, " s of ", 6);
		n += 6;
		n += fmt_ms(buf + n, (unsigned long)total_ms);
	}
	memcpy(buf + n, " s, ", 4);
	n += 4;
	n += fmt_u(buf + n, (unsigned long)hits);
	memcpy(buf + n, " hits  ", 7);
	n += 7;
	if (write(STDERR_FILENO, buf, n) < 0)
		on = 0;
}

void
progress_start(void)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = 250000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

void
progress_record(const struct wp_record *rec)
{
	struct wp_armed_in a;

	if (rec->kind == WP_REC_HIT)
		hits++;
	else if (rec->kind == WP_REC_ARMED) {
		wp_rec_read_armed(rec, &a);
		total_ms = a.duration_ms >= 0 && a.duration_ms < 1000000000000 ?
		    (long)a.duration_ms : -1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		on = 1;
	} else if (rec->kind == WP_REC_OBSERVATION)
		progress_stop();
}

void
progress_stop(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	if (on)
		(void)!write(STDERR_FILENO, "\n", 1);
	on = 0;
}
