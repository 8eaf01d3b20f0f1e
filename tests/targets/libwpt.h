#ifndef LIBWPT_H
#define LIBWPT_H

extern volatile long wpt_lib_counter;
void wpt_lib_write(long, long);

#endif
