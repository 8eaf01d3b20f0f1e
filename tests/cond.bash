# Scenarios of wp-arm --if (and --stop, --last), written once and run
# against each backend that evaluates conditions in the tracer
# (tests/64-arm-conditions.bats: page with 100,002 writes, ptrace with
# fewer, as it single-steps).  Each takes the backend and the writes per
# thread of tests/targets/cond-writers.c, and asserts exact counts
# against the target's own.

# target_count NAME: what the target printed for NAME ("good 33334").
target_count() {
	awk -v k="$1" '$1 == k { print $2 }' "$TOUT"
}

# cond_watch BACKEND N EXPR [CW-ARGS...]: cond-writers (or COND_TARGET)
# -n N [CW-ARGS] watched (wpt_cell, or what COND_WATCH says to
# wp-resolve) with --if EXPR (and the wp-arm options in COND_ARM) until
# wp-arm ends; $WOUT decoded into $WDEC (with the wp-decode options in
# COND_DECODE).
cond_watch() {
	local backend=$1 n=$2 expr=$3
	shift 3
	start_target "${COND_TARGET-cond-writers}" -n "$n" "$@"
	watch_start "${COND_WATCH[@]-wpt_cell}" -- --backend "$backend" -d 600s --if "$expr" \
		${COND_ARM[@]+"${COND_ARM[@]}"}
	kill -USR1 "$TPID"
	watch_wait
	WDEC=$WOUT.dec
	wp-decode ${COND_DECODE[@]+"${COND_DECODE[@]}"} < "$WOUT" > "$WDEC"
}

# pc_of_thread TID [GDB-ARGS...]: the pc gdb shows for thread TID
# ("(LWP TID)", or without libthread_db "(LWP TID "name")").
pc_of_thread() {
	local tid=$1
	shift
	gdb -batch -nx "$@" -ex 'thread apply all p/x $pc' 2> /dev/null |
		awk -v lwp="(LWP $tid" 'index($0, lwp ")") || index($0, lwp " ") { getline; print $3; exit }'
}

# stopped_at BACKEND N EXPR [CW-ARGS...]: cond-writers -n N [CW-ARGS]
# watched with --if EXPR --stop (and the wp-arm options in STOP_ARM):
# the watch ended at its one matching write, the process left stopped;
# sets TID, IP, WIP (the writing thread, its next instruction, the
# writer).
stopped_at() {
	local backend=$1 n=$2 expr=$3
	shift 3
	COND_ARM=(--stop ${STOP_ARM[@]+"${STOP_ARM[@]}"})
	cond_watch "$backend" "$n" "$expr" "$@"
	COND_ARM=()
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" stopped_at_match
	assert_equal "$(hits)" 1
	TID=$(obs .stopped_at.tid)
	IP=$(obs .stopped_at.ip)
	WIP=$(obs .stopped_at.writer_ip)
}

# stop_watch BACKEND N [WP-ARM-ARGS...]: cond-writers -n N watched with
# --if 'value == 0' --stop: the watch stopped at the write of 0, the
# process left stopped, and what wp-arm says of it; sets TID, IP, WIP
# (the writing thread, its next instruction, the writer).
stop_watch() {
	local backend=$1 n=$2
	shift 2
	STOP_ARM=("$@")
	stopped_at "$backend" "$n" 'value == 0'
	STOP_ARM=()
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.tid) \(.ip) \(.writer.function) \(.writer.writer_ip)"' "$WDEC")" "$TID $IP rare_writer $WIP"
	# the writer is mov qword ptr [rip + X], rdi: 7 bytes
	run jq -r 'select(.type=="hit") | .writer.insn' "$WDEC"
	assert_output --regexp '^mov qword ptr \[rip \+ 0x[0-9a-f]+\], rdi$'
	assert_equal "$IP" "$(hexadd "$WIP" 7)"
	run cat "$WERR"
	assert_line --index 0 "wp-arm: the first matching write: pid $TPID thread $TID writer rare_writer+0x0 at $WIP, next instruction $IP"
	assert_line --index 2 "    gdb -p $TPID"
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	# the report names the stopped writer as wp-decode did
	run --separate-stderr wp-report "$WDEC"
	assert_line "stopped  at the first match: thread $TID, writer rare_writer+0x0 at $WIP, next instruction $IP"
}

