#!/usr/bin/env bats
# wp-arm as a stream filter: options, input checks, pass-through.  The
# live watches are in tests/live/ (run in the QEMU guest).

load helpers

@test "wp-arm: usage errors name the option (status 64)" {
	run --separate-stderr wp-arm -d 5x
	assert_failure 64
	assert_equal "$stderr" "wp-arm: -d 5x: not a duration (10 for seconds, 500ms, 1.5s, 2m30s)"
	run --separate-stderr wp-arm -n 0
	assert_failure 64
	assert_equal "$stderr" "wp-arm: -n 0: not a positive count"
	run --separate-stderr wp-arm --ring-pages 3
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --ring-pages 3: a power of two, 1 to 65536"
	run --separate-stderr wp-arm --backend gdb
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --backend gdb: expected auto, bpf, perf, ptrace, page or uprobe"
	run --separate-stderr wp-arm --follow-mode later
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --follow-mode later: expected stop, stop-all or async"
	run --separate-stderr wp-arm --interval 1x
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --interval 1x: not a duration (500ms, 1s; 0 for none)"
	run wp-arm --help
	assert_success
	assert_line --index 0 --partial "usage: wp-arm [-v] [-d duration]"
}

@test "wp-arm: options that cannot work together are refused before anything is read (status 64)" {
	# a --callchain dwarf sample (8 KiB of stack) never fits one page
	run --separate-stderr wp-arm --ring-pages 1 --callchain dwarf < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --ring-pages 1 with --callchain dwarf: a sample (8192 bytes of stack and the registers) does not fit a ring of 4096 bytes, every one would be lost: --ring-pages 4 at least, or fewer bytes (--callchain dwarf,BYTES)"
	assert_output ""
	run --separate-stderr wp-arm --callchain dwarf,4096 --ring-pages 1 < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --ring-pages 1 with --callchain dwarf: a sample (4096 bytes of stack and the registers) does not fit a ring of 4096 bytes, every one would be lost: --ring-pages 2 at least, or fewer bytes (--callchain dwarf,BYTES)"
	run --separate-stderr wp-arm --backend ptrace --ring-pages 8 < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --ring-pages with --backend ptrace: it has no ring (bpf and perf have)"
	run --separate-stderr wp-arm --follow-mode stop --backend page < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --follow-mode with --backend page: only bpf and perf re-arm a followed leaf that way"
	# what does fit is taken: the error is then the empty input's
	run --separate-stderr wp-arm --ring-pages 4 --callchain dwarf < /dev/null
	assert_failure 1
	assert_equal "$stderr" "wp-arm: stdin: no session record: nothing to watch (feed it the output of wp-resolve)"
}

@test "wp-arm: input without a session record passes through and fails" {
	run --separate-stderr wp-arm < <(printf '%s\n' '{"type":"note","x":1}' '{"type":"other"}')
	assert_failure 1
	assert_equal "$(head -n 2 <<< "$output")" '{"type":"note","x":1}
{"type":"other"}'
	assert_equal "$stderr" "wp-arm: stdin: no session record: nothing to watch (feed it the output of wp-resolve)"
	# and the observation says why nothing was watched
	run jq -c 'select(.type=="observation") | [.stop_reason, .error, .pid, .backend, .target_alive_after]' <<< "$output"
	assert_output '["error","stdin: no session record: nothing to watch (feed it the output of wp-resolve)",null,null,null]'
}

@test "tests' watch_start: a wp-arm that fails at once ends the wait for its armed record, with its error, not the timeout" {
	# a pid that is gone: wp-resolve finds no process, wp-arm no session
	true &
	TPID=$!
	wait "$TPID"
	run --separate-stderr watch_start wpt_counter -- --backend ptrace -d 300s
	assert_failure
	grep -qE "^(wp-arm|process) \(pid [0-9]+\) exited before '\"type\":\"armed\"' in watch.out; its standard error:$" <<< "$stderr" ||
		fail "watch_start did not say that wp-arm exited: $stderr"
	grep -qxF 'wp-arm: stdin: no session record: nothing to watch (feed it the output of wp-resolve)' <<< "$stderr" ||
		fail "watch_start did not show wp-arm's error: $stderr"
}

@test "wp-arm: malformed lines are named by number, the rest passed on unchanged" {
	printf '%s\n' '{"type":"session","schema_version":1,"pid":1,"start_time":1}' 'not json' \
		'{"type":"x", "spaced" : [1, 2]}' '[1]' '{"no":"type"}' '{"type":"y"} trailing' \
		> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-arm < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 1
	assert_equal "$(head -n 2 <<< "$output")" '{"type":"session","schema_version":1,"pid":1,"start_time":1}
{"type":"x", "spaced" : [1, 2]}'
	assert_equal "$(tail -n 1 <<< "$output" | jq -r .error)" "stdin: no target records: nothing to watch"
	assert_equal "$stderr" "wp-arm: stdin: line 2: invalid JSON at byte 1: expected a value
wp-arm: stdin: line 4: not a JSON object
wp-arm: stdin: line 5: no \"type\" string field
wp-arm: stdin: line 6: text after the JSON object
wp-arm: stdin: no target records: nothing to watch"
}

