#!/usr/bin/env bats
# wp-arm --backend ptrace: runs here for real (no debug registers
# needed).  Exact counts, exact writers, kernel writes, and the target
# left as it was found on every way out.

load helpers

# ptrace_watch ADDR... -- ARGS: watch_start with --backend ptrace
ptrace_watch() {
	local a=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	watch_start "${a[@]}" -- --backend ptrace "$@"
}

# unwatched_sum N: the checksum mt-writer -c N prints without a watch
unwatched_sum() {
	local out=$BATS_TEST_TMPDIR/plain.out
	"$T/mt-writer" -t 0 -c "$1" > "$out" &
	local p=$!
	wait_for "$out" pid 10
	kill -USR1 "$p"
	wait "$p"
	awk '/^sum/ { print $2 }' "$out"
}

@test "wp-arm ptrace: exact hits from several threads, one created mid-watch" {
	start_target mt-writer -t 3 -n 200 -L 100
	ptrace_watch wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 700
	assert_equal "$(obs .backend)" ptrace_singlestep
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(obs .thread_coverage.seeded_tids)" 4
	assert_equal "$(obs .thread_coverage.inherited_tids)" 1
	assert_equal "$(obs .counts_are_lower_bound)" false
	run jq -s -c '[.[] | select(.type=="hit") | .tid] | group_by(.) | map(length) | sort' "$WOUT"
	assert_output "[100,200,200,200]"
	local late
	late=$(jq -r 'select(.type=="thread" and .event=="start") | .tid' "$WOUT")
	assert_equal "$(hits ".tid == $late")" 100
	[ "$(obs .ptrace.steps)" -gt 700 ] || fail "steps: $(obs .ptrace.steps)"
}

@test "wp-arm ptrace: a write of the same value is still a hit" {
	start_target mt-writer -t 2 -n 150 -s
	ptrace_watch wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 300
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "0x1"
}

@test "wp-arm ptrace: every writer IP is the store in write_counter, as objdump shows it" {
	start_target mt-writer -t 1 -n 40
	ptrace_watch wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	local slide store
	slide=$(jq -r 'select(.type=="session") | .pie_slide' "$WOUT")
	store=$(objdump -d --no-show-raw-insn "$T/mt-writer" |
		awk '/<write_counter>:/ { f = 1; next } f && /wpt_counter/ { sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
	run jq -r 'select(.type=="hit") | .writer_ip' "$WOUT"
	assert_equal "${#lines[@]}" 40
	assert_equal "$(sort -u <<< "$output")" "$(printf '0x%x' $(( slide + 0x$store )))"
	# the values are those written: 1000000 + i
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$output" "$(for i in $(seq 0 39); do printf '0x%x\n' $((1000000 + i)); done)"
}

@test "wp-arm ptrace: a kernel write through read(2) is a hit of the syscall, flagged" {
	start_target mt-writer -t 0 -r
	ptrace_watch wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	run jq -c 'select(.type=="hit") | [.flags, .new_bytes]' "$WOUT"
	assert_output "[[\"syscall\"],\"$(head -c 8 "$T/mt-writer" | od -An -tx1 | tr -d ' \n')\"]"
	assert_equal "$(obs .ptrace.kernel_writes)" 1
	# wp-decode names the syscall instruction as the writer
	run jq -r 'select(.type=="hit") | "\(.writer.insn) \(.writer.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_output "syscall exact"
}

@test "wp-arm ptrace: -a rw counts reads too" {
	start_target mt-writer -t 1 -n 5
	ptrace_watch -a rw wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits '.flags == []')" 5
	[ "$(hits '.flags == ["read"]')" -ge 1 ] || fail "no read hit"
}

@test "wp-arm ptrace: any length and more than four targets with --no-slot-limit" {
	start_target mt-writer -t 1 -n 30
	ptrace_watch --no-slot-limit -l 16 wpt_counter wpt_score wpt_array wpt_array+16 "$(tinfo stack)" -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits '.target == 0')" 30
	assert_equal "$(hits '.target != 0')" 0
	run jq -r 'select(.type=="hit") | .new_bytes | length' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" 32
	# and the report says the slot limit was lifted
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --index 1 "note     no slot limit (--no-slot-limit): any length and number of targets, for the ptrace backend"
	assert_equal "$(wp-report --json < "$WOUT" | jq .process.slot_limit)" null
}

@test "wp-arm ptrace: detached at the duration, the target computes what it computes unwatched" {
	local want
	want=$(unwatched_sum 300000)
	start_target mt-writer -t 0 -c 300000
	ptrace_watch wpt_counter -- -d 1s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" duration
	[ "$(hits)" -gt 100 ] || fail "only $(hits) hits"
	wait_for "$TOUT" '^done' 60
	assert_equal "$(awk '/^sum/ { print $2 }' "$TOUT")" "$want"
}

@test "wp-arm ptrace: max events, SIGINT, SIGTERM and a closed stdout all leave the target healthy" {
	local want how
	want=$(unwatched_sum 200000)
	for how in max INT TERM pipe; do
		start_target mt-writer -t 0 -c 200000
		case $how in
		max)
			ptrace_watch wpt_counter -- -d 120s -n 50
			kill -USR1 "$TPID"
			watch_wait
			assert_equal "$(obs .stop_reason)" max_events
			assert_equal "$(hits)" 50 ;;
		INT|TERM)
			ptrace_watch wpt_counter -- -d 120s
			kill -USR1 "$TPID"
			sleep 0.5
			kill -"$how" "$WPID"
			watch_wait
			assert_equal "$(obs .stop_reason)" signal
			assert_equal "$(obs .stop_detail)" "SIG$how" ;;
		pipe)
			run --separate-stderr bash -c "wp-resolve -p $TPID wpt_counter | wp-arm --backend ptrace -d 120s | head -n 3 > /dev/null"
			kill -USR1 "$TPID" ;;
		esac
		wait_for "$TOUT" '^done' 60
		assert_equal "$(awk '/^sum/ { print $2 }' "$TOUT")" "$want"
		stop_targets
	done
}

@test "wp-arm --backend auto: uses ptrace where breakpoints do not fire, and says so" {
	if wp-arm --check-bp > /dev/null 2>&1; then
		skip "hardware breakpoints fire on this machine: auto picks perf"
	fi
	start_target mt-writer -t 1 -n 10
	watch_start wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 10
	assert_equal "$(obs .backend)" ptrace_singlestep
	assert_equal "$(cat "$WERR")" "wp-arm: hardware breakpoints do not fire on this machine: using the ptrace single-step backend (the target runs 10,000 times slower or more while watched)"
}
