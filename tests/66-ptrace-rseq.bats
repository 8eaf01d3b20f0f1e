#!/usr/bin/env bats
# Restartable sequences (rseq(2)) under the single-step backend: every
# step would abort a critical section (the kernel does on each resume
# after a stop), so a section entered while stepped runs as one unit.
# Under the page backend a commit store faults inside its section: the
# section is aborted (its thread was preempted) and the retry run alone.
# Each commit the target counts is one exact write of its commit store,
# no more (an aborted store is never credited), no fewer.

load helpers
load page

# rseq_start ARGS...: the rseq target, or the test skipped when glibc
# registered no rseq area.
rseq_start() {
	start_target rseq "$@"
	[ "$(tinfo skip)" = null ] || skip "$(tinfo skip)"
}

# rseq_watch [-b BACKEND] [-a ACCESS] ARGS...: the target (ARGS) watched
# on its counter to its end (ptrace unless told); every commit done by
# then.
rseq_watch() {
	local b=ptrace a=()
	[ "$1" != -b ] || { b=$2; shift 2; }
	[ "$1" != -a ] || { a=(-a "$2"); shift 2; }
	rseq_start "$@"
	watch_start "${a[@]}" "$(tinfo counter)" -l 8 -- --backend "$b" -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" target_exited
}

# rseq_as_unwatched ARGS...: the watched target (ARGS) ended as an
# unwatched run of it does: its commits, its counter, and what its
# calls say (the aborts differ: a watch aborts sections).
rseq_as_unwatched() {
	local st=0
	wait "$TPID" || st=$?
	unwatched rseq "$@"
	assert_equal "$st $(tail -n +2 "$TOUT" | awk '/^done/ { print $2, $4 } /^calls/ { print $4 }')" \
	    "$PLAIN_STATUS $(awk '/^done/ { print $2, $4 } /^calls/ { print $4 }' <<< "$PLAIN")"
}

# seq_hex FROM TO: the values FROM..TO as hit values, space-separated
seq_hex() {
	printf '0x%x ' $(seq "$1" "$2") | sed 's/ $//'
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

@test "rseq, page -a rw: each section's load and commit store made in its retry: 20 commits, 20 reads and 20 writes by the two threads, each load reading the last commit" {
	rseq_watch -b page -a rw 10
	rseq_as_unwatched 10
	assert_equal "$(awk '/^done/ { print $2, $4 }' "$TOUT")" "20 20"
	assert_equal "$(hits ".tid != $TPID and .flags == [\"read\"]") $(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\"")" "20 20"
	# read 0, commit 1, read 1, ... commit 20; then main's printf reads 20
	assert_equal "$(jq -s -r '[.[] | select(.type=="hit") | .new_value] | join(" ")' "$WOUT")" \
	    "$(paste -d ' ' <(seq_hex 0 19 | tr ' ' '\n') <(seq_hex 1 20 | tr ' ' '\n') | tr '\n' ' ')0x14"
	assert_equal "$(hits)" 41
	assert_equal "$(obs .counts_are_lower_bound)" false
	# every commit came of a retry (some retries end without one)
	(( $(obs .page.rseq_retries) >= 20 )) || fail "$(obs .page.rseq_retries) retries"
	assert_equal "$(obs .page.rseq_retries_cut) $(obs .page.rseq_retry_calls)" "0 0"
}

@test "rseq, page: a retry that makes a system call (clock_gettime into the watched page) lets the others go for it and is taken up at its exit: 10 commits, 10 exact writes, no call fails" {
	rseq_watch -b page 10 call 1
	rseq_as_unwatched 10 call 1
	grep -qx 'calls [0-9]* failed 0' "$TOUT" || fail "$(cat "$TOUT")"
	assert_equal "$(awk '/^done/ { print $2, $4 }' "$TOUT")" "10 10"
	assert_equal "$(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\"")" 10
	assert_equal "$(jq -s -r '[.[] | select(.type=="hit") | .new_value] | join(" ")' "$WOUT")" "$(seq_hex 1 10)"
	# one retry a commit, each made its call; each call of the target
	# had the page given back
	assert_equal "$(obs .page.rseq_retries) $(obs .page.rseq_retry_calls) $(obs .page.rseq_retries_cut)" "10 10 0"
	assert_equal "$(obs .page.windows)" "$(awk '/^calls/ { print $2 }' "$TOUT")"
	# the main thread could have run while the page was given back
	assert_equal "$(obs '.thread_coverage.partial_coverage_reasons | join(" ")')" page_windows_shared
}

@test "rseq, page: a retry longer than 100000 steps is cut, the others let go, and the thread's next retry runs twice as long: 1 commit, 1 exact write, 2 retries, 1 cut" {
	rseq_watch -b page 1 long 1
	rseq_as_unwatched 1 long 1
	assert_equal "$(awk '/^done/ { print $2, $4 }' "$TOUT")" "1 1"
	assert_equal "$(hits ".flags == [] and .writer_ip == \"$(tinfo commit)\" and .new_value == \"0x1\"")" 1
	assert_equal "$(hits)" 1
	assert_equal "$(obs .page.rseq_retries) $(obs .page.rseq_retries_cut) $(obs .page.rseq_retry_calls)" "2 1 0"
	assert_equal "$(obs .counts_are_lower_bound)" false
}
