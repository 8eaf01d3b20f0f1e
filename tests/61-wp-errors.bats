#!/usr/bin/env bats
# wp, the front command, failing well: a stage that fails before the
# watch is armed says why, wp ends with its status, and no report of
# nothing is printed.

load helpers

@test "wp watch -d 5x: wp-arm's usage error and status 64, nothing on stdout" {
	start_target mt-writer -t 1 -n 5
	run --separate-stderr wp watch -d 5x "$TPID" wpt_counter
	assert_failure 64
	assert_equal "$stderr" "wp-arm: -d 5x: not a duration (10 for seconds, 500ms, 1.5s, 2m30s)"
	assert_equal "$output" ""
	# a duration past what wp-arm can wait is a usage error too
	run --separate-stderr wp watch -d 99999999999h "$TPID" wpt_counter
	assert_failure 64
	assert_equal "$stderr" "wp-arm: -d 99999999999h: longer than wp-arm can wait (inf watches until a signal)"
	assert_equal "$output" ""
}

@test "wp watch --backend perf where breakpoints do not fire: status 5, wp-arm's reason, nothing on stdout" {
	if wp-arm --check-bp > /dev/null 2>&1; then
		skip "hardware breakpoints fire on this machine"
	fi
	start_target mt-writer -t 1 -n 5
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	run --separate-stderr wp watch --backend perf --save "$save" -d 5s "$TPID" wpt_counter
	assert_failure 5
	assert_equal "$stderr" "wp-arm: hardware breakpoints do not fire on this machine: a breakpoint on wp-arm's own variable counted 0 of 4 writes (a VM that does not virtualize debug registers?)"
	assert_equal "$output" ""
	# the saved stream is what wp-arm wrote: the input and an
	# observation that says why nothing was watched
	run jq -r '.type' "$save"
	assert_output "session
target
observation"
	assert_equal "$(tail -n 1 "$save" | jq -r '"\(.stop_reason): \(.error)"')" \
		"error: hardware breakpoints cannot be used here"
	kill -0 "$TPID"
}

@test "wp watch of a process another debugger traces: status 1, the attach error, nothing on stdout" {
	start_target mt-writer -t 2 -n 5
	"$T/tracer" "$TPID" > "$BATS_TEST_TMPDIR/tracer.out" 2>&1 &
	local tracer=$!
	WP_TARGET_PIDS+=("$tracer")
	wait_for "$BATS_TEST_TMPDIR/tracer.out" '^tracing'
	run --separate-stderr wp watch --backend ptrace -d 5s "$TPID" wpt_counter
	assert_failure 1
	# the tracer named, by pid and name
	assert_equal "$stderr" "wp-arm: pid $TPID: cannot attach: it is traced by $tracer (tracer) (a debugger: one tracer at a time)"
	assert_equal "$output" ""
	kill -0 "$TPID"
}

@test "wp watch -d inf: no deadline; a signal ends it with the whole report" {
	start_target mt-writer -t 1 -n 20 -w
	local save=$BATS_TEST_TMPDIR/raw.ndjson report=$BATS_TEST_TMPDIR/report.json
	wp watch --json --save "$save" -d inf "$TPID" wpt_counter > "$report" 2> /dev/null &
	local w=$!
	wait_armed "$save" "$w"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	kill -TERM "$w"
	wait "$w"
	run jq -r '[.complete, .observation.stop_reason, .observation.stop_detail, .watches[0].accepted_hits] | map(tostring) | join(" ")' "$report"
	assert_output "true signal SIGTERM 20"
}

@test "wp watch --backend bpf of a struct wider than the slots: its size and the choices (status 1)" {
	start_target page-struct -n 1
	run --separate-stderr wp watch --backend bpf -d 5s "$TPID" wpt_ps
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: wpt_ps: 512 bytes need 64 debug-register slots, x86-64 has 4 (DR0..DR3): watch it whole with --backend page (or ptrace), or a part of it with -l LEN and ADDR+OFF"
	assert_equal "$output" ""
}

@test "wp watch of a word that is no symbol of a stripped program: refused, never its ELF header (status 1)" {
	start_target mt-writer-stripped -t 1 -n 5
	run --separate-stderr wp watch -d 5s "$TPID" counter
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: counter: unknown symbol 'counter': $T/mt-writer-stripped is stripped (no symbol table); name it with --bin (an unstripped build), --debug-file, static:0xADDR or MODULE+0xOFF"
	assert_equal "$output" ""
	kill -0 "$TPID"
}

