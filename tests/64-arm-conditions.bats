#!/usr/bin/env bats
# wp-arm --if: the expression's errors (status 2, the column named),
# and the scenarios of tests/cond.bash on the backends that evaluate it
# in the tracer: page (100,002 writes, one of them 0) and ptrace.

load helpers
load cond

# bad_if EXPR MESSAGE: wp-arm --if EXPR fails at once with status 2 and
# says MESSAGE, before it reads anything.
bad_if() {
	run --separate-stderr wp-arm --if "$1" < /dev/null
	assert_failure 2
	assert_equal "$stderr" "wp-arm: --if '$1': $2"
	assert_equal "$output" ""
}

@test "wp-arm --if: an unknown field, its column" {
	bad_if 'valu == 0' "column 1: unknown field 'valu' (value, changed, unchanged, writer, tid, comm, addr)"
	bad_if 'value == 0 or sizeof > 2' "column 15: unknown field 'sizeof' (value, changed, unchanged, writer, tid, comm, addr)"
}

@test "wp-arm --if: a bad number, its column" {
	bad_if 'value == 0xzz' "column 10: bad number '0xzz' (decimal, or hex with 0x)"
	bad_if 'tid > x' "column 7: bad number 'x' (decimal, or hex with 0x)"
	bad_if 'writer == libc.so.6+0xq' "column 11: bad offset '0xq' in 'libc.so.6+0xq' (MODULE+0xOFF)"
}

@test "wp-arm --if: unbalanced parentheses, the column of the one alone" {
	bad_if '(value == 0 or tid == 3' "column 1: '(' is not closed"
	bad_if 'value == 0)' "column 11: ')' without '('"
	bad_if 'not (changed and (value < 16)' "column 5: '(' is not closed"
}

@test "wp-arm --if: a missing operator or operand, its column" {
	bad_if 'value = 0' "column 7: expected ==, !=, <, <=, >, >= or & after 'value'"
	bad_if 'value == 0 and' "column 15: the expression ends where a test was expected"
	bad_if 'writer' "column 7: expected ==, != or in after 'writer'"
	bad_if 'comm < x' "column 6: expected == or != after 'comm'"
	bad_if '' "column 1: the expression ends where a test was expected"
}

@test "wp watch --if: a bad expression is wp-arm's error and status 2, nothing on stdout" {
	start_target cond-writers -n 10
	run --separate-stderr wp watch -d 5s --if 'value == 0)' "$TPID" wpt_cell
	assert_failure 2
	assert_equal "$stderr" "wp-arm: --if 'value == 0)': column 11: ')' without '('"
	assert_equal "$output" ""
}

@test "wp-arm --if: a writer function the process does not have is refused before arming" {
	local why="writer == no_such_writer: no function of that name in the process (a module's offset is MODULE+0xOFF)"
	start_target cond-writers -n 10
	run --separate-stderr bash -c "wp-resolve -p $TPID wpt_cell | wp-arm --backend page --if 'writer == no_such_writer'"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: $why"
	assert_equal "$(jq -r 'select(.type=="observation") | .error' <<< "$output")" "$why"
	refute_output --partial '"type":"armed"'
}

@test "wp-arm page --if 'value == 0': the one write of 0 in 100,002 is the hit; every write counted per writer" {
	zero_watch page 33334 tracer
}

@test "wp-arm ptrace --if 'value == 0': the one write of 0 is the hit; every write counted per writer" {
	zero_watch ptrace 400 tracer
}

@test "wp-arm page --follow --if 'value == 0': a leaf three threads write; each writer's total and matched count in the report" {
	COND_WATCH=(--follow wpt_cellp+0x0)
	zero_watch page 33334 tracer
}

@test "wp-arm ptrace --follow --if 'value == 0': a leaf three threads write; each writer's total and matched count in the report" {
	COND_WATCH=(--follow wpt_cellp+0x0)
	zero_watch ptrace 400 tracer
}

@test "wp-arm page --if 'value == 0': a writer that writes 0 from its first write on, two others not: each writer's matched count exact" {
	zeros_watch page 20000
}

@test "wp-arm ptrace --if 'value == 0': a writer that writes 0 from its first write on, two others not: each writer's matched count exact" {
	zeros_watch ptrace 300
}

@test "wp-arm page --if changed: three threads writing the value the target had at arming change nothing" {
	changed_watch page 20000
}

