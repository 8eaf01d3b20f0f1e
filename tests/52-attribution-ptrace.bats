#!/usr/bin/env bats
# What the ptrace backend attributes a change to: never an instruction
# that did not write there.  Signal frames are the kernel's, a change
# across a system call that does not write there is unexplained, a
# system call's write names the syscall instruction, vDSO code is named.

load helpers

# attrib_watch MODE ADDR-KEY RESOLVE-ARGS...: watches attrib MODE
attrib_watch() {
	local mode=$1 key=$2
	shift 2
	start_target attrib "$mode"
	watch_start "$@" "$(tinfo "$key")" -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	DEC=$(wp-decode < "$WOUT")
}

@test "attribution: a signal frame is the kernel's write, with the signal, never an instruction's" {
	attrib_watch sigframe altstack --no-slot-limit -l 8192
	assert_equal "$(awk '{ print $2 }' <<< "$(grep '^done' "$TOUT")")" 3
	run jq -c 'select(.type=="hit" and (.flags | index("kernel"))) | [.writer_ip, .signal, .writer.kind, .writer.confidence, .writer.insn]' <<< "$DEC"
	assert_equal "${#lines[@]}" 3
	assert_equal "$(sort -u <<< "$output")" '[null,12,"kernel","unknown",null]'
	run jq -r 'select(.type=="hit" and (.flags | index("kernel"))) | .writer.reason' <<< "$DEC"
	assert_equal "$(sort -u <<< "$output")" "the kernel wrote: the frame of signal 12 (USR2), delivered on this thread"
	# any other hit (the handler's own stores) is an instruction's, exact
	run jq -r 'select(.type=="hit" and .flags == []) | "\(.writer.confidence) \(.writer.kind)"' <<< "$DEC"
	[ -z "$output" ] || assert_equal "$(sort -u <<< "$output")" "exact write"
	# and the report shows the kind
	run wp-report <<< "$DEC"
	assert_line --regexp '^ +3  unknown +kernel +-'
}

@test "attribution: another process's write across a system call that writes elsewhere is unexplained" {
	attrib_watch shm shared -l 8
	run jq -c 'select(.type=="hit") | [.flags, .writer_ip, .writer.kind, .writer.confidence]' <<< "$DEC"
	assert_output '[["unexplained"],null,"unexplained","unknown"]'
	assert_equal "$(jq -r 'select(.type=="hit") | .new_value' "$WOUT")" 0x5
	assert_equal "$(obs .ptrace.unexplained_changes)" 1
	assert_equal "$(obs .ptrace.kernel_writes)" 0
}

@test "attribution: another process's write while the process waits in pause(2), which writes no memory, is unexplained, not pause's" {
	attrib_watch pause shared -l 8
	# one change seen at each stop after a write: one, or more where a
	# loaded machine stretched the child's writes past a stop between
	run jq -c 'select(.type=="hit") | [.flags, .writer_ip, .writer.kind, .writer.confidence]' <<< "$DEC"
	assert_equal "$(sort -u <<< "$output")" '[["unexplained"],null,"unexplained","unknown"]'
	assert_equal "$(obs .ptrace.unexplained_changes)" "${#lines[@]}"
	# each a change (no value twice), the last to 5
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output" | wc -l)" "${#lines[@]}"
	assert_equal "${lines[-1]}" 0x5
	run wp-report <<< "$DEC"
	refute_output --partial pause
}

@test "attribution: a write by read(2), in a call the watch found blocked, names the syscall instruction" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	TOUT=$BATS_TEST_TMPDIR/attrib.out
	"$T/attrib" pipe < "$BATS_TEST_TMPDIR/fifo" > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	exec 7> "$BATS_TEST_TMPDIR/fifo"
	wait_for "$TOUT" pid 10
	TINFO=$(head -n 1 "$TOUT")
	# blocked in read(2) (system call 0) before the watch starts
	local k
	for ((k = 0; k < 200; k++)); do
		[[ $(cat "/proc/$TPID/syscall" 2> /dev/null) == "0 "* ]] && break
		sleep 0.05
	done
	[[ $(cat "/proc/$TPID/syscall") == "0 "* ]] || fail "the target is not in read(2)"
	watch_start -l 8 "$(tinfo buf)" -- --backend ptrace -d 120s
	printf 'abcdefgh' >&7
	exec 7>&-
	watch_wait
	run jq -c 'select(.type=="hit") | [.flags, .new_bytes, .writer.insn, .writer.kind, .writer.confidence]' <<< "$(wp-decode < "$WOUT")"
	assert_output '[["syscall"],"6162636465666768","syscall","syscall","exact"]'
}

@test "attribution: a store in the vDSO is named and decoded" {
	attrib_watch vdso ts -l 8
	run jq -r 'select(.type=="hit") | "\(.writer.module) \(.writer.confidence) \(.writer.kind) \(.writer.insn | split(" ")[0])"' <<< "$DEC"
	assert_equal "${#lines[@]}" 3
	assert_equal "$(sort -u <<< "$output")" "[vdso] exact write mov"
	run jq -r 'select(.type=="hit") | .writer.function' <<< "$DEC"
	[ "${lines[0]}" != null ] || fail "no function named in the vDSO"
}

@test "attribution: -a rw shows reads apart from writes, in the JSON and the table" {
	start_target mt-writer -t 1 -n 5
	watch_start -a rw wpt_counter -- --backend ptrace -d 120s
	kill -USR1 "$TPID"
	watch_wait
	DEC=$(wp-decode < "$WOUT")
	run jq -c '.watches[0].writer_sites | map(select(.kind == "write")) | map([.writer_function, .hits])' <<< "$(wp-report --json <<< "$DEC")"
	assert_output '[["write_counter",5]]'
	[ "$(jq '.watches[0].writer_sites | map(select(.kind == "read")) | length' <<< "$(wp-report --json <<< "$DEC")")" -ge 1 ] || fail "no read site"
	run wp-report <<< "$DEC"
	assert_line --regexp '^ +5  exact +write +write_counter\+0x[0-9a-f]+ '
	assert_line --regexp '^ +[0-9]+  exact +read '
	# the count is of accesses, split into the reads and the 5 writes
	reads=$(jq '.watches[0].read_hits' <<< "$(wp-report --json <<< "$DEC")")
	[ "$reads" -ge 1 ] || fail "no read counted"
	assert_line "  $((reads + 5)) accesses counted by single-stepping; $((reads + 5)) attributed to a writer ($reads reads, 5 writes)"
	refute_output --partial "writes counted"
}
