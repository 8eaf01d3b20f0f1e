#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "util.h"

static FILE	*out;
static volatile sig_atomic_t interrupted;
static int	 flush_each;

void
wp_record_reader_init(struct wp_reader *r, FILE *in, const char *name)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->name = name;
	if ((r->tok = json_tokener_new()) == NULL)
		errx(WP_EXIT_ERROR, "json_tokener_new failed");
}

void
wp_record_reader_free(struct wp_reader *r)
{
	if (r->obj != NULL)
		json_object_put(r->obj);
	if (r->tok != NULL)
		json_tokener_free(r->tok);
	free(r->buf);
	memset(r, 0, sizeof *r);
}

static int
bad(struct wp_reader *r, const char *why)
{
	warnx("%s: line %ld: %s", r->name, r->lineno, why);
	r->nbad++;
	return 0;
}

static int
parse(struct wp_reader *r, char *line, size_t len, struct wp_record *rec)
{
	const struct wp_json_field *t;
	const char *err;
	char why[128];
	size_t col;

	if (wp_json_scan(line, len, rec->f, &rec->nf, &err, &col) == -1) {
		if (strcmp(err, "empty line") == 0 ||
		    strcmp(err, "not a JSON object") == 0 ||
		    strcmp(err, "text after the JSON object") == 0)
			return bad(r, err);
		snprintf(why, sizeof why, "invalid JSON at byte %zu: %s", col,
		    err);
		return bad(r, why);
	}
	t = wp_json_find(rec->f, rec->nf, "type");
	if (t == NULL || t->vlen < 2 || t->val[0] != '"' ||
	    t->vlen - 2 >= sizeof rec->typebuf ||
	    memchr(t->val, '\\', t->vlen) != NULL)
		return bad(r, "no \"type\" string field");
	memcpy(rec->typebuf, t->val + 1, t->vlen - 2);
	rec->typebuf[t->vlen - 2] = '\0';
	rec->type = rec->typebuf;
	rec->line = line;
	rec->len = len;
	rec->lineno = r->lineno;
	rec->rd = r;
	return 1;
}

/* The record as a json-c object, parsed on first use. */
json_object *
wp_record_obj(struct wp_record *rec)
{
	struct wp_reader *r = rec->rd;

	if (r->obj == NULL) {
		json_tokener_reset(r->tok);
		r->obj = json_tokener_parse_ex(r->tok, rec->line, (int)rec->len);
		if (r->obj == NULL)
			r->obj = json_object_new_object();
	}
	return r->obj;
}

int
wp_record_raw(const struct wp_record *rec, const char *key, const char **val,
    size_t *vlen)
{
	const struct wp_json_field *f = wp_json_find(rec->f, rec->nf, key);

	if (f == NULL)
		return -1;
	*val = f->val;
	*vlen = f->vlen;
	return 0;
}

int
wp_record_hex(const struct wp_record *rec, const char *key, uint64_t *v)
{
	const char *s;
	size_t n;

	if (wp_record_raw(rec, key, &s, &n) == -1)
		return -1;
	return wp_json_hexval(s, n, v);
}

int
wp_record_int(const struct wp_record *rec, const char *key, int64_t *v)
{
	const char *s;
	size_t n;

	if (wp_record_raw(rec, key, &s, &n) == -1)
		return -1;
	return wp_json_intval(s, n, v);
}

/*
 * Reads the next well-formed record.  Malformed lines are reported on
 * stderr with their line number, counted in nbad, and skipped.
 * Returns 1 for a record, 0 at end of input.
 */