@test "wp-arm ptrace --if changed: three threads writing the value the target had at arming change nothing" {
	changed_watch ptrace 300
}

@test "wp-arm page --if 'writer != good_writer': only the stray write is a hit" {
	scenario_cond_stray page 20000
}

@test "wp-arm page --if 'value == 0xbad' --stop: the stray's one write stops the process right after it" {
	scenario_stray_stop page 20000
}

@test "wp-arm ptrace --if 'writer != good_writer': only the stray write is a hit" {
	scenario_cond_stray ptrace 300
}

@test "wp-arm --if: tid, comm, changed, value & mask, writer in a module, on page" {
	start_target cond-writers -n 500
	local exe
	exe=$(basename "$(readlink "/proc/$TPID/exe")")
	watch_start wpt_cell -- --backend page -d 600s \
		--if "writer in $exe and value & 0xff == 0x1 and changed and comm == cond-writers and not tid == 1"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	# thread k writes k * 1000000 + i + 1, whose low byte is 0x01 twice
	# in 500 writes (i = 192, 448; 128, 384; 64, 320)
	assert_equal "$(hits)" 6
	assert_equal "$(jq -s '[.[] | select(.type=="tally") | .hits] | add' "$WOUT")" 1500
}

@test "wp-arm page --if 'value == 0' --stop: left stopped after the writer; gdb's pc is the next instruction" {
	scenario_cond_stop page 2000
}

@test "wp-arm ptrace --if 'value == 0' --stop: left stopped after the writer; gdb's pc is the next instruction" {
	scenario_cond_stop ptrace 300
}

@test "wp-arm page --stop: a crash right after the write is held, the process left stopped for gdb; continued, it dies as unwatched" {
	scenario_stop_crash page 2000
}

@test "wp-arm ptrace --stop: a crash right after the write is held, the process left stopped for gdb; continued, it dies as unwatched" {
	scenario_stop_crash ptrace 300
}

@test "wp-arm --stop=core: the core of that moment, written by gcore; the process runs on" {
	command -v gcore > /dev/null || skip "gcore (gdb) is not installed"
	local tid ip core
	cd "$BATS_TEST_TMPDIR"
	COND_ARM=(--stop=core)
	cond_watch page 2000 'value == 0'
	COND_ARM=()
	assert_equal "$WSTATUS" 0
	core=$(obs .stopped_at.core)
	assert_equal "$core" "core.$TPID"
	tid=$(obs .stopped_at.tid)
	ip=$(obs .stopped_at.ip)
	grep -qx "wp-arm: its core is core.$TPID (gdb -c core.$TPID); the process runs on" "$WERR"
	wait_for "$TOUT" '^done' 60
	wait "$TPID"
	assert_equal "$(pc_of_thread "$tid" "$T/cond-writers" -c "$core")" "$ip"
}

@test "wp-arm --stop=core: the core is 0600, as the kernel writes one, and never written through a link planted at core.PID" {
	command -v gcore > /dev/null || skip "gcore (gdb) is not installed"
	cd "$BATS_TEST_TMPDIR"
	echo precious > victim
	start_target cond-writers -n 2000
	ln -s victim "core.$TPID"
	watch_start wpt_cell -- --backend page -d 600s --if 'value == 0' --stop=core
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stopped_at.core)" "core.$TPID"
	assert_equal "$(cat victim)" precious
	[ -f "core.$TPID" ] && [ ! -L "core.$TPID" ] || fail "the link was not replaced by the core"
	assert_equal "$(stat -c %a "core.$TPID")" 600
	assert_equal "$(find . -name '.wp.*')" ""
}

@test "wp-arm --if twice: a usage error, not the first condition silently dropped" {
	run --separate-stderr wp-arm --if 'value == 0' --if 'tid == 3' < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --if 'tid == 3': a second --if; join the conditions in one with and, or"
	assert_equal "$output" ""
	start_target cond-writers -n 10
	run --separate-stderr wp watch -d 5s --if 'value == 0' --if 'tid == 3' "$TPID" wpt_cell
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --if 'tid == 3': a second --if; join the conditions in one with and, or"
	assert_equal "$output" ""
	kill -0 "$TPID"
}

@test "wp-arm --stop=later: a usage error" {
	run --separate-stderr wp-arm --stop=later < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --stop=later: expected --stop or --stop=core"
}

