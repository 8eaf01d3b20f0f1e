/*
 * What the BPF tally floor's program (tally-floor.bpf.c) and its loader
 * (tally-floor.c) share: the count map's key and value.
 */
#ifndef TALLY_FLOOR_H
#define TALLY_FLOOR_H

#include <linux/types.h>

struct key {
	__u64	ip;
	__u32	tid;
	__u32	pad;
};

struct val {
	__u64	hits;
	__u64	last;
};

#endif
