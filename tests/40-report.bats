#!/usr/bin/env bats
# wp-report: fixture streams to expected reports (JSON after jq -S, and
# the table as text).

load helpers
# the fixtures' tables are 100 columns wide (where stdout is not a
# terminal and COLUMNS is not set, lines get the width they need)
export COLUMNS=100

# check NAME [OPTS...]: JSON and table of tests/data/NAME.in.ndjson.
check() {
	local name=$1
	shift
	run --separate-stderr wp-report --json "$@" "$DATA/$name.in.ndjson"
	RSTATUS=$status
	[ "$(wc -l <<< "$output")" -eq 1 ] || fail "--json wrote more than one line"
	diff -u "$DATA/$name.expected.json" <(jq -S . <<< "$output")
	run --separate-stderr wp-report "$@" "$DATA/$name.in.ndjson"
	assert_equal "$status" "$RSTATUS"
	diff -u "$DATA/$name.expected.txt" <(printf '%s\n' "$output")
	awk 'length > 100 { print FILENAME ": line " NR " is " length " columns"; bad = 1 } END { exit bad }' \
		"$DATA/$name.expected.txt"
}

@test "wp-report: writer sites sorted by hits then address, threads, samples truncated to --samples" {
	check report-basic --samples 4
	assert_equal "$RSTATUS" 0
	# every writer keeps a sample when the samples are full
	run jq -r '.watches[0] | [.samples_truncated, (.samples | map(.writer_symbol) | unique | length)] | @tsv' <<< "$(wp-report --json --samples 4 "$DATA/report-basic.in.ndjson")"
	assert_output "$(printf 'true\t3')"
	# the records wp-report does not know are counted, not lost
	run jq -r '.stream | "\(.records) \(.hits) \(.other_records) \(.thread_records)"' <<< "$(wp-report --json "$DATA/report-basic.in.ndjson")"
	assert_output "18 11 1 1"
}

@test "wp-report: lost events, truncation and partial coverage make counts a lower bound" {
	check report-lower --samples 4
	assert_equal "$RSTATUS" 0
	run jq -c '[.counts_are_lower_bound, .lower_bound_reasons]' <<< "$(wp-report --json "$DATA/report-lower.in.ndjson")"
	assert_output '[true,["lost_events","truncated_by_max_events","partial_thread_coverage"]]'
}

# edited NAME SED: tests/data/NAME.in.ndjson edited by SED, in $IN;
# reasons: the lower-bound reasons of $IN's report
edited() {
	IN=$BATS_TEST_TMPDIR/in.ndjson
	sed "$2" "$DATA/$1.in.ndjson" > "$IN"
}
reasons() {
	jq -c '.lower_bound_reasons' <<< "$(wp-report --json "$IN")"
}

@test "wp-report: a --follow chain's rebind window is its own lower-bound reason, not the threads'" {
	# the window alone: no thread went unwatched
	edited report-lower 's/"threads_attached_late"/"follow_rebind_window"/; s/"dynamically_attached_tids":1/"dynamically_attached_tids":0/'
	assert_equal "$(reasons)" '["lost_events","truncated_by_max_events","follow_rebind_window"]'
	run --separate-stderr wp-report "$IN"
	assert_line 'note     counts are a lower bound: lost_events, truncated_by_max_events, follow_rebind_window'
	# both
	edited report-lower 's/"threads_attached_late"/"threads_attached_late","follow_rebind_window"/'
	assert_equal "$(reasons)" '["lost_events","truncated_by_max_events","partial_thread_coverage","follow_rebind_window"]'
}

@test "wp-report: a page given back to a system call while other threads ran is its own lower-bound reason, not the threads' (was: partial_thread_coverage, every thread watched)" {
	edited report-lower 's/"threads_attached_late"/"page_windows_shared"/; s/"dynamically_attached_tids":1/"dynamically_attached_tids":0/'
	assert_equal "$(reasons)" '["lost_events","truncated_by_max_events","page_windows_shared"]'
	run --separate-stderr wp-report "$IN"
	assert_line 'note     counts are a lower bound: lost_events, truncated_by_max_events, page_windows_shared'
	run --separate-stderr wp-report --html "$BATS_TEST_TMPDIR/r.html" "$IN"
	grep -q 'a watched page was given back to a system call while other threads could run' "$BATS_TEST_TMPDIR/r.html" ||
		fail "the page does not say why"
}

