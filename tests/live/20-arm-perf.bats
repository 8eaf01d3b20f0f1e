#!/usr/bin/env bats
# wp-arm's perf backend, live.  Breakpoints fire only where debug
# registers work: the QEMU guest suite runs these; elsewhere they skip.
# The scenarios every backend shares (tests/arm.bash), then what is the
# perf backend's own.

load ../helpers
load ../arm
load ../page

setup() {
	require_bp
}

@test "wp-arm perf: exact hits from several threads, one created after armed" {
	scenario_threads perf
	assert_equal "$(obs .backend)" perf_breakpoint
}

@test "wp-arm perf: forty threads made while watched: each one's start before its first hit, its exit after its last, every write" {
	scenario_start_order perf 4
	assert_equal "$(obs .perf.formatter)" idle
}

@test "wp-arm perf --if (formatted as drained): forty threads made while watched: each one's start before its first hit, its exit after its last, every write" {
	scenario_start_order perf 4 --if 'tid > 0'
	assert_equal "$(jq -c '.perf | [.formatter, .formatter_reason]' <<< "$OBS")" '["inline","if"]'
}

@test "wp-arm perf: a tight loop on three threads: the kernel's count is the target's" {
	scenario_counted perf
	# a ring of perf record's size by default (root: no mlock limit)
	run jq -r 'select(.type=="armed") | .ring_pages' "$WOUT"
	assert_output 128
	# formatted from the queue, at SCHED_IDLE, never over its cap
	assert_equal "$(jq -c '.perf | [.formatter, .formatter_reason, .queue_cap_bytes, .cap_reached]' <<< "$OBS")" '["idle",null,67108864,0]'
	[ "$(obs .perf.queued_peak_bytes)" -le 67108864 ] || fail "queued $(obs .perf.queued_peak_bytes) bytes"
}

@test "wp-arm perf: a queue cap of 2 KiB: the formatter catches up at its normal policy, every hit of three threads written" {
	export WP_ARM_QUEUE_BYTES=2048
	stress_watch perf
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	assert_equal "$(hits)" "$WANT"
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	run jq -s -c '[.[] | select(.type=="hit") | .tid] | group_by(.) | map(length) | sort' "$WOUT"
	assert_output "[800,800,800]"
	# the thread created after the go: inherited, said before its hits
	run jq -r 'select(.type=="thread" and .event=="start") | .coverage' "$WOUT"
	assert_output inherited
	local late first
	late=$(jq -r 'select(.type=="thread" and .event=="start") | .tid' "$WOUT")
	first=$(jq -s "to_entries | map(select(.value.type==\"hit\" and .value.tid==$late))[0].key" "$WOUT")
	[ "$(jq -s 'to_entries | map(select(.value.type=="thread" and .value.event=="start"))[0].key' "$WOUT")" -lt "$first" ] || fail "the late thread's start came after its first hit"
	assert_equal "$(jq -c '.perf | [.formatter, .queue_cap_bytes]' <<< "$OBS")" '["idle",2048]'
	# the cap was passed: the path under test was taken
	[ "$(obs .perf.cap_reached)" -ge 1 ] || fail "the queue never passed its cap: $OBS"
	[ "$(obs .perf.queued_peak_bytes)" -gt 2048 ] || fail "queued at most $(obs .perf.queued_peak_bytes) bytes"
}

@test "wp-arm perf: WP_ARM_QUEUE_BYTES not a number of bytes is refused (status 64)" {
	start_target mt-writer -t 1 -n 10
	WP_ARM_QUEUE_BYTES=12x run --separate-stderr wp-arm --backend perf -d 1s < <(wp-resolve -p "$TPID" wpt_counter)
	assert_equal "$status" 64
	assert_equal "$stderr" "wp-arm: WP_ARM_QUEUE_BYTES=12x: not a number of bytes"
}

@test "wp-arm perf: a tight loop with --regs: the kernel's count is the target's, losses said" {
	scenario_counted perf --regs
}

@test "wp-arm perf: a ring too small: lower bound, ring_overflow, the exact count" {
	stress_watch perf --regs --ring-pages 1
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	[ "$(obs '.targets[0].lost')" -ge 1 ] || fail "a one-page ring lost nothing: $(hits) hits"
	assert_equal "$(( $(hits) + $(obs '.targets[0].lost') ))" "$WANT"
	assert_equal "$(obs .counts_are_lower_bound)" true
	assert_equal "$(jq -c .lost_events.reasons <<< "$OBS")" '["ring_overflow"]'
	run jq -c '[.counts_are_lower_bound, .lower_bound_reasons, .watches[0].counted]' <<< "$(wp-report --json < "$WOUT")"
	assert_output "[true,[\"lost_events\"],$WANT]"
}

@test "wp-arm perf: a write of the same value is still a hit" {
	scenario_same_value perf
}

@test "wp-arm perf: -n stops at max events and flags truncation" {
	scenario_max_events perf
}

