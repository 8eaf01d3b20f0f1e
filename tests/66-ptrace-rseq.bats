#!/usr/bin/env bats
# Restartable sequences (rseq(2)) under the single-step backend: every
# step would abort a critical section (the kernel does on each resume
# after a stop), so a section entered while stepped runs as one unit.
# Under the page backend a commit store faults inside its section: the
# section is aborted (its thread was preempted) and the retry run alone.
# Each commit the target counts is one exact write of its commit store,
# no more (an aborted store is never credited), no fewer.

load helpers

# rseq_start ARGS...: the rseq target, or the test skipped when glibc
# registered no rseq area.
rseq_start() {
	start_target rseq "$@"
	[ "$(tinfo skip)" = null ] || skip "$(tinfo skip)"
}

# rseq_watch [-b BACKEND] ARGS...: the target (ARGS) watched on its
# counter to its end (ptrace unless told); every commit done by then.
rseq_watch() {
	local b=ptrace
	[ "$1" != -b ] || { b=$2; shift 2; }
	rseq_start "$@"
	watch_start "$(tinfo counter)" -l 8 -- --backend "$b" -d 60s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
}

# rseq_short BACKEND: 10 watches of 3 hits each of a target committing
# for ever, most stops finding a thread at the commit store (see rseq.c):
# each commit writes one more than the last (from the armed value), so
# none aborted was credited (it would repeat a value) and none was lost.
rseq_short() {
	local k
	rseq_start 0
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^started'
	for ((k = 0; k < 10; k++)); do
		watch_start "$(tinfo counter)" -l 8 -- --backend "$1" -n 3 -d 60s
		watch_wait
		assert_equal "$WSTATUS" 0
		assert_equal "$k $(obs .stop_reason) $(hits)" "$k max_events 3"
		assert_equal "$k $(jq -s -r --arg i "$(jq -r 'select(.type=="armed") | .initial[0].initial_value' "$WOUT")" \
		    '[$i] + [.[] | select(.type=="hit") | .new_value] | map(ltrimstr("0x") | explode | reduce .[] as $c (0; . * 16 + ($c | if . >= 97 then . - 87 else . - 48 end))) | [range(1; length) as $j | .[$j] - .[$j - 1]] | unique | @text' "$WOUT")" "$k [1]"
	done
	kill -0 "$TPID"
}

@test "rseq: unwatched, two threads commit 20 sections" {
	rseq_start 10
	kill -USR1 "$TPID"
	wait "$TPID"
	assert_equal "$(grep -c '^done 20 ' "$TOUT")" 1
	assert_equal "$(awk '/^done/ { print $4 }' "$TOUT")" 20
}

@test "rseq: watched, a section that checks its CPU: 20 commit, 20 exact writes by the commit store, 10 a thread" {
	rseq_watch 10
	assert_equal "$(grep -c '^done 20 ' "$TOUT")" 1
	assert_equal "$(awk '/^done/ { print $4 }' "$TOUT")" 20
	assert_equal "$(hits)" 20
	assert_equal "$(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\"")" 20
	run jq -s -r '[.[] | select(.type=="hit") | .tid] | group_by(.) | map(length) | @text' "$WOUT"
	assert_output '[10,10]'
	# each commit wrote the value after the last one
	assert_equal "$(jq -s -r '[.[] | select(.type=="hit") | .new_value] | join(" ")' "$WOUT")" \
	    "$(printf '0x%x ' $(seq 1 20) | sed 's/ $//')"
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "rseq: watched, a section whose first instruction is the commit store: 20 commit, 20 writes, none aborted" {
	rseq_watch 10 first
	assert_equal "$(grep -c '^done 20 ' "$TOUT")" 1
	assert_equal "$(hits)" 20
	assert_equal "$(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\"")" 20
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "rseq: short watches of sections under way: a commit store the kernel aborted is never credited" {
	rseq_short ptrace
}

@test "rseq, page: watched five times, every run 20 commit, the counter 20, 20 exact writes by the commit store" {
	local k
	for ((k = 0; k < 5; k++)); do
		rseq_watch -b page 10
		assert_equal "$k $(awk '/^done/ { print $2, $4 }' "$TOUT")" "$k 20 20"
		assert_equal "$k $(hits)" "$k 20"
		assert_equal "$k $(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\"")" "$k 20"
		assert_equal "$k $(jq -s -r '[.[] | select(.type=="hit") | .new_value] | join(" ")' "$WOUT")" \
		    "$k $(printf '0x%x ' $(seq 1 20) | sed 's/ $//')"
		assert_equal "$k $(obs .counts_are_lower_bound)" "$k false"
	done
}

@test "rseq, page: a section whose first instruction is the commit store: 20 commit, 20 writes" {
	rseq_watch -b page 10 first
	assert_equal "$(grep -c '^done 20 ' "$TOUT")" 1
	assert_equal "$(hits)" 20
	assert_equal "$(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\"")" 20
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "rseq, page: short watches of sections under way: a commit store aborted is never credited, the target never loses a commit" {
	rseq_short page
}
