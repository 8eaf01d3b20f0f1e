/*
 * schema: the record contract as data (share/wp-records.schema.json,
 * compiled into libwp), checked on each record a tool reads.
 */
#ifndef WP_SCHEMA_H
#define WP_SCHEMA_H

#include "stream.h"
#include "util.h"

/*
 * Whether the record keeps to the contract's types: every member it
 * has that the contract names is of its type, and a session's
 * schema_version is the one this wp reads.  Members it lacks, and
 * members and types the contract does not name, are let be; so are
 * words of a vocabulary ({"enum": [...]}) the contract does not list
 * (readers take them as unknown).  0, or -1 with err naming the member
 * (status WP_EXIT_MALFORMED).  The compiled schema lives as long as
 * the process.
 */
int	 wp_rec_check(const struct wp_record *rec, struct wp_error *err);

#endif
