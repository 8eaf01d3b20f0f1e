#!/usr/bin/env bats
# The bpf backend's samples, live (in the QEMU guest): the kernel tallies
# every write; the samples are examples, by a budget (each target's first
# hits, each writer's and thread's first, then one a period, so that they
# span the watch), or every hit with --all-hits.

load ../helpers
load ../arm

setup() {
	require_bp
}

# tallies: "IP TID HITS" per tally record of the final set
tallies() {
	jq -r 'select(.type=="tally") | "\(.ip) \(.tid) \(.hits)"' "$WOUT" |
		awk '{ last[$1 " " $2] = $3 } END { for (k in last) print k, last[k] }' | sort
}

# busy_watch ARM-ARGS...: stress_watch with ten times the writes: three
# threads (one created after arming), 8,000 writes each
busy_watch() {
	start_target stress -t 2 -r 2000
	watch_start "$(tinfo stress)" -l 8 -- --backend bpf -d 300s "$@"
	kill -USR1 "$TPID"
	watch_wait
	WANT=$(awk '$1 == "writes" { print $2 }' "$TOUT")
	[ "$WANT" = 24000 ] || fail "the target made $WANT writes"
}

@test "bpf budget: a tight loop on three threads: tallies exact, a budget of samples" {
	busy_watch
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(obs .tallied)" true
	# four stores, three threads, 2,000 writes each, in the kernel
	run tallies
	assert_equal "${#lines[@]}" 12
	assert_equal "$(awk '{ print $3 }' <<< "$output" | sort -u)" 2000
	# the budget: said, and every hit either sampled or passed over
	assert_equal "$(jq -c .bpf.sample_budget <<< "$OBS")" '{"first":64,"first_per_writer":4,"interval_ns":2000000}'
	assert_equal "$(hits)" "$(obs .bpf.samples_sent)"
	assert_equal "$(obs .bpf.samples_dropped)" 0
	assert_equal "$(obs .bpf.samples_capped)" 0
	assert_equal "$(( $(hits) + $(obs .bpf.samples_skipped) ))" "$WANT"
	[ "$(hits)" -lt $(( WANT / 4 )) ] || fail "$(hits) of $WANT hits sampled"
	# the first 64 hits, and at least four of each writer and thread
	[ "$(hits)" -ge 64 ] || fail "only $(hits) hits sampled"
	run jq -rs 'map(select(.type=="hit")) | group_by([.ip, .tid]) | map(length) | length, min' "$WOUT"
	assert_equal "${lines[0]}" 12
	[ "${lines[1]}" -ge 4 ] || fail "a writer and thread with ${lines[1]} samples"
	# and the report says the three numbers, true
	run wp-report < <(wp-decode < "$WOUT")
	assert_line "  $WANT writes counted by the kernel; $WANT tallied by writer in the kernel; $(hits) sampled"
}

@test "bpf budget: the samples span the watch: the last within the last tenth of the loop" {
	busy_watch
	local ns span
	ns=$(awk '$1 == "ns" { print $2 }' "$TOUT")
	# hit times and the target's clock are both CLOCK_MONOTONIC
	span=$(jq -rs 'map(select(.type=="hit") | .time_ns) | max - min' "$WOUT")
	[ "$(( span * 10 ))" -ge "$(( ns * 9 ))" ] ||
		fail "the samples span $span ns of the loop's $ns ns"
}

@test "bpf budget: --regs fills only the samples; the tallies count every write" {
	busy_watch --regs
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	run tallies
	assert_equal "$(awk '{ s += $3 } END { print s }' <<< "$output")" "$WANT"
	assert_equal "$(( $(hits) + $(obs .bpf.samples_skipped) + $(obs .bpf.samples_dropped) ))" "$WANT"
	assert_equal "$(jq -s 'map(select(.type=="hit" and (.regs | keys | length) == 18)) | length' "$WOUT")" "$(hits)"
}

@test "bpf --all-hits: every hit a sample, each thread's own" {
	busy_watch --all-hits
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	assert_equal "$(hits)" "$WANT"
	assert_equal "$(jq -c .bpf.sample_budget <<< "$OBS")" null
	assert_equal "$(obs .bpf.samples_skipped)" 0
	run jq -s -c '[.[] | select(.type=="hit") | .tid] | group_by(.) | map(length) | sort' "$WOUT"
	assert_output "[8000,8000,8000]"
}

@test "wp watch --all-hits --save: the saved stream keeps every hit" {
	start_target stress -t 2 -r 2000
	local save=$BATS_TEST_TMPDIR/raw.ndjson w want
	wp watch --all-hits --save "$save" -d 300s -l 8 "$TPID" "$(tinfo stress)" > "$BATS_TEST_TMPDIR/report.txt" &
	w=$!
	wait_armed "$save" "$w"
	kill -USR1 "$TPID"
	wait "$w"
	want=$(awk '$1 == "writes" { print $2 }' "$TOUT")
	assert_equal "$(jq -s 'map(select(.type=="hit")) | length' "$save")" "$want"
	run cat "$BATS_TEST_TMPDIR/report.txt"
	assert_line "  $want writes counted by the kernel; $want tallied by writer in the kernel; $want sampled"
}