# The first write of 0 leaves the process stopped right after it: gdb
# attaches and finds the writing thread at the next instruction (so
# does the kernel, where there is no gdb), and the target runs to its
# end once continued, its counts unchanged.
scenario_cond_stop() {
	local n=$2
	stop_watch "$1" "$n"
	assert_equal "$(grep -c . "$WERR")" 4
	assert_equal "$(obs .stopped_at.late_us)" null
	assert_equal "$(pc_stopped "$TID")" "$IP"
	if command -v gdb > /dev/null; then
		assert_equal "$(pc_of_thread "$TID" -p "$TPID")" "$IP"
	fi
	# still stopped after gdb let go; then it runs on, its counts whole
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	kill -CONT "$TPID"
	wait_for "$TOUT" '^done' 60
	assert_equal "$(target_count zero)" 1
	assert_equal "$(target_count rare)" "$n"
	wait "$TPID"
}

# zero_watch BACKEND N WHERE: --if 'value == 0' on cond-writers -n N
# (three threads in a tight loop), evaluated WHERE: the one write of 0
# is the hit, every write is counted and tallied by writer, as many as
# the target made, and the report shows each writer's total and matched
# count.  With COND_WATCH=(--follow wpt_cellp+0x0) the cell is a follow
# chain's leaf (its pointer never written): the same, of the leaf.
zero_watch() {
	local n=$2 total=$(( 3 * $2 )) counted=.targets[0].counted
	local doc=.watches[0] sites
	if [ "${COND_WATCH[0]-}" = --follow ]; then
		counted=.follows[0].leaf_counted
		doc=.dependent_watches[0]
	fi
	cond_watch "$1" "$n" 'value == 0'
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.condition) \(.condition_where)"' "$WOUT")" "value == 0 $3"
	assert_equal "$(target_count zero)" 1
	assert_equal "$(obs "$counted")" "$total"
	assert_equal "$(obs .lost_events.total)" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "rare_writer 0x0"
	assert_equal "$(tally_of good_writer hits) $(tally_of good_writer matched)" "$(target_count good) 0"
	assert_equal "$(tally_of busy_writer hits) $(tally_of busy_writer matched)" "$(target_count busy) 0"
	assert_equal "$(tally_of rare_writer hits) $(tally_of rare_writer matched)" "$(target_count rare) 1"
	# the report: each writer's total and matched count
	run --separate-stderr wp-report "$WDEC"
	assert_success
	assert_output --partial " $total tallied by writer; 1 matched --if 'value == 0'"
	assert_line --regexp "^ +$n +0  [a-z]+ +good_writer\+0x0 "
	assert_line --regexp "^ +$n +0  [a-z]+ +busy_writer\+0x0 "
	assert_line --regexp "^ +$n +1  [a-z]+ +rare_writer\+0x0 "
	run --separate-stderr wp-report --json "$WDEC"
	sites="[[\"busy_writer\",$n,0],[\"good_writer\",$n,0],[\"rare_writer\",$n,1]]"
	assert_equal "$(jq -c "$doc | [.tallied_hits, .matched_hits, ([.writer_sites[] | [.writer_function, .hits, .matched]] | sort)]" <<< "$output")" \
		"[$total,1,$sites]"
}

