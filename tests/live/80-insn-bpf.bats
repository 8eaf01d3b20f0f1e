#!/usr/bin/env bats
# The second question (issue 43) where breakpoints fire (the QEMU
# guest): the bpf backend's site mode, an execute breakpoint on each
# instruction with the uprobe backend's program.  The scenarios every
# backend that counts sites runs (tests/insn.bash), then auto's choice.

load ../helpers
load ../insn

setup() {
	require_bp
}

@test "wp-arm bpf sites: one store's 1000 addresses from 3 threads, one made after arming, each exact per thread; a read operand with -a rw" {
	scenario_insn_walk bpf_tally --backend bpf
	# the values: the store's source register before it ran, its tid
	assert_equal "$(jq -s -r '[.[] | select(.type=="access" and .site==0)] | group_by([.addr, .tid]) | map(last)[] | "\(.tid) \(.first_value) \(.last_value)"' "$WOUT" |
		awk '{ t = sprintf("0x%x", $1) } $2 == t && $3 == t { n++ } END { print n + 0 }')" 3000
}

@test "wp-arm bpf sites: a lock add from 3 threads (an execute breakpoint needs no int3): every counter exact per thread" {
	scenario_insn_lock bpf_tally --backend bpf
}

@test "wp-arm bpf sites: a rep stosq up and down, each element once an execution; a push; a gs-based store" {
	scenario_insn_kinds bpf_tally --backend bpf
}

@test "wp-arm bpf sites: an instruction in a shared library, and a stripped program's" {
	scenario_insn_lib bpf_tally --backend bpf
}

@test "wp-arm bpf sites --if: an address range of 100 addresses, one thread, a value: the matching executions exact per address and thread; what cannot be tested refused" {
	scenario_insn_if bpf_tally --backend bpf
}

@test "wp-arm bpf sites --stop: the program stops the first execution's thread before it runs it (the counter 0); SIGCONT runs it on to 5; with --if refused (64)" {
	scenario_insn_stop bpf_tally --backend bpf
	start_target insn-kinds
	run --separate-stderr bash -c "wp-resolve -p $TPID --insn wpt_kinds_lock | wp-arm --backend bpf --stop --if 'tid == 1' -d 1s"
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --stop on site records: the ptrace backend stops at an execution (--backend ptrace), the bpf backend at the first execution only, not with --if, yet"
}

@test "wp-arm auto: execute breakpoints where the sites fit the debug registers, a lock add too, no split; uprobes past the slots, saying why" {
	start_target insn-lock -r 20
	watch_start --insn wpt_lock_add --insn wpt_plain_store -- -d 60s
	assert_equal "$(cat "$WERR")" ""
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" bpf_tally
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(tail -n 2 "$TOUT")" "120 120 120 120 120 120 120 120
done"
	assert_equal "$(accesses 0)" "$(expected_walk counters)"
	assert_equal "$(accesses 1)" "$(expected_walk seen)"
	assert_equal "$(jq -r 'select(.type=="access") | .backend' "$WOUT" | sort -u)" bpf_tally
	run --separate-stderr wp-report "$WOUT"
	assert_success
	assert_equal "$(grep -A 2 '^site 0 ' <<< "$output" | tail -n 1)" "  counted in the kernel at an execute breakpoint (the bpf backend), every execution"
	# five sites: one more than the slots
	start_target insn-walk -n 10
	watch_start --insn wpt_walk_store --insn wpt_walk_store --insn wpt_walk_store --insn wpt_walk_store --insn wpt_walk_store -- -d 60s
	assert_equal "$(cat "$WERR")" "wp-arm: 5 sites: an execute breakpoint each takes a debug register, and x86-64 has 4 (DR0..DR3): using the uprobe backend (every execution of each instruction counted per address and thread in the kernel)"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" uprobe_bpf
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs '[.uprobe.sites[] | .executions] | map(tostring) | join(" ")')" "60 60 60 60 60"
}
