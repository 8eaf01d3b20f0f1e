#ifndef WP_DECODE_H
#define WP_DECODE_H

#include <json-c/json.h>

struct wp_decoder;
struct wp_record;

struct wp_decoder *wp_decode_new(void);
void	 wp_decode_free(struct wp_decoder *);
int	 wp_decode_session(struct wp_decoder *, json_object *);
int	 wp_decode_target(struct wp_decoder *, json_object *);
const char *wp_decode_hit(struct wp_decoder *, const struct wp_record *);

#endif
