#!/usr/bin/env bats
# What the ptrace backend says is true from the watch's first instant to
# its last: no phantom change at the start, the kernel's writes counted
# whether or not the bytes changed, another process's writes never the
# target's, a stopped target kept stopped, the target's own SIGTRAPs
# delivered.

load helpers
load arm

# truth_watch MODE N ADDR-KEY RESOLVE-ARGS...: watches truth MODE N to
# its end.
truth_watch() {
	local mode=$1 n=$2 key=$3
	shift 3
	start_target truth "$mode" "$n"
	watch_start "$@" "$(tinfo "$key")" -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
}

@test "ptrace truth: short watches of a two-thread writer: no phantom change at the start, every hit exact" {
	local k bad
	start_target truth tick 2
	for ((k = 0; k < 20; k++)); do
		watch_start wpt_counter -- --backend ptrace -d 0.3s
		watch_wait
		assert_equal "$WSTATUS" 0
		bad=$(jq -c 'select(.type=="hit" and .flags != [])' "$WOUT" | head -n 3)
		[ -z "$bad" ] || fail "watch $k: hits not of an instruction: $bad"
		assert_equal "$k $(obs .ptrace.unexplained_changes)" "$k 0"
		# each write a new value: no hit repeats one
		assert_equal "$k $(jq -s '[.[] | select(.type=="hit") | .new_value] | length - (unique | length)' "$WOUT")" "$k 0"
		[ "$(hits)" -gt 0 ] || fail "watch $k: no hit"
	done
}

@test "ptrace truth: read(2) of the same bytes into the watched buffer is a write each time" {
	truth_watch read 5 counter -l 8
	assert_equal "$(grep '^done' "$TOUT")" "done 5"
	assert_equal "$(hits '.flags == ["syscall"]')" 5
	assert_equal "$(hits)" 5
	assert_equal "$(obs .ptrace.kernel_writes)" 5
	assert_equal "$(obs .ptrace.unexplained_changes)" 0
}

@test "ptrace truth: a signal frame on an alternate stack is a write each time the handler runs there" {
	truth_watch alt 10 altstack --no-slot-limit -l 8192
	assert_equal "$(grep '^done' "$TOUT")" "done 10"
	assert_equal "$(hits '.flags == ["kernel"] and .signal == 12')" 10
	assert_equal "$(obs .ptrace.kernel_writes)" 10
	assert_equal "$(obs .ptrace.unexplained_changes)" 0
}

@test "ptrace truth: signal frames of the same bytes on an alternate stack: each one a write" {
	scenario_alt_frames ptrace 5
	assert_equal "$(obs .ptrace.unexplained_changes)" 0
}

@test "ptrace truth: another process's writes while the target takes signals are unexplained, never a frame or a call" {
	truth_watch shm 5 shared -l 8
	assert_equal "$(grep '^done' "$TOUT")" "done 5"
	run jq -c 'select(.type=="hit") | [.flags, .writer_ip, .signal]' "$WOUT"
	assert_equal "${#lines[@]}" 5
	assert_equal "$(sort -u <<< "$output")" '[["unexplained"],null,null]'
	assert_equal "$(obs .ptrace.unexplained_changes)" 5
	assert_equal "$(obs .ptrace.kernel_writes)" 0
	assert_equal "$(obs .counts_are_lower_bound)" true
	# no thread of the target is credited with them
	run --separate-stderr wp-report --json < <(wp-decode < "$WOUT")
	assert_equal "$(jq -c '.watches[0] | [.accepted_hits, .threads]' <<< "$output")" '[5,[]]'
}

@test "ptrace truth: initial and latest are the watch's start and end: a write between wp-resolve and arming is not a change" {
	start_target mt-writer -t 1 -n 1 -w
	wp-resolve -p "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/r.ndjson"
	# the one write, after wp-resolve read the value, before arming
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 10
	WOUT=$BATS_TEST_TMPDIR/watch.out
	wp-arm --backend ptrace -d 0.5s < "$BATS_TEST_TMPDIR/r.ndjson" > "$WOUT"
	assert_equal "$(jq -r 'select(.type=="armed") | .initial[0].initial_value' "$WOUT")" "$(printf '0x%x' 1000000)"
	run --separate-stderr wp-report --json < "$WOUT"
	assert_success
	assert_equal "$(jq -r '.watches[0] | "\(.accepted_hits) \(.initial_value) \(.latest_value) \(.changed)"' <<< "$output")" \
	    "0 $(printf '0x%x' 1000000) $(printf '0x%x' 1000000) false"
	run wp-report < "$WOUT"
	refute_output --partial changed
}

@test "ptrace truth: a stopped target stays stopped under watch, and nothing is counted" {
	local k
	start_target truth tick 2
	kill -STOP "$TPID"
	for ((k = 0; k < 100; k++)); do
		[ "$(state "$TPID")" = T ] && break
		sleep 0.05
	done
	assert_equal "$(state "$TPID")" T
	watch_start wpt_counter -- --backend ptrace -d 1s
	sleep 0.5
	[[ $(state "$TPID") == [Tt] ]] || fail "state $(state "$TPID") under watch"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 0
	assert_equal "$(obs .ptrace.unexplained_changes)" 0
	assert_equal "$(state "$TPID")" T
	kill -CONT "$TPID"
}

@test "ptrace truth: a stopped target continued mid-watch: every write counted" {
	scenario_stopped_continued ptrace
	kill -USR1 "$TPID"
}

@test "ptrace truth: the target's own SIGTRAPs reach its handler: int3, raise(SIGTRAP)" {
	local mode
	for mode in int3 raise; do
		truth_watch "$mode" 5 shared -l 8
		assert_equal "$mode $(grep '^done' "$TOUT")" "$mode done 5"
		assert_equal "$mode $(obs .stop_reason)" "$mode target_exited"
		# the handler ran unstepped: its writes only as changes
		assert_equal "$mode $(obs .counts_are_lower_bound)" "$mode true"
		stop_targets
	done
}

@test "ptrace truth: a kill -TRAP from outside reaches the watched target's handler, each time" {
	local k
	start_target truth trapwait 3
	watch_start "$(tinfo shared)" -l 8 -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^ready' 30
	for k in 1 2; do
		kill -TRAP "$TPID"
		wait_for "$TOUT" "^handled $k\$" 30
	done
	kill -TRAP "$TPID"
	watch_wait
	assert_equal "$(grep '^done' "$TOUT")" "done 3"
	assert_equal "$(obs .stop_reason)" target_exited
}

@test "ptrace truth: a target with no SIGTRAP handler dies of its SIGTRAP, as unwatched" {
	local st=0
	"$T/truth" trapdie 1 > /dev/null &
	local p=$!
	sleep 0.2
	kill -USR1 "$p"
	wait "$p" || st=$?
	assert_equal "unwatched $st" "unwatched 133"
	start_target truth trapdie 1
	watch_start "$(tinfo shared)" -l 8 -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	st=0
	wait "$TPID" || st=$?
	assert_equal "watched $st" "watched 133"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
}
