#!/usr/bin/env bats
# wp-arm --backend page: runs here for real (page protection needs no
# debug registers).  The scenarios every backend shares (tests/arm.bash),
# then what is the page backend's own: exact writers at the fault, page
# neighbours, kernel writes, the target's health however the watch ends.

load helpers
load arm

@test "wp-arm page: exact hits from several threads, one created mid-watch" {
	scenario_threads page
	assert_equal "$(obs .backend)" page_protect
	assert_equal "$(obs .page.faults_watched)" 700
	assert_equal "$(obs .page.pages)" 1
	# the four threads there at the start and the late one, each named
	run jq -r 'select(.type=="thread" and (.event=="seeded" or .event=="start")) | "\(.event) \(.comm)"' "$WOUT"
	assert_equal "$(sort <<< "$output" | uniq -c | tr -s ' ')" "$(printf ' 4 seeded mt-writer\n 1 start mt-writer')"
}

@test "wp-arm page: a tight loop on three threads: every write counted and written" {
	scenario_counted page
	assert_equal "$(hits)" 2400
	# every fault was made one way or the other
	assert_equal "$(obs .page.faults_watched)" 2400
	assert_equal "$(obs '.page | .emulated + .stepped')" "$(obs '.page | .faults_watched + .faults_neighbour')"
}

@test "wp-arm page: a write of the same value is still a hit" {
	scenario_same_value page
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "0x1"
}

@test "wp-arm page: -n stops at max events and flags truncation" {
	scenario_max_events page
}

@test "wp-arm page: -d stops at the duration and reads the latest value" {
	scenario_duration page
}

@test "wp-arm page: SIGINT, SIGTERM and SIGHUP yield the hits and an observation" {
	scenario_signal page
}

@test "wp-arm page: the target exiting mid-watch ends the watch" {
	scenario_target_exit page
}

@test "wp-arm page: exec in the target ends the watch" {
	scenario_exec page
}

@test "wp-arm page: a pid reused since wp-resolve is refused (status 4)" {
	scenario_pid_reused page
}

@test "wp-arm page: a malformed line is reported, the watch still runs (status 2)" {
	scenario_malformed page
}

@test "wp-arm page: a closed stdout stops the watch and leaves the target running" {
	scenario_closed_stdout page
}

@test "wp-arm page: however the watch ends, the target computes what it computes unwatched" {
	scenario_healthy page
}