@test "wp-report: a watch whose breakpoints may have gone quiet says its count is unknown, not 0" {
	edited report-basic '/"type":"observation"/{s/"partial_coverage":false,"partial_coverage_reasons":\[\]/"partial_coverage":true,"partial_coverage_reasons":["breakpoints_quiet"]/; s/"counts_are_lower_bound":false/"counts_are_lower_bound":true/; s/{"id":0,"hits":11,/{"id":0,"hits":11,"counted":11,/; s/{"id":1,"hits":0,/{"id":1,"hits":0,"counted":null,/}'
	assert_equal "$(reasons)" '["breakpoints_quiet"]'
	run jq -c '.watches | map(.counted)' <<< "$(wp-report --json "$IN")"
	assert_output '[11,null]'
	run --separate-stderr wp-report "$IN"
	assert_success
	assert_line 'note     counts are a lower bound: breakpoints_quiet'
	assert_line '  0 hits (lower bound)  initial 0x3  latest 0x3'
	assert_line '  count unknown: the breakpoints may have gone quiet: another breakpoint was on these threads,'
	assert_line "  and on this machine a second breakpoint on an address does not fire (an emulator's limit)"
	assert_equal "$(grep -c 'count unknown' <<< "$output")" 1
}

@test "wp-report: a ptrace watch that stepped a few instructions is not said to have not run" {
	local steps
	for steps in 972 0; do
		edited report-names "/\"type\":\"observation\"/s/\"ptrace\":{\"steps\":2061725,/\"ptrace\":{\"steps\":$steps,\"native_run_us\":0,\"blocked_us\":0,\"native_instructions_per_second\":2000000000,/"
		run --separate-stderr wp-report "$IN"
		[ "$steps" = 0 ] && break
		assert_line --regexp '^estimate under 1 us of the target.s native run time in [0-9.]+ s: 972 instructions stepped$'
		refute_output --partial 'it did not run'
	done
	assert_line --regexp '^estimate none of the target.s native run time in [0-9.]+ s: it did not run$'
}

@test "wp-report: a stream without an observation still reports, marked incomplete (status 3)" {
	check report-incomplete --samples 4
	assert_equal "$RSTATUS" 3
	assert_equal "$stderr" "wp-report: $DATA/report-incomplete.in.ndjson: the stream ended without an observation record; the report is incomplete"
}

@test "wp-report: --samples 0 keeps no samples; all samples when fewer than N" {
	run jq -r '.watches[0] | "\(.samples | length) \(.samples_truncated)"' <<< "$(wp-report --json --samples 0 "$DATA/report-basic.in.ndjson")"
	assert_output "0 true"
	run jq -r '.watches[0] | "\(.samples | length) \(.samples_truncated)"' <<< "$(wp-report --json --samples 100 "$DATA/report-basic.in.ndjson")"
	assert_output "11 false"
}

@test "wp-report: malformed lines are named and counted, the report still written (status 2)" {
	sed '5a{"type":"hit",' "$DATA/report-basic.in.ndjson" > "$BATS_TEST_TMPDIR/bad.ndjson"
	run --separate-stderr wp-report --json < "$BATS_TEST_TMPDIR/bad.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-report: stdin: line 6: invalid JSON at byte 15: truncated"
	run jq -c '[.watches[0].accepted_hits, .stream.malformed_lines, .counts_are_lower_bound, .lower_bound_reasons]' <<< "$output"
	assert_output '[11,1,true,["malformed_input_lines"]]'
}

