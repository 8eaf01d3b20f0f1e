/*
 * json: the one JSON parser and the one JSON writer of the record
 * stream (wp-records(7)).
 *
 * The parser checks one line against RFC 8259 and the stream's own
 * rules (valid UTF-8, no duplicate member names, nesting at most
 * WP_JSON_MAXDEPTH) and lays the values out as a flat array of tokens
 * in document order; nothing is copied.  The writer appends JSON text to
 * a growable buffer and always produces valid JSON.
 */
#ifndef WP_JSON_H
#define WP_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WP_JSON_MAXDEPTH 64

enum wp_jtype {
	WP_JOBJECT, WP_JARRAY, WP_JSTRING, WP_JNUMBER, WP_JTRUE, WP_JFALSE,
	WP_JNULL
};

/*
 * One value.  An object's tokens are followed by its members as pairs
 * (a string token for the name, then the value); an array's by its
 * elements.  end is the index after the value's last descendant.
 */
struct wp_jtok {
	uint32_t	start;		/* offset of its first byte in the text */
	uint32_t	len;		/* its text, quotes included */
	uint32_t	end;
	uint8_t		type;		/* enum wp_jtype */
	uint8_t		esc;		/* a string with backslash escapes */
	uint8_t		fits;		/* a string: "0x" and 1 to 16 hex
					   digits, without escapes; a
					   number: an integer that fits
					   int64_t */
	uint8_t		kinds;		/* an object's values or an array's
					   elements: bit 1 << type for each
					   type there, and WP_JKIND_NOTHEX
					   for a string not hex */
};

#define WP_JKIND_NOTHEX	0x80

/*
 * A parsed text.  The tokens belong to the struct and are reused by the
 * next wp_json_parse; the text belongs to the caller and must outlive
 * every use of the tokens.
 */
struct wp_json {
	const char	*text;
	size_t		 len;
	struct wp_jtok	*t;
	size_t		 nt, cap;
	const char	*err;		/* after a failed parse: what is wrong */
	size_t		 col;		/* and where, 1-based byte */
	/* for wp_json_get on token 0: a filter of its members' names (two
	   bits per name), and the name token of each bit a name owns (its
	   first, unless an earlier name owns that) */
	uint64_t	 keys, keyown;
	uint32_t	 keyat[64];
};

/* Parses text (one JSON object, blanks around it allowed): 0, or -1. */
int	 wp_json_parse(struct wp_json *j, const char *text, size_t len);
/*
 * The same for the line at text, of the avail bytes there, without
 * looking for its newline first: 0 and its length (its newline not
 * counted) when it is a JSON object, else -1 with nothing said: the
 * caller finds the line's end and asks wp_json_parse what is wrong.
 */
int	 wp_json_parse_line(struct wp_json *j, const char *text, size_t avail,
	    size_t *len);
void	 wp_json_free(struct wp_json *j);

/* The value of member key of object obj (a token index), or -1. */
int	 wp_json_get(const struct wp_json *j, int obj, const char *key);
/* Iteration over an array's elements or an object's values. */
int	 wp_json_first(const struct wp_json *j, int v);
int	 wp_json_next(const struct wp_json *j, int parent, int v);
size_t	 wp_json_count(const struct wp_json *j, int v);
/* The name of the member whose value is v (v from first/next). */
int	 wp_json_key_is(const struct wp_json *j, int v, const char *key,
	    size_t keylen);

/*
 * Typed reads of value v.  Each returns 0, or -1 when v is -1 (absent),
 * null, or of another type (or out of range); the output is untouched
 * then.
 */
int	 wp_json_is(const struct wp_json *j, int v, enum wp_jtype type);
int	 wp_json_int(const struct wp_json *j, int v, int64_t *out);
int	 wp_json_hex(const struct wp_json *j, int v, uint64_t *out);
int	 wp_json_shex(const struct wp_json *j, int v, int64_t *out);
/* A string of hex bytes (as wp_jw_bytes writes) into buf, at most cap:
 * 0 with *n set, or -1. */
int	 wp_json_bytes(const struct wp_json *j, int v, unsigned char *buf,
	    size_t cap, size_t *n);
int	 wp_json_bool(const struct wp_json *j, int v, int *out);
/* The decoded string into buf (NUL-terminated): its length, or -1. */
int	 wp_json_str(const struct wp_json *j, int v, char *buf, size_t sz);
/* The decoded string, allocated (the caller frees it), or NULL. */
char	*wp_json_strdup(const struct wp_json *j, int v);
int	 wp_json_streq(const struct wp_json *j, int v, const char *s);
/* The raw text of v. */
const char *wp_json_raw(const struct wp_json *j, int v, size_t *len);

