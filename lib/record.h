#ifndef WP_RECORD_H
#define WP_RECORD_H

#include <stdio.h>
#include <json-c/json.h>

#include "json.h"

struct wp_reader;

struct wp_record {
	char		*line;	/* the original text, no newline */
	size_t		 len;
	long		 lineno;
	const char	*type;
	char		 typebuf[64];
	struct wp_json_field f[WP_JSON_MAXFIELDS];	/* top-level members */
	size_t		 nf;
	struct wp_reader *rd;
};

struct wp_reader {
	FILE		*in;
	const char	*name;	/* for messages: "stdin" or a path */
	char		*buf;
	size_t		 cap;
	long		 lineno;
	long		 nbad;
	json_tokener	*tok;
	json_object	*obj;	/* of the current record, parsed on demand */
};

void	 wp_record_reader_init(struct wp_reader *, FILE *, const char *);
void	 wp_record_reader_free(struct wp_reader *);
int	 wp_record_read(struct wp_reader *, struct wp_record *);
FILE	*wp_record_input(const char *, const char **);
json_object *wp_record_obj(struct wp_record *);
int	 wp_record_raw(const struct wp_record *, const char *, const char **,
	    size_t *);
int	 wp_record_hex(const struct wp_record *, const char *, uint64_t *);
int	 wp_record_int(const struct wp_record *, const char *, int64_t *);

void	 wp_record_out_init(FILE *);
void	 wp_record_finish_on_interrupt(void);
int	 wp_record_write(const char *, size_t);
int	 wp_record_pass(const struct wp_record *);
int	 wp_record_emit(json_object *);
int	 wp_record_append(const struct wp_record *, const char *);
int	 wp_record_out_flush(void);

json_object	*wp_json_hex(uint64_t);
int		 wp_json_get_hex(json_object *, const char *, uint64_t *);
int		 wp_json_get_int(json_object *, const char *, int64_t *);
const char	*wp_json_get_str(json_object *, const char *);

#endif
