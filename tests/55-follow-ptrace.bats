#!/usr/bin/env bats
# --follow with the ptrace backend: exact, no re-arm window, no slot limit.

load helpers
load follow

@test "follow ptrace: SLOT+OFF, every binding in order, leaf hits per generation exact" {
	follow_run ptrace wpt_ptr+0x10
	follow_check 0
	assert_equal "$(hits '.role == "pointer"')" 4
	assert_equal "$(obs .counts_are_lower_bound)" false
	# single-stepping re-arms between two steps: held, no window
	assert_equal "$(obs .follow_mode)" step
	run jq -c '.dependent_watches[0].rearm | [.measured, .held, .missed_in_window, .max_ns]' <<< "$(wp-decode < "$WOUT" | wp-report --json)"
	assert_output '[4,4,0,0]' 
}

@test "follow ptrace: a two-level chain [[SLOT]+8]+0x10" {
	follow_run ptrace '[[wpt_holder]+8]+0x10'
	follow_check 1
	assert_equal "$(hits '.role == "pointer"')" 4
}

@test "follow ptrace: no slot limit: five chains and a target at once" {
	start_target ptr-chain -g 1 -n 4
	watch_start --no-slot-limit wpt_holder --follow wpt_ptr+0x10 --follow wpt_ptr+0x8 \
		--follow '[[wpt_holder]+8]+0x10' --follow '[[wpt_holder]+8]+0x0' -- --backend ptrace -d 300s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^ptr 1' 60
	wait_for "$WOUT" '"target":4,"generation":2,' 60
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^gen 1' 60
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^null' 60
	kill -USR1 "$TPID"
	watch_wait
	# the leaves at +0x10 saw the 4 writes, the others none
	assert_equal "$(hits '.target == 1 and .role == "leaf"')" 4
	assert_equal "$(hits '.target == 3 and .role == "leaf"')" 4
	assert_equal "$(hits '.target == 2 and .role == "leaf"')" 0
	assert_equal "$(hits '.target == 4 and .role == "leaf"')" 0
	assert_equal "$(obs '.follows | length')" 4
}

@test "follow ptrace --if: only the matching leaf write is a hit, all 30 tallied, the pointers all reported" {
	follow_cond ptrace wpt_ptr+0x10 tracer
}

@test "follow ptrace --if --stop: the process left stopped at the matching leaf write" {
	follow_stop ptrace
}
