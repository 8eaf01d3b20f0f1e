#!/usr/bin/env bats
# --follow with the perf backend, live: breakpoints moved with
# PERF_EVENT_IOC_MODIFY_ATTRIBUTES when a pointer is written.

load ../helpers
load ../follow

setup() {
	require_bp
}

@test "follow perf: SLOT+OFF, every binding in order, leaf hits per generation exact" {
	follow_run perf wpt_ptr+0x10
	follow_check 0
	# the window between a pointer write and the re-arm makes counts a lower bound
	assert_equal "$(obs .counts_are_lower_bound)" true
	run obs '.thread_coverage.partial_coverage_reasons | index("follow_rebind_window") != null'
	assert_output true
}

@test "follow perf: a two-level chain [[SLOT]+8]+0x10 takes three slots" {
	follow_run perf '[[wpt_holder]+8]+0x10'
	follow_check 1
	run jq -r 'select(.type=="armed") | .events' "$WOUT"
	[ "$output" -gt 0 ]
}
