#!/usr/bin/env bats
# The perf backend's queue (cmd/wp-arm/perf-queue.c) on rings in memory
# (tests/progs/perf-queue.c): its copying thread and the formatter at
# SCHED_IDLE, without breakpoints, which fire only in the guest (the
# live watches: tests/live/20-arm-perf.bats).

load helpers

# pq SAMPLES CAP: runs the program; skips where the queue cannot run.
pq() {
	[ -x "$WP_BUILD/progs/perf-queue" ] || skip "no $WP_BUILD/progs/perf-queue (make first)"
	run --separate-stderr "$WP_BUILD/progs/perf-queue" "$@"
	[ "$status" = 3 ] && skip "$output"
	assert_success
}

@test "perf queue: every record of two wrapping rings formatted once, in each ring's order, at SCHED_IDLE, the policy normal after" {
	pq 5000 67108864
	assert_line "samples 10000"
	assert_line "forks 2"
	assert_line "out_of_order 0"
	assert_line "formatted_at_idle yes"
	assert_line "normal_after_each yes"
	assert_line "formatter idle"
	assert_line "cap 67108864"
	assert_line "cap_reached no"
	assert_line "peak_records_within yes"
}

@test "perf queue: a cap of 1 KiB: the cap is passed and nothing lost or reordered" {
	pq 5000 1024
	assert_line "samples 10000"
	assert_line "forks 2"
	assert_line "out_of_order 0"
	assert_line "cap 1024"
	assert_line "cap_reached yes"
	assert_line "normal_after_each yes"
}

# A new thread's fork is written into its parent's CPU ring before the
# thread runs, its samples into its own CPU's: a reader that took the
# parent's ring just before the fork landed has the thread's first
# sample first.  The fork is picked ahead of it, and only once.
@test "perf queue: a thread's sample copied before its fork: the fork is handed first, once" {
	pq fork-late queue
	assert_output "$(printf 'fork 4242\npicked 1\nsample 4242')"
}

@test "perf rings read as drained: a thread's sample read before its fork: the fork is handed first, once" {
	pq fork-late ring
	assert_output "$(printf 'fork 4242\npicked 1\nsample 4242')"
}