# zeros_watch BACKEND N [-p]: --if 'value == 0' on cond-writers -z,
# whose rare_writer writes 0 from its first write on, while two threads
# write other values through their own writers, in a tight loop (-p:
# the writers _p, through a pointer): each writer's matched count is
# exact from its first write (bpf: before wp-arm has decoded a writer,
# its hits are tested in wp-arm on their registers, not on memory, where
# another thread's store may stand), and every hit is rare_writer's 0.
zeros_watch() {
	local p=${3:+_p}
	cond_watch "$1" "$2" 'value == 0' -z ${3:+"$3"}
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_count zero)" "$2"
	assert_equal "$(obs .targets[0].counted)" $(( 3 * $2 ))
	assert_equal "$(obs .targets[0].lost)" 0
	assert_equal "$(obs '.bpf.samples_dropped // 0')" 0
	assert_equal "$(tally_of good_writer$p hits) $(tally_of good_writer$p matched)" "$(target_count good) 0"
	assert_equal "$(tally_of busy_writer$p hits) $(tally_of busy_writer$p matched)" "$(target_count busy) 0"
	assert_equal "$(tally_of rare_writer$p hits) $(tally_of rare_writer$p matched)" "$2 $2"
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC" | sort -u)" "rare_writer$p 0x0"
}

# changed_watch BACKEND N: --if changed on mt-writer -s -i 1, whose
# three threads write wpt_counter's value at arming, 1, N times each in
# a tight loop: no write changes it, not even the first.
changed_watch() {
	local total=$(( 3 * $2 ))
	start_target mt-writer -t 3 -n "$2" -s -i 1
	watch_start wpt_counter -- --backend "$1" -d 600s --if changed
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .targets[0].counted)" "$total"
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(hits)" 0
	run --separate-stderr wp-report "$WOUT"
	assert_success
	assert_output --partial " $total tallied by writer; 0 matched --if 'changed'"
}

# stray_watch BACKEND N: --if 'writer != good_writer' on cond-writers
# -s (with the wp-arm options in COND_ARM): only the stray's write.
stray_watch() {
	cond_watch "$1" "$2" 'writer != good_writer' -s
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_count stray)" 1
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "stray_writer 0xbad"
	assert_equal "$(tally_of good_writer hits) $(tally_of good_writer matched)" "$(target_count good) 0"
	assert_equal "$(tally_of stray_writer hits) $(tally_of stray_writer matched)" "1 1"
}

# tally_of FUNCTION FIELD: the sum of FIELD (hits, matched) over the
# tallies of the writer FUNCTION, the latest of each (the bpf backend
# writes them every --interval too).
tally_of() {
	jq -s --arg f "$1" --arg k "$2" \
		'[.[] | select(.type=="tally" and .writer.function==$f)] |
		group_by([.target, .tid, .ip, .writer_ip]) | map(last[$k]) | add // 0' "$WDEC"
}

# pc_stopped TID: the pc of thread TID of the stopped target, as the
# kernel says it ("-1 SP PC" in /proc/PID/task/TID/syscall: blocked
# outside a system call), for guests without gdb.
pc_stopped() {
	awk '$1 == -1 { print $3 }' "/proc/$TPID/task/$1/syscall"
}

# scenario_stop_crash BACKEND N: cond-writers -c, whose main thread
# crashes (SIGSEGV) as soon as it reads the write of 0, watched with
# --if 'value == 0' --stop: the process is left stopped all the same,
# every thread, the crash held (its instruction runs again once
# continued); gdb attaches and finds the writer at the next
# instruction; the observation and the report say it stopped; once
# continued the target dies of SIGSEGV, as it does unwatched.
scenario_stop_crash() {
	local n=$2 st=0
	# unwatched, it dies of SIGSEGV at the write of 0
	start_target cond-writers -n "$n" -c
	kill -USR1 "$TPID"
	wait "$TPID" || st=$?
	assert_equal "$st" $(( 128 + 11 ))
	st=0
	stopped_at "$1" "$n" 'value == 0' -c
	assert_equal "$(obs .stopped_at.process)" stopped
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	run cat "$WERR"
	refute_line --partial "did not stop"
	assert_line --index 2 "    gdb -p $TPID"
	assert_equal "$(pc_stopped "$TID")" "$IP"
	assert_equal "$(pc_of_thread "$TID" -p "$TPID")" "$IP"
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	run --separate-stderr wp-report "$WDEC"
	assert_line "stopped  at the first match: thread $TID, writer rare_writer+0x0 at $WIP, next instruction $IP"
	assert_line "         the process was left stopped: gdb -p $TPID"
	kill -CONT "$TPID"
	wait "$TPID" || st=$?
	assert_equal "$st" $(( 128 + 11 ))
	run cat "$TOUT"
	refute_line done
}

