#!/usr/bin/env bats
# wp-arm's bpf backend, live (in the QEMU guest): a BPF program on the
# breakpoint events tallies every hit in the kernel.  The scenarios every
# backend shares (tests/arm.bash), then what is the bpf backend's own.

load ../helpers
load ../arm
load ../page

setup() {
	require_bp
	# the scenarios every backend shares count hit records: every hit
	# sampled (tests/live/26-bpf-budget.bats: the default budget); a
	# wp-arm that execs the real one, so that its pid is wp-arm's
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\nexec "%s" --all-hits "$@"\n' "$WP_BUILD/wp-arm" > "$BATS_TEST_TMPDIR/bin/wp-arm"
	chmod +x "$BATS_TEST_TMPDIR/bin/wp-arm"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

# tallies: "SLOT IP TID HITS" per tally record of the final set
tallies() {
	jq -r 'select(.type=="tally") | "\(.ip) \(.tid) \(.hits)"' "$WOUT" |
		awk '{ last[$1 " " $2] = $3 } END { for (k in last) print k, last[k] }' | sort
}

@test "wp-arm bpf: exact hits from several threads, one created after armed" {
	scenario_threads bpf
	assert_equal "$(obs .backend)" bpf_tally
	assert_equal "$(obs .tallied)" true
}

@test "wp-arm bpf --all-hits: forty threads made while watched: each one's start before its first hit, its exit after its last, every write" {
	scenario_start_order bpf 4 --all-hits
}

@test "wp-arm bpf: a tight loop on three threads: every writer and thread tallied exactly" {
	scenario_counted bpf
	# four stores, three threads: 200 writes each, in the kernel's tallies
	run tallies
	assert_equal "${#lines[@]}" 12
	assert_equal "$(awk '{ print $3 }' <<< "$output" | sort -u)" 200
	assert_equal "$(awk '{ print $1 }' <<< "$output" | sort -u | wc -l)" 4
	assert_equal "$(obs .bpf.tally_full)" 0
}

@test "wp-arm bpf: with --regs, samples may drop or be passed over but the tallies do not" {
	rm "$BATS_TEST_TMPDIR/bin/wp-arm"	# the default budget
	hash -r
	stress_watch bpf --regs
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	run tallies
	assert_equal "$(awk '{ s += $3 } END { print s }' <<< "$output")" "$WANT"
	# every sample sent is a hit record, with the registers
	assert_equal "$(hits)" "$(obs .bpf.samples_sent)"
	assert_equal "$(( $(obs .bpf.samples_sent) + $(obs .bpf.samples_dropped) + $(obs .bpf.samples_capped) + $(obs .bpf.samples_skipped) ))" "$WANT"
	assert_equal "$(jq -s 'map(select(.type=="hit" and (.regs | keys | length) == 18)) | length' "$WOUT")" "$(hits)"
}

@test "wp-arm bpf: the value at the trap, and which stores left it unchanged" {
	start_target mt-writer -t 1 -n 50 -s
	watch_start wpt_counter -- --backend bpf -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 50
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" 0x1
	# the first write changed 0 to 1, the 49 after it wrote 1 again
	run jq -r 'select(.type=="tally") | "\(.hits) \(.unchanged) \(.first_value) \(.last_value)"' "$WOUT"
	assert_equal "$(tail -n 1 <<< "$output")" "50 49 0x1 0x1"
}

@test "wp-arm bpf: -n caps the samples, not the watch; the counts stay exact" {
	stress_watch bpf -n 100
	assert_equal "$(hits)" 100
	# the watch went on past its samples, to the target's exit
	assert_equal "$(obs .stop_reason) $(obs .truncated_by_max_events)" "target_exited true"
	assert_equal "$(obs .tallied)" true
	# every write counted, and the tallies hold it all
	assert_equal "$(obs '.targets[0].counted')" "$WANT"
	run tallies
	assert_equal "$(awk '{ s += $3 } END { print s }' <<< "$output")" "$WANT"
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "wp-arm bpf: SIGINT, SIGTERM and SIGHUP yield the hits and an observation" {
	scenario_signal bpf
}

@test "wp-arm bpf: the target exiting mid-watch ends the watch" {
	scenario_target_exit bpf
}

@test "wp-arm bpf: exec in the target ends the watch" {
	scenario_exec bpf
}

@test "wp-arm bpf: a closed stdout stops the watch and leaves the target running" {
	scenario_closed_stdout bpf
}

@test "wp-arm bpf: however the watch ends, the target computes what it computes unwatched" {
	# the default budget: every hit sampled would reach max events first
	rm "$BATS_TEST_TMPDIR/bin/wp-arm"
	hash -r
	scenario_healthy bpf
}

@test "wp-arm --backend auto: bpf where the program loads, else the perf ring, and says why" {
	start_target mt-writer -t 1 -n 10
	watch_start wpt_counter -- -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .backend)" bpf_tally
	assert_equal "$(cat "$WERR")" ""
	# where bpf(2) is refused (a seccomp filter, as in many containers)
	start_target mt-writer -t 1 -n 10
	wp-resolve -p "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/r.ndjson"
	rm -f "$WOUT"	# not the armed record of the watch before
	"$T/no-bpf" "$WP_BUILD/wp-arm" -d 300s < "$BATS_TEST_TMPDIR/r.ndjson" > "$WOUT" 2> "$WERR" &
	WPID=$!
	wait_armed "$WOUT" "$WPID" "$WERR"
	kill -USR1 "$TPID"
	watch_wait
	# the guest's tests run as root: the message names what refuses root
	local why="cannot load the BPF program: Operation not permitted even to root (a seccomp filter forbids bpf(2), or a container lacks CAP_BPF and CAP_PERFMON)"
	assert_equal "$(obs .backend)" perf_breakpoint
	assert_equal "$(hits)" 10
	assert_equal "$(cat "$WERR")" "wp-arm: $why: using the perf ring backend (counts stay exact; per-writer counts come from samples, which a burst can drop)"
	# and asked for by name, it fails with that reason
	run --separate-stderr "$T/no-bpf" "$WP_BUILD/wp-arm" --backend bpf -d 1s < "$BATS_TEST_TMPDIR/r.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: $why"
}

@test "wp-arm bpf: a second watch of an address another holds counts it, or says its count is unknown" {
	scenario_second_watch bpf
}

@test "wp-arm bpf: rep movsb and rep stosb over an 8-byte target: one hit per element that writes it, as on page and ptrace" {
	scenario_rep_strings bpf
}
