/*
 * Reading and writing the record stream: one JSON object per line,
 * bad lines named and skipped, valid ones passed on byte for byte.
 */
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "reader.h"
#include "record.h"
#include "schema.h"
#include "stream.h"
#include "util.h"

#define INBUF	(1 << 18)	/* what one read(2) asks for, at least */
#define OUTBUF	(1 << 20)	/* into a file: a write(2) costs the most */
#define PIPESZ	(1 << 20)	/* a pipe's size asked for: fewer wakeups */
#define RESERVE	(1 << 16)	/* of outbuf, what a bulk line leaves free */

static FILE	*out;
static int	 outfd = -1;	/* -1: written through out */
static int	 flush_each;
static int	 out_failed;
static int	 held;		/* open readers and holds: lines are
				   flushed before a reader waits, and at
				   the last release */
static size_t	 pending;	/* bytes in outbuf */
static size_t	 sent;		/* of those, written (nonblock only) */
static int	 nonblock;	/* wp_stream_nonblock: never wait */
static int	 fdflags = -1;	/* outfd's, before nonblock */
static size_t	 outmax = 1 << 16;	/* of outbuf, the bytes used */
static char	 outbuf[OUTBUF];
static volatile sig_atomic_t interrupted;

/*
 * The size of pipe fd, grown to PIPESZ where the system lets it be: the
 * tools on either side of it then take turns less often.  0: not a pipe.
 */
static size_t
pipe_size(int fd)
{
	struct stat st;
	int n;

	if (fd < 0 || fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode))
		return 0;
	if ((n = fcntl(fd, F_GETPIPE_SZ)) < PIPESZ &&
	    fcntl(fd, F_SETPIPE_SZ, PIPESZ) != -1)
		n = fcntl(fd, F_GETPIPE_SZ);
	return n > 0 ? (size_t)n : 0;
}

void
wp_reader_init(struct wp_reader *rd, FILE *in, const char *name)
{
	memset(rd, 0, sizeof *rd);
	rd->in = in;
	rd->name = name;
	/* read(2) keeps a pipe's records coming as they are written */
	rd->fd = fileno(in);
	pipe_size(rd->fd);
	wp_hmap_init(&rd->ids, 1);
	held++;
}

void
wp_reader_free(struct wp_reader *rd)
{
	free(rd->buf);
	free(rd->type);
	wp_json_free(&rd->j);
	wp_hmap_free(&rd->ids);
	memset(rd, 0, sizeof *rd);
	wp_stream_release();
}

void
wp_stream_hold(void)
{
	held++;
}

int
wp_stream_release(void)
{
	if (held > 0 && --held == 0 && flush_each && pending > 0)
		return wp_stream_flush();
	return out_failed ? -1 : 0;
}

static int
bad(struct wp_reader *rd, const char *why)
{
	wp_error_set(&rd->err, WP_EXIT_MALFORMED, "%s: line %ld: %s", rd->name,
	    rd->lineno, why);
	rd->nbad++;
	return -1;
}

/*
 * What the schema cannot say of a record: one of a write, a count or a
 * rebind names a target or follow record the stream gave before it (a
 * hit of no target is placed, counted and drawn nowhere), and a hit's
 * store_len is a length within a target.  0, or -1 with why.
 */