# A stray writer among good ones: only its write is reported.
scenario_cond_stray() {
	local n=$2
	cond_watch "$1" "$n" 'writer != good_writer' -s
	wait_for "$TOUT" '^done' 30
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_count stray)" 1
	assert_equal "$(hits)" 1
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.writer.function) \(.written_value.value)"' "$WDEC")" "stray_writer 0xbad"
	assert_equal "$(tally_of good_writer hits)" "$(target_count good)"
	assert_equal "$(tally_of good_writer matched)" 0
	assert_equal "$(tally_of stray_writer hits)" 1
	assert_equal "$(tally_of stray_writer matched)" 1
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
}

# scenario_stray_stop BACKEND N: --if 'value == 0xbad' --stop on
# cond-writers -s: the stray's one write, its writer's first hit, stops
# the process right after it (bpf: tested in wp-arm, as its writer is
# not decoded yet; the program stopped it at the write where memory
# held 0xbad, else wp-arm stops it late, and says how late); run on,
# the target's counts are whole.
scenario_stray_stop() {
	local late
	stopped_at "$1" "$2" 'value == 0xbad' -s
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.tid) \(.ip) \(.writer.function) \(.writer.writer_ip) \(.written_value.value)"' "$WDEC")" "$TID $IP stray_writer $WIP 0xbad"
	assert_equal "$IP" "$(hexadd "$WIP" 7)"
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	late=$(obs .stopped_at.late_us)
	if [ "$late" = null ]; then
		assert_equal "$(pc_stopped "$TID")" "$IP"
	else
		assert_regex "$late" '^[0-9]+$'
		run cat "$WERR"
		assert_line --partial "wp-arm: $(obs .backend): stopped $late us after the write"
	fi
	kill -CONT "$TPID"
	wait_for "$TOUT" '^done' 60
	assert_equal "$(target_count stray)" 1
	wait "$TPID"
}

