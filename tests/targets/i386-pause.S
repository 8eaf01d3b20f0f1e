/* A 32-bit x86 program that sleeps in pause(2): wp refuses to watch it. */
	.globl	_start
	.text
_start:
	movl	$29, %eax	/* __NR_pause on i386 */
	int	$0x80
	jmp	_start
