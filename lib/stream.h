/*
 * stream: reading and writing the NDJSON record stream (wp-records(7)).
 *
 * A filter reads each line into a struct wp_record, passes on what it
 * does not own as the original text, appends its fields to the records
 * it adds to, and writes its own records as whole lines.  Output goes to
 * one FILE for the whole process, set by wp_stream_out_init.
 */
#ifndef WP_STREAM_H
#define WP_STREAM_H

#include <stdio.h>

#include "hmap.h"
#include "json.h"
#include "util.h"

/*
 * One record.  Everything it points to belongs to the reader and is
 * valid until the next wp_stream_read on that reader.
 */
/* The record types the tools act on (wp-records(7)); others: OTHER. */
enum wp_rtype {
	WP_REC_OTHER, WP_REC_SESSION, WP_REC_TARGET, WP_REC_FOLLOW,
	WP_REC_ARMED, WP_REC_HIT, WP_REC_TALLY, WP_REC_LAST_WRITE,
	WP_REC_REBIND, WP_REC_OBSERVATION, WP_REC_LOST, WP_REC_THREAD,
	WP_REC_SITE, WP_REC_ACCESS, WP_REC_COUNT,
	WP_NRTYPES
};
extern const char *const wp_rtype_names[WP_NRTYPES];	/* [OTHER]: NULL */

struct wp_record {
	const char	*line;		/* the text, without its newline */
	size_t		 len;
	long		 lineno;
	const char	*type;		/* the decoded "type" member */
	enum wp_rtype	 kind;		/* the type, set by the reader */
	const struct wp_json *j;	/* its tokens: the object is token 0 */
};

struct wp_reader {
	FILE		*in;
	const char	*name;		/* for messages: "stdin" or a path */
	long		 lineno;
	long		 nbad;		/* lines that were not records */
	int		 failed;	/* a read failed: the input ends there */
	struct wp_error	 err;		/* after -1: "NAME: line N: what" */
	/* private */
	char		*buf;
	size_t		 cap;
	size_t		 pos, end;	/* the bytes read, not handed out */
	int		 fd;		/* -1: read through in */
	struct wp_json	 j;
	char		*type;
	size_t		 typecap;
	int		 done;
	struct wp_hmap	 ids;		/* the target and follow ids seen */
};

/* in is not closed by wp_reader_free; name must outlive the reader. */
void	 wp_reader_init(struct wp_reader *rd, FILE *in, const char *name);
void	 wp_reader_free(struct wp_reader *rd);

/*
 * Reads the next line.  Returns 1 for a record, 0 at the end of the
 * input, -1 for a line that is not a record or a read error: rd->err
 * says which (the caller prints rd->err.msg), bad lines are counted in
 * rd->nbad, and the next call goes on after it.
 */
int	 wp_stream_read(struct wp_reader *rd, struct wp_record *rec);

/*
 * The input of a filter: the file arg, or standard input for NULL or
 * "-".  *name is set for messages.  NULL with errno set on failure.
 */
FILE	*wp_stream_open(const char *arg, const char **name);

/*
 * Output.  Unless out is a regular file, lines are flushed as they are
 * written, so that a consumer on a pipe sees each record at once; while
 * a reader is open (a filter), they are flushed before it waits for
 * input instead, which a consumer cannot tell apart.  SIGPIPE is
 * ignored: a closed output shows as -1 from the writers.
 */
void	 wp_stream_out_init(FILE *out);
int	 wp_stream_write(const char *line, size_t len);
int	 wp_stream_write_jw(const struct wp_jw *w);
int	 wp_stream_pass(const struct wp_record *rec);
/* The record with extra (",\"k\":v...") added as its last members. */
int	 wp_stream_append(const struct wp_record *rec, const char *extra,
	    size_t n);
int	 wp_stream_flush(void);
/*
 * With on, while the output is a pipe or socket, writing never waits
 * (wp-arm keeps its deadline whatever the reader does): a line the
 * output cannot take now waits in a bounded buffer (1 MiB), and a line
 * that finds no room there is dropped, the writer returning 1.  Off
 * again, what waits is written out, waiting.  -1: the output is closed.
 */
int	 wp_stream_nonblock(int on);
/*
 * wp_stream_write_jw for the bulk of the lines (wp-arm's hits): not
 * waiting, it gives way first, finding no room (1) once 64 KiB or less of
 * the buffer would be left, which is kept for the other lines.
 */
int	 wp_stream_write_bulk(const struct wp_jw *w);
/*
 * Between wp_stream_hold and wp_stream_release, lines are not flushed
 * one by one: a batch written at once (the records of a ring drained)
 * goes out together at the release, which returns -1 when the output
 * is closed.  An open reader holds the stream the same way.
 */
void	 wp_stream_hold(void);
int	 wp_stream_release(void);

/*
 * For the filters after wp-arm: the first SIGINT (a Ctrl-C that reaches
 * the whole pipeline) lets them finish the records wp-arm still sends,
 * up to its observation; a second one quits.
 */
void	 wp_stream_finish_on_interrupt(void);

#endif
