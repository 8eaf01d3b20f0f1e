/*
 * insn-kinds [-n times]
 *
 * The stores whose addresses are not a plain operand's, each run n (5)
 * times by the main thread on SIGUSR1: a lock add to wpt_kinds_counter
 * (rip-relative, read and written), a rep stosq of 16 elements up from
 * wpt_kinds_buf, one more down (DF set) from the last of wpt_kinds_down,
 * a push (rsp - 8, the main thread's stack) and a gs-based store (the
 * gs base set with arch_prctl to gsblk).  The ready line: pid and the
 * addresses, and anon: a store in anonymous code (mov [rdi], rax; ret),
 * never run; after the stores the push's address and the counter's
 * value; then "done".
 */
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <string.h>

#include "wpt.h"

long wpt_kinds_counter;
long wpt_kinds_buf[16];
long wpt_kinds_down[16];
static long gsblk[4];

int
main(int argc, char *argv[])
{
	extern char wpt_kinds_lock[], wpt_kinds_rep[], wpt_kinds_repdown[],
	    wpt_kinds_push[], wpt_kinds_gs[];
	static const unsigned char code[] = { 0x48, 0x89, 0x07, 0xc3 };
	unsigned long pushed = 0;
	void *anon;
	long i, n = 5, cnt, *d, z = 0;
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		if (ch != 'n')
			return 64;
		n = atol(optarg);
	}
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, gsblk) == -1)
		return 1;
	if ((anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return 1;
	memcpy(anon, code, sizeof code);
	wpt_block_go();
	printf("{\"pid\":%d,\"counter\":\"0x%lx\",\"buf\":\"0x%lx\","
	    "\"down\":\"0x%lx\",\"gs\":\"0x%lx\",\"anon\":\"0x%lx\"}\n",
	    (int)getpid(), WPT_ADDR(&wpt_kinds_counter),
	    WPT_ADDR(wpt_kinds_buf), WPT_ADDR(wpt_kinds_down),
	    WPT_ADDR(&gsblk[2]), WPT_ADDR(anon));
	fflush(stdout);
	wpt_wait_go();
	for (i = 0; i < n; i++) {
		__asm__ volatile(".globl wpt_kinds_lock\n"
		    "wpt_kinds_lock: lock addq $1, wpt_kinds_counter(%%rip)"
		    : : : "memory", "cc");
		d = wpt_kinds_buf;
		cnt = 16;
		__asm__ volatile(".globl wpt_kinds_rep\n"
		    "wpt_kinds_rep: rep stosq"
		    : "+D" (d), "+c" (cnt) : "a" (z) : "memory");
		d = &wpt_kinds_down[15];
		cnt = 16;
		__asm__ volatile("std\n.globl wpt_kinds_repdown\n"
		    "wpt_kinds_repdown: rep stosq\ncld"
		    : "+D" (d), "+c" (cnt) : "a" (z) : "memory", "cc");
		__asm__ volatile("leaq -8(%%rsp), %0\n.globl wpt_kinds_push\n"
		    "wpt_kinds_push: pushq %%rax\npopq %%rax"
		    : "=r" (pushed) : : "memory");
		__asm__ volatile(".globl wpt_kinds_gs\n"
		    "wpt_kinds_gs: movq %0, %%gs:0x10" : : "r" (i) : "memory");
	}
	printf("{\"push\":\"0x%lx\",\"counter\":%ld}\ndone\n", pushed,
	    wpt_kinds_counter);
	fflush(stdout);
	(void)wpt_kinds_lock, (void)wpt_kinds_rep, (void)wpt_kinds_repdown;
	(void)wpt_kinds_push, (void)wpt_kinds_gs;
	return 0;
}
