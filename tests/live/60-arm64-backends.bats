#!/usr/bin/env bats
# wp-arm's backends on arm64, live (in the arm64 QEMU guest): the
# machine's watchpoint slots as wp-arm reads them, the scenarios every
# backend shares (tests/arm.bash) on perf, bpf, ptrace and page, and
# issue 44's: the demo game, page-struct and page-array on the page
# backend (tests/page.bash), atomics (atomic-add: ldadd, a ldxr/stxr
# loop), each count exact against the target's own.
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

@test "wp-arm ptrace on arm64: several threads, one created after armed, each write a hit of its thread; every store decoded, the counts exact" {
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
	# each store's bytes placed from its registers (lib/a64-insn.c)
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(obs '.ptrace.unmodeled_stores // 0')" 0
}

@test "wp-arm ptrace on arm64: a store of the value already there is a hit, the counts exact" {
	require_arm64
	scenario_same_value ptrace
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(obs '.ptrace.unmodeled_stores // 0')" 0
}

@test "wp-arm page on arm64: a store of the value already there is a hit" {
	require_arm64
	scenario_same_value page
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "wp-arm page on arm64: every write counted, each one stepped (none emulated)" {
	require_arm64
	scenario_threads page
	assert_equal "$(obs .page.emulated)" 0
	assert_equal "$(obs .page.stepped)" "$(obs '.page | .faults_watched + .faults_neighbour')"
}

@test "wp-arm perf on arm64: the demo game's score: its three writers, as on x86-64, each frame's coin and every fifth frame's enemy, none missed" {
	require_arm64
	require_bp
	local seq
	"$WP_BUILD/wp-demo" > "$BATS_TEST_TMPDIR/demo.out" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$BATS_TEST_TMPDIR/demo.out" pid 10
	watch_start score -- --backend perf -d 8s
	watch_wait
	kill "$TPID"
	assert_equal "$WSTATUS" 0
	# once a lower bound under a loaded host's two guests: why, said
	[ "$(obs .counts_are_lower_bound)" = false ] ||
		fail "a lower bound: $(jq -c '{lost_events, thread_coverage, stop_reason, targets}' <<< "$OBS")"
	assert_equal "$(obs '.targets[0].counted')" "$(hits)"
	# in the order they were made (perf's rings, one a CPU, are read
	# one after another)
	seq=$(wp-decode < "$WOUT" | jq -s -r 'map(select(.type=="hit")) | sort_by(.time_ns) | .[].writer.function')
	assert_equal "$(sort -u <<< "$seq" | tr '\n' ' ')" "hit_enemy new_level pick_coin "
	# frame by frame: a coin, and on every fifth an enemy (after the
	# coin), on every 250th a new level (after both): five coins
	# between two enemies, 250 between two new levels
	run awk '$1 == "hit_enemy" { if (e) print n; e = 1; n = 0 } $1 == "pick_coin" { n++ }' <<< "$seq"
	assert_equal "$(sort -u <<< "$output")" 5
	run awk '$1 == "new_level" { if (l) print n; l = 1; n = 0 } $1 == "pick_coin" { n++ }' <<< "$seq"
	[ -z "$output" ] || assert_equal "$(sort -u <<< "$output")" 250
}

@test "wp-arm page on arm64: a 64 KiB array written at random offsets in four widths: every store's writer, offset and bytes, each placed by the decoder" {
	require_arm64
	scenario_page_array page 300
	assert_equal "$(obs .page.emulated)" 0
}

@test "wp-arm page on arm64: a 512-byte struct, three threads on its fields (str, stadd, four str q, stp q0, q1): each field's writer counted exactly" {
	require_arm64
	scenario_page_struct page 200
	assert_equal "$(obs .page.emulated)" 0
}

# atomic_counted BACKEND MODE [wp-arm options]: two threads each add 1
# 100 times to wpt_atomic (atomic-add -m MODE: excl, a ldxr/stxr loop;
# ldadd): the target finishes, every store the target counts is one hit
# (the counts exact), each of the one instruction that stores (stxr,
# ldadd), as wp-decode names it.
atomic_counted() {
	local backend=$1 mode=$2 want insns
	shift 2
	start_target atomic-add -t 2 -n 100 -m "$mode"
	watch_start wpt_atomic -- --backend "$backend" -d 100s "$@"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	wait_for "$TOUT" '^done' 30
	want=$(awk '$1 == "count" { print $2 }' "$TOUT")
	assert_equal "$want" 200
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(obs '.targets[0].counted') $(hits) $(obs .accepted_hits)" "$want $want $want"
	assert_equal "$(obs .counts_are_lower_bound)" false
	insns=$(wp-decode < "$WOUT" | jq -r 'select(.type=="hit") | .writer.insn | split(" ")[0]' | sort | uniq -c | awk '{ print $1, $2 }')
	case $mode in
	excl)	assert_equal "$insns" "$want stxr" ;;
	ldadd)	assert_equal "$insns" "$want ldadd" ;;
	esac
}

@test "wp-arm ptrace on arm64: a ldxr/stxr loop on two threads, run as one sequence: the target finishes, each stxr that stored one hit" {
	require_arm64
	atomic_counted ptrace excl
	assert_equal "$(obs '.ptrace.unmodeled_stores // 0')" 0
}

@test "wp-arm ptrace on arm64: ldadd on two threads counted exactly" {
	require_arm64
	atomic_counted ptrace ldadd
}

@test "wp-arm perf on arm64: ldadd on two threads counted exactly" {
	require_arm64
	require_bp
	atomic_counted perf ldadd
}

@test "wp-arm bpf on arm64: ldadd on two threads counted exactly" {
	require_arm64
	require_bp
	atomic_counted bpf ldadd --all-hits
}
