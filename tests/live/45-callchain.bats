#!/usr/bin/env bats
# --callchain on the breakpoint backends, live (in the QEMU guest): the
# call-chain scenarios every backend shares (tests/callchain.bash; the
# ptrace backend runs them in tests/57), with the perf ring's frame
# pointers and copied stacks, and the bpf backend's chains counted in
# the kernel.  Frame-pointer chains need a program built with them
# (callers-fp); copied stacks are unwound by wp-decode with the modules'
# CFI, as ptrace's are.

load ../helpers
load ../arm
load ../callchain

setup() {
	require_bp
}

@test "callchain perf fp: three callers of one setter, each chain with its exact count" {
	scenario_chain_callers callers-fp frame_pointers --backend perf --callchain
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.callchain) \(.callchain_depth)"' "$WOUT")" "fp 16"
	# a chain is checked against the live process's maps: formatted as drained
	assert_equal "$(jq -c 'select(.type=="observation") | .perf | [.formatter, .formatter_reason]' "$WOUT")" '["inline","callchain"]'
}

@test "callchain perf fp: a deeper chain is marked truncated" {
	scenario_chain_deep callers-fp --backend perf --callchain fp
}

@test "callchain perf dwarf: the stack copied and unwound by wp-decode, as under ptrace" {
	scenario_chain_callers callers complete --backend perf --callchain dwarf
	assert_equal "$(jq -r 'select(.type=="armed") | .callchain' "$WOUT")" dwarf
	# wp-arm copies the stack, wp-decode finds the chain
	assert_equal "$(jq -s '[.[] | select(.type=="hit" and has("user_stack") and (has("callchain") | not))] | length' "$WOUT")" 15
	# the stack is in the sample: formatted from the queue
	assert_equal "$(jq -c 'select(.type=="observation") | .perf | [.formatter, .formatter_reason]' "$WOUT")" '["idle",null]'
}

@test "callchain perf dwarf: libc's memcpy as the writer, its callers named" {
	scenario_chain_memcpy --backend perf --callchain dwarf
}

@test "callchain perf dwarf: a deeper chain is marked truncated" {
	scenario_chain_deep callers --backend perf --callchain=dwarf,4096
}

@test "callchain perf dwarf: a tight loop on three threads: the kernel's count is the target's, losses said" {
	scenario_counted perf --callchain dwarf
}

@test "callchain bpf: three callers of one setter, each chain counted in the kernel" {
	scenario_chain_callers callers-fp frame_pointers --backend bpf --callchain
	# the tallies: one per writer, thread and chain, exact
	run jq -r 'select(.type=="tally") | "\(.hits) \(.callchain_status)"' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "3 frame_pointers
5 frame_pointers
7 frame_pointers"
	assert_equal "$(jq -r 'select(.type=="armed") | .callchain' "$WOUT")" fp
}

@test "callchain bpf --callchain-depth 1: two stacks that read the same once cut are one tally, their hits summed (the later replaced the earlier: writes counted in no tally)" {
	scenario_chain_cut callers-fp --backend bpf --callchain
	# the last read's one tally holds all 7 (each read's tallies come
	# together, every --interval and at the end)
	assert_equal "$(jq -s '[.[] | select(.type=="tally")] | last | .hits' "$WOUT")" 7
}

@test "callchain bpf: a deeper chain is marked truncated" {
	scenario_chain_deep callers-fp --backend bpf --callchain
}

@test "callchain bpf: a tight loop on three threads: every write in a chain's tally" {
	stress_watch bpf --callchain
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	assert_equal "$(obs .bpf.tally_full)" 0
	run jq -r '[.watches[0].writer_sites[] | .call_chains[].hits, .other_call_chains_hits] | add' <<< "$(wp-report --json --chains 64 < <(wp-decode < "$WOUT"))"
	assert_output "$WANT"
}

@test "callchain bpf dwarf: the samples carry the stack; the writers' counts stay the tallies'" {
	scenario_chain_callers callers complete --backend bpf --callchain dwarf
	# tallies per writer and thread, without chains; every hit sampled
	run jq -r 'select(.type=="tally") | "\(.hits) \(has("callchain"))"' "$WOUT"
	assert_output "15 false"
	run jq -r '.watches[0] | "\(.writer_counts) \(.writer_sites[0].hits) \(.writer_sites[0].hits_without_call_chain)"' <<< "$(wp-report --json < <(wp-decode < "$WOUT"))"
	assert_output "tallied 15 0"
}

@test "callchain bpf dwarf: libc's memcpy as the writer, its callers named" {
	scenario_chain_memcpy --backend bpf --callchain dwarf
}

@test "callchain bpf dwarf: samples capped by -n: the site's other hits are said to have no chain" {
	start_target callers -a 3 -b 5 -c 7
	watch_start wpt_counter -- --backend bpf --callchain dwarf -n 4 -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	# the watch stops at 4 samples; the tallies count every write until then
	local h c u
	read -r h c u < <(jq -r '.watches[0].writer_sites[0] | "\(.hits) \([.call_chains[].hits] | add) \(.hits_without_call_chain)"' <<< "$(wp-report --json < <(wp-decode < "$WOUT"))")
	assert_equal "$h" "$(obs '.targets[0].counted')"
	assert_equal "$c" 4
	assert_equal "$u" $(( h - 4 ))
	run wp-report < <(wp-decode < "$WOUT")
	if [ "$u" -gt 0 ]; then
		assert_line --regexp "^ +$u  without a call chain \\(not sampled\\)\$"
	else
		refute_line --partial "without a call chain"
	fi
}

@test "callchain: --backend auto with --callchain dwarf" {
	start_target mt-writer -t 1 -n 5
	run --separate-stderr sh -c 'wp-resolve -p "$1" wpt_counter | wp-arm --callchain dwarf -d 1s' sh "$TPID"
	assert_success
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.backend) \(.callchain)"' <<< "$output")" "bpf_tally dwarf"
}
