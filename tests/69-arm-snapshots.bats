#!/usr/bin/env bats
# The watched value's snapshots: the armed record's initial value and the
# observation's latest are read where they are true, so that on a counter
# bumped by 1 their difference is the count of writes, exact.  The page
# and ptrace backends hold every thread at arming and at disarming and
# read them then; where a backend cannot (perf, bpf: fixture streams,
# breakpoints do not fire here) wp-report's table says so beside them.

load helpers
load page

# snapshots_exact BACKEND THREADS: bump's threads add 1 to its counter in
# a tight loop while it is watched a moment; latest - initial is every
# write counted, and the target's own count goes on as unwatched.
snapshots_exact() {
	local initial latest
	start_target bump -t "$2"
	kill -USR1 "$TPID"
	watch_start "$(tinfo bumps)" -- --backend "$1" -d 400ms
	watch_wait
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" duration
	assert_equal "$(obs .counts_are_lower_bound)" false
	initial=$(jq -r 'select(.type=="armed") | .initial[0].initial_value' "$WOUT")
	latest=$(obs '.targets[0].latest_value')
	[ "$(obs '.targets[0].counted')" -gt 0 ] || fail "nothing counted"
	assert_equal "$(( latest - initial ))" "$(obs '.targets[0].counted')"
	assert_equal "$(hits)" "$(obs '.targets[0].counted')"
	# the target ran on after the watch, as unwatched, and exited 0
	wait "$TPID"
	[ "$(awk '/^bumps/ { print $2 }' "$TOUT")" -gt "$(( latest ))" ] ||
		fail "the target: $(cat "$TOUT")"
	# and the report shows them with no caveat: they are exact
	run --separate-stderr wp-report "$WOUT"
	assert_line --regexp "^  initial $initial  latest $latest  changed$"
	refute_line --partial "values read as the threads ran"
	run jq -c '.watches[0].snapshot_caveat' <<< "$(wp-report --json "$WOUT")"
	assert_output null
}

@test "wp-arm page: a counter two threads bump: latest - initial is the count of writes, exact" {
	require_page
	snapshots_exact page 2
}

@test "wp-arm page: a counter three threads bump: latest - initial is the count of writes, exact" {
	require_page
	snapshots_exact page 3
}

@test "wp-arm ptrace: a counter two threads bump: latest - initial is the count of writes, exact" {
	snapshots_exact ptrace 2
}
