#ifndef LIBWPT_H
#define LIBWPT_H

/* Not referenced from the program itself: no copy relocation. */
volatile long *wpt_lib_addr(void);
void wpt_lib_write(long, long);

#endif
