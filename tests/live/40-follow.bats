#!/usr/bin/env bats
# --follow with the perf and bpf backends, live: breakpoints moved with
# PERF_EVENT_IOC_MODIFY_ATTRIBUTES when a pointer is written.  With --if
# the leaf's writes are filtered (perf: in wp-arm; bpf: in the kernel)
# and tallied, as on the host (tests/follow.bash, tests/cond.bash).

load ../helpers
load ../follow
load ../cond

setup() {
	require_bp
}

@test "follow perf: SLOT+OFF, every binding in order, leaf hits per generation exact" {
	follow_run perf wpt_ptr+0x10
	follow_check 0
	# a pointer's sample re-arms its chain at once: formatted as drained
	assert_equal "$(jq -c '.perf | [.formatter, .formatter_reason]' <<< "$OBS")" '["inline","follow"]'
	# the window between a pointer write and the re-arm makes counts a lower bound
	assert_equal "$(obs .counts_are_lower_bound)" true
	run obs '.thread_coverage.partial_coverage_reasons | index("follow_rebind_window") != null'
	assert_output true
	# and the report names that window, not the threads' coverage
	run jq -c '.lower_bound_reasons | [index("follow_rebind_window") != null, index("partial_thread_coverage")]' \
		<<< "$(wp-decode < "$WOUT" | wp-report --json)"
	assert_output '[true,null]'
}

@test "follow perf: a pointer never written opens no rebind window, the counts stay exact" {
	start_target ptr-chain -g 3 -n 10
	watch_start --follow wpt_ptr+0x10 -- --backend perf -d 1s
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" duration
	assert_equal "$(obs '.follows[0].binding')" null_pointer
	assert_equal "$(obs '.thread_coverage.partial_coverage_reasons')" '[]'
	assert_equal "$(obs .counts_are_lower_bound)" false
	run jq -c '[.counts_are_lower_bound, .lower_bound_reasons]' <<< "$(wp-decode < "$WOUT" | wp-report --json)"
	assert_output '[false,[]]'
}

@test "follow perf: a two-level chain [[SLOT]+8]+0x10 takes three slots" {
	follow_run perf '[[wpt_holder]+8]+0x10'
	follow_check 1
	run jq -r 'select(.type=="armed") | .events' "$WOUT"
	[ "$output" -gt 0 ]
}

@test "follow perf --if: only the matching leaf write is a hit, all 30 tallied, the pointers all reported" {
	follow_cond perf wpt_ptr+0x10 wp-arm
}

@test "follow perf --if 'value == 0': a leaf three threads write; each writer's total and matched count in the report" {
	COND_WATCH=(--follow wpt_cellp+0x0)
	zero_watch perf 2000 wp-arm
}

@test "follow bpf: SLOT+OFF, every binding in order, leaf hits per generation exact" {
	follow_run bpf wpt_ptr+0x10
	follow_check 0
	# each re-arm says how long the leaf was unwatched, and whether a
	# write fell in that window (none: the target waited for it)
	run jq -r 'select(.type=="rebind" and .binding == "bound") | "\(.rearm_ns > 0) \(.held) \(.missed_in_window)"' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "true true false"
}