static int
sound(struct wp_reader *rd, const struct wp_record *rec, char *why,
    size_t sz)
{
	static const char *const refer[] = { "hit", "tally", "last_write",
	    "count", "rebind" };
	int64_t v;
	size_t i;
	int id, isnew;

	if (rec->kind == WP_REC_TARGET ||
	    rec->kind == WP_REC_FOLLOW) {
		if (wp_rec_read_id(rec, &id) == 0)
			wp_hmap_put(&rd->ids, (uint64_t)(int64_t)id, 0, &isnew);
		return 0;
	}
	/* an access names a site before it; sites are keyed apart */
	if (rec->kind == WP_REC_SITE) {
		if (wp_rec_int(rec, "id", &v) == 0)
			wp_hmap_put(&rd->ids, (uint64_t)v, 1, &isnew);
		return 0;
	}
	if (rec->kind == WP_REC_ACCESS) {
		if (wp_rec_int(rec, "site", &v) == 0 &&
		    wp_hmap_get(&rd->ids, (uint64_t)v, 1) == NULL) {
			snprintf(why, sz, "access.site %lld: no site record "
			    "of that id before it", (long long)v);
			return -1;
		}
		return 0;
	}
	for (i = 0; i < sizeof refer / sizeof refer[0]; i++)
		if (strcmp(rec->type, refer[i]) == 0)
			break;
	if (i == sizeof refer / sizeof refer[0])
		return 0;
	if (wp_rec_int(rec, "target", &v) == 0 &&
	    wp_hmap_get(&rd->ids, (uint64_t)v, 0) == NULL) {
		snprintf(why, sz, "%s.target %lld: no target or follow record "
		    "of that id before it", rec->type, (long long)v);
		return -1;
	}
	if (wp_rec_int(rec, "store_len", &v) == 0 &&
	    (v < 1 || v > WP_TARGET_MAXLEN)) {
		snprintf(why, sz, "%s.store_len %lld: not a length within a "
		    "target (1 to %u)", rec->type, (long long)v,
		    WP_TARGET_MAXLEN);
		return -1;
	}
	return 0;
}

const char *const wp_rtype_names[WP_NRTYPES] = {
	NULL, "session", "target", "follow", "armed", "hit", "tally",
	"last_write", "rebind", "observation", "lost", "thread", "site",
	"access", "count"
};

static enum wp_rtype
rtype(const char *type)
{
	int i;

	for (i = 1; i < WP_NRTYPES; i++)
		if (strcmp(type, wp_rtype_names[i]) == 0)
			return (enum wp_rtype)i;
	return WP_REC_OTHER;
}

/* Parses the line (parsed is 1 when it was already, as a JSON object). */
static int
parse(struct wp_reader *rd, char *line, size_t len, int parsed,
    struct wp_record *rec)
{
	struct wp_json *j = &rd->j;
	struct wp_error e;
	char why[128];
	int t;

