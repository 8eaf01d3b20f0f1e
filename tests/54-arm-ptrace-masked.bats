#!/usr/bin/env bats
# Masked stores (AVX-512 {k}, vmaskmov) write only the bytes their mask
# selects; stores wp cannot place (fxsave, xsave, undecoded bytes) are
# compared after they run, each change a hit flagged unmodeled, each
# execution that left the bytes unchanged counted, the counts then a
# lower bound.  Decoding first (lib/x86 through tests/progs/x86-mask.c),
# then live under the ptrace backend (tests/targets/masked.c).

load helpers

@test "lib/x86: which bytes a masked store writes, from its mask; stores whose bytes are not known say so" {
	[ -x "$WP_BUILD/progs/x86-mask" ] || skip "no $WP_BUILD/progs/x86-mask (make first)"
	run --separate-stderr "$WP_BUILD/progs/x86-mask"
	assert_success
	# xsave's width is this CPU's largest XSAVE area
	output=$(sed -E 's/^(xsave \[rdi\]: writes 1 width )[0-9]{3,}/\1N/' <<< "$output")
	assert_equal "$output" "vmovdqu8 zmmword ptr [rdi] {k1}, zmm0: writes 1 width 64 mask k reg 1 elem 1 compress 0 unmodeled 0 has_mem 1
vmovups zmmword ptr [rdi] {k2}, zmm1: writes 1 width 64 mask k reg 2 elem 4 compress 0 unmodeled 0 has_mem 1
vpcompressd zmmword ptr [rdi] {k1}, zmm0: writes 1 width 64 mask k reg 1 elem 4 compress 1 unmodeled 0 has_mem 1
vmaskmovps ymmword ptr [rdi], ymm1, ymm2: writes 1 width 32 mask vector reg 1 elem 4 compress 0 unmodeled 0 has_mem 1
maskmovdqu xmm0, xmm1: writes 1 width 16 mask vector reg 1 elem 1 compress 0 unmodeled 0 has_mem 1
fxsave64 [rdi]: writes 1 width 512 mask none reg 0 elem 0 compress 0 unmodeled 1 has_mem 1
xsave [rdi]: writes 1 width N mask none reg 0 elem 0 compress 0 unmodeled 1 has_mem 1
vpscatterdd [rdi+zmm1*4] {k1}, zmm0: writes 1 width 4 mask none reg 0 elem 0 compress 0 unmodeled 1 has_mem 0
kmovq k1, rdi: not decoded, no memory
vpcmpub k0, ymm16, [rdi], 0: not decoded, no memory
movdir64b rax, [rdi]: not decoded, may write anything
vmovdqu64 zmmword ptr [rdi], zmm0: writes 1 width 64 mask none reg 0 elem 0 compress 0 unmodeled 0 has_mem 1
vmovdqu8 bits 0xf [+8, +12): 0
vmovdqu8 bits 0xf00 [+8, +12): 1
vmovdqu8 bits 0x800 [+8, +12): 1
vmovdqu8 bits 0x1000 [+8, +12): 0
vmovups bits 0x1 [+4, +8): 0
vmovups bits 0x2 [+4, +8): 1
vpcompressd bits 0x8001 [+4, +8): 1
vpcompressd bits 0x8000 [+4, +8): 0
vmovdqu64 bits 0 [+60, +64): 1
vmaskmovps mask from the XSAVE area: 0 bits 0x4
vmaskmovps mask, xmm in the initial state: 0 bits 0"
}

# masked_watch MODE: two threads of 300 iterations, each once storing
# bytes 0-3 of buf and once bytes 8-11 (element 2); watched: buf+8,
# buf+4 (which no store selects) and buf.
masked_watch() {
	start_target masked -m "$1" -t 2 -n 300
	[ "$(tinfo skip)" = false ] || skip "this CPU lacks ${2}: $(grep -m1 -o 'model name.*' /proc/cpuinfo)"
	local buf
	buf=$(tinfo buf)
	watch_start -l 4 "$(printf '0x%x' $((buf + 8)))" "$(printf '0x%x' $((buf + 4)))" "$buf" -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(hits '.target == 0 and .flags == []')" 600
	assert_equal "$(hits '.target == 1')" 0
	assert_equal "$(hits '.target == 2 and .flags == []')" 600
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(obs '.ptrace.unmodeled_stores // 0')" 0
	run jq -r 'select(.type=="hit" and .target==0) | "\(.writer.function) \(.writer.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" "store_$1 exact"
}