@test "wp-arm perf: samples drained after max events are counted, not lost" {
	start_target mt-writer -t 1 -n 150 -w
	watch_start wpt_counter -- --backend perf -d 300s -n 100
	# every write is made while wp-arm sleeps: one drain reads all 150
	kill -STOP "$WPID"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	kill -CONT "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 100
	assert_equal "$(obs .stop_reason)" max_events
	assert_equal "$(obs .accepted_hits)" 100
	assert_equal "$(obs '.targets[0].hits')" 100
	assert_equal "$(obs '.targets[0].counted')" 150
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .lost_events.total)" 0
	assert_equal "$(jq -c .lost_events.reasons <<< "$OBS")" '[]'
	# a lower bound for being cut, not for a loss
	assert_equal "$(obs .counts_are_lower_bound)" true
}

@test "wp-arm perf: -d stops at the duration and reads the latest value" {
	scenario_duration perf
}

@test "wp-arm perf: SIGINT, SIGTERM and SIGHUP yield the hits and an observation" {
	scenario_signal perf
}

@test "wp-arm perf: the target exiting mid-watch ends the watch" {
	scenario_target_exit perf
}

@test "wp-arm perf: exec in the target ends the watch" {
	scenario_exec perf
}

@test "wp-arm perf: a pid reused since wp-resolve is refused (status 4)" {
	scenario_pid_reused perf
}

@test "wp-arm perf: a malformed line is reported, the watch still runs (status 2)" {
	scenario_malformed perf
}

@test "wp-arm perf: a closed stdout stops the watch and leaves the target running" {
	scenario_closed_stdout perf
}

@test "wp-arm perf: however the watch ends, the target computes what it computes unwatched" {
	scenario_healthy perf
}

@test "wp-arm perf: the trap IP is the instruction after the store" {
	start_target mt-writer -t 1 -n 20
	watch_start wpt_counter -- --backend perf -d 120s
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
	watch_start wpt_counter -- --backend perf -d 120s --regs
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

@test "wp-arm perf: a forked child is not watched, and its fork is said" {
	start_target fork-exec -c 7 -n 20
	watch_start wpt_counter -- --backend perf -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 20
	assert_equal "$(hits ".pid == $TPID")" 20
	# the events are inherited by threads only: the child's 7 writes are
	# neither sampled nor counted
	assert_equal "$(obs '.targets[0].counted')" 20
	assert_equal "$(obs .thread_coverage.excluded_other_process_events)" 0
	assert_equal "$(obs .thread_coverage.forked_processes)" 1
	run jq -r 'select(.type=="thread" and .event=="fork_process") | .by_tid' "$WOUT"
	assert_output "$TPID"
}

@test "wp-arm perf: ENOSPC when another debugger holds all four slots" {
	start_target mt-writer -t 0 -n 1
	"$T/slot-hog" "$TPID" "$(tinfo array)" > "$BATS_TEST_TMPDIR/hog.out" &
	WP_TARGET_PIDS+=($!)
	wait_for "$BATS_TEST_TMPDIR/hog.out" held
	run --separate-stderr bash -c "wp-resolve -p $TPID wpt_counter | wp-arm --backend perf -d 5s"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: thread $TPID: no free debug register (ENOSPC): another debugger or a system-wide perf session may hold the slots"
	# the records read were still passed on, and the observation says why
	run jq -r '[.type, .stop_reason // "-", .accepted_hits // "-"] | join(" ")' <<< "$output"
	assert_output "session - -
target - -
observation error 0"
	run jq -r 'select(.type=="observation") | .error' <<< "$(wp-resolve -p "$TPID" wpt_counter | wp-arm --backend perf -d 5s 2>/dev/null)"
	assert_output "thread $TPID: no free debug register (ENOSPC): another debugger or a system-wide perf session may hold the slots"
}

@test "wp-arm perf: without the right to open breakpoint events, it says which setting decides" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to drop to another user"
	local paranoid why
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	# a kernel may let that user open breakpoint events on its own
	# process (mainline does at 2; Debian's refuses at 3)
	why=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_BUILD/wp-arm" --doctor --json | jq -r .breakpoints.why)
	[[ $why == "perf_event_open: Permission denied"* ]] ||
		skip "kernel.perf_event_paranoid is $paranoid and user 65534 is not refused here (wp doctor as that user: $why)"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_BUILD/wp-arm" --check-bp
	assert_failure 5
	assert_equal "$stderr" "wp-arm: perf_event_open: Permission denied (kernel.perf_event_paranoid is $paranoid; run as root or with CAP_PERFMON)"
}

@test "wp-arm perf: a second watch of an address another holds counts it, or says its count is unknown" {
	scenario_second_watch perf
}

@test "wp-arm perf: rep movsb and rep stosb over an 8-byte target: one hit per element that writes it, as on page and ptrace" {
	scenario_rep_strings perf
}
