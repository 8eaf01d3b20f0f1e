#!/usr/bin/env bats
# wp-arm --backend ptrace under faults: the target never pays for the
# watcher's failure.  Signals of every kind to wp-arm while it steps,
# SIGKILL of wp-arm and of its process group, SIGKILL of the tracing
# process itself, hundreds of threads coming and going, a signal to a
# thread blocked in a system call.

load helpers
load arm

# tgkill PID TID SIG: a signal to one thread (perl starts in
# milliseconds, where python3 took seconds on a loaded machine and the
# target was gone).
tgkill() {
	perl -e 'exit(syscall(234, map { $_ + 0 } @ARGV) != 0)' "$@"
}

# busy_watch ARM-ARGS...: a target computing its checksum (every
# instruction stepped), watched; sets WANT to the unwatched sum.  The
# target waits for a SIGUSR1 before it exits.
busy_watch() {
	WANT=${WANT:-$(unwatched_sum 200000)}
	start_target mt-writer -t 0 -c 200000 -w
	watch_start wpt_counter -- --backend ptrace -d 300s "$@"
	kill -USR1 "$TPID"
	wait_for "$WOUT" '"type":"hit"' 30
}

# target_unharmed: the target ran to its end and computed its sum.
target_unharmed() {
	wait_for "$TOUT" '^done' 120
	assert_equal "$(awk '/^sum/ { print $2 }' "$TOUT")" "$WANT"
	kill -USR1 "$TPID"
	wait "$TPID"
}

@test "wp-arm ptrace: every signal that would end wp-arm ends the watch mid-step, the target unharmed" {
	local sig name
	for sig in HUP INT QUIT TERM USR1 USR2 XCPU XFSZ VTALRM PROF IO PWR \
	    STKFLT SYS TSTP TTIN TTOU TRAP ABRT BUS FPE ILL SEGV RTMIN \
	    RTMIN+5 RTMAX; do
		busy_watch
		kill -"$sig" "$WPID"
		watch_wait
		name=SIG$sig
		case $sig in
		RTMIN)	name=SIGRTMIN+0 ;;
		RTMAX)	name=SIGRTMIN+$(( $(kill -l RTMAX) - $(kill -l RTMIN) )) ;;
		esac
		[ "$WSTATUS" = 0 ] || fail "$sig: wp-arm exited $WSTATUS: $(cat "$WERR")"
		assert_equal "$sig $(obs .stop_reason) $(obs .stop_detail)" \
		    "$sig signal $name"
		assert_equal "$sig alive $(obs .target_alive_after)" "$sig alive true"
		target_unharmed
	done
}

@test "wp-arm ptrace: SIGKILL of wp-arm, or of its process group, leaves the target running" {
	busy_watch
	kill -KILL "$WPID"
	wait "$WPID" || true
	# the tracing process detaches, and says why the watch ended
	wait_for "$WOUT" '"type":"observation"' 30
	OBS=$(jq -c 'select(.type=="observation")' "$WOUT")
	assert_equal "$(obs .stop_reason)" signal
	assert_equal "$(obs .stop_detail)" "SIGTERM: wp-arm (pid $WPID) was killed"
	target_unharmed
	stop_targets

	# the whole pipeline's process group, as timeout -s KILL does it
	busy_watch_group
	kill -KILL -- "-$GPID"
	wait_for "$WOUT" '"type":"observation"' 30
	target_unharmed
}

# busy_watch_group: busy_watch with the pipeline in a session and
# process group of its own, GPID.
busy_watch_group() {
	start_target mt-writer -t 0 -c 200000 -w
	WOUT=$BATS_TEST_TMPDIR/watch.out
	rm -f "$WOUT"
	setsid bash -c 'wp-resolve -p "$0" wpt_counter | wp-arm --backend ptrace -d 300s' \
	    "$TPID" > "$WOUT" 2> "$BATS_TEST_TMPDIR/watch.err" &
	GPID=$!
	wait_armed "$WOUT" "$GPID" "$BATS_TEST_TMPDIR/watch.err"
	[ "$(ps -o pgid= -p "$GPID" | tr -d ' ')" = "$GPID" ] ||
		fail "the pipeline is not a process group of its own"
	kill -USR1 "$TPID"
	wait_for "$WOUT" '"type":"hit"' 30
}

@test "wp-arm ptrace: SIGKILL of the tracing process: status 1, and the observation says the loss is unknown" {
	local tracer st=0
	busy_watch
	tracer=$(pgrep -P "$WPID" -x wp-trace)
	[ -n "$tracer" ] || fail "no wp-trace process under wp-arm $WPID"
	kill -KILL "$tracer"
	watch_wait
	assert_equal "$WSTATUS" 1
	run cat "$WERR"
	assert_line "wp-arm: the tracing process $tracer was killed by SIGKILL: the watch ended there, the hits it had not written are lost, and the process was likely killed by SIGTRAP"
	assert_equal "$(obs .stop_reason)" error
	assert_equal "$(obs .lost_events.known)" false
	assert_equal "$(obs .lost_events.reason)" "the tracing process was killed"
	assert_equal "$(obs .counts_are_lower_bound)" true
	# no half record: every line the tracing process wrote is whole
	run --separate-stderr wp-decode < "$WOUT"
	assert_success
	# what wp-arm(1) CAVEATS says: a thread left mid-step dies of SIGTRAP
	wait "$TPID" || st=$?
	assert_equal "$st" $(( 128 + $(kill -l TRAP) ))
}

@test "wp-arm ptrace: three hundred threads created and exiting mid-watch, twenty at a time: every write, the target unharmed" {
	start_target churn -n 300 -c 20 -k 1
	watch_start wpt_churn -- --backend ptrace -d 600s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 300
	wait "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(awk '$1 == "writes" { print $2 }' "$TOUT")" 300
	assert_equal "$(awk '$1 == "value" { print $2 }' "$TOUT")" 300
	assert_equal "$(hits)" 300
	assert_equal "$(obs .stop_reason)" target_exited
	# one hit from each of the threads
	run jq -s '[.[] | select(.type=="hit") | .tid] | unique | length' "$WOUT"
	assert_output 300
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "wp-arm ptrace: a signal to a thread blocked in read(2), which it does not catch, does not stall the watch" {
	start_target blocked -n 1000
	watch_start wpt_counter -- --backend ptrace -d 300s
	kill -USR1 "$TPID"
	sleep 0.1
	# SIGWINCH, ignored by default, to the main thread in read(2)
	tgkill "$TPID" "$TPID" "$(kill -l WINCH)"
	sleep 0.1
	tgkill "$TPID" "$TPID" "$(kill -l WINCH)"
	wait_for "$TOUT" '^done' 120
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(awk '$1 == "writes" { print $2 }' "$TOUT")" 1000
	assert_equal "$(hits)" 1000
	assert_equal "$(obs .stop_reason)" target_exited
}

@test "wp-arm ptrace: a full disk stops the watch with one line, the target unharmed" {
	WANT=$(unwatched_sum 200000)
	start_target mt-writer -t 0 -c 200000 -w
	run --separate-stderr bash -c "wp-resolve -p $TPID wpt_counter | wp-arm --backend ptrace -d 300s > /dev/full"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: stdout: No space left on device"
	kill -USR1 "$TPID"
	target_unharmed
}