@test "wp-arm ptrace: AVX-512 vmovdqu8 {k1} writes the bytes k1 selects, on two threads, exactly" {
	masked_watch k avx512bw
}

@test "wp-arm ptrace: vmaskmovps writes the elements its mask selects, on two threads, exactly" {
	masked_watch v avx
}

@test "wp-arm ptrace: fxsave and xsave: every change a hit flagged unmodeled, every unchanged execution counted; a lower bound" {
	start_target masked -m x -t 2 -n 300
	[ "$(tinfo skip)" = false ] || skip "this CPU lacks xsave, or its XSAVE area is over the target's 16 KiB"
	local fx xs
	fx=$(tinfo fx) xs=$(tinfo xs)
	# the x87 control word (offset 0) changes each time, MXCSR (24) once
	watch_start -l 4 "$fx" "$(printf '0x%x' $((fx + 24)))" "$xs" -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
	# each of the 600 executions of each store on each target: a hit
	# where the bytes changed (two threads may store the same word),
	# else counted as a write perhaps missed; MXCSR changes once
	assert_equal "$(hits '.flags != ["unmodeled"]')" 0
	assert_equal "$(hits '.target == 1')" 1
	assert_equal "$(( $(hits) + $(obs .ptrace.unmodeled_stores) ))" 1800
	assert_equal "$(obs .ptrace.unexplained_changes)" 0
	assert_equal "$(obs .counts_are_lower_bound)" true
	wp-decode < "$WOUT" > "$WOUT.decoded"
	run jq -r 'select(.type=="hit" and .target==0) | "\(.writer.function) \(.writer.confidence) \(.writer.insn | split(" ")[0])"' "$WOUT.decoded"
	assert_equal "$(sort -u <<< "$output")" "save_x high fxsave64"
	run jq -c '[.counts_are_lower_bound, .lower_bound_reasons]' <<< "$(wp-report --json "$WOUT.decoded")"
	assert_output '[true,["unmodeled_stores"]]'
}

# masked_hit RAX: a perf-style hit (registers, no mask) trapping after
# store_k's vmovdqu8 [rax]{k1}, decoded against a watch of buf+8.
masked_hit() {
	local st
	st=$(objdump -d --no-show-raw-insn "$T/masked" | awk '/<store_k>:/ { g = 1; next } g && /vmovdqu8/ { getline; sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
	jq -cn --arg ip "$(printf '0x%x' $((SLIDE + 0x$st)))" --arg rax "$1" \
		'{type:"hit", target:0, pid:1, tid:1, cpu:0, time_ns:0, ip:$ip, regs:{rax:$rax}}'
}

@test "wp-decode: a masked store sampled without its mask is at most medium, and says why; placed elsewhere, spurious" {
	start_target masked -m k -n 1
	local buf
	buf=$(tinfo buf)
	wp-resolve -p "$TPID" -l 4 "$(printf '0x%x' $((buf + 8)))" > "$BATS_TEST_TMPDIR/in.ndjson"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$BATS_TEST_TMPDIR/in.ndjson")
	masked_hit "$buf" >> "$BATS_TEST_TMPDIR/in.ndjson"
	masked_hit "$(printf '0x%x' $((buf + 64)))" >> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | [.writer.symbol, .writer.kind, .writer.confidence, .writer.caveat] | join(" | ")' <<< "$output"
	assert_equal "$output" "store_k+0xc | write | medium | masked store: its mask register is not sampled, so whether it wrote the watched bytes is not known
store_k+0xc | spurious | low | spurious: its address (its operand, the sampled registers) lies outside the watched range; not counted as an access there"
}
