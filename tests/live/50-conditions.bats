#!/usr/bin/env bats
# wp-arm --if, --stop and --last on the perf backend, live (the QEMU
# guest suite runs these; elsewhere they skip): the condition is
# evaluated in wp-arm at each sample, the value from the sampled
# registers of the decoded store, the writer from the trap IP.  The
# targets and helpers are tests/cond.bash's.  Then the bpf backend,
# whose program evaluates the condition in the kernel and stops the
# writer itself.

load ../helpers
load ../cond

setup() {
	require_bp
}

# Writes per thread: three threads, every sample in the rings (a
# sample with registers is some 200 bytes; each CPU's ring is 2 MiB).
N=2000

@test "wp-arm perf --if 'value == 0': the one write of 0 is the hit; every write counted per writer" {
	local total=$(( 3 * N ))
	cond_watch perf "$N" 'value == 0'
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.condition) \(.condition_where)"' "$WOUT")" "value == 0 wp-arm"
	assert_equal "$(target_count zero)" 1
	assert_equal "$(obs '.targets[0].counted')" "$total"
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "rare_writer 0x0"
	assert_equal "$(tally_of good_writer hits) $(tally_of good_writer matched)" "$(target_count good) 0"
	assert_equal "$(tally_of busy_writer hits) $(tally_of busy_writer matched)" "$(target_count busy) 0"
	assert_equal "$(tally_of rare_writer hits) $(tally_of rare_writer matched)" "$(target_count rare) 1"
	run --separate-stderr wp-report "$WDEC"
	assert_success
	assert_output --partial "; $total tallied by writer; 1 matched --if 'value == 0'"
	assert_line --regexp "^ +$N +1  [a-z]+ +rare_writer\+0x0 "
}

@test "wp-arm perf --if 'writer != good_writer': only the stray's write, by its trap IP" {
	COND_ARM=(--regs)
	cond_watch perf "$N" 'writer != good_writer' -s
	COND_ARM=()
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_count stray)" 1
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "stray_writer 0xbad"
	assert_equal "$(tally_of good_writer hits) $(tally_of good_writer matched)" "$(target_count good) 0"
	assert_equal "$(tally_of stray_writer hits) $(tally_of stray_writer matched)" "1 1"
}

@test "wp-arm perf --if 'value == 0' --stop: the process stopped when the sample was read, and says how late" {
	local tid ip wip n=20000
	# the process runs on long enough after its write of 0 for the
	# sample to be read: 10,000 more writes of that thread, every one in
	# rings of 8 MiB
	COND_ARM=(--stop --ring-pages 2048)
	cond_watch perf "$n" 'value == 0'
	COND_ARM=()
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" stopped_at_match
	assert_equal "$(hits)" 1
	tid=$(obs .stopped_at.tid)
	ip=$(obs .stopped_at.ip)
	wip=$(obs .stopped_at.writer_ip)
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.tid) \(.ip) \(.writer.function)"' "$WDEC")" "$tid $ip rare_writer"
	# the writer is mov qword ptr [rip + X], rdi: 7 bytes
	assert_equal "$ip" "$(hexadd "$wip" 7)"
	[ "$(obs .stopped_at.late_us)" -ge 0 ] || fail "no late_us: $(obs .stopped_at)"
	run cat "$WERR"
	assert_line --index 0 "wp-arm: the first matching write: pid $TPID thread $tid writer rare_writer+0x0 at $wip, next instruction $ip"
	assert_line --index 2 "    gdb -p $TPID"
	assert_line --regexp "^wp-arm: perf_breakpoint: stopped [0-9]+ us after the write, when wp-arm read its sample"
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	# gdb (where there is one) attaches to the stopped process
	if command -v gdb > /dev/null; then
		[ -n "$(pc_of_thread "$TPID" -p "$TPID")" ] ||
			fail "gdb did not attach to $TPID"
	fi
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	kill -CONT "$TPID"
	wait_for "$TOUT" '^done' 60
	assert_equal "$(target_count zero) $(target_count rare)" "1 $n"
}