# scenario_last BACKEND [WP-ARM-ARGS...]: a list head written from three
# sites, then garbage from a fourth, and the program dies of SIGSEGV
# walking it: --last 8 keeps the last eight writes, the garbage one last
# (with --callchain: each with its hit's chain), and wp-arm exits 6.
scenario_last() {
	local addr tst=0 events=0
	# the perf and bpf backends read how the process ended while it is a
	# zombie
	case $1 in perf|bpf) events=1 ;; esac
	if [ "$events" = 1 ]; then
		start_target_unreaped crash-list -n 30
	else
		start_target crash-list -n 30
	fi
	watch_start wpt_head -- --backend "$1" -d 600s --last 8 "${@:2}"
	kill -USR1 "$TPID"
	watch_wait
	if [ "$events" = 0 ]; then
		wait "$TPID" || tst=$?
		assert_equal "$tst" $(( 128 + 11 ))
	fi
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$WSTATUS" 6
	assert_equal "$(obs .stop_reason) $(obs .stop_detail)" "target_exited SIGSEGV"
	assert_equal "$(hits)" 31
	WDEC=$WOUT.dec
	wp-decode < "$WOUT" > "$WDEC"
	run jq -r 'select(.type=="last_write") | "\(.seq)/\(.of) \(.end) \(.writer.function) \(.written_value.value)"' "$WDEC"
	assert_equal "${#lines[@]}" 8
	assert_line --index 0 --regexp '^0/8 SIGSEGV push_again 0x'
	assert_line --index 1 --regexp '^1/8 SIGSEGV push_front 0x'
	assert_line --index 2 --regexp '^2/8 SIGSEGV push_spare 0x'
	assert_line --index 6 --regexp '^6/8 SIGSEGV push_again 0x'
	assert_line --index 7 '7/8 SIGSEGV corrupt_head 0xdead0000'
	# they are the last eight hits: thread, trap IP, writer (perf, bpf:
	# none, wp-decode finds it), value (perf: from the registers; bpf:
	# kept by the program, read from memory at the trap), call chain
	assert_equal "$(jq -s -c '[.[] | select(.type=="last_write") | [.tid, .ip, .writer_ip, .written_value.value, .callchain, .callchain_status]]' "$WDEC")" \
		"$(jq -s -c '[.[] | select(.type=="hit") | [.tid, .ip, .writer_ip, .written_value.value, .callchain, .callchain_status]] | .[-8:]' "$WDEC")"
	if [ $# -gt 1 ]; then
		assert_equal "$(jq -s '[.[] | select(.type=="last_write" and .callchain_status != null)] | length' "$WDEC")" 8
	fi
	# the garbage's caller, named by wp-decode (crash-list keeps no frame
	# pointers: only a tracer's unwinding, with its CFI, finds it)
	if [ $# -gt 1 ] && [ "$events" = 0 ]; then
		run jq -r 'select(.type=="last_write" and .seq == 7) | .callers[0].symbol' "$WDEC"
		assert_output --regexp '^main\+0x[0-9a-f]+$'
	fi
	addr=$(jq -r 'select(.type=="target") | .runtime_addr' "$WOUT")
	run --separate-stderr wp-report "$WDEC"
	assert_success
	assert_line --index 0 --partial "process  pid $TPID  crash-list"
	assert_output --partial "the last 8 writes to wpt_head (target 0, $addr) before SIGSEGV, the last one last:"
	assert_line --regexp '^ +[0-9]+ crash-list +[0-9.]+  corrupt_head\+0x0 +0xdead0000$'
}

# scenario_last_threads BACKEND N: --last 64 on cond-writers -n N, three
# threads writing in tight loops (a zombie once it exits, so that every
# backend reads how it ended): the last 64 of the 3N writes, every one
# kept, sampled or not, and "exit 0"; each thread's in its order.  Thread
# id writes id * 1000000 + i + 1: where the tracer reads the value with
# the writer stopped (ptrace, page), each thread's are a run of its
# consecutive values and the newest is a thread's last write; the bpf
# program reads it at the trap, where another thread may have written
# since (a vCPU held up between the write and the trap): values the
# target wrote, each thread's at rising times.
scenario_last_threads() {
	local line seq of end tid v t i=0
	local -A prev=() at=()
	start_target_unreaped cond-writers -n "$2"
	watch_start wpt_cell -- --backend "$1" -d 600s --last 64
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason) $(obs .stop_detail)" "target_exited null"
	assert_equal "$(obs '.targets[0].counted')" $(( 3 * $2 ))
	assert_equal "$(obs '.targets[0].lost')" 0
	run jq -r 'select(.type=="last_write") | "\(.seq)/\(.of)/\(.end)/\(.tid)/\(.time_ns)/\(.new_value)"' "$WOUT"
	assert_equal "${#lines[@]}" 64
	for line in "${lines[@]}"; do
		IFS=/ read -r seq of end tid t v <<< "$line"
		assert_equal "$seq/$of/$end" "$i/64/exit 0"
		[ -z "${at[$tid]-}" ] || [ "$t" -ge "${at[$tid]}" ] ||
			fail "thread $tid's write $seq at $t, before its previous at ${at[$tid]}"
		at[$tid]=$t
		if [ "$1" = bpf ]; then
			[ $(( v / 1000000 )) -ge 1 ] && [ $(( v / 1000000 )) -le 3 ] &&
			    [ $(( v % 1000000 )) -ge 1 ] && [ $(( v % 1000000 )) -le "$2" ] ||
				fail "write $seq: $v, not a value the target wrote"
		else
			[ -z "${prev[$tid]-}" ] || assert_equal "$(( v ))" $(( prev[$tid] + 1 ))
			prev[$tid]=$(( v ))
		fi
		i=$(( i + 1 ))
	done
	[ "$1" = bpf ] || assert_equal $(( v % 1000000 )) "$2"
}
