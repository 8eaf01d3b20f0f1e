#!/usr/bin/env bats
# wp-decode on AArch64 streams: tests/data/arm64/stores is a static
# arm64 program and stores.ndjson what a watch of its variables on arm64
# writes (both made by tests/data/arm64/make.sh from objdump and nm): a
# hit at each store's own PC with the registers before it ran.  The
# writer is the instruction at the PC, its value and address from the
# registers; the code is read from the ELF, on any machine.

load helpers

A64=$BATS_TEST_DIRNAME/data/arm64

# stream [SED-EXPR]: the fixture with its folder in place, edited
stream() {
	sed -e "s|@DIR@|$A64|g" ${1:+-e "$1"} "$A64/stores.ndjson" > "$BATS_TEST_TMPDIR/in.ndjson"
}

project() {
	jq -r 'select(.type=="hit") | [.writer.kind, .writer.symbol, .writer.confidence, .writer.insn,
		"\(.writer.source.file | split("/") | last):\(.writer.source.line)",
		.written_value.kind, (.written_value.register // "-"), (.written_value.width // "-"),
		(.written_value.addr // "-"), (.written_value.value // .written_value.reason),
		(.writer.caveat // "-")] | join(" | ")'
}

@test "wp-decode arm64: str, stp, strb, stlr, ldadd, cas, swp, stxr: the instruction at the PC, width, address, value" {
	stream
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$stderr" ""
	assert_contract "$BATS_TEST_TMPDIR/in.ndjson"
	assert_contract <(printf '%s\n' "$output")
	local dec=$output
	run project <<< "$dec"
	assert_output "write | set_score+0x4 | exact | str x0, [x1, #0xfe8] | stores.c:25 | register_store | x0 | 8 | 0x41ffe8 | 0x3e8 | -
write | set_pos+0x8 | exact | stp x0, x1, [x2, #8] | stores.c:32 | register_store | x1 | 8 | 0x41fff8 | 0x4 | -
write | set_level+0x4 | exact | strb w0, [x1] | stores.c:38 | register_store | w0 | 1 | 0x420000 | 0x7 | -
write | publish+0xc | exact | stlr x0, [x1] | stores.c:44 | register_store | x0 | 8 | 0x420008 | 0x2a | -
write | count_hit+0xc | exact | ldadd x0, x0, [x1] | stores.c:50 | unknown | - | - | - | read-modify-write: memory's old value and the source register | atomic read-modify-write: reads and writes in one instruction
write | take_lock+0x10 | exact | casa w3, w1, [x2] | stores.c:56 | register_store | w1 | 4 | 0x420018 | 0x1 | compare and swap: it writes only where memory held the compared value
write | swap_lives+0xc | exact | swpal w0, w0, [x1] | stores.c:63 | register_store | w0 | 4 | 0x42001c | 0x9 | atomic exchange: reads and writes in one instruction
write | spin_add+0x14 | exact | stxr w3, x2, [x1] | stores.c:72 | register_store | x2 | 8 | 0x420020 | 0x5 | store-exclusive: it writes only while its exclusive monitor holds (then its status register is 0)"
	# the writer is at the trap: no step back as on x86
	run jq -r 'select(.type=="hit") | select(.writer.writer_ip != .ip or .writer.trap_ip != .ip) | .ip' <<< "$dec"
	assert_output ""
}

@test "wp-decode arm64: each writer is objdump's instruction at the hit's PC" {
	command -v aarch64-linux-gnu-objdump > /dev/null ||
		skip "aarch64-linux-gnu-objdump is not installed (binutils-aarch64-linux-gnu)"
	stream
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	local ip insn want n=0
	while read -r ip insn; do
		want=$(aarch64-linux-gnu-objdump -d "$A64/stores" |
			awk -v a="${ip#0x}:" '$1 == a { print $3; exit }')
		assert_equal "${insn%% *}" "$want"
		n=$((n + 1))
	done < <(jq -r 'select(.type=="hit") | "\(.writer.writer_static_ip) \(.writer.insn)"' <<< "$output")
	assert_equal "$n" 8
}

@test "wp-decode arm64: without registers the writer stays exact and the value unknown; a store placed elsewhere is spurious" {
	stream 's/,"regs":{[^}]*}//'
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit" and .target==0) | [.writer.confidence, .written_value.kind, .written_value.reason] | join(" | ")' <<< "$output"
	assert_output "exact | unknown | no registers sampled (watch with --regs)"
	# set_score's base register 0x100 past where it would put score
	stream 's/"x1":"0x41f000"/"x1":"0x41f100"/'
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit" and .target==0) | [.writer.kind, .writer.symbol, .written_value.addr] | join(" | ")' <<< "$output"
	assert_output "spurious | set_score+0x4 | 0x4200e8"
}

@test "wp-decode arm64: a session without machine is x86-64's; another machine is named" {
	# older streams: the trap IP is after the writer, as on x86
	stream 's/"arch":"aarch64","machine":"aarch64",/"arch":"x86_64",/'
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit" and .target==0) | .writer | select(.writer_ip == .trap_ip) | .insn' <<< "$output"
	assert_output ""
	stream 's/"machine":"aarch64"/"machine":"sparc64"/'
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 1: session record: \"machine\" is none of x86_64, aarch64"
}

@test "wp-report of a decoded arm64 stream: the writer, its line and the value stored" {
	stream
	wp-decode "$BATS_TEST_TMPDIR/in.ndjson" > "$BATS_TEST_TMPDIR/dec.ndjson"
	run --separate-stderr wp-report "$BATS_TEST_TMPDIR/dec.ndjson"
	assert_failure 3	# no observation record: the watch did not end
	assert_line --regexp '^ +1 +exact +set_pos\+0x8 +stores\.c:32 +stp x0, x1, \[x2, #8\]$'
	assert_line --regexp '^ +4242 +[0-9.]+ +set_pos\+0x8 +x1 = 0x4$'
}

@test "wp-decode arm64: a copied user stack says it is not unwound; a kernel write has no writer" {
	stream 's/"regs":{/"user_stack":"00112233","regs":{/; s/"time_ns":7000,/"time_ns":7000,"flags":["kernel"],/'
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | [.writer.kind, (.writer.insn // "-"), .callchain_status] | join(" | ")' <<< "$output"
	assert_output "write | str x0, [x1, #0xfe8] | user stacks of AArch64 are not unwound yet
write | stp x0, x1, [x2, #8] | user stacks of AArch64 are not unwound yet
write | strb w0, [x1] | user stacks of AArch64 are not unwound yet
write | stlr x0, [x1] | user stacks of AArch64 are not unwound yet
write | ldadd x0, x0, [x1] | user stacks of AArch64 are not unwound yet
write | casa w3, w1, [x2] | user stacks of AArch64 are not unwound yet
write | swpal w0, w0, [x1] | user stacks of AArch64 are not unwound yet
kernel | - | user stacks of AArch64 are not unwound yet"
}
