/*
 * cond-ops: the operations of an --if condition compiled to postfix
 * (wp_cond_compile, cond.h), for wp-arm's BPF program too: constants
 * and how a comparison is decided, for both compilers.
 */
#ifndef WP_COND_OPS_H
#define WP_COND_OPS_H

#define WP_COND_KERNEL_OPS	32	/* ops wp-arm's BPF program takes */

enum wp_cop {
	WP_COP_FALSE, WP_COP_VALUE, WP_COP_CHANGED, WP_COP_UNCHANGED,
	WP_COP_TID, WP_COP_COMM, WP_COP_TRAP, WP_COP_NOT, WP_COP_AND,
	WP_COP_OR
};
/* cmp of WP_COP_VALUE and WP_COP_TID: ==, !=, <, <=, >, >=, != 0 */
enum wp_cmp { WP_CMP_EQ, WP_CMP_NE, WP_CMP_LT, WP_CMP_LE, WP_CMP_GT,
	WP_CMP_GE, WP_CMP_TRUE };

/* Whether v cmp n holds (WP_CMP_TRUE: v is not 0): cond.c's and the BPF
   program's one definition. */
static inline __attribute__((always_inline)) int
wp_cmp_holds(unsigned long long v, unsigned int cmp, unsigned long long n)
{
	switch (cmp) {
	case WP_CMP_EQ:
		return v == n;
	case WP_CMP_NE:
		return v != n;
	case WP_CMP_LT:
		return v < n;
	case WP_CMP_LE:
		return v <= n;
	case WP_CMP_GT:
		return v > n;
	case WP_CMP_GE:
		return v >= n;
	}
	return v != 0;
}

#endif