@test "wp-arm perf --last 8: the last writes before SIGSEGV, the garbage one last; exit 6" {
	start_target_unreaped crash-list -n 30
	watch_start wpt_head -- --backend perf -d 600s --last 8
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 6
	assert_equal "$(obs .stop_reason) $(obs .stop_detail)" "target_exited SIGSEGV"
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(hits)" 31
	WDEC=$WOUT.dec
	wp-decode < "$WOUT" > "$WDEC"
	run jq -r 'select(.type=="last_write") | "\(.seq)/\(.of) \(.end) \(.writer.function) \(.written_value.value)"' "$WDEC"
	assert_equal "${#lines[@]}" 8
	assert_line --index 0 --regexp '^0/8 SIGSEGV push_again 0x'
	assert_line --index 1 --regexp '^1/8 SIGSEGV push_front 0x'
	assert_line --index 7 '7/8 SIGSEGV corrupt_head 0xdead0000'
	# they are the last eight hits: thread and trap IP
	assert_equal "$(jq -s -c '[.[] | select(.type=="last_write") | [.tid, .ip]]' "$WOUT")" \
		"$(jq -s -c '[.[] | select(.type=="hit") | [.tid, .ip]] | .[-8:]' "$WOUT")"
	run --separate-stderr wp-report "$WDEC"
	assert_success
	assert_output --partial "the last 8 writes to wpt_head (target 0, "
	assert_line --regexp '^ +[0-9]+ crash-list +[0-9.]+  corrupt_head\+0x0 +0xdead0000$'
}

# The bpf backend's program evaluates the condition in the kernel at
# each hit: 100,002 writes, every one tallied there.
NB=33334

@test "wp-arm bpf --if 'value == 0': evaluated in the kernel; the one write of 0 is the hit, every write tallied" {
	local total=$(( 3 * NB ))
	cond_watch bpf "$NB" 'value == 0'
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.condition) \(.condition_where)"' "$WOUT")" "value == 0 kernel"
	assert_equal "$(target_count zero)" 1
	assert_equal "$(obs '.targets[0].counted')" "$total"
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "rare_writer 0x0"
	assert_equal "$(tally_of good_writer hits) $(tally_of good_writer matched)" "$(target_count good) 0"
	assert_equal "$(tally_of busy_writer hits) $(tally_of busy_writer matched)" "$(target_count busy) 0"
	assert_equal "$(tally_of rare_writer hits) $(tally_of rare_writer matched)" "$(target_count rare) 1"
	run --separate-stderr wp-report "$WDEC"
	assert_success
	assert_output --partial "; $total tallied by writer; 1 matched --if 'value == 0'"
}

@test "wp-arm bpf --if 'writer != good_writer': only the stray's write" {
	cond_watch bpf "$NB" 'writer != good_writer' -s
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_count stray)" 1
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "stray_writer 0xbad"
	assert_equal "$(tally_of good_writer hits) $(tally_of good_writer matched)" "$(target_count good) 0"
	assert_equal "$(tally_of stray_writer hits) $(tally_of stray_writer matched)" "1 1"
}

@test "wp-arm bpf --if 'value == 0' --stop: the program stops the writer at the write; gdb's pc is the next instruction" {
	local tid ip wip
	COND_ARM=(--stop)
	cond_watch bpf "$NB" 'value == 0'
	COND_ARM=()
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" stopped_at_match
	assert_equal "$(hits)" 1
	tid=$(obs .stopped_at.tid)
	ip=$(obs .stopped_at.ip)
	wip=$(obs .stopped_at.writer_ip)
	assert_equal "$(obs .stopped_at.late_us)" null
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.tid) \(.ip) \(.writer.function)"' "$WDEC")" "$tid $ip rare_writer"
	assert_equal "$ip" "$(hexadd "$wip" 7)"
	run cat "$WERR"
	assert_line --index 0 "wp-arm: the first matching write: pid $TPID thread $tid writer rare_writer+0x0 at $wip, next instruction $ip"
	assert_line --index 2 "    gdb -p $TPID"
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	assert_equal "$(pc_stopped "$tid")" "$ip"
	if command -v gdb > /dev/null; then
		assert_equal "$(pc_of_thread "$tid" -p "$TPID")" "$ip"
	fi
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	kill -CONT "$TPID"
	wait_for "$TOUT" '^done' 60
	assert_equal "$(target_count zero) $(target_count rare)" "1 $NB"
}

@test "wp-arm bpf --last: refused with the reason, before arming" {
	start_target cond-writers -n 10
	run --separate-stderr bash -c "wp-resolve -p $TPID wpt_cell | wp-arm --backend bpf --last 8"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: --last: the ptrace, page and perf backends keep the last writes (not bpf_tally, yet)"
}
