/*
 * bounds: wp's fixed numbers that more than one file needs, the BPF
 * program among them: plain #defines, for both compilers.
 */
#ifndef WP_BOUNDS_H
#define WP_BOUNDS_H

/* the debug registers (lib/hwbp.c has their rules): x86-64's DR0..DR3;
   on arm64 the most its debug architecture has, the machine's own count
   read at run time (the BPF program: built with __TARGET_ARCH_arm64) */
#if defined(__aarch64__) || defined(__TARGET_ARCH_arm64)
#define WP_HWBP_SLOTS		16
#else
#define WP_HWBP_SLOTS		4
#endif
/* pointers in a --follow chain */
#define WP_CHAIN_MAXDEPTH	8
/* the longest target, in bytes (wp-resolve -l, a target record's len) */
#define WP_TARGET_MAXLEN	(1u << 20)
/* callers in a hit's callchain: wp-arm --callchain-depth, at most and
   by default */
#define WP_CALLCHAIN_MAX	128
#define WP_CALLCHAIN_DEFAULT	16
/* the user stack a hit copies (wp-arm --callchain dwarf,bytes), bytes,
   at most and by default */
#define WP_CALLCHAIN_MAXSTACK	32768
#define WP_CALLCHAIN_STACK	8192
/* the most entries a kernel call chain holds (kernel.perf_event_max_stack
   by default) */
#define WP_KERNEL_MAXSTACK	127
/* the bytes a hit's store_bytes carries at most (wp-records(7)) */
#define WP_STORE_BYTES_MAX	256

#endif