int
wp_record_read(struct wp_reader *r, struct wp_record *rec)
{
	ssize_t n;

	if (r->obj != NULL) {
		json_object_put(r->obj);
		r->obj = NULL;
	}
	for (;;) {
		errno = 0;
		n = getline(&r->buf, &r->cap, r->in);
		if (n < 0) {
			if (ferror(r->in) && errno != 0)
				warn("%s: read", r->name);
			return 0;
		}
		r->lineno++;
		if (n > 0 && r->buf[n - 1] == '\n')
			r->buf[--n] = '\0';
		else if (!feof(r->in) || n > 0) {
			/* last line without a newline: accept it */
		}
		if (memchr(r->buf, '\0', (size_t)n) != NULL) {
			bad(r, "NUL byte in line");
			continue;
		}
		if (parse(r, r->buf, (size_t)n, rec))
			return 1;
	}
}

/*
 * Records are flushed one by one unless stdout is a regular file, so a
 * consumer on a pipe or terminal sees each record as soon as it exists.
 */
void
wp_record_out_init(FILE *f)
{
	struct stat st;

	out = f;
	signal(SIGPIPE, SIG_IGN);
	flush_each = !(fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
	setvbuf(f, NULL, _IOFBF, 1 << 16);
}

int
wp_record_out_flush(void)
{
	if (fflush(out) == EOF || ferror(out))
		return -1;
	return 0;
}

int
wp_record_write(const char *line, size_t len)
{
	if (fwrite(line, 1, len, out) != len || putc('\n', out) == EOF)
		return -1;
	if (flush_each)
		return wp_record_out_flush();
	return 0;
}

int
wp_record_pass(const struct wp_record *rec)
{
	return wp_record_write(rec->line, rec->len);
}

int
wp_record_emit(json_object *o)
{
	size_t len;
	const char *s;

	s = json_object_to_json_string_length(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	return wp_record_write(s, len);
}

/* Writes the record with the text "extra" (",\"k\":v...") added as fields. */
int
wp_record_append(const struct wp_record *rec, const char *extra)
{
	size_t n = rec->len;

	while (n > 0 && rec->line[n - 1] != '}')
		n--;
	if (n == 0)
		return wp_record_pass(rec);
	if (fwrite(rec->line, 1, n - 1, out) != n - 1 ||
	    fputs(extra, out) == EOF || fputs("}\n", out) == EOF)
		return -1;
	if (flush_each)
		return wp_record_out_flush();
	return 0;
}

json_object *
wp_json_hex(uint64_t v)
{
	char buf[24];

	wp_hex(buf, sizeof buf, v);
	return json_object_new_string(buf);
}

/* A "0x..." string field.  Returns -1 when absent or not hex. */
int
wp_json_get_hex(json_object *o, const char *key, uint64_t *v)
{
	json_object *f;
	const char *s;
	char *end;

	if (!json_object_object_get_ex(o, key, &f) ||
	    !json_object_is_type(f, json_type_string))
		return -1;
	s = json_object_get_string(f);
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
		return -1;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

int
wp_json_get_int(json_object *o, const char *key, int64_t *v)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f) ||
	    !json_object_is_type(f, json_type_int))
		return -1;
	*v = json_object_get_int64(f);
	return 0;
}

const char *
wp_json_get_str(json_object *o, const char *key)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f) ||
	    !json_object_is_type(f, json_type_string))
		return NULL;
	return json_object_get_string(f);
}

static void
on_interrupt(int sig)
{
	if (interrupted)
		_exit(128 + sig);
	interrupted = 1;
}

/*
 * For the filters after wp-arm: the first SIGINT (a Ctrl-C that reaches
 * the whole pipeline) lets them finish the records wp-arm still sends,
 * up to its observation; a second one quits.
 */
void
wp_record_finish_on_interrupt(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
}

/* The input of a filter: FILE, or standard input for none or "-". */
FILE *
wp_record_input(const char *arg, const char **name)
{
	FILE *in;

	*name = "stdin";
	if (arg == NULL || strcmp(arg, "-") == 0)
		return stdin;
	*name = arg;
	if ((in = fopen(arg, "re")) == NULL)
		err(WP_EXIT_ERROR, "%s", arg);
	return in;
}
