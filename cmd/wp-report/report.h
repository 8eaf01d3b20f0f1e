#ifndef WP_REPORT_H
#define WP_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

struct wp_report;
struct wp_record;

struct wp_report *wp_report_new(size_t);
void	 wp_report_free(struct wp_report *);
void	 wp_report_add(struct wp_report *, struct wp_record *);
json_object *wp_report_json(struct wp_report *, long);
int	 wp_report_table(json_object *, FILE *);
int	 wp_report_complete(const struct wp_report *);

#endif
