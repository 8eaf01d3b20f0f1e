#ifndef WP_ADDR_H
#define WP_ADDR_H

#include <stddef.h>
#include <stdint.h>

enum wp_addr_kind {
	WP_ADDR_RUNTIME,	/* 0xHEX */
	WP_ADDR_STATIC,		/* static:0xHEX */
	WP_ADDR_SYMBOL		/* [MODULE:]SYMBOL[+OFF] */
};

struct wp_addr {
	enum wp_addr_kind	 kind;
	uint64_t		 value;
	char			*module;	/* NULL: main binary, then all */
	char			*symbol;
	int64_t			 off;
};

#define WP_FOLLOW_MAXDEPTH 8

/* [[SLOT]+o0]+o1 ...: one dereference per offset. */
struct wp_follow {
	struct wp_addr	 slot;
	int64_t		 offs[WP_FOLLOW_MAXDEPTH];
	size_t		 noffs;
};

int	 wp_addr_parse(const char *, struct wp_addr *, char *, size_t);
void	 wp_addr_free(struct wp_addr *);
int	 wp_addr_follow_parse(const char *, struct wp_follow *, char *, size_t);

#endif
