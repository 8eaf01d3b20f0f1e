#!/usr/bin/env bats
# wp-arm --backend ptrace: runs here for real (no debug registers
# needed).  The scenarios every backend shares (tests/arm.bash), then
# what is the ptrace backend's own: exact writer IPs and values, kernel
# writes, reads, any length.

load helpers
load arm

@test "wp-arm ptrace: exact hits from several threads, one created mid-watch" {
	scenario_threads ptrace
	[ "$(obs .ptrace.steps)" -gt 700 ] || fail "steps: $(obs .ptrace.steps)"
	assert_equal "$(obs .backend)" ptrace_singlestep
	# the four threads there at the start and the late one, each named
	run jq -r 'select(.type=="thread" and (.event=="seeded" or .event=="start")) | "\(.event) \(.comm)"' "$WOUT"
	assert_equal "$(sort <<< "$output" | uniq -c | tr -s ' ')" "$(printf ' 4 seeded mt-writer\n 1 start mt-writer')"
}

@test "wp-arm ptrace: forty threads made while watched: each one's start before its first hit, its exit after its last, every write" {
	scenario_start_order ptrace 4
}

@test "wp-arm ptrace: a tight loop on three threads: every write counted and written" {
	scenario_counted ptrace
	assert_equal "$(hits)" 2400
}

@test "wp-arm ptrace: a write of the same value is still a hit" {
	scenario_same_value ptrace
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "0x1"
}

@test "wp-arm ptrace: -n stops at max events and flags truncation" {
	scenario_max_events ptrace
}

@test "wp-arm ptrace: -d stops at the duration and reads the latest value" {
	scenario_duration ptrace
}

@test "wp-arm ptrace: SIGINT, SIGTERM and SIGHUP yield the hits and an observation" {
	scenario_signal ptrace
}

@test "wp-arm ptrace: the target exiting mid-watch ends the watch" {
	scenario_target_exit ptrace
}

@test "wp-arm ptrace: exec in the target ends the watch" {
	scenario_exec ptrace
}

@test "wp-arm ptrace: a pid reused since wp-resolve is refused (status 4)" {
	scenario_pid_reused ptrace
}

@test "wp-arm ptrace: a malformed line is reported, the watch still runs (status 2)" {
	scenario_malformed ptrace
}

@test "wp-arm ptrace: a closed stdout stops the watch and leaves the target running" {
	scenario_closed_stdout ptrace
}

@test "wp-arm ptrace: however the watch ends, the target computes what it computes unwatched" {
	scenario_healthy ptrace
}

@test "wp-arm ptrace: a forked child is counted and let go, not followed; the report says so" {
	start_target fork-exec -c 10 -n 20
	watch_start wpt_counter -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	# the child ran and exited at once: its parent, waiting for it, went on
	assert_equal "$(obs .stop_reason)" target_exited
	grep -q '^done' "$TOUT" || fail "the target did not finish"
	assert_equal "$(obs .thread_coverage.forked_processes)" 1
	assert_equal "$(jq -r 'select(.type=="thread" and .event=="fork_process") | .by_tid' "$WOUT")" "$TPID"
	# the parent's writes: the child's are to memory of its own
	assert_equal "$(hits)" 20
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --regexp '^ptrace   [0-9]+ steps/s: the target ran one instruction a step'
	assert_line "note     forked children were not followed: 1"
}

@test "wp-arm ptrace: every writer IP is the store in write_counter, as objdump shows it" {
	start_target mt-writer -t 1 -n 40
	watch_start wpt_counter -- --backend ptrace -d 120s
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
	watch_start wpt_counter -- --backend ptrace -d 120s
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
	watch_start -a rw wpt_counter -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits '.flags == []')" 5
	[ "$(hits '.flags == ["read"]')" -ge 1 ] || fail "no read hit"
}

@test "wp-arm ptrace: any length and more than four targets with --no-slot-limit" {
	start_target mt-writer -t 1 -n 30
	watch_start --no-slot-limit -l 16 wpt_counter wpt_score wpt_array wpt_array+16 "$(tinfo stack)" -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits '.target == 0')" 30
	assert_equal "$(hits '.target != 0')" 0
	run jq -r 'select(.type=="hit") | .new_bytes | length' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" 32
	# and the report says the slot limit was lifted
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --index 1 "note     no slot limit: any length and number of targets (the page and ptrace backends)"
	assert_equal "$(wp-report --json < "$WOUT" | jq .process.slot_limit)" null
}

# native_lines: the table's estimate of the native run time covered,
# made again from the observation $OBS as wp-report(1) says it is made.
native_lines() {
	jq -r '[.elapsed_ms, .ptrace.native_run_us, .ptrace.blocked_us, .ptrace.steps, .ptrace.native_instructions_per_second] | @tsv' <<< "$OBS" |
	awk -F '\t' '
	function dur(ms) {
		if (ms >= 10)
			return sprintf("%.0f ms", ms)
		if (ms >= 0.01)
			return sprintf("%.2g ms", ms)
		return sprintf("%.2g us", ms * 1000)
	}
	function pace(n) {
		if (n < 1.05)
			return "about native speed"
		return sprintf(n < 10 ? "1/%.1f of native speed" : "1/%.0f of native speed", n)
	}
	{
		took = $1; run = $2 / 1000; blocked = $3 / 1000; code = $4 * 1000 / $5
		printf "estimate about %s of the target\047s native run time in %.1f s (%s)\n",
		    dur(run), took / 1000, pace(took / run)
		if (blocked >= 1 && code > 0 && took > blocked)
			printf "         of which %s in system calls, %s running code at %s\n",
			    dur(blocked), dur(code), pace((took - blocked) / code)
	}'
}