@test "wp watch --backend page where wp-arm is built without it: status 64, one line" {
	if wp-arm --backend page --help > /dev/null 2>&1; then
		skip "the page backend is built"
	fi
	start_target mt-writer -t 1 -n 5
	run --separate-stderr wp watch --backend page -d 5s "$TPID" wpt_counter
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --backend page: this wp-arm is built without the page-protection backend"
	assert_equal "$output" ""
	kill -0 "$TPID"
}

@test "wp watch --save: a planted link or an existing file is refused, never followed or truncated; --force replaces the name; the stream is 0600" {
	start_target mt-writer -t 1 -n 5
	local d=$BATS_TEST_TMPDIR victim=$BATS_TEST_TMPDIR/victim
	echo precious > "$victim"
	ln -s "$victim" "$d/link"
	ln -s "$d/nothing" "$d/dangling"
	echo old > "$d/old.ndjson"
	for f in link dangling old.ndjson; do
		run --separate-stderr wp watch --save "$d/$f" -d 1 "$TPID" wpt_counter
		assert_failure 1
		assert_equal "$stderr" "wp: --save $d/$f: exists (--force replaces it)"
		assert_equal "$output" ""
	done
	assert_equal "$(cat "$victim")" precious
	[ ! -e "$d/nothing" ] || fail "the dangling link was followed"
	assert_equal "$(cat "$d/old.ndjson")" old
	# --force replaces the link itself, not the file it points to
	run --separate-stderr wp watch --force --save "$d/link" -d 1 "$TPID" wpt_counter
	assert_success
	[ -f "$d/link" ] && [ ! -L "$d/link" ] || fail "the link was not replaced by a file"
	assert_equal "$(tail -n 1 "$d/link" | jq -r .type)" observation
	assert_equal "$(cat "$victim")" precious
	# it holds the target's memory: 0600, whatever the umask lets
	assert_equal "$(stat -c %a "$d/link")" 600
	run --separate-stderr wp watch --save "$d" -d 1 "$TPID" wpt_counter
	assert_failure 1
	assert_equal "$stderr" "wp: --save $d: is a directory"
	run --separate-stderr wp watch --force -d 1 "$TPID" wpt_counter
	assert_failure 64
	assert_equal "$stderr" "wp: watch: --force is for --save"
	# nothing left behind in the directory
	assert_equal "$(ls -A "$d" | grep -c '^\.wp-save')" 0
}

@test "wp watch --save on a full disk: one line names the file, never /dev/fd/N; the report still comes (status 1)" {
	local d=$BATS_TEST_TMPDIR/full
	mkdir "$d"
	mount -t tmpfs -o size=64k tmpfs "$d" 2> /dev/null || skip "cannot mount a tmpfs here"
	# no room left for a byte
	dd if=/dev/zero of="$d/filler" bs=4k 2> /dev/null || true
	start_target mt-writer -t 1 -n 5
	run --separate-stderr wp watch --json --backend page --save "$d/raw.ndjson" -d 1 "$TPID" wpt_counter
	umount "$d"
	assert_failure 1
	# one line, besides those the live view adds each second
	assert_equal "$(grep -v '^wp: [0-9.]* s of ' <<< "$stderr")" "wp: --save $d/raw.ndjson: No space left on device"
	assert_equal "$(jq -r '"\(.complete) \(.observation.stop_reason)"' <<< "$output")" "true duration"
}

@test "wp watch --save -a: a name that begins with - is a file name, never an option of another program" {
	start_target mt-writer -t 1 -n 5
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr wp watch --json --save -a -d 1 "$TPID" wpt_counter
	assert_success
	assert_equal "$(jq -r .complete <<< "$output")" true
	assert_equal "$(head -n 1 ./-a | jq -r .type)" session
	assert_equal "$(tail -n 1 ./-a | jq -r .type)" observation
	# and wp report takes it as ./-a
	run --separate-stderr wp report --json ./-a
	assert_success
	assert_equal "$(jq -r .complete <<< "$output")" true
}

@test "wp report: a file that is not a wp stream is said once (status 2); a stream with bad lines keeps its good ones" {
	run --separate-stderr wp report /etc/passwd
	assert_failure 2
	assert_equal "$stderr" "wp: report: /etc/passwd: not a wp stream (no record of wp-records(7) in it)"
	assert_equal "$output" ""
	run --separate-stderr wp report "$BATS_TEST_TMPDIR"
	assert_failure 1
	assert_equal "$stderr" "wp: report: $BATS_TEST_TMPDIR: is a directory"
	# one bad line: named, the rest reported, status 2 at the end
	{ echo 'root:x:0:0:root:/root:/bin/bash'; cat "$DATA/report-basic.in.ndjson"; } > "$BATS_TEST_TMPDIR/mixed.ndjson"
	run --separate-stderr wp report --json "$BATS_TEST_TMPDIR/mixed.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/mixed.ndjson: line 1: invalid JSON at byte 1: expected a value"
	assert_equal "$(jq -r '"\(.complete) \(.watches[0].accepted_hits)"' <<< "$output")" "true 11"
}

