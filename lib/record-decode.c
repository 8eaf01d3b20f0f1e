/*
 * The records wp-decode adds: writer and value (wp-records(7)), one
 * builder each, beside record.c's.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "util.h"

static void
symbol(struct wp_jw *w, const struct wp_writer_rec *r)
{
	char *s;
	int n;

	if (r->function == NULL || !r->has_writer || !r->has_writer_static) {
		wp_jw_null(w, "symbol");
		return;
	}
	n = asprintf(&s, "%s+0x%llx", r->function,
	    (unsigned long long)(r->writer_static - r->function_static));
	if (n < 0)
		wp_fatal_nomem();
	wp_jw_strn(w, "symbol", s, (size_t)n);
	free(s);
}

void
wp_rec_writer(struct wp_jw *w, const struct wp_writer_rec *r)
{
	wp_jw_obj(w, "writer");
	wp_jw_str(w, "kind", r->kind >= 0 ? wp_kind_names[r->kind] : NULL);
	WP_JW_OR_NULL(wp_jw_hex, w, "trap_ip", r->has_trap, r->trap_ip);
	WP_JW_OR_NULL(wp_jw_hex, w, "trap_static_ip", r->has_trap_static,
	    r->trap_static);
	wp_jw_str(w, "trap_module", r->trap_module);
	wp_jw_str(w, "module", r->module);
	wp_jw_str(w, "function", r->function);
	WP_JW_OR_NULL(wp_jw_hex, w, "function_static", r->function != NULL,
	    r->function_static);
	WP_JW_OR_NULL(wp_jw_hex, w, "writer_ip", r->has_writer, r->writer_ip);
	WP_JW_OR_NULL(wp_jw_hex, w, "writer_static_ip",
	    r->has_writer && r->has_writer_static, r->writer_static);
	symbol(w, r);
	if (r->has_writer && r->source_file != NULL) {
		wp_jw_obj(w, "source");
		wp_jw_str(w, "file", r->source_file);
		wp_jw_int(w, "line", r->source_line);
		wp_jw_end(w);
	} else
		wp_jw_null(w, "source");
	wp_jw_str(w, "insn", r->has_writer ? r->insn : NULL);
	wp_jw_str(w, "confidence", wp_conf_names[r->has_writer ?
	    r->confidence : WP_CONF_UNKNOWN]);
	wp_jw_int(w, "candidates", r->has_writer ? r->candidates : 0);
	wp_jw_str(w, "reason", r->has_writer ? NULL :
	    r->reason ? r->reason : "unknown");
	wp_jw_str(w, "caveat", r->caveat);
	wp_jw_end(w);
}

void
wp_rec_value(struct wp_jw *w, const struct wp_value_rec *v)
{
	wp_jw_obj(w, "written_value");
	wp_jw_str(w, "kind", wp_vkind_names[v->kind]);
	if (v->kind == WP_VALUE_UNKNOWN)
		wp_jw_str(w, "reason", v->reason);
	else {
		if (v->kind == WP_VALUE_REGISTER)
			wp_jw_str(w, "register", v->reg);
		wp_jw_int(w, "width", v->width);
		WP_JW_OR_NULL(wp_jw_hex, w, "value", v->has_value, v->value);
		if (v->has_addr)
			wp_jw_hex(w, "addr", v->addr);
		if (v->kind == WP_VALUE_OBSERVED) {
			if (v->bytes != NULL)
				wp_jw_raw(w, "bytes", v->bytes, v->nbytes);
			else
				wp_jw_null(w, "bytes");
		}
	}
	wp_jw_end(w);
}

/* Why the value a store of each kind writes is not known. */
static const char *const no_value[] = {
	[WP_X86_RMW] = "read-modify-write",
	[WP_X86_XCHG] = "source register overwritten by the same instruction",
	[WP_X86_PUSH] = "stack write by push or call",
	[WP_X86_STRING] = "string instruction",
	[WP_X86_SIMD] = "SIMD or x87 register (not sampled)",
	[WP_X86_OTHER] = NULL
};
#define NKINDS	(sizeof no_value / sizeof no_value[0])

void
wp_value_of(const struct wp_x86_insn *in, const struct wp_x86_regs *r,
    struct wp_value_rec *v)
{
	uint64_t mask;

	mask = in->width >= 8 ? ~0ULL : (1ULL << (8 * in->width)) - 1;
	v->kind = WP_VALUE_UNKNOWN;
	v->width = in->width;
	switch (in->kind) {
	case WP_X86_REG_STORE:
		if (!(r->have & (1u << in->src_reg))) {
			v->reason = "no registers sampled (watch with --regs)";
			return;
		}
		v->kind = WP_VALUE_REGISTER;
		v->reg = in->src_name;
		v->has_value = 1;
		v->value = (r->v[in->src_reg] >> in->src_shift) & mask;
		return;
	case WP_X86_IMM_STORE:
		v->kind = WP_VALUE_IMMEDIATE;
		v->has_value = 1;
		v->value = in->imm & mask;
		return;
	default:
		v->reason = (size_t)in->kind < NKINDS &&
		    no_value[in->kind] != NULL ?
		    no_value[in->kind] : "instruction not modelled";
		return;
	}
}

static const char *const a64_no_value[] = {
	[WP_A64_ATOMIC] = "read-modify-write: memory's old value and the "
	    "source register",
	[WP_A64_SIMD] = "SIMD or floating-point register (not sampled)",
	[WP_A64_OTHER] = NULL
};
#define A64_NKINDS	(sizeof a64_no_value / sizeof a64_no_value[0])

void
wp_a64_value_of(const struct wp_a64_insn *in, const struct wp_a64_regs *r,
    uint64_t watch, struct wp_value_rec *v)
{
	uint64_t lo, hi, mask;
	int i = 0, placed, reg;

	v->kind = WP_VALUE_UNKNOWN;
	v->width = in->width;
	placed = wp_a64_store_range(in, r, &lo, &hi) == 0;
	switch (in->kind) {
	case WP_A64_STORE:
	case WP_A64_EXCLUSIVE:
	case WP_A64_SWAP:
	case WP_A64_CAS:
		if (in->nsrc == 2 && placed && watch >= lo +
		    (uint64_t)in->src_bytes && watch < hi)
			i = 1;
		reg = in->src[i];
		if (reg != WP_A64_ZR && (reg < 0 || !(r->have & (1ULL << reg)))) {
			v->reason = "no registers sampled (watch with --regs)";
			return;
		}
		mask = in->src_bytes >= 8 ? ~0ULL :
		    (1ULL << (8 * in->src_bytes)) - 1;
		v->kind = WP_VALUE_REGISTER;
		v->reg = in->src_name[i];
		v->width = in->src_bytes;
		v->has_value = 1;
		v->value = (reg == WP_A64_ZR ? 0 : r->v[reg]) & mask;
		v->has_addr = placed;
		v->addr = lo + (uint64_t)(i * in->src_bytes);
		return;
	default:
		v->reason = (size_t)in->kind < A64_NKINDS &&
		    a64_no_value[in->kind] != NULL ?
		    a64_no_value[in->kind] : "instruction not modelled";
		return;
	}
}