@test "wp-arm --backend perf: a target the debug registers cannot watch is refused before arming" {
	printf '%s\n' '{"type":"session","schema_version":1,"pid":1,"start_time":1}' \
		'{"type":"target","id":0,"runtime_addr":"0x1001","len":4}' \
		'{"type":"target","id":1,"runtime_addr":"0x2000","len":16}' \
		> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-arm --backend perf < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: target 0: 0x1001 is not aligned to its length 4
wp-arm: target 1: a debug register cannot watch 16 bytes (1, 2, 4 or 8)"
	assert_equal "${#lines[@]}" 4
	assert_equal "$(tail -n 1 <<< "$output" | jq -r '"\(.stop_reason): \(.error)"')" "error: the targets do not fit the debug registers"
}

@test "wp-arm --backend perf: more than four slots in the stream are refused" {
	{
		echo '{"type":"session","schema_version":1,"pid":1,"start_time":1}'
		for i in 0 1 2 3 4; do
			echo "{\"type\":\"target\",\"id\":$i,\"runtime_addr\":\"$(printf 0x%x $((0x1000 + i * 8)))\",\"len\":8}"
		done
	} > "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-arm --backend perf < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: 5 hardware slots in the stream: x86-64 has 4 (DR0..DR3)"
}

@test "wp-arm --backend perf: where breakpoints do not fire, it says so (status 5) and passes the records on" {
	if wp-arm --check-bp > /dev/null 2>&1; then
		skip "hardware breakpoints fire on this machine"
	fi
	start_target mt-writer -t 0
	wp-resolve -p "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/r.ndjson"
	run --separate-stderr wp-arm --backend perf -d 1s < "$BATS_TEST_TMPDIR/r.ndjson"
	assert_failure 5
	assert_equal "$stderr" "wp-arm: hardware breakpoints do not fire on this machine: a breakpoint on wp-arm's own variable counted 0 of 4 writes (a VM that does not virtualize debug registers?)"
	assert_equal "$(head -n -1 <<< "$output")" "$(cat "$BATS_TEST_TMPDIR/r.ndjson")"
	assert_equal "$(tail -n 1 <<< "$output" | jq -r '"\(.stop_reason) \(.target_alive_after)"')" "error true"
	run --separate-stderr wp-arm --check-bp
	assert_failure 5
}

@test "wp-arm --backend perf: a follow chain over the slot budget is refused, with the count" {
	printf '%s\n' '{"type":"session","schema_version":1,"pid":1,"start_time":1}' \
		'{"type":"target","id":0,"runtime_addr":"0x1000","len":8}' \
		'{"type":"follow","id":1,"slot_addr":"0x2000","offsets":["0x8","0x10"],"len":4}' \
		'{"type":"follow","id":2,"slot_addr":"0x3000","offsets":["0x8"],"len":4}' \
		> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-arm --backend perf < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: 6 hardware slots in the stream: x86-64 has 4 (DR0..DR3)"
	run --separate-stderr wp-arm < <(head -n 3 "$BATS_TEST_TMPDIR/in.ndjson" | sed 's/"offsets":\["0x8","0x10"\]/"offsets":[]/')
	assert_failure 1
	assert_equal "$stderr" "wp-arm: stdin: line 3: follow record without id, slot_addr or offsets"
}

@test "wp-arm: a second session record of another process, or a target id again, is refused by line" {
	local s t
	s=$(grep '"type":"session"' "$DATA/report-basic.in.ndjson")
	t=$(grep '"type":"target","id":0' "$DATA/report-basic.in.ndjson")
	run --separate-stderr wp-arm --backend ptrace <<< "$s
$t
${s/\"pid\":4242/\"pid\":4343}"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: stdin: line 3: a second session record (pid 4343): wp-arm watches one process, pid 4242's (two streams of wp-resolve joined?)"
	assert_equal "$(jq -r 'select(.type=="observation") | .error' <<< "$output")" "stdin: a session, target or follow record is wrong: nothing is watched"
	run --separate-stderr wp-arm --backend ptrace <<< "$s
$t
$t"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: stdin: line 3: id 0 again: each target and follow record of a session has its own"
	# the same session twice says nothing new: taken
	run --separate-stderr wp-arm --backend ptrace <<< "$s
$s
$t"
	refute_line --partial 'second session'
}

@test "wp-arm --interval 0 into a regular file: the hits are in the file within about a second, not held to the end of the watch" {
	start_target mt-writer -t 1 -n 5 -w
	watch_start wpt_counter -- --backend page --interval 0 -d 600s
	kill -USR1 "$TPID"
	local i
	for (( i = 0; i < 100 && $(hits) < 5; i++ )); do
		ended "$WPID" && fail "wp-arm ended: $(cat "$WERR")"
		sleep 0.05
	done
	assert_equal "$(hits)" 5
	# the watch still runs: no observation yet
	assert_equal "$(jq -s 'map(select(.type == "observation")) | length' "$WOUT")" 0
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" signal
	assert_equal "$(hits)" 5
}
