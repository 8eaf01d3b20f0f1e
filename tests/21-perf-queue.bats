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

# val NAME: the figure on the program's line NAME
val() {
	printf '%s\n' "$output" | awk -v k="$1" '$1 == k { print $2 }'
}

# A writer's longest gap of a tick (50 ms) or more is a pause the copier
# rightly takes for the burst's end.
unpaused() {
	[ "$(val gap_ms)" -lt 50 ] ||
		skip "the host paused the writer $(val gap_ms) ms, a pause the queue takes for a burst's end"
}

@test "perf queue: a slow writer's samples (2 KB/s) are formatted as they come, in order" {
	pq pace 2000 1000
	assert_line "out_of_order 0"
	[ "$(val during)" -gt 0 ]
	assert_line "after_pause $(val written)"
}

@test "perf queue: a burst's samples (2 MB/s, 0.3 s) wait for its end, then are formatted before the watch ends" {
	pq pace 2000000 300
	unpaused
	assert_line "during 0"
	[ "$(val written)" -gt 10000 ]
	assert_line "after_pause $(val written)"
	assert_line "out_of_order 0"
}

@test "perf queue: a burst longer than a second is formatted while it goes on, none in its first second" {
	pq pace 2000000 2500
	[ "$(val during)" -gt 0 ]
	assert_line "after_pause $(val written)"
	assert_line "out_of_order 0"
	unpaused
	[ "$(val first_ms)" -ge 1000 ]
}
