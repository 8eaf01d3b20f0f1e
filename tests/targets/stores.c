/*
 * stores: one function per kind of store to wpt_buf, for wp-decode's
 * tests (which find each store with objdump).  The program prints its
 * pid and wpt_buf's address, then waits; it calls none of them.
 */
#include "wpt.h"

long wpt_buf[8] __attribute__((aligned(64)));

#define FN(name, body) \
	".globl " #name "\n.type " #name ", @function\n" #name ":\n" body \
	".size " #name ", .-" #name "\n"

__asm__(
	".text\n"
	FN(st_reg1, "mov %dil, wpt_buf(%rip)\nret\n")
	FN(st_reg2, "mov %di, wpt_buf(%rip)\nret\n")
	FN(st_reg4, "mov %edi, wpt_buf(%rip)\nret\n")
	FN(st_reg8, "mov %rdi, wpt_buf(%rip)\nret\n")
	FN(st_regh, "mov %ah, wpt_buf(%rip)\nret\n")
	FN(st_imm1, "movb $0x11, wpt_buf(%rip)\nret\n")
	FN(st_imm2, "movw $0x2222, wpt_buf(%rip)\nret\n")
	FN(st_imm4, "movl $0x44444444, wpt_buf(%rip)\nret\n")
	FN(st_imm8, "movq $-2, wpt_buf(%rip)\nret\n")
	FN(st_index, "lea wpt_buf(%rip), %rax\nmov %rsi, (%rax,%rdi,8)\nret\n")
	FN(st_add, "addl $1, wpt_buf(%rip)\nret\n")
	FN(st_inc, "incq wpt_buf(%rip)\nret\n")
	FN(st_xchg, "xchg %rdi, wpt_buf(%rip)\nret\n")
	FN(st_xadd, "lock xadd %rdi, wpt_buf(%rip)\nret\n")
	FN(st_cmpxchg, "lock cmpxchg %rdi, wpt_buf(%rip)\nret\n")
	FN(st_push, "push %rdi\npop %rdi\nret\n")
	FN(st_stos, "lea wpt_buf(%rip), %rdi\nmov $4, %ecx\nrep stosq\nret\n")
	FN(st_movs, "lea wpt_buf(%rip), %rdi\nmov $4, %ecx\nrep movsb\nret\n")
	FN(st_movups, "movups %xmm0, wpt_buf(%rip)\nret\n")
	FN(st_movq, "movq %xmm0, wpt_buf(%rip)\nret\n")
	FN(st_movnti, "movnti %rdi, wpt_buf(%rip)\nret\n")
	FN(st_vmovdqa, "vmovdqa %ymm0, wpt_buf(%rip)\nret\n")
	FN(st_long, "nop\nxor %eax, %eax\nadd $7, %rax\nmov %rax, wpt_buf+8(%rip)\nret\n")
	/* a store that ends exactly where the next function starts */
	FN(st_tail, "mov %edi, wpt_buf(%rip)\n")
	FN(st_after, "ret\n")
);

int
main(void)
{
	wpt_block_go();
	printf("{\"pid\":%d,\"buf\":\"0x%lx\"}\n", (int)getpid(),
	    WPT_ADDR(wpt_buf));
	fflush(stdout);
	wpt_wait_go();
	return 0;
}
