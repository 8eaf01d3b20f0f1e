/*
 * Records as json-c values, for the report document.  lib/json parses
 * (the one parser); json-c only holds and prints the document.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"

static json_object *
number(const struct wp_json *j, int v)
{
	size_t n;
	const char *raw = wp_json_raw(j, v, &n);
	int64_t i;
	char *s;
	json_object *o;

	if (wp_json_int(j, v, &i) == 0)
		return json_object_new_int64(i);
	s = wp_xmalloc(n + 1);
	memcpy(s, raw, n);
	s[n] = '\0';
	o = json_object_new_double_s(strtod(s, NULL), s);
	free(s);
	return o;
}

static json_object *
value(const struct wp_json *j, int v)
{
	json_object *o;
	char *s;
	int x;

	switch (j->t[v].type) {
	case WP_JOBJECT:
		o = json_object_new_object();
		for (x = wp_json_first(j, v); x >= 0; x = wp_json_next(j, v, x)) {
			s = wp_json_strdup(j, x - 1);
			json_object_object_add(o, s, value(j, x));
			free(s);
		}
		return o;
	case WP_JARRAY:
		o = json_object_new_array();
		for (x = wp_json_first(j, v); x >= 0; x = wp_json_next(j, v, x))
			json_object_array_add(o, value(j, x));
		return o;
	case WP_JSTRING:
		s = wp_json_strdup(j, v);
		o = json_object_new_string(s);
		free(s);
		return o;
	case WP_JNUMBER:
		return number(j, v);
	case WP_JTRUE:
	case WP_JFALSE:
		return json_object_new_boolean(j->t[v].type == WP_JTRUE);
	default:
		return NULL;
	}
}

json_object *
jsonc_record(const struct wp_record *rec)
{
	return value(rec->j, 0);
}

json_object *
jsonc_parse(const char *text, size_t len)
{
	struct wp_json j = { 0 };
	json_object *o = NULL;

	if (text != NULL && wp_json_parse(&j, text, len) == 0)
		o = value(&j, 0);
	wp_json_free(&j);
	return o;
}

json_object *
jsonc_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}