@test "wp report FILE: every message about FILE names FILE, never stdin" {
	# a bad line, and no observation record: wp-decode names the line,
	# wp-report the incomplete stream, both by the file given
	local f=$BATS_TEST_TMPDIR/cut.ndjson
	{ echo 'not json'; cat "$DATA/report-incomplete.in.ndjson"; } > "$f"
	run --separate-stderr wp report "$f"
	assert_failure 2	# wp-decode's, the first stage that failed
	assert_equal "$stderr" "wp-decode: $f: line 1: invalid JSON at byte 1: expected a value
wp-report: $f: the stream ended without an observation record; the report is incomplete"
	# wp-report's --label names a stream it reads on standard input
	run --separate-stderr wp-report --label "$f" < "$DATA/report-incomplete.in.ndjson"
	assert_failure 3
	assert_equal "$stderr" "wp-report: $f: the stream ended without an observation record; the report is incomplete"
}

@test "wp watch: wp-arm killed: one line names the signal, no shell internals" {
	start_target mt-writer -t 1 -n 5
	local save=$BATS_TEST_TMPDIR/raw.ndjson arm
	wp watch --save "$save" -d 300s "$TPID" wpt_counter > /dev/null 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	arm=$(pgrep -P "$w" -x wp-arm)
	kill -KILL "$arm"
	local st=0
	wait "$w" || st=$?
	assert_equal "$st" 137
	# (and the live view's lines, "wp: 1.0 s of 300 s: ...")
	run grep -v '^wp-arm: \|^wp-report: \|^wp: [0-9.]* s' "$BATS_TEST_TMPDIR/err"
	assert_output "wp: wp-arm (pid $arm) was killed by SIGKILL: the watch ended there"
}

@test "wp watch SYMBOL+OFF: an offset past the symbol's end is warned about, in one line and in the record" {
	start_target mt-writer -t 1 -n 5
	run --separate-stderr wp watch --json -d 1 "$TPID" wpt_counter+0x8 wpt_array+0x1c
	assert_success
	# (the live view's line "wp: 1.0 s of 1 s: ..." when the watch ran a tick long)
	assert_equal "$(grep -v '^wp-arm: \|^wp: [0-9.]* s of ' <<< "$stderr")" "wp-resolve: wpt_counter+0x8: warning: 4 bytes at offset 0x8 reach past the end of wpt_counter (8 bytes)"
	# within the symbol: no warning
	run --separate-stderr wp-resolve -p "$TPID" wpt_counter+0x8 wpt_array+0x1c
	assert_success
	assert_equal "$(jq -sc 'map(select(.type == "target") | .warnings)' <<< "$output")" \
		'[["4 bytes at offset 0x8 reach past the end of wpt_counter (8 bytes)"],[]]'
}

@test "wp watch with too few file descriptors: one line that says so, not the shell's errors" {
	start_target mt-writer -t 1 -n 5
	local n
	# (below 8, bash itself cannot run the script in its own words)
	for n in 8 10 12; do
		run --separate-stderr bash -c 'ulimit -n "$1"; exec wp watch --save "$2" -d 1 "$3" wpt_counter' _ "$n" "$BATS_TEST_TMPDIR/raw$n.ndjson" "$TPID"
		assert_failure 1
		assert_equal "$stderr" "wp: too few file descriptors (ulimit -n is $n, wp needs 16)"
		assert_equal "$output" ""
		[ ! -e "$BATS_TEST_TMPDIR/raw$n.ndjson" ] || fail "a --save file was left"
		run --separate-stderr bash -c 'ulimit -n "$1"; exec wp report "$2"' _ "$n" "$DATA/report-basic.in.ndjson"
		assert_failure 1
		assert_equal "$stderr" "wp: too few file descriptors (ulimit -n is $n, wp needs 16)"
	done
	# each tool says so in one line, libdw's and /proc's words never
	local t
	for t in "wp-resolve -p $TPID wpt_counter" "wp-arm --backend ptrace" "wp-decode"; do
		run --separate-stderr bash -c 'exec < /dev/null; ulimit -n 8; exec $1' _ "$t"
		assert_failure 1
		assert_equal "$stderr" "${t%% *}: too few file descriptors: ulimit -n is 8, ${t%% *} needs 16"
	done
	# a low soft limit is raised to the hard one
	run --separate-stderr bash -c 'ulimit -S -n 8; exec wp watch --json -d 1 "$1" wpt_counter' _ "$TPID"
	assert_success
	assert_equal "$(jq -r .complete <<< "$output")" true
	run --separate-stderr bash -c 'ulimit -n 16; exec wp watch --json -d 1 "$1" wpt_counter' _ "$TPID"
	assert_success
	assert_equal "$(jq -r .complete <<< "$output")" true
}