# assert_native_estimate: the observation's estimate of the native run
# time adds up (native_run_us = steps / rate + blocked_us), and the
# table says it.
assert_native_estimate() {
	assert_equal "$(obs '.ptrace | [has("native_instructions_per_second"), has("blocked_us"), has("native_run_us")] | all')" true
	# a CPU of 100 MHz to 100 GHz
	run obs '.ptrace.native_instructions_per_second | . >= 1e8 and . <= 1e11'
	assert_output true
	run obs '.ptrace | (.native_run_us - .blocked_us) - (.steps * 1000000 / .native_instructions_per_second | floor) | fabs <= 1'
	assert_output true
	run obs '.ptrace.blocked_us <= (.elapsed_ms + 1) * 1000'
	assert_output true
	assert_equal "$(wp-report < "$WOUT" | grep -A 1 '^estimate' | grep -E '^(estimate|         of which)')" "$(native_lines)"
	# the JSON report has the observation's
	assert_equal "$(wp-report --json < "$WOUT" | jq -c '.observation.ptrace')" "$(jq -c .ptrace <<< "$OBS")"
}

@test "wp-arm ptrace: an estimate of the native run time covered: a busy target's is a sliver, a waiting one's is all" {
	# computing before the watch begins, and all through it
	start_target mt-writer -t 1 -n 1 -c 100000000000000
	kill -USR1 "$TPID"
	# its one writer thread has written and been joined: it computes
	local i
	for i in $(seq 200); do
		[ "$(ls "/proc/$TPID/task" | wc -l)" = 1 ] && break
		sleep 0.05
	done
	watch_start wpt_score -- --backend ptrace -d 2s
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_native_estimate
	# it never waited: its steps are the whole estimate, a sliver of 2 s
	jq -e '.ptrace.blocked_us * 10 < .elapsed_ms * 1000 and .ptrace.steps > 0 and .ptrace.native_run_us * 100 < .elapsed_ms * 1000' <<< "$OBS" > /dev/null ||
		fail "not a busy target's estimate: $(jq -c '[.elapsed_ms, .ptrace]' <<< "$OBS")"
	stop_targets

	# waiting for a signal all along: the time is its own (less what
	# wp-arm spends between its ticks, more on a loaded machine)
	start_target mt-writer -t 1 -n 1 -w
	watch_start wpt_score -- --backend ptrace -d 2s
	watch_wait
	assert_native_estimate
	jq -e '.ptrace.blocked_us * 4 >= .elapsed_ms * 3000' <<< "$OBS" > /dev/null ||
		fail "not a waiting target's estimate: $(jq -c '[.elapsed_ms, .ptrace]' <<< "$OBS")"
}

@test "wp-arm ptrace: a thread-local variable with --tid: that thread's writes, none of the others'" {
	start_target tls-writer -t 3 -n 10
	local tid
	tid=$(tinfo "threads[1].tid")
	watch_start --tid "$tid" wpt_tls -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	run jq -r 'select(.type=="hit") | "\(.tid) \(.new_value)"' "$WOUT"
	assert_output "$(for i in $(seq 1 10); do printf '%s 0x%x\n' "$tid" "$i"; done)"
}

@test "wp-arm ptrace: a thread-local variable of a dlopen'd module with --tid: that thread's writes" {
	start_target dl-tls -n 7
	local tid
	tid=$(tinfo touched.tid)
	watch_start --tid "$tid" wpt_dtls -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	run jq -r 'select(.type=="hit") | "\(.tid) \(.new_value)"' "$WOUT"
	assert_output "$(for i in $(seq 1 7); do printf '%s 0x%x\n' "$tid" "$i"; done)"
	# the writer is the library's, with its line
	local line
	line=$(grep -n 'wpt_dtls = i;' "$WP_TESTS/targets/libwptls.c" | cut -d: -f1)
	run jq -r 'select(.type=="hit") | .writer | "\(.module) \(.function) \(.source.file):\(.source.line) \(.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" "$(readlink -f "$T/libwptls.so") wpt_dtls_write tests/targets/libwptls.c:$line exact"
}

@test "wp-arm ptrace: the armed record says how long the watch is to last; -d inf: null" {
	start_target mt-writer -t 1 -n 5 -w
	watch_start wpt_counter -- --backend ptrace -d 90s
	assert_equal "$(jq -r 'select(.type=="armed") | .duration_ms' "$WOUT")" 90000
	kill -INT "$WPID"
	watch_wait
	watch_start wpt_counter -- --backend ptrace -d inf
	assert_equal "$(jq -r 'select(.type=="armed") | .duration_ms' "$WOUT")" null
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$(obs .stop_detail)" SIGTERM
}

@test "wp-arm ptrace: rep movsb and rep stosb over an 8-byte target: one hit per element that writes it, as on page, perf and bpf" {
	load page
	scenario_rep_strings ptrace 2
}

@test "wp-arm ptrace: rep movsq and rep stosq over an 8-byte target straddling two elements: two hits each" {
	load page
	scenario_rep_strings ptrace 2 q
}

@test "wp-arm ptrace: a counter ticking before and while the watch is armed: the writes counted are what its value moved from arming" {
	scenario_ticking ptrace
}
