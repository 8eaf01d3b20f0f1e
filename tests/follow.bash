# Shared by the --follow tests of both backends (tests/55-follow-ptrace.bats
# on the host, tests/live/40-follow-perf.bats in the guest).

# follow_run BACKEND CHAIN: watches CHAIN of ptr-chain -g 3 -n 10 and
# drives it step by step, waiting for each re-bind before the writes.
follow_run() {
	local backend=$1 chain=$2 g gen
	start_target ptr-chain -g 3 -n 10
	watch_start --follow "$chain" -- --backend "$backend" -d 300s
	wait_for "$WOUT" '"generation":1,' 30
	for g in 1 2 3; do
		kill -USR1 "$TPID"
		wait_for "$TOUT" "^ptr $g " 60
		gen=$((g + 1))
		wait_for "$WOUT" "\"type\":\"rebind\".*\"generation\":$gen," 60
		kill -USR1 "$TPID"
		wait_for "$TOUT" "^gen $g " 60
	done
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^null' 60
	wait_for "$WOUT" '"generation":5,' 60
	kill -USR1 "$TPID"
	watch_wait
}

# follow_check LEVEL: every binding in order, exact leaf hits per
# generation, the pointer writes at LEVEL, and the report's section.
follow_check() {
	local level=$1 want g obj
	run jq -r 'select(.type=="rebind") | "\(.generation) \(.binding) \(.new_leaf)"' "$WOUT"
	want="1 null_pointer null"
	for g in 1 2 3; do
		obj=$(awk -v g="$g" '$1 == "ptr" && $2 == g { print $3 }' "$TOUT")
		want="$want
$((g + 1)) bound $(printf '0x%x' $(( obj + 0x10 )))"
	done
	assert_output "$want
5 null_pointer null"
	for g in 2 3 4; do
		assert_equal "$(hits ".role == \"leaf\" and .generation == $g")" 10
	done
	assert_equal "$(hits '.role == "leaf"')" 30
	# the program's own pointer stores: three objects, then the null
	run jq -r 'select(.type=="hit" and .role=="pointer") | .writer.function' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(grep -c '^main$' <<< "$output")" 4
	if [ "$(hits ".role == \"pointer\"")" -ne 4 ]; then
		# Seen only under QEMU TCG, perf backend, two-level chain: libc
		# memcpy stores a few bytes away reported on the pointer slot.
		# Shown, not hidden: the count must match the report.
		echo "# $(hits ".role == \"pointer\"") pointer hits, 4 by the program" >&3
	fi
	assert_equal "$(obs '.follows[0].leaf_hits')" 30
	assert_equal "$(obs '.follows[0].binding')" null_pointer
	run jq -c '.dependent_watches[0] | [.binding_state, .generation, .leaf_hits, .pointer_slot_hits, (.bindings | map(.leaf_hits)), .writer_sites[0].writer_function]' \
		<<< "$(wp-decode < "$WOUT" | wp-report --json)"
	assert_output "[\"null_pointer\",5,30,$(hits '.role == "pointer"'),[0,10,10,10,0],\"main\"]"
}