	if (!parsed && wp_json_parse(j, line, len) == -1) {
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
	rec->line = line;
	rec->len = len;
	rec->lineno = rd->lineno;
	rec->type = rd->type;
	rec->kind = rtype(rd->type);
	rec->j = j;
	if (wp_rec_check(rec, &e) == -1)
		return bad(rd, e.msg);
	if (sound(rd, rec, why, sizeof why) == -1)
		return bad(rd, why);
	return 1;
}

/* Whether a read of fd would return at once. */
static int
readable(int fd)
{
	struct pollfd p;

	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	return poll(&p, 1, 0) == 1 && p.revents != 0;
}

/*
 * Reads more after the bytes not handed out yet, which move to the
 * front; the buffer grows when one line fills it.  The lines written
 * so far go out first when the read would wait.  Returns the bytes
 * read, 0 at the end, -1 on an error.
 */
static ssize_t
fill(struct wp_reader *rd)
{
	size_t keep = rd->end - rd->pos;
	ssize_t n;

	if (rd->pos > 0 && keep > 0)
		memmove(rd->buf, rd->buf + rd->pos, keep);
	rd->pos = 0;
	rd->end = keep;
	if (rd->cap - rd->end < INBUF / 2) {
		rd->cap = rd->cap < INBUF ? INBUF : rd->cap * 2;
		rd->buf = wp_xrealloc(rd->buf, rd->cap);
	}
	if (rd->fd < 0) {
		n = (ssize_t)fread(rd->buf + rd->end, 1, rd->cap - rd->end - 1,
		    rd->in);
		return n == 0 && ferror(rd->in) ? -1 : n;
	}
	if (flush_each && pending > 0 && !readable(rd->fd))
		wp_stream_flush();
	while ((n = read(rd->fd, rd->buf + rd->end, rd->cap - rd->end - 1)) ==
	    -1 && errno == EINTR)
		;
	return n;
}

int
wp_stream_read(struct wp_reader *rd, struct wp_record *rec)
{
	char *line, *nl;
	size_t n;
	ssize_t got;

	/* most lines are records: parsed as they are found */
	if (rd->pos < rd->end && wp_json_parse_line(&rd->j, rd->buf + rd->pos,
	    rd->end - rd->pos, &n) == 0) {
		line = rd->buf + rd->pos;
		rd->pos += n + 1;
		line[n] = '\0';
		rd->lineno++;
		return parse(rd, line, n, 1, rec);
	}
	for (;;) {
		if (rd->pos < rd->end && (nl = memchr(rd->buf + rd->pos, '\n',
		    rd->end - rd->pos)) != NULL) {
			line = rd->buf + rd->pos;
			n = (size_t)(nl - line);
			rd->pos += n + 1;
			break;
		}
		if (rd->done)
			return 0;
		errno = 0;
		if ((got = fill(rd)) < 0) {
			rd->done = 1;
			rd->failed = 1;
			rd->pos = rd->end = 0;
			wp_error_set(&rd->err, WP_EXIT_ERROR, "%s: read: %s",
			    rd->name, strerror(errno ? errno : EIO));
			return -1;
		}
		rd->end += (size_t)got;
		if (got == 0) {
			/* the end: a last line without its newline */
			rd->done = 1;
			if (rd->pos == rd->end)
				return 0;
			line = rd->buf + rd->pos;
			n = rd->end - rd->pos;
			rd->pos = rd->end;
			break;
		}
	}
	line[n] = '\0';		/* fill keeps a byte free after the data */
	rd->lineno++;
	if (memchr(line, '\0', n) != NULL)
		return bad(rd, "NUL byte in line");
	return parse(rd, line, n, 0, rec);
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
	/* into a pipe, at most a quarter of it at once */
	if (!flush_each)
		outmax = OUTBUF;
	else if ((outmax = pipe_size(fileno(f)) / 4) == 0)
		outmax = 1 << 16;
	else if (outmax < (1 << 12))
		outmax = 1 << 12;
	else if (outmax > OUTBUF)
		outmax = OUTBUF;
	/* what stdio holds goes out first; then the lines go past it */
	fflush(f);
	outfd = fileno(f);
	pending = 0;
	out_failed = 0;
}

/* Writes the n bytes at p; a full non-blocking output is waited for. */
static int
put_all(const char *p, size_t n)
{
	struct pollfd pf;
	ssize_t k;

	if (out_failed)
		return -1;
	if (outfd < 0) {
		if (fwrite(p, 1, n, out) != n || fflush(out) == EOF) {
			out_failed = 1;
			return -1;
		}
		return 0;
	}
	while (n > 0) {
		if ((k = write(outfd, p, n)) >= 0) {
			p += k;
			n -= (size_t)k;
		} else if (errno == EAGAIN) {
			pf.fd = outfd;
			pf.events = POLLOUT;
			poll(&pf, 1, -1);
		} else if (errno != EINTR) {
			out_failed = 1;
			return -1;
		}
	}
	return 0;
}

/* Writes what the output takes now of outbuf; the rest stays there. */
static int
put_some(void)
{
	ssize_t k;

	while (!out_failed && sent < pending) {
		if ((k = write(outfd, outbuf + sent, pending - sent)) >= 0)
			sent += (size_t)k;
		else if (errno == EAGAIN)
			break;
		else if (errno != EINTR)
			out_failed = 1;
	}
	if (sent == pending)
		sent = pending = 0;
	return out_failed ? -1 : 0;
}

int
wp_stream_nonblock(int on)
{
	struct stat st;
	int rc = 0;

	if (on && !nonblock && outfd >= 0 && flush_each &&
	    fstat(outfd, &st) == 0 && (S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode)) && (fdflags = fcntl(outfd, F_GETFL)) != -1 &&
	    fcntl(outfd, F_SETFL, fdflags | O_NONBLOCK) != -1)
		nonblock = 1;
	else if (!on && nonblock) {
		nonblock = 0;
		fcntl(outfd, F_SETFL, fdflags);
		if (sent < pending && put_all(outbuf + sent, pending - sent) == -1)
			rc = -1;
		sent = pending = 0;
	}
	return rc;
}

