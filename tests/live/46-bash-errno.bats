#!/usr/bin/env bats
# A real program where breakpoints fire: Debian's bash (stripped, as the
# distribution ships it), its errno, which libc writes from many callers,
# watched by bpf with --callchain: every write the kernel counted is
# tallied by a writer (issue 41: bash's errno counted 1470, tallied
# 1443, the 27 said nowhere), and the writer in the stat wrapper counted
# once per failed test of the script's own loop.

load ../helpers

setup() {
	require_bp
	[ -x /usr/bin/bash ] || skip "no /usr/bin/bash on this machine"
}

@test "bpf --callchain on Debian's bash's errno: the kernel's count, every writer's tally and the script's own count agree" {
	local fifo=$BATS_TEST_TMPDIR/go n=300
	mkfifo "$fifo"
	TOUT=$BATS_TEST_TMPDIR/bash.out
	/usr/bin/bash -c 'echo "{\"pid\":$$}"; read -r _ < "$1"
		for ((i = 0; i < $2; i++)); do [ -e "/nonexistent/$i" ]; done
		echo "done $i"' bash "$fifo" "$n" > "$TOUT" 2>&1 &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" '"pid"' 30
	watch_start --tid "$TPID" errno -- --backend bpf --callchain -d 120s
	echo go > "$fifo"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" "done $n"
	assert_equal "$(obs .stop_reason)" target_exited
	local counted
	counted=$(obs '.targets[0].counted')
	# the stat wrapper's failures, one a test of the loop, all tallied
	run --separate-stderr bash -c "wp-decode < '$WOUT' | wp-report --json"
	assert_success
	run jq -r '[.watches[0].writer_sites[] | select(.writer_function // "" | test("stat")) | .hits] | add' <<< "$output"
	assert_output "$n"
	# every write the kernel counted, tallied by its writer (the final
	# tallies, as wp-report sums them)
	run --separate-stderr bash -c "wp-decode < '$WOUT' | wp-report"
	assert_line "  $counted writes counted by the kernel; $counted tallied by writer in the kernel; $(hits) sampled"
}
