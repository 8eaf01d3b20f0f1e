/*
 * tls: the address of one thread's copy of a thread-local variable.
 */
#ifndef WPRESOLVE_TLS_H
#define WPRESOLVE_TLS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

/*
 * The address of offset off in thread tid's TLS block of module m (one
 * loaded with the program or with dlopen).  The thread is stopped for as
 * long as it takes to read its fs base with ptrace.  0, or -1 with err
 * set (also when the thread has no block for m yet).
 */
int	 tls_address(struct view *v, const struct module *m, uint64_t off,
	    pid_t tid, uint64_t *addr, char *err, size_t errsz);

#endif