@test "wp-report, wp-decode: a hit of no target, one without its required members, a store_len no target has: each line named (status 2)" {
	local h='"pid":4242,"tid":4242,"cpu":0,"time_ns":1000,"ip":"0x555555555186"' f=$BATS_TEST_TMPDIR/bad.ndjson
	sed -e "5a{\"type\":\"hit\",\"target\":999999,$h}" \
		-e "5a{\"type\":\"hit\",\"target\":-1,$h}" \
		-e '5a{"type":"hit"}' \
		-e "5a{\"type\":\"hit\",\"target\":0,$h,\"store_addr\":\"0x555555558040\",\"store_len\":4294967296}" \
		-e "5a{\"type\":\"hit\",\"target\":0,$h,\"store_addr\":\"0x555555558040\",\"store_len\":-8}" \
		"$DATA/report-basic.in.ndjson" > "$f"
	local why="line 6: hit.target 999999: no target or follow record of that id before it
line 7: hit.target -1: no target or follow record of that id before it
line 8: hit.target is missing
line 9: hit.store_len 4294967296: not a length within a target (1 to 1048576)
line 10: hit.store_len -8: not a length within a target (1 to 1048576)"
	run --separate-stderr wp-report --json < "$f"
	assert_failure 2
	assert_equal "$stderr" "$(sed 's/^/wp-report: stdin: /' <<< "$why")"
	run jq -c '[.watches[0].accepted_hits, .stream.hits_of_unknown_targets, .stream.malformed_lines]' <<< "$output"
	assert_output '[11,0,5]'
	run --separate-stderr wp-decode "$f"
	assert_failure 2
	assert_equal "$stderr" "$(sed "s|^|wp-decode: $f: |" <<< "$why")"
	assert_equal "$(jq -s 'map(select(.type == "hit")) | length' <<< "$output")" 11
	run --separate-stderr wp report --json "$f"
	assert_failure 2
	assert_equal "$stderr" "$(sed "s|^|wp-decode: $f: |" <<< "$why")"
}

@test "wp-report: usage errors (status 64)" {
	run --separate-stderr wp-report --samples x
	assert_failure 64
	assert_equal "$stderr" "wp-report: --samples x: not a count (0 to 1000000)"
	run --separate-stderr wp-report a b
	assert_failure 64
}

@test "wp-report --progress: a live line on a terminal, nothing when stderr is not one" {
	command -v script > /dev/null || skip "script(1) (util-linux) is not installed"
	local f=$DATA/report-basic.in.ndjson
	run script -qec "(head -n 8 '$f'; sleep 0.7; tail -n +9 '$f') | '$WP_BUILD/wp-report' --progress > /dev/null" /dev/null
	assert_success
	assert_output --regexp 'wp: watching 0\.[0-9] s, 3 hits'
	run --separate-stderr wp-report --progress "$f"
	assert_success
	assert_equal "$stderr" ""
}

@test "wp-report: in-kernel tallies give every writer's and thread's count; samples are examples" {
	check report-tally --samples 4
	assert_equal "$RSTATUS" 0
	# the latest tally of each writer and thread holds (they are cumulative)
	run jq -c '.watches[0] | [.writer_counts, .counted, .tallied_hits, .accepted_hits, (.writer_sites | map(.hits)), (.threads | map([.tid, .hits]))]' <<< "$(wp-report --json "$DATA/report-tally.in.ndjson")"
	assert_output '["tallied",607,607,3,[600,7],[[4242,400],[4243,207]]]'
	run jq -c '[.counts_are_lower_bound, .lower_bound_reasons]' <<< "$(wp-report --json "$DATA/report-tally.in.ndjson")"
	assert_output '[false,[]]'
}

