#!/usr/bin/env bats
# wp-arm's perf backend, live.  Breakpoints fire only where debug
# registers work: the QEMU guest suite runs these; elsewhere they skip.

load ../helpers

setup() {
	require_bp
}

@test "wp-arm perf: exact hits from several threads, one created after armed" {
	start_target mt-writer -t 3 -n 400 -L 300
	watch_start wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 1500
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(obs .accepted_hits)" 1500
	assert_equal "$(obs '.targets[0].hits')" 1500
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(obs .lost_events.total)" 0
	assert_equal "$(obs .thread_coverage.seeded_tids)" 4
	assert_equal "$(obs .thread_coverage.inherited_tids)" 1
	assert_equal "$(obs .thread_coverage.partial_coverage)" false
	# four writer threads: three with 400 hits, the late one with 300
	run jq -s -c '[.[] | select(.type=="hit") | .tid] | group_by(.) | map(length) | sort' "$WOUT"
	assert_output "[300,400,400,400]"
	# the late thread came with a thread record, and wrote only after it
	local late
	late=$(jq -r 'select(.type=="thread" and .event=="start") | .tid' "$WOUT")
	assert_equal "$(jq -r 'select(.type=="thread" and .event=="start") | .coverage' "$WOUT")" inherited
	assert_equal "$(hits ".tid == $late")" 300
	# every record passed on: session and target first, unchanged
	run jq -r .type "$WOUT"
	assert_line --index 0 session
	assert_line --index 1 target
	assert_line --index 2 armed
}