@test "wp watch NAME: a program's name is not its pid, and wp says which pid runs it" {
	local name=wpt-n$RANDOM
	cp "$T/mt-writer" "$BATS_TEST_TMPDIR/$name"
	"$BATS_TEST_TMPDIR/$name" > "$BATS_TEST_TMPDIR/$name.out" &
	WP_TARGET_PIDS+=("$!")
	wait_for "$BATS_TEST_TMPDIR/$name.out" pid 10
	run --separate-stderr wp watch "$name" wpt_counter
	assert_failure 64
	assert_equal "$stderr" "wp: watch: $name: not a process id; $name runs as pid $! (wp watch $! ...)"
	assert_equal "$output" ""
	run --separate-stderr wp watch "$name-none" wpt_counter
	assert_failure 64
	assert_equal "$stderr" "wp: watch: $name-none: not a process id"
}

@test "wp-arm: a /proc file of the process it cannot open (denied, out of descriptors) is named with its cause, never 'no thread' or 'exited'" {
	local so=$BATS_TEST_TMPDIR/fail-open.so be f err why st msg
	fail_open_shim "$so"
	start_target mt-writer -t 1 -n 5
	wp-resolve -p "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/in.ndjson"
	for be in ptrace page; do
		for err in 13:"Permission denied" 24:"Too many open files"; do
			why=${err#*:}
			for f in task stat maps; do
				[ "$be $f" != "ptrace maps" ] || continue	# not read to arm
				case $f in
				task)	st=1; msg="cannot attach: cannot list its threads (/proc/$TPID/task): $why" ;;
				*)	st=4; msg="cannot read /proc/$TPID/$f: $why" ;;
				esac
				run --separate-stderr env WPT_FAIL_PATH="/proc/$TPID/$f" \
				    WPT_FAIL_ERRNO="${err%%:*}" LD_PRELOAD="$so" \
				    wp-arm --backend "$be" -d 1 < "$BATS_TEST_TMPDIR/in.ndjson"
				assert_equal "$be $f $status" "$be $f $st"
				assert_equal "$be $f $stderr" "$be $f wp-arm: pid $TPID: $msg"
				assert_equal "$be $f $(jq -r 'select(.type=="observation") | .error' <<< "$output")" \
				    "$be $f pid $TPID: $msg"
			done
		done
	done
	kill -0 "$TPID"
}

@test "wp-arm run by a user who is not root on root's process: status 4 (as man/wp-arm.1 says), the file named, the observation written, the target untouched" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to watch root's process as another user"
	command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
	local be in=$BATS_TEST_TMPDIR/in.ndjson
	start_target mt-writer -t 1 -n 5
	wp-resolve -p "$TPID" wpt_counter > "$in"
	chmod 755 "$BATS_TEST_TMPDIR"
	chmod 644 "$in"
	for be in page ptrace; do
		run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		    "$WP_BUILD/wp-arm" --backend "$be" -d 1 < "$in"
		assert_equal "$be $status" "$be 4"
		assert_equal "$be $stderr" "$be wp-arm: pid $TPID: /proc/$TPID/mem: Permission denied"
		assert_equal "$be $(jq -r 'select(.type=="observation") | .error' <<< "$output")" \
		    "$be pid $TPID: /proc/$TPID/mem: Permission denied"
		assert_equal "$(awk '/^TracerPid/ { print $2 }' "/proc/$TPID/status")" 0
	done
	run grep -A6 '^\.It 4$' "$WP_TESTS/../man/wp-arm.1"
	assert_output --partial "permission denied"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
}

@test "wp watch ADDR: the pid forgotten is said to be missing, not the address" {
	run --separate-stderr wp watch -d 6s counter
	assert_failure 64
	assert_equal "$stderr" "wp: watch: no pid: counter is not a process id (wp watch PID counter)"
	assert_equal "$output" ""
	# a pid alone still lacks the address
	run --separate-stderr wp watch -d 6s $$
	assert_failure 64
	assert_equal "$stderr" "wp: watch: no address to watch"
}