@test "wp-report: of a follow's bindings, the first 1024 and the latest 1024 are kept" {
	{
		echo '{"type":"session","schema_version":1,"pid":1,"start_time":1,"modules":[],"mappings":[]}'
		echo '{"type":"follow","id":0,"input":"p+8","slot_addr":"0x1000","offsets":["0x8"],"len":4,"access":"w","slots":2,"chain":[],"binding":"null_pointer","leaf_addr":null}'
		jq -nc 'range(1; 3001) | {type: "rebind", target: 0, generation: ., binding: "bound", old_leaf: null, new_leaf: "0x\(. * 16 + 65536)", pointers: ["0x1000"], time_ns: ., rearm_ns: null, held: false, missed_in_window: null}'
		echo '{"type":"observation","stop_reason":"duration","targets":[],"follows":[{"id":0,"rebinds":3000}]}'
	} > "$BATS_TEST_TMPDIR/binds.ndjson"
	run jq -c '.dependent_watches[0] | [(.bindings | length), .bindings[0].generation, .bindings[1023].generation, .bindings[1024].generation, .bindings[-1].generation, .bindings_truncated]' <<< "$(wp-report --json "$BATS_TEST_TMPDIR/binds.ndjson")"
	assert_output '[2048,1,1024,1977,3000,true]'
}

# The caveat beside a watch's initial and latest values where the
# backend could not hold the threads to read them.
SNAPSHOT_CAVEAT='  values read as the threads ran, apart from the hits: latest - initial need not be the count'

@test "wp-report: where the backend could not hold the threads (bpf, perf) the table says so beside initial and latest; ptrace and page read them held" {
	# bpf: right under the values, in the table as in the JSON
	run --separate-stderr wp-report "$DATA/report-tally.in.ndjson"
	assert_line --index 5 "  initial 0x0  latest 0x136  changed"
	assert_line --index 6 "$SNAPSHOT_CAVEAT"
	run jq -r '.watches[0].snapshot_caveat' <<< "$(wp-report --json "$DATA/report-tally.in.ndjson")"
	assert_output "${SNAPSHOT_CAVEAT#  }"
	# perf, each target
	run --separate-stderr wp-report "$DATA/report-basic.in.ndjson"
	assert_equal "$(grep -cxF -- "$SNAPSHOT_CAVEAT" <<< "$output")" 2
	# ptrace and page: read with every thread held, no caveat
	for b in ptrace_singlestep page_protect; do
		edited report-names "s/\"ptrace_singlestep\"/\"$b\"/g"
		run --separate-stderr wp-report "$IN"
		assert_line "  initial 0x0  latest 0x9  changed"
		refute_line --partial "values read as the threads ran"
		run jq -c '.watches[0].snapshot_caveat' <<< "$(wp-report --json "$IN")"
		assert_output null
	done
}

@test "wp-report: writers without a symbol are module+0xOFF, threads named, the ptrace pace and forks" {
	check report-names
	assert_equal "$RSTATUS" 0
	assert_contract "$DATA/report-names.in.ndjson"
	run wp-report "$DATA/report-names.in.ndjson"
	# the offset in the module, in the writers and the samples alike
	assert_line --regexp '^ +2  exact +libpython3\.12\.so\.1\.0\+0x73688 +- +add '
	assert_line --regexp '^ +5150 python3\.12 +4\.000  libpython3\.12\.so\.1\.0\+0x73688 +0x4$'
	assert_line "  threads: 5150 python3.12 (4) 5151 asyncio_0 (2) 5152 python3.12 (2) 5170 (1)"
	assert_line --regexp '^ +5170 - +8\.000  libpython'
	assert_line --index 3 "ptrace   412262 steps/s: the target ran one instruction a step, one thread at a time"
	assert_line --index 4 "note     forked children were not followed: 2"
	run jq -c '.watches[0] | [(.threads | map([.tid, .comm])), (.samples | map(.comm) | unique)]' <<< "$(wp-report --json "$DATA/report-names.in.ndjson")"
	assert_output '[[[5150,"python3.12"],[5151,"asyncio_0"],[5152,"python3.12"],[5170,null]],[null,"asyncio_0","python3.12"]]'
}

# cells FIELD: the WRITER cells of the table in $output, writers then
# samples (their FIELDth field).
cells() {
	awk -v k="$1" '/^  writers:/ || /^  samples:/ { t = $1; getline; next }
		/^  threads:/ { t = "" }
		t == "writers:" { print "w", $3 } t == "samples:" { print "s", $k }' <<< "$output"
}