/*
 * The writer.  Members are written with a key, elements with key NULL;
 * objects and arrays are opened and then closed with wp_jw_end.  Keys
 * are ASCII names, written as given.  Strings are escaped; bytes that
 * are not valid UTF-8 are written as U+FFFD.
 */
struct wp_jw {
	char		*buf;
	size_t		 len, cap;
	int		 depth;
	uint64_t	 more;		/* bit d: level d has a value already */
	uint64_t	 arr;		/* bit d: level d is an array */
};

void	 wp_jw_reset(struct wp_jw *w);
/* Resets w to go on inside an object that has members already: what
 * it writes next starts with a comma, for appending to a record. */
void	 wp_jw_resume(struct wp_jw *w);
void	 wp_jw_free(struct wp_jw *w);
void	 wp_jw_obj(struct wp_jw *w, const char *key);
void	 wp_jw_arr(struct wp_jw *w, const char *key);
void	 wp_jw_end(struct wp_jw *w);
void	 wp_jw_str(struct wp_jw *w, const char *key, const char *s);
void	 wp_jw_strn(struct wp_jw *w, const char *key, const char *s,
	    size_t n);
void	 wp_jw_hex(struct wp_jw *w, const char *key, uint64_t v);
void	 wp_jw_shex(struct wp_jw *w, const char *key, int64_t v);
void	 wp_jw_int(struct wp_jw *w, const char *key, int64_t v);
void	 wp_jw_uint(struct wp_jw *w, const char *key, uint64_t v);
void	 wp_jw_bool(struct wp_jw *w, const char *key, int v);
void	 wp_jw_null(struct wp_jw *w, const char *key);
/* v, or null where it is negative (not known) */
void	 wp_jw_int_known(struct wp_jw *w, const char *key, long v);
/* an array under key of the n strings at s */
void	 wp_jw_strs(struct wp_jw *w, const char *key, const char *const *s,
	    size_t n);
/*
 * An array under key of the n objects at a, size bytes apart: each
 * object opened, its members written by members(w, element), closed.
 */
void	 wp_jw_objects(struct wp_jw *w, const char *key, const void *a,
	    size_t n, size_t size,
	    void (*members)(struct wp_jw *, const void *));
/* fn(w, key, v) where have is not 0, else null: wp_jw_hex, wp_jw_int... */
#define WP_JW_OR_NULL(fn, w, key, have, v) \
	((have) ? fn((w), (key), (v)) : wp_jw_null((w), (key)))
/* bytes as a string of two hex digits each, "0a1b..." */
void	 wp_jw_bytes(struct wp_jw *w, const char *key,
	    const unsigned char *b, size_t n);
/* text that is already one valid JSON value */
void	 wp_jw_raw(struct wp_jw *w, const char *key, const char *text,
	    size_t n);
/*
 * The same, made in place: begin returns room for at most n bytes, the
 * caller writes one valid JSON value there, and end says how long.
 */
char	*wp_jw_raw_begin(struct wp_jw *w, const char *key, size_t n);
void	 wp_jw_raw_end(struct wp_jw *w, size_t n);
/* text appended as it is (the caller keeps the JSON valid) */
void	 wp_jw_append(struct wp_jw *w, const char *text, size_t n);
/*
 * "0x" and the hex digits of v at p: the length.  It may write up to 18
 * bytes, past the length too.
 */
size_t	 wp_fmt_hex(char *p, uint64_t v);

/* What the parser and the writer share: byte classes (a byte that
 * stands for itself in a string, a hex digit) and the length of the
 * UTF-8 sequence at p (0: not valid). */
#define WP_JSON_PLAIN	1
#define WP_JSON_HEX	2
extern const unsigned char wp_json_cls[256];
/* whether eight bytes may be taken as one word, the first lowest */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WP_JSON_SWAR	1
#else
#define WP_JSON_SWAR	0
#endif
size_t	 wp_utf8_len(const unsigned char *p, const unsigned char *end);

/*
 * memcmp(a, b, n) == 0, without a call for the short names of records:
 * the parser's and the schema check's one comparison of names.
 */
static inline int
wp_same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t w[4];
	size_t i;

	if (n > 16)
		return memcmp(a, b, n) == 0;
	if (n >= 8) {
		/* two words, overlapping where n < 16 */
		memcpy(&w[0], a, 8);
		memcpy(&w[1], b, 8);
		memcpy(&w[2], a + n - 8, 8);
		memcpy(&w[3], b + n - 8, 8);
		return w[0] == w[1] && w[2] == w[3];
	}
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

#endif
