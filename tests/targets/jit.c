/*
 * jit: code in anonymous executable memory, as a JIT makes it: a page
 * holding "mov [rdi], esi; ret" (on arm64, "str w1, [x0]; ret").
 * Prints one JSON line with the page's address and the variable it can
 * write, waits for SIGUSR1, calls the code once, prints "done"; with -w,
 * then waits for SIGUSR1 again.
 */
#include <sys/mman.h>

#include <string.h>

#include "wpt.h"

volatile int wpt_jit_var;

int
main(int argc, char *argv[])
{
#if defined(__aarch64__)
	static const unsigned char code[] = { 0x01, 0x00, 0x00, 0xb9,
	    0xc0, 0x03, 0x5f, 0xd6 };
#else
	static const unsigned char code[] = { 0x89, 0x37, 0xc3 };
#endif
	void (*fn)(volatile int *, int);
	unsigned char *page;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, code, sizeof code);
	/* arm64's instruction cache does not see the data cache's stores */
	__builtin___clear_cache((char *)page, (char *)page + sizeof code);
	fn = (void (*)(volatile int *, int))(void *)page;
	wpt_block_go();
	printf("{\"pid\":%d,\"code\":\"0x%lx\",\"var\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(page), WPT_ADDR(&wpt_jit_var));
	fflush(stdout);
	wpt_wait_go();
	fn(&wpt_jit_var, 42);
	printf("done %d\n", wpt_jit_var);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "-w") == 0)
		wpt_wait_go();
	return 0;
}