/* A line of len bytes into outbuf, never waiting: 1 when it had no room. */
static int
room_now(size_t len)
{
	if (pending + len <= OUTBUF)
		return 0;
	if (put_some() == -1)
		return -1;
	memmove(outbuf, outbuf + sent, pending - sent);
	pending -= sent;
	sent = 0;
	return pending + len <= OUTBUF ? 0 : 1;
}

int
wp_stream_flush(void)
{
	size_t n = pending;

	if (nonblock)
		return put_some();

	pending = 0;
	if (out_failed)
		return -1;
	if (n > 0 && put_all(outbuf, n) == -1)
		return -1;
	if (outfd < 0 && (fflush(out) == EOF || ferror(out))) {
		out_failed = 1;
		return -1;
	}
	return 0;
}

/*
 * One line of the pieces p[0..n), its newline added.  The buffer is
 * written out before it would fill mid-line, so that every write(2) ends
 * a line and a writer killed between two leaves no half record behind.
 * Not waiting, it finds no room when it would leave less than keep bytes
 * of the buffer free.
 */
static int
put_line(const struct iovec *p, int n, size_t keep)
{
	size_t len = 1;
	char *o, *big = NULL;
	int i, rc;

	for (i = 0; i < n; i++)
		len += p[i].iov_len;
	if (nonblock && (rc = room_now(len + keep)) != 0)
		return rc;
	if (!nonblock && pending + len > outmax && wp_stream_flush() == -1)
		return -1;
	/* a line longer than the buffer goes by itself, at once */
	o = len <= OUTBUF ? outbuf + pending : (big = wp_xmalloc(len));
	for (i = 0; i < n; i++) {
		memcpy(o, p[i].iov_base, p[i].iov_len);
		o += p[i].iov_len;
	}
	*o = '\n';
	if (big != NULL) {
		rc = put_all(big, len);
		free(big);
		return rc;
	}
	pending += len;
	if ((flush_each && held == 0) || pending > outmax)
		return wp_stream_flush();
	return out_failed ? -1 : 0;
}

int
wp_stream_write(const char *line, size_t len)
{
	struct iovec v;

	v.iov_base = (void *)(uintptr_t)line;
	v.iov_len = len;
	return put_line(&v, 1, 0);
}

int
wp_stream_write_jw(const struct wp_jw *w)
{
	return wp_stream_write(w->buf, w->len);
}

int
wp_stream_write_bulk(const struct wp_jw *w)
{
	struct iovec v;

	v.iov_base = w->buf;
	v.iov_len = w->len;
	return put_line(&v, 1, RESERVE);
}

int
wp_stream_pass(const struct wp_record *rec)
{
	return wp_stream_write(rec->line, rec->len);
}

int
wp_stream_append(const struct wp_record *rec, const char *extra, size_t n)
{
	struct iovec v[3];
	size_t k = rec->len;

	while (k > 0 && rec->line[k - 1] != '}')
		k--;
	if (k == 0)
		return wp_stream_pass(rec);
	v[0].iov_base = (void *)(uintptr_t)rec->line;
	v[0].iov_len = k - 1;
	v[1].iov_base = (void *)(uintptr_t)extra;
	v[1].iov_len = n;
	v[2].iov_base = (void *)(uintptr_t)"}";
	v[2].iov_len = 1;
	return put_line(v, 3, 0);
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
