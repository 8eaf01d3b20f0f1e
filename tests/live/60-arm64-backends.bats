#!/usr/bin/env bats
# wp-arm's backends on arm64, live (in the arm64 QEMU guest): the
# machine's watchpoint slots as wp-arm reads them, and the scenarios
# every backend shares (tests/arm.bash) on perf, bpf, ptrace and page.
# On any other machine each test skips, saying the machine it needs.

load ../helpers
load ../arm
load ../page

require_arm64() {
	[ "$(uname -m)" = aarch64 ] ||
		skip "needs an arm64 machine (this one is $(uname -m)): the arm64 guest runs it"
}

# the watchpoint registers the kernel found at boot, from its log
kernel_watchpoints() {
	dmesg 2> /dev/null |
		sed -n 's/.*hw-breakpoint: found [0-9]* breakpoint and \([0-9]*\) watchpoint registers.*/\1/p' |
		head -n 1
}

@test "wp-arm --doctor on arm64: the watchpoint slots are the ones the kernel found, not 4" {
	require_arm64
	local want
	want=$(kernel_watchpoints)
	[ -n "$want" ] || skip "the kernel's log does not say how many watchpoint registers it found"
	assert_equal "$(doctor .breakpoints.slots)" "$want"
}

@test "wp-arm perf on arm64: several threads, one created after armed, each write a hit of its thread" {
	require_arm64
	require_bp
	scenario_threads perf
}

@test "wp-arm perf on arm64: a tight loop on three threads counted exactly" {
	require_arm64
	require_bp
	scenario_counted perf
}

@test "wp-arm bpf on arm64: a tight loop on three threads: every writer and thread tallied exactly" {
	require_arm64
	require_bp
	# every hit sampled, so that each thread's hit records are there
	scenario_counted bpf --all-hits
	assert_equal "$(obs .tallied)" true
}

@test "wp-arm ptrace on arm64: several threads, one created after armed, each write a hit of its thread; the counts said to be a lower bound (arm64 stores stepped, not read)" {
	require_arm64
	start_target mt-writer -t 3 -n 200 -L 100
	watch_start wpt_counter -- --backend ptrace -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits) $(obs .accepted_hits)" "700 700"
	run jq -s -c '[.[] | select(.type=="hit") | .tid] | group_by(.) | map(length) | sort' "$WOUT"
	assert_output "[100,200,200,200]"
	assert_equal "$(obs .thread_coverage.partial_coverage)" false
	# wp-arm's step path does not read an arm64 store's operands yet
	# (wp-decode does: lib/a64-insn.c): a store of the value already
	# there would go unseen, and the observation says so
	assert_equal "$(obs .counts_are_lower_bound)" true
	[ "$(obs .ptrace.unmodeled_stores)" -ge 700 ] ||
		fail "the stores stepped unread: $(obs .ptrace.unmodeled_stores)"
}

@test "wp-arm page on arm64: every write counted, each one stepped (none emulated)" {
	require_arm64
	scenario_threads page
	assert_equal "$(obs .page.emulated)" 0
	assert_equal "$(obs .page.stepped)" "$(obs '.page | .faults_watched + .faults_neighbour')"
}