@test "wp-arm page --last 8: the last writes before SIGSEGV, the garbage one last; exit 6" {
	scenario_last page
}

@test "wp-arm ptrace --last 8: the last writes before SIGSEGV, the garbage one last; exit 6" {
	scenario_last ptrace
}

@test "wp-arm page --last 8 --callchain: each last write with its chain, as its hit's" {
	scenario_last page --callchain
}

@test "wp-arm page --last 64: three threads' last writes, each thread's consecutive, the newest a thread's last" {
	scenario_last_threads page 2000
}

@test "wp-arm --last: a process that exits writes its last writes too, and wp-arm exits 0" {
	start_target cond-writers -n 100
	watch_start wpt_cell -- --backend page -d 600s --last 5
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_detail)" null
	run jq -r 'select(.type=="last_write") | "\(.seq)/\(.of) \(.end)"' "$WOUT"
	assert_equal "$(echo $output)" "0/5 exit 0 1/5 exit 0 2/5 exit 0 3/5 exit 0 4/5 exit 0"
	assert_equal "$(hits)" 300
}

@test "wp watch --last 8 -d inf: waits for the crash, reports the last writes first, status 6" {
	start_target crash-list -n 30
	local out=$BATS_TEST_TMPDIR/report.txt st=0
	wp watch --backend page --last 8 -d inf "$TPID" wpt_head > "$out" 2> "$BATS_TEST_TMPDIR/err" &
	local wpid=$!
	sleep 2
	kill -USR1 "$TPID"
	wait "$wpid" || st=$?
	assert_equal "$st" 6
	run grep -n -m1 'the last 8 writes to wpt_head' "$out"
	assert_output --regexp '^[0-9]+:the last 8 writes to wpt_head \(target 0, 0x[0-9a-f]+\) before SIGSEGV, the last one last:$'
	# first: before the target's own section
	local at=${output%%:*} target
	target=$(grep -n -m1 '^target 0 ' "$out")
	[ "$at" -lt "${target%%:*}" ] || fail "the last writes at line $at, after the target at ${target%%:*}"
	run grep -c 'corrupt_head+0x0 .*0xdead0000' "$out"
	assert_output 2
}

@test "wp-arm --last 0 or too many: a usage error" {
	run --separate-stderr wp-arm --last 0 < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --last 0: not a count of writes (1 to 65536)"
}

@test "wp-arm --if with --backend auto: the page backend, which evaluates it, without a fallback" {
	start_target cond-writers -n 50
	watch_start wpt_cell -- -d 600s --if 'value == 0'
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" page_protect
	assert_equal "$(cat "$WERR")" ""
	assert_equal "$(hits)" 1
}

@test "wp-arm page --if on a buffer: the value is what each store wrote there, not the buffer's first 8 bytes; a store of more than 8 named" {
	start_target page-array -n 3000 -L -r
	watch_start wpt_big -- --backend page -d 600s --if 'value & 0xff == 0x41'
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	# the stores whose first byte is 0x41, as the target logged them
	local want=$(grep -c '^at 0x[0-9a-f]* 41' "$TOUT")
	[ "$want" -gt 0 ] || fail "no store of 0x41 in the log"
	assert_equal "$(hits)" "$want"
	assert_equal "$(jq -s '[.[] | select(.type=="tally") | .hits] | add' "$WOUT")" 3001
	# the read(2) of 512 bytes: no value to test, and said
	assert_equal "$(cat "$WERR")" "wp-arm: --if: target 0: 1 of its writes stored more than 8 bytes each, and the value test was false for them"
}

@test "wp-arm page --if unchanged on a buffer: a store that left its bytes as it found them, from the log" {
	start_target page-array -n 3000 -L
	watch_start wpt_big -- --backend page -d 600s --if unchanged
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	# replay the logged stores over the zeroed array: those that found
	# their bytes already there
	local want=$(awk 'function hex(s,  i, v) { for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	    /^at 0x/ { off = hex(substr($2, 3)); n = length($3) / 2; same = 1
	        for (i = 0; i < n; i++) { b = substr($3, 2 * i + 1, 2); k = off + i
	            if ((k in m ? m[k] : "00") != b) same = 0; m[k] = b }
	        u += same } END { print u + 0 }' "$TOUT")
	[ "$want" -gt 0 ] || fail "no unchanged store in the log"
	assert_equal "$(hits)" "$want"
	assert_equal "$(cat "$WERR")" ""
}
