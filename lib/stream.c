/*
 * Reading and writing the record stream: one JSON object per line,
 * bad lines named and skipped, valid ones passed on byte for byte.
 */
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "stream.h"
#include "util.h"

#define OUTBUF	(1 << 16)

static FILE	*out;
static int	 flush_each;
static size_t	 pending;	/* bytes in out's buffer */
static char	 outbuf[OUTBUF];
static volatile sig_atomic_t interrupted;

void
wp_reader_init(struct wp_reader *rd, FILE *in, const char *name)
{
	memset(rd, 0, sizeof *rd);
	rd->in = in;
	rd->name = name;
}

void
wp_reader_free(struct wp_reader *rd)
{
	free(rd->buf);
	free(rd->type);
	wp_json_free(&rd->j);
	memset(rd, 0, sizeof *rd);
}

static int
bad(struct wp_reader *rd, const char *why)
{
	wp_error_set(&rd->err, WP_EXIT_MALFORMED, "%s: line %ld: %s", rd->name,
	    rd->lineno, why);
	rd->nbad++;
	return -1;
}

static int
parse(struct wp_reader *rd, size_t len, struct wp_record *rec)
{
	struct wp_json *j = &rd->j;
	struct wp_error e;
	char why[128];
	int t;

	if (wp_json_parse(j, rd->buf, len) == -1) {
		if (strcmp(j->err, "empty line") == 0 ||
		    strcmp(j->err, "not a JSON object") == 0 ||
		    strcmp(j->err, "text after the JSON object") == 0)
			return bad(rd, j->err);
		snprintf(why, sizeof why, "invalid JSON at byte %zu: %s",
		    j->col, j->err);
		return bad(rd, why);
	}
	t = wp_json_get(j, 0, "type");
	if (!wp_json_is(j, t, WP_JSTRING))
		return bad(rd, "no \"type\" string field");
	if (rd->typecap < j->t[t].len) {
		rd->typecap = j->t[t].len;
		rd->type = wp_xrealloc(rd->type, rd->typecap);
	}
	if (wp_json_str(j, t, rd->type, rd->typecap) == -1)
		return bad(rd, "a NUL character in \"type\"");
	rec->line = rd->buf;
	rec->len = len;
	rec->lineno = rd->lineno;
	rec->type = rd->type;
	rec->j = j;
	if (wp_rec_check(rec, &e) == -1)
		return bad(rd, e.msg);
	return 1;
}

int
wp_stream_read(struct wp_reader *rd, struct wp_record *rec)
{
	ssize_t n;

	if (rd->done)
		return 0;
	errno = 0;
	n = getline(&rd->buf, &rd->cap, rd->in);
	if (n < 0) {
		rd->done = 1;
		if (ferror(rd->in) && errno != 0) {
			wp_error_set(&rd->err, WP_EXIT_ERROR, "%s: read: %s",
			    rd->name, strerror(errno));
			return -1;
		}
		return 0;
	}
	rd->lineno++;
	if (n > 0 && rd->buf[n - 1] == '\n')
		rd->buf[--n] = '\0';
	if (memchr(rd->buf, '\0', (size_t)n) != NULL)
		return bad(rd, "NUL byte in line");
	return parse(rd, (size_t)n, rec);
}

FILE *
wp_stream_open(const char *arg, const char **name)
{
	*name = "stdin";
	if (arg == NULL || strcmp(arg, "-") == 0)
		return stdin;
	*name = arg;
	return fopen(arg, "re");
}

void
wp_stream_out_init(FILE *f)
{
	struct stat st;

	out = f;
	signal(SIGPIPE, SIG_IGN);
	flush_each = !(fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
	/* glibc would take the size of a buffer of its own as a hint */
	setvbuf(f, outbuf, _IOFBF, sizeof outbuf);
	pending = 0;
}

/*
 * Makes room for a record of n bytes: the buffer is written out before
 * it would fill mid-record, so that every write(2) ends a line and a
 * writer killed between two leaves no half record behind.
 */
static int
room(size_t n)
{
	if (pending + n > OUTBUF && pending > 0 && wp_stream_flush() == -1)
		return -1;
	pending += n;
	return 0;
}

int
wp_stream_flush(void)
{
	pending = 0;
	if (fflush(out) == EOF || ferror(out))
		return -1;
	return 0;
}

int
wp_stream_write(const char *line, size_t len)
{
	if (room(len + 1) == -1 ||
	    fwrite(line, 1, len, out) != len || putc('\n', out) == EOF)
		return -1;
	if (flush_each)
		return wp_stream_flush();
	return 0;
}

int
wp_stream_write_jw(const struct wp_jw *w)
{
	return wp_stream_write(w->buf, w->len);
}

int
wp_stream_pass(const struct wp_record *rec)
{
	return wp_stream_write(rec->line, rec->len);
}

int
wp_stream_append(const struct wp_record *rec, const char *extra, size_t n)
{
	size_t k = rec->len;

	while (k > 0 && rec->line[k - 1] != '}')
		k--;
	if (k == 0)
		return wp_stream_pass(rec);
	if (room(k + n + 1) == -1 ||
	    fwrite(rec->line, 1, k - 1, out) != k - 1 ||
	    fwrite(extra, 1, n, out) != n || fputs("}\n", out) == EOF)
		return -1;
	if (flush_each)
		return wp_stream_flush();
	return 0;
}

static void
on_interrupt(int sig)
{
	if (interrupted)
		_exit(128 + sig);
	interrupted = 1;
}

void
wp_stream_finish_on_interrupt(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
}
