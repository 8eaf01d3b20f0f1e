#!/usr/bin/env bats
# wp-arm --backend page: runs here for real (page protection needs no
# debug registers).  The scenarios every backend shares (tests/arm.bash),
# then what is the page backend's own: exact writers at the fault, page
# neighbours, kernel writes, the target's health however the watch ends.

load helpers
load arm

@test "wp-arm page: exact hits from several threads, one created mid-watch" {
	scenario_threads page
	assert_equal "$(obs .backend)" page_protect
	assert_equal "$(obs .page.faults_watched)" 700
	assert_equal "$(obs .page.pages)" 1
	# the four threads there at the start and the late one, each named
	run jq -r 'select(.type=="thread" and (.event=="seeded" or .event=="start")) | "\(.event) \(.comm)"' "$WOUT"
	assert_equal "$(sort <<< "$output" | uniq -c | tr -s ' ')" "$(printf ' 4 seeded mt-writer\n 1 start mt-writer')"
}

@test "wp-arm page: a tight loop on three threads: every write counted and written" {
	scenario_counted page
	assert_equal "$(hits)" 2400
	# every fault was made one way or the other
	assert_equal "$(obs .page.faults_watched)" 2400
	assert_equal "$(obs '.page | .emulated + .stepped')" "$(obs '.page | .faults_watched + .faults_neighbour')"
}

@test "wp-arm page: a write of the same value is still a hit" {
	scenario_same_value page
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "0x1"
}

@test "wp-arm page: -n stops at max events and flags truncation" {
	scenario_max_events page
}

@test "wp-arm page: -d stops at the duration and reads the latest value" {
	scenario_duration page
}

@test "wp-arm page: SIGINT, SIGTERM and SIGHUP yield the hits and an observation" {
	scenario_signal page
}

@test "wp-arm page: the target exiting mid-watch ends the watch" {
	scenario_target_exit page
}

@test "wp-arm page: exec in the target ends the watch" {
	scenario_exec page
}

@test "wp-arm page: a pid reused since wp-resolve is refused (status 4)" {
	scenario_pid_reused page
}

@test "wp-arm page: a malformed line is reported, the watch still runs (status 2)" {
	scenario_malformed page
}

@test "wp-arm page: a closed stdout stops the watch and leaves the target running" {
	scenario_closed_stdout page
}

@test "wp-arm page: however the watch ends, the target computes what it computes unwatched" {
	scenario_healthy page
}

# unwatched_out ARGS...: what mt-writer ARGS prints, unwatched
unwatched_out() {
	local out=$BATS_TEST_TMPDIR/plain.$RANDOM.out p
	"$T/mt-writer" "$@" > "$out" &
	p=$!
	wait_for "$out" pid 10
	kill -USR1 "$p"
	wait "$p"
	tail -n +2 "$out"
}