@test "wp-arm perf: the trap IP is the instruction after the store" {
	start_target mt-writer -t 1 -n 20
	watch_start wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	local slide after
	slide=$(jq -r 'select(.type=="session") | .pie_slide' "$WOUT")
	# the instruction after write_counter's store, from objdump
	after=$(objdump -d --no-show-raw-insn "$T/mt-writer" |
		awk '/<write_counter>:/ { f = 1; next } f && /wpt_counter/ { getline; sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
	[ -n "$after" ] || fail "no store to wpt_counter in write_counter"
	run jq -r 'select(.type=="hit") | .ip' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "$(printf '0x%x' $(( slide + 0x$after )))"
	assert_equal "${#lines[@]}" 20
}

@test "wp-arm perf: --regs samples the registers at the store" {
	start_target mt-writer -t 1 -n 50
	watch_start wpt_counter -- -d 120s --regs
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 50
	# write_counter(v) stores its argument, rdi: 1000000 + i in order
	run jq -r 'select(.type=="hit") | .regs.rdi' "$WOUT"
	assert_output "$(for i in $(seq 0 49); do printf '0x%x\n' $((1000000 + i)); done)"
	run jq -r 'select(.type=="hit") | .regs | keys | length' "$WOUT"
	assert_line --index 0 18
	run jq -r 'select(.type=="armed") | .regs' "$WOUT"
	assert_output true
}

@test "wp-arm perf: a forked child's writes are excluded and counted" {
	start_target fork-exec -c 7 -n 20
	watch_start wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 20
	assert_equal "$(hits ".pid == $TPID")" 20
	assert_equal "$(obs .thread_coverage.excluded_other_process_events)" 7
	assert_equal "$(obs .thread_coverage.forked_processes)" 1
	run jq -r 'select(.type=="thread" and .event=="fork_process") | .by_tid' "$WOUT"
	assert_output "$TPID"
}

@test "wp-arm perf: -n stops at max events and flags truncation" {
	start_target mt-writer -t 1 -n 5000 -w
	watch_start wpt_counter -- -d 120s -n 100
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 100
	assert_equal "$(obs .stop_reason)" max_events
	assert_equal "$(obs .truncated_by_max_events)" true
	assert_equal "$(obs .counts_are_lower_bound)" true
	assert_equal "$(obs .target_alive_after)" true
}

@test "wp-arm perf: -d stops at the duration and reads the latest value" {
	start_target mt-writer -t 1 -n 10 -w
	watch_start wpt_counter -- -d 3s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$(hits)" 10
	assert_equal "$(obs .stop_reason)" duration
	assert_equal "$(obs .duration_requested_ms)" 3000
	[ "$(obs .elapsed_ms)" -ge 3000 ] || fail "elapsed $(obs .elapsed_ms) < 3000"
	assert_equal "$(obs '.targets[0].latest_value')" "$(printf '0x%x' 1000009)"
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "wp-arm perf: SIGINT mid-watch still yields the hits and an observation" {
	start_target mt-writer -t 2 -n 100 -w
	watch_start wpt_counter -- -d 300s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	kill -INT "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 200
	assert_equal "$(obs .stop_reason)" signal
	assert_equal "$(obs .stop_detail)" SIGINT
	# the target goes on untouched
	kill -0 "$TPID"
	kill -USR1 "$TPID"
}

@test "wp-arm perf: the target exiting mid-watch ends the watch" {
	start_target mt-writer -t 1 -n 10 -w
	watch_start wpt_counter -- -d 300s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	kill -9 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 10
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(obs .target_alive_after)" false
	assert_equal "$(obs '.targets[0].latest_value')" null
}

@test "wp-arm perf: exec in the target ends the watch" {
	start_target fork-exec -c 0 -n 5 -x
	watch_start wpt_counter -- -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 5
	assert_equal "$(obs .stop_reason)" target_exec
}

@test "wp-arm perf: ENOSPC when another debugger holds all four slots" {
	start_target mt-writer -t 0 -n 1
	"$T/slot-hog" "$TPID" "$(tinfo array)" > "$BATS_TEST_TMPDIR/hog.out" &
	WP_TARGET_PIDS+=($!)
	wait_for "$BATS_TEST_TMPDIR/hog.out" held
	run --separate-stderr bash -c "wp-resolve -p $TPID wpt_counter | wp-arm -d 5s"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: thread $TPID: no free debug register (ENOSPC): another debugger or a system-wide perf session may hold the slots"
	# the records read were still passed on, and the observation says why
	run jq -r '[.type, .stop_reason // "-", .accepted_hits // "-"] | join(" ")' <<< "$output"
	assert_output "session - -
target - -
observation error 0"
	run jq -r 'select(.type=="observation") | .error' <<< "$(wp-resolve -p "$TPID" wpt_counter | wp-arm -d 5s 2>/dev/null)"
	assert_output "thread $TPID: no free debug register (ENOSPC): another debugger or a system-wide perf session may hold the slots"
}

@test "wp-arm perf: a pid reused since wp-resolve is refused (status 4)" {
	start_target mt-writer -t 0
	wp-resolve -p "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/r.ndjson"
	# same pid, another start time: as if the pid had been reused
	jq -c 'if .type == "session" then .start_time += 1 else . end' \
		"$BATS_TEST_TMPDIR/r.ndjson" > "$BATS_TEST_TMPDIR/reused.ndjson"
	run --separate-stderr wp-arm -d 1s < "$BATS_TEST_TMPDIR/reused.ndjson"
	assert_failure 4
	assert_equal "$stderr" "wp-arm: pid $TPID: the process has exited or its pid was reused"
	assert_equal "$(tail -n 1 <<< "$output" | jq -r '.stop_reason')" error
}

@test "wp-arm perf: a malformed line is reported, the watch still runs (status 2)" {
	start_target mt-writer -t 1 -n 30
	wp-resolve -p "$TPID" wpt_counter | sed '1a{oops' > "$BATS_TEST_TMPDIR/in.ndjson"
	wp-arm -d 120s < "$BATS_TEST_TMPDIR/in.ndjson" > "$BATS_TEST_TMPDIR/watch.out" 2> "$BATS_TEST_TMPDIR/watch.err" &
	WPID=$!
	WOUT=$BATS_TEST_TMPDIR/watch.out
	wait_for "$WOUT" '"type":"armed"' 60
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 2
	assert_equal "$(hits)" 30
	assert_equal "$(cat "$BATS_TEST_TMPDIR/watch.err")" "wp-arm: stdin: line 2: invalid JSON at byte 2: expected a quoted member name"
}

@test "wp-arm perf: a closed stdout stops the watch and leaves the target running" {
	start_target mt-writer -t 1 -n 10 -w
	run --separate-stderr timeout 100 bash -c "wp-resolve -p $TPID wpt_counter | wp-arm -d 300s | head -n 3"
	assert_success
	assert_equal "${#lines[@]}" 3
	# wp-arm has gone (it did not wait for its 300 s), the target runs on
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	kill -0 "$TPID"
}

@test "wp-arm perf: without the right to open breakpoint events, it says which setting decides" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to drop to another user"
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 2 ] || skip "kernel.perf_event_paranoid is $paranoid: unprivileged users may open events"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_BUILD/wp-arm" --check-bp
	assert_failure 5
	assert_equal "$stderr" "wp-arm: perf_event_open: Permission denied (kernel.perf_event_paranoid is $paranoid; run as root or with CAP_PERFMON)"
}
