#!/usr/bin/env bats
# wp-resolve --follow: chains parsed, validated and read once.

load helpers

wait_line() {	# wait_line PATTERN: until the target printed it
	local i
	for i in $(seq 100); do
		grep -q "$1" "$TOUT" && return 0
		sleep 0.05
	done
	fail "target never printed '$1'"
}

@test "wp-resolve --follow: a null pointer slot is null_pointer with no leaf" {
	start_target ptr-chain
	run --separate-stderr wp-resolve -p "$TPID" --follow wpt_ptr+0x10
	assert_success
	assert_ndjson "$output"
	run jq -c 'select(.type=="follow") | [.id, .slot_addr, .offsets, .slots, .binding, .leaf_addr, .chain]' <<< "$output"
	assert_output "[0,\"$(tinfo ptr)\",[\"0x10\"],2,\"null_pointer\",null,[{\"addr\":\"$(tinfo ptr)\",\"value\":\"0x0\"}]]"
}

@test "wp-resolve --follow: SLOT+OFF is bound to the object the pointer holds" {
	start_target ptr-chain -n 3
	kill -USR1 "$TPID"
	wait_line '^ptr 1'
	kill -USR1 "$TPID"
	wait_line '^gen 1'
	local obj
	obj=$(awk '/^gen 1/ { print $3 }' "$TOUT")
	# a pointer slot may also be watched as a target
	run --separate-stderr wp-resolve -p "$TPID" --follow wpt_ptr+16 wpt_ptr
	assert_success
	run --separate-stderr wp-resolve -p "$TPID" --follow wpt_ptr+16
	assert_success
	run jq -r 'select(.type=="follow") | "\(.binding) \(.leaf_addr) \(.len) \(.initial_value) \(.chain[0].value)"' <<< "$output"
	assert_output "bound $(hexadd "$obj" 16) 4 $(printf '0x%x' 1002) $obj"
}

@test "wp-resolve --follow: a two-level chain [[SLOT]+8]+0x10 takes three slots" {
	start_target ptr-chain
	kill -USR1 "$TPID"
	wait_line '^ptr 1'
	local obj
	obj=$(awk '/^ptr 1/ { print $3 }' "$TOUT")
	run --separate-stderr wp-resolve -p "$TPID" --follow '[[wpt_holder]+8]+0x10'
	assert_success
	run jq -r 'select(.type=="follow") | "\(.slots) \(.offsets | join(",")) \(.binding) \(.leaf_addr) \(.chain | length) \(.chain[1].value)"' <<< "$output"
	assert_output "3 0x8,0x10 bound $(hexadd "$obj" 16) 2 $obj"
	run --separate-stderr wp-resolve -p "$TPID" --backend bpf wpt_ptr wpt_holder --follow '[[wpt_holder]+8]+0x10'
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: 5 hardware slots requested (2 addresses, 1 follow chain): x86-64 has 4 (DR0..DR3); watch fewer, or use --backend page or ptrace (no slot limit)"
}

@test "wp-resolve --follow: [0xADDR+OFF]+OFF, an address plus an offset as the slot, as anywhere else" {
	start_target ptr-chain
	kill -USR1 "$TPID"
	wait_line '^ptr 1'
	local obj holder
	obj=$(awk '/^ptr 1/ { print $3 }' "$TOUT")
	holder=$(jq -r 'select(.type=="follow") | .chain[0].value' <<< "$(wp-resolve -p "$TPID" --follow '[wpt_holder]+8')")
	# the holder's inner pointer is at holder+8: its object's value at +0x10
	run --separate-stderr wp-resolve -p "$TPID" --follow "[$holder+0x8]+0x10"
	assert_success
	assert_equal "$stderr" ""
	run jq -r 'select(.type=="follow") | "\(.slot_addr) \(.binding) \(.leaf_addr)"' <<< "$output"
	assert_output "$(hexadd "$holder" 8) bound $(hexadd "$obj" 16)"
}

@test "wp-resolve --follow: a pointer slot that is not mapped is refused" {
	start_target ptr-chain
	run --separate-stderr wp-resolve -p "$TPID" --follow '[0x10]+8'
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: [0x10]+8: pointer slot not mapped in pid $TPID"
}

@test "wp-resolve --follow: malformed chains are usage errors" {
	run --separate-stderr wp-resolve -p 1 --follow '[[wpt_ptr]+8'
	assert_failure 64
	assert_equal "$stderr" "wp-resolve: --follow [[wpt_ptr]+8: unbalanced brackets"
	run --separate-stderr wp-resolve -p 1 --follow '[wpt_ptr]*8'
	assert_failure 64
	assert_equal "$stderr" "wp-resolve: --follow [wpt_ptr]*8: bad offset '*8' after ]"
}