@test "wp-report: the table takes \$COLUMNS; long names are cut in the middle, apart, their offsets whole" {
	local c w
	for c in 80 120 200; do
		COLUMNS=$c run --separate-stderr wp-report "$DATA/report-names.in.ndjson"
		assert_success
		awk -v c="$c" 'length > c { print "line " NR " is " length " columns"; bad = 1 } END { exit bad }' <<< "$output" ||
			fail "a line wider than $c"
		w=$(cells 4)
		assert_equal "$(grep -c '^w ' <<< "$w")" 4
		assert_equal "$(grep '^w ' <<< "$w" | sort -u | wc -l)" 4
		assert_equal "$(grep '^w ' <<< "$w" | sed 's/.*+//' | tr '\n' ' ')" "0x1a2 0x73688 0x3c 0x1f4e "
		assert_equal "$(grep '^s ' <<< "$w" | sort -u | wc -l)" 4
		assert_equal "$(grep '^s ' <<< "$w" | sed 's/.*+//' | sort -u | tr '\n' ' ')" "0x1a2 0x1f4e 0x3c 0x73688 "
		[ "$c" = 200 ] || grep -q '^w _PyEval.*~.*+0x1a2$' <<< "$w" || fail "not cut in the middle at $c"
	done
	assert_line --regexp '^ +4  exact +_PyEval_EvalFrameDefault_specialized_store_attr_instance_value\+0x1a2 +generated_cases\.c\.h:1234 +mov '
	# names that differ only in their middle get the room to show it
	sed -e 's/_PyEval_EvalFrameDefault_specialized_store_attr_instance_value/aaaaaaaaaaaaaaaaaaaaaaaa_alpha_zzzzzzzzzzzzzzzzzz/g' \
	    -e 's/_PyEval_EvalFrameDefault_specialized_store_attr_with_hint+0x3c/aaaaaaaaaaaaaaaaaaaaaaaa_bravo_zzzzzzzzzzzzzzzzzz+0x1a2/g' \
	    "$DATA/report-names.in.ndjson" > "$BATS_TEST_TMPDIR/middle.ndjson"
	COLUMNS=100 run wp-report "$BATS_TEST_TMPDIR/middle.ndjson"
	w=$(cells 4)
	assert_equal "$(grep '^w a' <<< "$w" | sort -u | wc -l)" 2
	assert_equal "$(grep '^s a' <<< "$w" | sort -u | wc -l)" 2
	# not numeric: not a width; into a pipe, nothing is cut
	COLUMNS=wide run wp-report "$DATA/report-names.in.ndjson"
	diff -u "$DATA/report-names.piped.txt" <(printf '%s\n' "$output")
	COLUMNS= run wp-report "$DATA/report-names.in.ndjson"
	diff -u "$DATA/report-names.piped.txt" <(printf '%s\n' "$output")
	refute_output --partial '~'
}

@test "wp-report: a target's header is never cut: what does not fit the width goes on the next line" {
	COLUMNS=80 run --separate-stderr wp-report "$DATA/report-names.in.ndjson"
	assert_success
	assert_line 'target 0  libpython3.12.so.1.0:_PyRuntime+0x40  0x7f3a105a0040'
	assert_line '          (static 0x5a0040 in libpython3.12.so.1.0)  rw-p  8 bytes  w'
	COLUMNS=50 run --separate-stderr wp-report "$DATA/report-names.in.ndjson"
	assert_line '          (static 0x5a0040 in libpython3.12.so.1.0)'
	assert_line '          rw-p  8 bytes  w'
}

