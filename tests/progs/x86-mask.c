/*
 * lib/x86 on instruction bytes and mask values: for each case, one line
 * "NAME: ..." of what the decoder says a store writes, for
 * tests/53-arm-ptrace-masked.bats to compare.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "x86.h"

static const char *const masks[] = { "none", "k", "vector" };

static void
show(const char *name, const uint8_t *code, size_t len)
{
	struct wp_x86_insn in;

	if (wp_x86_decode(code, len, 0x1000, &in) == -1) {
		printf("%s: not decoded, %s\n", name,
		    wp_x86_undecoded_quiet(code, len) ? "no memory" :
		    "may write anything");
		return;
	}
	printf("%s: writes %d width %d mask %s reg %d elem %d compress %d "
	    "unmodeled %d has_mem %d\n", name, in.writes, in.width,
	    masks[in.mask], in.mask_reg, in.elem, in.compress, in.unmodeled,
	    in.has_mem);
}

/* Whether the store at 0x100 with mask bits writes [0x100 + a, + b). */
static void
writes(const char *name, const uint8_t *code, size_t len, uint64_t bits,
    uint64_t a, uint64_t b)
{
	struct wp_x86_insn in;

	wp_x86_decode(code, len, 0x1000, &in);
	printf("%s bits %#llx [+%llu, +%llu): %d\n", name,
	    (unsigned long long)bits, (unsigned long long)a,
	    (unsigned long long)b, wp_x86_masked_writes(&in, 0x100, bits,
	    0x100 + a, 0x100 + b));
}

int
main(void)
{
	static const uint8_t k8[] = { 0x62, 0xf1, 0x7f, 0x49, 0x7f, 0x07 };
	static const uint8_t k32[] = { 0x62, 0xf1, 0x7c, 0x4a, 0x11, 0x0f };
	static const uint8_t cmp[] = { 0x62, 0xf2, 0x7d, 0x49, 0x8b, 0x07 };
	static const uint8_t vmm[] = { 0xc4, 0xe2, 0x75, 0x2e, 0x17 };
	static const uint8_t mmdq[] = { 0x66, 0x0f, 0xf7, 0xc1 };
	static const uint8_t fxs[] = { 0x48, 0x0f, 0xae, 0x07 };
	static const uint8_t xsv[] = { 0x0f, 0xae, 0x27 };
	static const uint8_t sct[] = { 0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x04,
	    0x8f };
	static const uint8_t kmov[] = { 0xc4, 0xe1, 0xfb, 0x92, 0xcf };
	static const uint8_t vpcmp[] = { 0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x07,
	    0x00 };
	static const uint8_t md64[] = { 0x66, 0x0f, 0x38, 0xf8, 0x07 };
	static const uint8_t plain[] = { 0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x07 };
	struct wp_x86_insn in;
	uint8_t xs[1024];
	uint64_t bits;

	show("vmovdqu8 zmmword ptr [rdi] {k1}, zmm0", k8, sizeof k8);
	show("vmovups zmmword ptr [rdi] {k2}, zmm1", k32, sizeof k32);
	show("vpcompressd zmmword ptr [rdi] {k1}, zmm0", cmp, sizeof cmp);
	show("vmaskmovps ymmword ptr [rdi], ymm1, ymm2", vmm, sizeof vmm);
	show("maskmovdqu xmm0, xmm1", mmdq, sizeof mmdq);
	show("fxsave64 [rdi]", fxs, sizeof fxs);
	show("xsave [rdi]", xsv, sizeof xsv);
	show("vpscatterdd [rdi+zmm1*4] {k1}, zmm0", sct, sizeof sct);
	show("kmovq k1, rdi", kmov, sizeof kmov);
	show("vpcmpub k0, ymm16, [rdi], 0", vpcmp, sizeof vpcmp);
	show("movdir64b rax, [rdi]", md64, sizeof md64);
	show("vmovdqu64 zmmword ptr [rdi], zmm0", plain, sizeof plain);
	/* glibc's short memset: bytes 0-3 of a 64-byte store */
	writes("vmovdqu8", k8, sizeof k8, 0xf, 8, 12);
	writes("vmovdqu8", k8, sizeof k8, 0xf00, 8, 12);
	writes("vmovdqu8", k8, sizeof k8, 0x800, 8, 12);
	writes("vmovdqu8", k8, sizeof k8, 0x1000, 8, 12);
	writes("vmovups", k32, sizeof k32, 0x1, 4, 8);
	writes("vmovups", k32, sizeof k32, 0x2, 4, 8);
	writes("vpcompressd", cmp, sizeof cmp, 0x8001, 4, 8);
	writes("vpcompressd", cmp, sizeof cmp, 0x8000, 4, 8);
	writes("vmovdqu64", plain, sizeof plain, 0, 60, 64);
	/* the vmaskmovps mask: the top bit of each dword of ymm1 */
	memset(xs, 0, sizeof xs);
	xs[160 + 16 + 11] = 0x80;	/* xmm1, element 2 */
	xs[512] = 2;			/* XSTATE_BV: the xmm registers in use */
	wp_x86_decode(vmm, sizeof vmm, 0x1000, &in);
	in.width = 16;			/* only the xmm half in this area */
	printf("vmaskmovps mask from the XSAVE area: %d",
	    wp_x86_xsave_mask(&in, xs, sizeof xs, &bits));
	printf(" bits %#llx\n", (unsigned long long)bits);
	/* the same bytes, but XSTATE_BV says the registers are unused */
	xs[512] = 0;
	printf("vmaskmovps mask, xmm in the initial state: %d",
	    wp_x86_xsave_mask(&in, xs, sizeof xs, &bits));
	printf(" bits %#llx\n", (unsigned long long)bits);
	return 0;
}