@test "follow bpf: a 20 ms pause after each repointing loses no leaf write" {
	start_target ptr-chain -g 4 -n 50 -p 20
	watch_start --follow wpt_ptr+0x10 -- --backend bpf -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
	# the stores of the leaf, as wp-decode places them: every one
	local dec g
	dec=$(wp-decode < "$WOUT")
	for g in 2 3 4 5; do
		assert_equal "$(jq -s "map(select(.type==\"hit\" and .role==\"leaf\" and .generation == $g and .writer.confidence == \"high\")) | length" <<< "$dec")" 50
	done
	local all
	all=$(hits '.role == "leaf"')
	if [ "$all" -ne 200 ]; then
		# Seen only under QEMU TCG: a pointer store also reported on the
		# leaf's debug register.  wp-decode shows its store elsewhere.
		echo "# $all leaf hits, 200 by the program; the others: $(jq -r 'select(.type=="hit" and .role=="leaf" and .writer.confidence != "high") | "\(.writer.insn) (\(.writer.confidence))"' <<< "$dec" | sort | uniq -c | tr '\n' ' ')" >&3
		assert_equal "$(jq -s 'map(select(.type=="hit" and .role=="leaf" and .writer.confidence == "low")) | length' <<< "$dec")" "$(( all - 200 ))"
	fi
}

# wait_for_count FILE PATTERN N: until N lines of FILE match.
wait_for_count() {
	local i
	for (( i = 0; i < 600; i++ )); do
		[ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.05
	done
	fail "timed out waiting for $3 lines '$2' in $(basename "$1")"
}

# follow_nopause CHAIN ARM-ARGS...: ptr-chain repoints and writes 50
# times at once, four times; every leaf write must be there.
follow_nopause() {
	local chain=$1 g
	shift
	start_target ptr-chain -g 4 -n 50 -p 0 "${TARGS[@]}"
	watch_start --follow "$chain" -- --backend bpf -d 300s "$@"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
	run jq -r 'select(.type=="rebind") | "\(.generation) \(.binding) \(.held)"' "$WOUT"
	assert_output "1 null_pointer false
2 bound true
3 bound true
4 bound true
5 bound true
6 null_pointer true"
	DEC=$(wp-decode < "$WOUT")
	for g in 2 3 4 5; do
		assert_equal "$(jq -s "map(select(.type==\"hit\" and .role==\"leaf\" and .generation == $g and .writer.confidence == \"high\")) | length" <<< "$DEC")" 50
	done
	# each binding is at the object the target printed
	for g in 1 2 3 4; do
		assert_equal "$(jq -r "select(.type==\"rebind\" and .generation == $((g + 1))) | .new_leaf" "$WOUT")" \
			"$(printf '0x%x' $(( $(awk -v g="$g" '$1 == "ptr" && $2 == g { print $3 }' "$TOUT") + 0x10 )))"
	done
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "follow bpf, stop: no pause after repointing, every leaf write of every generation" {
	TARGS=()
	follow_nopause wpt_ptr+0x10
	assert_equal "$(obs .follow_mode)" stop
	assert_equal "$(obs .bpf.writers_held)" 5
	run jq -r 'select(.type=="rebind" and .generation > 1) | .missed_in_window' "$WOUT"
	assert_equal "$(sort -u <<< "$output" | tr '\n' ' ')" "false null "
	# the report shows how long each re-arm took
	run jq -c '.dependent_watches[0].rearm | [.measured, .held, .missed_in_window, .min_ns > 0]' <<< "$(wp-report --json <<< "$DEC")"
	assert_output '[5,5,0,true]'
	run wp-report <<< "$DEC"
	assert_line '  re-arm: 5 measured, 5 with the writer held, 0 missed a write'
	assert_line --regexp '^  re-arm us: min [0-9.]+ median [0-9.]+ p90 [0-9.]+ max [0-9.]+$'
}

@test "follow bpf, stop: a two-level chain the same" {
	TARGS=()
	follow_nopause '[[wpt_holder]+8]+0x10'
}

@test "follow bpf, stop-all: every thread stopped for the re-arm, every leaf write" {
	TARGS=()
	follow_nopause wpt_ptr+0x10 --follow-mode stop-all
	assert_equal "$(obs .follow_mode)" stop-all
}

@test "follow bpf, stop: a target that handles SIGURG itself gets its own SIGURGs" {
	TARGS=(-u)
	start_target ptr-chain -g 4 -n 50 -p 0 -u
	watch_start --follow wpt_ptr+0x10 -- --backend bpf -d 300s
	local i
	for i in 1 2 3 4 5; do
		kill -URG "$TPID"
		wait_for_count "$TOUT" '^urg$' "$i"
	done
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 30
	assert_equal "$(awk '$1 == "sigurg" { print $2 }' "$TOUT")" 5
	assert_equal "$(obs .follow_mode)" stop
	[ "$(obs .bpf.signals_passed)" -ge 5 ] || fail "signals passed: $(obs .bpf.signals_passed)"
	assert_equal "$(hits '.role == "leaf"')" "$(jq -s 'map(select(.type=="hit" and .role=="leaf")) | length' "$WOUT")"
	[ "$(hits '.role == "leaf"')" -ge 200 ] || fail "leaf hits: $(hits '.role == "leaf"')"
}

@test "follow bpf, stop: a target stopped with SIGSTOP stays stopped until SIGCONT" {
	start_target ptr-chain -g 1 -n 10
	watch_start --follow wpt_ptr+0x10 -- --backend bpf -d 300s
	kill -STOP "$TPID"
	kill -USR1 "$TPID"
	sleep 2
	# stopped: it has not gone on to repoint
	run grep -c '^ptr' "$TOUT"
	assert_output 0
	kill -CONT "$TPID"
	wait_for "$TOUT" '^ptr 1' 30
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^gen 1' 30
	# a step at a time: two SIGUSR1s sent at once may be one (was: the
	# target waited, and the watch ran its 300 s)
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^null' 30
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(hits '.role == "leaf" and .generation == 2')" 10
	assert_equal "$(obs .follow_mode)" stop
}

@test "follow bpf: another tracer present: asynchronous, and why" {
	start_target ptr-chain -g 1 -n 10
	"$T/tracer" "$TPID" > "$BATS_TEST_TMPDIR/tracer.out" &
	local tracer=$! why
	WP_TARGET_PIDS+=("$tracer")
	wait_for "$BATS_TEST_TMPDIR/tracer.out" tracing 30
	watch_start --follow wpt_ptr+0x10 -- --backend bpf -d 300s
	why="cannot trace pid $TPID to hold a pointer's writer: it is traced by $tracer (tracer)"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^ptr 1' 30
	sleep 1
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^gen 1' 30
	kill -INT "$WPID"
	watch_wait
	assert_equal "$(obs .follow_mode)" async
	assert_equal "$(obs .follow_mode_reason)" "$why"
	assert_equal "$(cat "$WERR")" "wp-arm: $why: following pointers asynchronously (a write to the new leaf before it is re-armed is missed)"
	assert_equal "$(hits '.role == "leaf"')" 10
}

@test "follow bpf --if: evaluated in the kernel; only the matching leaf write is a hit, all 30 tallied, the pointers all reported" {
	follow_cond bpf wpt_ptr+0x10 kernel
}

@test "follow bpf --if 'value == 0': a leaf three threads write; each writer's total and matched count in the report" {
	COND_WATCH=(--follow wpt_cellp+0x0)
	zero_watch bpf 2000 kernel
}