@test "wp-report: on a terminal, the table is as wide as the terminal" {
	command -v script > /dev/null || skip "script(1) (util-linux) is not installed"
	run env -u COLUMNS script -qec "stty cols 132; '$WP_BUILD/wp-report' '$DATA/report-names.in.ndjson'" /dev/null
	assert_success
	output=${output//$'\r'/}
	awk 'length > 132 { bad = 1 } length > 100 { wide = 1 } END { exit bad || !wide }' <<< "$output" ||
		fail "not 132 columns wide: $output"
}

@test "wp-report | head: a reader that closed the pipe ends wp-report and wp report quietly with status 1" {
	local f=$DATA/report-basic.in.ndjson fifo=$BATS_TEST_TMPDIR/fifo
	# the reader is gone before the report is written (the input comes
	# a second later): status 1, as documented, not 141 (SIGPIPE)
	run bash -c '{ sleep 1; cat "$1"; } | wp-report 2> "$2" | true; echo "${PIPESTATUS[1]}"' _ "$f" "$BATS_TEST_TMPDIR/err"
	assert_output 1
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
	mkfifo "$fifo"
	run bash -c '{ sleep 1; cat "$1" > "$2"; } & wp report "$2" 2> "$3" | true; echo "${PIPESTATUS[0]}"; wait' _ "$f" "$fifo" "$BATS_TEST_TMPDIR/err"
	assert_output 1
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
}

@test "wp-report: with -a rw, accesses are split into reads and writes; spurious hits are counted apart, not as writers" {
	check report-spurious
	assert_equal "$RSTATUS" 0
	assert_contract "$DATA/report-spurious.in.ndjson"
	run wp-report "$DATA/report-spurious.in.ndjson"
	assert_line "  5 accesses counted by the kernel; 3 attributed to a writer (1 reads, 2 writes)"
	assert_line "  spurious 2: hits whose instruction accessed elsewhere, not among the writers"
	refute_output --partial "set_b"
	run jq -c '.watches[0] | [.counted, .accepted_hits, .read_hits, .write_hits, .spurious_hits, (.writer_sites | map(.hits))]' <<< "$(wp-report --json "$DATA/report-spurious.in.ndjson")"
	assert_output '[5,3,1,2,2,[2,1]]'
	# a write-only watch keeps its word
	run wp-report "$DATA/report-names.in.ndjson"
	assert_line --regexp '^  9 writes counted by single-stepping; 9 attributed to a writer'
}

@test "wp-report: samples are shown in time order, however the stream had them (perf drains a CPU's ring at a time)" {
	# the hits of two CPUs' rings, one ring after the other
	{ grep -v '"type":"hit"' "$DATA/report-basic.in.ndjson" | grep -v '"type":"observation"'
	  grep '"type":"hit"' "$DATA/report-basic.in.ndjson" | tac
	  grep '"type":"observation"' "$DATA/report-basic.in.ndjson"; } > "$BATS_TEST_TMPDIR/unordered.ndjson"
	run --separate-stderr wp-report --samples 16 "$BATS_TEST_TMPDIR/unordered.ndjson"
	assert_success
	run awk '/^  samples:/ { s = 1; next } s && /^ +[0-9]+ +[0-9.]+ / { print $2 } /^$/ { s = 0 }' <<< "$output"
	assert_output "$(printf '%s\n' 1.000 2.000 3.000 4.000 5.000 6.000 7.000 8.000 9.000 10.000 11.000)"
}

@test "wp-report: a reason shared by every unknown value is said once, not in every row" {
	run --separate-stderr wp-report --samples 16 "$DATA/report-basic.in.ndjson"
	assert_success
	assert_equal "$(grep -c 'read-modify-write' <<< "$output")" 1
	assert_line '  values unknown: read-modify-write'
	assert_line --regexp '^ +4242 +1\.000  pick_coin\+0x0 +unknown$'
}

@test "wp-report: a vDSO function is marked [vdso]:, not taken for libc's of the same name" {
	sed '/new_level/ { s|"module":"/opt/game/bin/game"|"module":"[vdso]"|; s|"symbol":"new_level+0x0"|"symbol":"clock_gettime+0x0"| }' \
	    "$DATA/report-basic.in.ndjson" > "$BATS_TEST_TMPDIR/vdso.ndjson"
	run --separate-stderr wp-report --samples 16 "$BATS_TEST_TMPDIR/vdso.ndjson"
	assert_success
	assert_line --regexp '^ +3  high +\[vdso\]:clock_gettime\+0x0 +game\.c:29 +mov '
	assert_line --regexp '^ +4242 +9\.000  \[vdso\]:clock_gettime\+0x0 +0x0$'
	refute_line --regexp ' clock_gettime'
}

@test "wp-report: a value that changed with 0 writes counted says why (a system call or another process)" {
	sed '/"type":"observation"/ s|{"id":1,"hits":0,"latest_value":"0x3"}|{"id":1,"hits":0,"counted":0,"lost":0,"latest_value":"0x2"}|' \
	    "$DATA/report-basic.in.ndjson" > "$BATS_TEST_TMPDIR/changed.ndjson"
	run --separate-stderr wp-report "$BATS_TEST_TMPDIR/changed.ndjson"
	assert_success
	assert_line '  0 writes counted by the kernel; 0 attributed to a writer'
	assert_line '  initial 0x3  latest 0x2  changed'
	assert_line '  changed, no write counted: a system call or another process wrote it (--backend ptrace sees calls)'
	# the ptrace backend sees system calls: only another process is left
	# (its observation's own object says so, not its name)
	sed -e 's/"perf_breakpoint"/"ptrace_singlestep"/g' \
	    -e '/"type":"observation"/ s|^{|{"ptrace":{"steps":2061725,"steps_per_second":412262,"unexplained_changes":0,"kernel_writes":0,"signals_passed":0},|' \
	    "$BATS_TEST_TMPDIR/changed.ndjson" > "$BATS_TEST_TMPDIR/changed-p.ndjson"
	run --separate-stderr wp-report "$BATS_TEST_TMPDIR/changed-p.ndjson"
	assert_line '  changed, no write counted: another process wrote it (shared memory)'
	# unchanged, or written: nothing to explain
	run --separate-stderr wp-report "$DATA/report-basic.in.ndjson"
	refute_output --partial 'no write counted'
}

@test "wp-report: frame-pointer chains that come back with no callers (Debian's code keeps none) say once to try --callchain dwarf" {
	edited report-basic 's/"type":"hit",/"type":"hit","callchain":[],"callchain_status":"frame_pointers",/'
	run --separate-stderr wp-report "$IN"
	assert_success
	assert_equal "$(grep -c '^ *[0-9]*  \[frame_pointers\] no callers$' <<< "$output")" 3
	assert_equal "$(grep -c -- '--callchain dwarf' <<< "$output")" 1
	assert_equal "$(tail -n 2 <<< "$output")" "note     no callers: the frame pointers ended at the writer (code built without them,
         as Debian's is); --callchain dwarf unwinds with the modules' call frame information"
	# the JSON report says it too, once, on one line
	run --separate-stderr wp-report --json "$IN"
	assert_success
	assert_equal "$(jq -c .notes <<< "$output")" '[{"note":"no_callers","text":"no callers: the frame pointers ended at the writer (code built without them, as Debian'"'"'s is); --callchain dwarf unwinds with the modules'"'"' call frame information"}]'
	# a chain with its callers says nothing of it
	edited report-basic 's/"type":"hit",/"type":"hit","callchain":["0x555555555190"],"callchain_status":"frame_pointers",/'
	run --separate-stderr wp-report "$IN"
	assert_success
	refute_output --partial "--callchain dwarf"
	run --separate-stderr wp-report --json "$IN"
	assert_equal "$(jq -c .notes <<< "$output")" '[]'
}

@test "wp-report: --stop's write, and whether the process stopped there, ran on or ended first (stopped_at.process)" {
	local p
	for p in stopped ended running; do
		{
			echo '{"type":"session","schema_version":1,"pid":4242,"start_time":1,"modules":[],"mappings":[]}'
			echo '{"type":"observation","stop_reason":"stopped_at_match","targets":[],"stopped_at":{"tid":4243,"writer_ip":"0x401000","ip":"0x401007","core":null,"process":"'"$p"'"}}'
		} > "$BATS_TEST_TMPDIR/$p.ndjson"
		run --separate-stderr wp-report "$BATS_TEST_TMPDIR/$p.ndjson"
		assert_success
		assert_line "stopped  at the first match: thread 4243, writer 0x401000, next instruction 0x401007"
		case $p in
		stopped) assert_line "         the process was left stopped: gdb -p 4242" ;;
		ended)
			assert_line "         but the process ended before it stopped: there is nothing to attach to"
			refute_line --partial "gdb -p" ;;
		running)
			assert_line "         but the process did not stop: it ran on"
			refute_line --partial "gdb -p" ;;
		esac
	done
}

