#!/usr/bin/env bats
# The whole pipeline on perf hits, live: what wp-decode and wp-report
# make of real breakpoint samples.

load ../helpers

setup() {
	require_bp
}

@test "wp-decode on live perf hits: the store in write_counter, high, values from registers" {
	start_target mt-writer -t 1 -n 20
	watch_start wpt_counter -- --backend perf -d 120s --regs
	kill -USR1 "$TPID"
	watch_wait
	run jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.confidence) \(.written_value.kind) \(.written_value.value)"' <<< "$(wp-decode < "$WOUT")"
	assert_output "$(for i in $(seq 0 19); do printf 'write_counter high register_store 0x%x\n' $((1000000 + i)); done)"
}

@test "wp watch with the perf backend: the report of a live watch" {
	start_target mt-writer -t 2 -n 30
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	wp watch --json --save "$save" --backend perf -d 120s --regs "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/report.json" &
	local w=$!
	wait_armed "$save" "$w"
	kill -USR1 "$TPID"
	wait "$w"
	run jq -r '[.backend, .complete, .watches[0].accepted_hits, .watches[0].writer_sites[0].writer_function, .watches[0].writer_sites[0].confidence, (.watches[0].threads | length)] | map(tostring) | join(" ")' "$BATS_TEST_TMPDIR/report.json"
	assert_output "perf_breakpoint true 60 write_counter high 2"
}

@test "wp watch with the bpf backend: every writer's count of a busy target, exact" {
	start_target stress -t 2 -r 200
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	wp watch --json --save "$save" -d 300s -l 8 "$TPID" "$(tinfo stress)" > "$BATS_TEST_TMPDIR/report.json" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	# the backend wp doctor says auto takes, with nothing to say
	assert_equal "$(doctor '.default_backend["8"].name')" bpf_tally
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
	local want
	want=$(awk '$1 == "writes" { print $2 }' "$TOUT")
	# auto chose bpf, and the four stores of burst() have 600 writes each
	run jq -c '[.backend, .counts_are_lower_bound, .watches[0].counted, .watches[0].writer_counts, (.watches[0].writer_sites | map([.writer_function, .hits]) | sort)]' "$BATS_TEST_TMPDIR/report.json"
	assert_output "[\"bpf_tally\",false,$want,\"tallied\",[[\"burst\",600],[\"burst\",600],[\"burst\",600],[\"burst\",600]]]"
	run jq -c '.watches[0].threads | map(.hits)' "$BATS_TEST_TMPDIR/report.json"
	assert_output "[800,800,800]"
	run wp report "$save"
	assert_success
	assert_line "  $want writes counted by the kernel; $want tallied by writer in the kernel; $(jq -s 'map(select(.type=="hit")) | length' "$save") sampled"
}
