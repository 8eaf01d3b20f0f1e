#!/usr/bin/env bats
# wp-arm and wp under stray signals: what is not a request to stop
# stops nothing, and what ends a watch is named truly.

load helpers

@test "wp-arm ptrace: a SIGALRM to wp-arm (the supervisor of the tracing process) ends nothing" {
	start_target mt-writer -t 1 -n 20 -w
	watch_start wpt_counter -- --backend ptrace -d 300s
	kill -ALRM "$WPID"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	kill -0 "$WPID" || fail "wp-arm ended on SIGALRM: $(cat "$WERR")"
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	# the watch counted every write, and names the signal that ended it
	assert_equal "$(obs '"\(.stop_reason) \(.stop_detail) \(.accepted_hits)"')" "signal SIGTERM 20"
	kill -0 "$TPID"
}