@test "wp-report: one instruction is one writer, wherever it trapped (a rep string instruction traps at itself between iterations)" {
	# two of pick_coin's five hits trapped at the writer itself
	edited report-basic '/"time_ns":[12]000000,/ s/"ip":"0x555555555186"/"ip":"0x555555555180"/; /"time_ns":[12]000000,/ s/"trap_ip":"0x555555555186","trap_static_ip":"0x1186"/"trap_ip":"0x555555555180","trap_static_ip":"0x1180"/'
	[ "$(grep -c '"ip":"0x555555555180"' "$IN")" -eq 2 ] || fail "the stream was not edited"
	run --separate-stderr wp-report "$IN"
	assert_success
	assert_line --regexp '^ +5  high +pick_coin\+0x0 +game\.c:17 +add dword ptr'
	assert_line '  writers: 3'
	run --separate-stderr wp-report --json "$IN"
	assert_equal "$(jq -c '[.watches[0].writer_sites[] | [.writer_symbol, .hits]]' <<< "$output")" \
		'[["pick_coin+0x0",5],["hit_enemy+0xd",3],["new_level+0x0",3]]'
	# on the page, one lane
	run --separate-stderr wp-report --html "$BATS_TEST_TMPDIR/p.html" "$IN"
	assert_equal "$(grep -o '<g class="lane" data-lane="writer"[^>]*data-hits="[0-9]*"' "$BATS_TEST_TMPDIR/p.html" | grep -o 'data-hits="[0-9]*"' | tr '\n' ' ')" \
		'data-hits="5" data-hits="3" data-hits="3" '
}

