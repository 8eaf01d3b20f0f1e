/*
 * An LD_PRELOAD shim for error tests: opening a path that matches
 * WPT_FAIL_PATH (an fnmatch(3) pattern) fails with the errno number
 * WPT_FAIL_ERRNO (EACCES if not set): open, openat, fopen, opendir.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int
refused(const char *path)
{
	const char *pat = getenv("WPT_FAIL_PATH"), *e;

	if (pat == NULL || path == NULL || fnmatch(pat, path, 0) != 0)
		return 0;
	e = getenv("WPT_FAIL_ERRNO");
	errno = e != NULL ? atoi(e) : EACCES;
	return 1;
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static mode_t
mode_of(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	return refused(path) ? -1 : NEXT(open)(path, flags, m);
}

int
openat(int dfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	return refused(path) ? -1 : NEXT(openat)(dfd, path, flags, m);
}

FILE *
fopen(const char *path, const char *mode)
{
	return refused(path) ? NULL : NEXT(fopen)(path, mode);
}

DIR *
opendir(const char *path)
{
	return refused(path) ? NULL : NEXT(opendir)(path);
}