@test "wp-arm page: every writer IP is the store in write_counter, as objdump shows it, with the value" {
	start_target mt-writer -t 1 -n 40
	watch_start wpt_counter -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	local slide store
	slide=$(jq -r 'select(.type=="session") | .pie_slide' "$WOUT")
	store=$(objdump -d --no-show-raw-insn "$T/mt-writer" |
		awk '/<write_counter>:/ { f = 1; next } f && /wpt_counter/ { sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
	run jq -r 'select(.type=="hit") | .writer_ip' "$WOUT"
	assert_equal "${#lines[@]}" 40
	assert_equal "$(sort -u <<< "$output")" "$(printf '0x%x' $(( slide + 0x$store )))"
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_output "$(for i in $(seq 0 39); do printf '0x%x\n' $((1000000 + i)); done)"
	# wp-decode names it, exact
	run jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" "write_counter exact"
}

@test "wp-arm page: read(2) into the watched page is the kernel's write by read; the target reads what it reads unwatched" {
	local want
	want=$(unwatched_out -t 0 -r)
	start_target mt-writer -t 0 -r
	watch_start wpt_counter -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(tail -n +2 "$TOUT")" "$want"
	run jq -c 'select(.type=="hit") | [.flags, .new_bytes]' "$WOUT"
	assert_output "[[\"syscall\"],\"$(head -c 8 "$T/mt-writer" | od -An -tx1 | tr -d ' \n')\"]"
	assert_equal "$(obs .page.kernel_writes)" 1
	assert_equal "$(obs .page.windows)" 1
	assert_equal "$(obs .counts_are_lower_bound)" false
	run jq -r 'select(.type=="hit") | "\(.writer.insn) \(.writer.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_output "syscall exact"
}

@test "wp-arm page: a hot neighbour on the same page is counted, never a hit, and the target computes what it does unwatched" {
	local want
	want=$(unwatched_out -t 0 -c 100000)
	start_target mt-writer -t 0 -c 100000
	# wpt_score shares wpt_counter's page; the loop writes wpt_counter
	[ $(( $(tinfo score) / 4096 )) = $(( $(tinfo counter) / 4096 )) ] || fail "not one page"
	watch_start wpt_score -- --backend page -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(tail -n +2 "$TOUT")" "$want"
	assert_equal "$(hits)" 0
	assert_equal "$(obs .page.faults_watched)" 0
	[ "$(obs .page.faults_neighbour)" -ge 100000 ] || fail "neighbour faults: $(obs .page.faults_neighbour)"
	assert_equal "$(obs '.page | .emulated + .stepped')" "$(obs .page.faults_neighbour)"
}

@test "wp-arm page: a forked child gets its pages back and is let go; both finish as unwatched" {
	start_target fork-exec -c 10 -n 20
	watch_start wpt_counter -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	grep -q '^done' "$TOUT" || fail "the target did not finish"
	assert_equal "$(obs .thread_coverage.forked_processes)" 1
	assert_equal "$(obs .page.forks_restored)" 1
	# the parent's writes: the child's are to memory of its own
	assert_equal "$(hits)" 20
}

@test "wp-arm page: SIGKILL of wp-arm mid-watch: the target runs on, its page writable again" {
	local want page perms i
	want=$(unwatched_out -t 0 -c 3000000)
	start_target mt-writer -t 0 -c 3000000 -w
	watch_start wpt_counter -- --backend page -d 300s
	kill -USR1 "$TPID"
	sleep 0.5
	page=$(printf '%x' $(( $(tinfo counter) / 4096 * 4096 )))
	kill -9 "$WPID"
	watch_wait
	# the tracing process detaches once wp-arm is gone
	for i in $(seq 200); do
		[ "$(awk '/^TracerPid/ { print $2 }' "/proc/$TPID/status")" = 0 ] && break
		sleep 0.05
	done
	assert_equal "$(awk '/^TracerPid/ { print $2 }' "/proc/$TPID/status")" 0
	perms=$(awk -v p="$page" '{ split($1, r, "-"); if (strtonum("0x" r[1]) <= strtonum("0x" p) && strtonum("0x" p) < strtonum("0x" r[2])) print $2 }' "/proc/$TPID/maps")
	assert_equal "$perms" rw-p
	wait_for "$TOUT" '^done' 120
	assert_equal "$(sed -n 2p "$TOUT")" "$(head -n 1 <<< "$want")"
	kill -USR1 "$TPID"
}

@test "wp-arm page: pages it cannot watch are refused with the reason, the target untouched" {
	start_target mt-writer -t 1 -n 5
	run --separate-stderr bash -c "wp-resolve -p $TPID $(tinfo stack) | wp-arm --backend page -d 5s"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: target 0: page 0x$(printf '%x' $(( $(tinfo stack) / 4096 * 4096 ))) is on the stack of thread $TPID: every call and push there would fault; use --backend ptrace"
	run --separate-stderr bash -c "wp-resolve -p $TPID -a rw wpt_counter | wp-arm --backend page -d 5s"
	assert_failure 64
	assert_equal "$stderr" "wp-arm: target 0: -a rw: page protection traps writes, not reads (use --backend ptrace)"
	# untouched: it runs as ever
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
	stop_targets
	start_target attrib shm
	run --separate-stderr bash -c "wp-resolve -p $TPID -l 8 $(tinfo shared) | wp-arm --backend page -d 5s"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: target 0: page $(tinfo shared) is shared memory (/dev/zero (deleted)): another process could write it unseen, and its protection is not this process's alone: use --backend ptrace"
}

@test "wp-arm page: --regs gives the registers at the fault, --callchain the writer's callers" {
	start_target mt-writer -t 1 -n 5
	watch_start wpt_counter -- --backend page -d 120s --regs --callchain
	kill -USR1 "$TPID"
	watch_wait
	run jq -r 'select(.type=="hit") | "\(.regs.rip) \(.writer_ip)"' "$WOUT"
	assert_equal "${#lines[@]}" 5
	run jq -r 'select(.type=="hit") | .regs.rip == .writer_ip' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" true
	run jq -r 'select(.type=="hit") | [.callers[]?.symbol] | index("worker") != null' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" true
}