@test "wp-report --json: lost updates (a non-atomic += on two threads, seen by the page backend) are in the document as in the table and on the page" {
	# tests/targets/lost-update -n 4 (its total 4003 of 4004 added),
	# watched with --backend page: 8 writes, steps of 1 and 1000, one lost
	run --separate-stderr wp-report --json "$DATA/report-lost.in.ndjson"
	assert_success
	run jq -c '.watches | map(.lost_updates)' <<< "$output"
	assert_output '[[{"offset":"0x0","len":8,"since":"initial_value","moved":4003,"writes":8,"writes_add_up_to":4004,"lost":1}]]'
	run --separate-stderr wp-report "$DATA/report-lost.in.ndjson"
	assert_line "  lost updates: the value moved by 4003, but the 8 writes, each the step most of its"
	wp-report --html "$BATS_TEST_TMPDIR/page.html" "$DATA/report-lost.in.ndjson" > /dev/null
	run grep -c '<p class="lost">Lost updates: the value moved by 4003, but the 8 writes' "$BATS_TEST_TMPDIR/page.html"
	assert_output 1
	# the struct (lost-update -s -n 4, wpt_acct -l 16): its total at +0x8
	# from its first write; the rounds at +0x0 lost nothing
	run --separate-stderr wp-report --json "$DATA/report-lost-field.in.ndjson"
	assert_success
	run jq -c '.watches | map(.lost_updates)' <<< "$output"
	assert_output '[[{"offset":"0x8","len":8,"since":"first_write","moved":4002,"writes":7,"writes_add_up_to":4003,"lost":1}]]'
	# writes that add up: an empty list; a kernel's count (no tracer saw
	# each write's value): null, not told
	edited report-lost 's/0xfa3/0xfa4/g; s/a30f000000000000/a40f000000000000/g; s/0xbbb/0xbbc/g; s/bb0b000000000000/bc0b000000000000/g'
	assert_equal "$(wp-report --json "$IN" | jq -c '.watches | map(.lost_updates)')" '[[]]'
	assert_equal "$(wp-report --json "$DATA/report-basic.in.ndjson" | jq -c '.watches | map(.lost_updates) | unique')" '[null]'
}
