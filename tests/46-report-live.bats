#!/usr/bin/env bats
# The live view (wp-report --live, wp watch): on a pseudo-terminal
# (script(1)) a table redrawn in place every interval, cut to the
# terminal's size, erased before the report; a line per interval where
# standard error is not a terminal.

load helpers

setup() {
	command -v script > /dev/null || skip "script(1) (util-linux) is not installed"
}

# frames: the frames of the table in $output, each after a line
# "--frame--", the escapes that move and clear taken out.
frames() {
	sed 's/\x1b\[[0-9]*A//g; s/\x1b\[J/\n--frame--\n/g' <<< "$output" |
		tr -d '\r' | awk '/^--frame--$/ { t = 0; print; next } /^wp: watching/ { t = 1 } t'
}

# after_erase TEXT: after the table's last erase, TEXT is the report,
# its first line "process  pid ...", and no escape of the terminal's.
after_erase() {
	local rest
	rest=$(sed 's/.*\x1b\[J\r//' <<< "$1" | sed -n '/^process  pid /,$p')
	[ -n "$rest" ] || fail "no report after the table"
	run grep -c $'\x1b' <<< "$rest"
	assert_output 0
}

# counts: the hits of target 0 in each frame, one a line, a frame
# drawn again with no hit since (a slow feed under load) said once.
counts() {
	frames | sed -nE 's/^  target 0 .*  ([0-9]+) hits  .*/\1/p' | uniq
}

# frame K: the lines of the Kth frame drawn (the erase before the
# report draws none); K -1 the last, -2 the one before.
frame() {
	frames | awk -v k="$1" '/^--frame--$/ { if (f != "") v[++n] = f; f = ""; next }
	    { f = f $0 "\n" }
	    END { if (f != "") v[++n] = f; printf "%s", v[k < 0 ? n + 1 + k : k] }'
}

# feed: the fixture report-basic, its hits in three parts a second apart.
FEED="f=$DATA/report-basic.in.ndjson; head -n 4 \$f; sleep 0.3; sed -n 5,8p \$f; sleep 1.2; sed -n 9,12p \$f; sleep 1.2; tail -n +13 \$f"

@test "wp-report --live on a terminal: counts grow between frames, the last as the report's, then erased" {
	run script -qec "stty cols 100 rows 40; ($FEED) | '$WP_BUILD/wp-report' --live --interval 1s" /dev/null
	assert_success
	# a frame at arming, one a second, one at the end: 0, 3, 6, 11 hits
	assert_equal "$(counts | tr '\n' ' ')" "0 3 6 11 "
	# the last frame's writers are the report's, and it says the lane's rate
	assert_equal "$(frame -1 | sed -nE 's/^ +([0-9]+)  ([a-z_]+\+0x[0-9a-f]+) .*/\2 \1/p')" \
		"$(wp-report --json "$DATA/report-basic.in.ndjson" | jq -r '.watches[0].writer_sites[] | "\(.writer_symbol) \(.hits)"')"
	frames | grep -qE '^  target 1 lives  0 hits  0/s  latest 0x3$|^  target 1 lives  0 hits  0/s  latest -$'
	# erased, then the report, with nothing of the terminal's after it
	assert_equal "$(grep -c $'\x1b\\[J\rprocess  pid 4242  game' <<< "$output")" 1
	after_erase "$output"
}

@test "wp-report --live on a terminal: a resize cuts the next frames to the new width" {
	local feed="f=$DATA/report-basic.in.ndjson; head -n 4 \$f; sleep 0.3; sed -n 5,8p \$f; sleep 1.2; stty cols 30; sed -n 9,12p \$f; sleep 1.2; tail -n +13 \$f"
	run script -qec "stty cols 100 rows 40; ($feed) | '$WP_BUILD/wp-report' --live --interval 1s > /dev/null" /dev/null
	assert_success
	# the first two frames at 100 columns, the last two at 30: lines
	# cut to 29 (a slow feed may draw a frame more between)
	local f
	for f in 1 2; do
		[ "$(frame $f | awk '{ if (length > m) m = length } END { print m }')" -gt 29 ] ||
			fail "frame $f is not wider than 29 columns"
	done
	for f in -2 -1; do
		assert_equal "$(frame $f | awk '{ if (length > m) m = length } END { print m }')" 29
	done
}

# live_states FIRST SECOND: $stderr's interval lines are FIRST, then the
# state SECOND (rates left out): a loaded host may draw a line more
# between the feed's last records and its end, at a lower rate
live_states() {
	run sed -E 's/^wp: [0-9]+\.[0-9] s: //' <<< "$stderr"
	assert_line --index 0 "$1"
	run bash -c "sed -E 's/^wp: [0-9]+\\.[0-9] s: //; s/  [0-9]+\\/s//g' | sed 1d | uniq" <<< "$stderr"
	assert_output "$2"
}

@test "wp-report --live where standard error is not a terminal: a line per interval" {
	run --separate-stderr bash -c "($FEED) | wp-report --live --interval 1s"
	assert_success
	assert_line --index 0 "process  pid 4242  game  start 123456  binary not_checked  slide 0x555555554000"
	# at 1 s and 2 s: 3 then 6 hits of target 0, none of target 1
	live_states "target 0 score  3 hits  3/s  latest -; target 1 lives  0 hits  0/s  latest -" \
	    "target 0 score  6 hits  latest 0x6e; target 1 lives  0 hits  latest -"
	run --separate-stderr wp-report --live=fast "$DATA/report-basic.in.ndjson"
	assert_failure 64
	assert_equal "$stderr" "wp-report: --live=fast: not table or lines"
}

@test "wp-report --live with --if: a target no write matched yet says so, not -; a hit without a value is still -" {
	sed 's/"type":"armed",/"type":"armed","condition":"value == 110","condition_where":"wp-arm",/' \
	    "$DATA/report-basic.in.ndjson" > "$BATS_TEST_TMPDIR/cond.ndjson"
	local feed="f=$BATS_TEST_TMPDIR/cond.ndjson; head -n 4 \$f; sleep 0.3; sed -n 5,8p \$f; sleep 1.2; sed -n 9,12p \$f; sleep 1.2; tail -n +13 \$f"
	run --separate-stderr bash -c "($feed) | wp-report --live --interval 1s"
	assert_success
	live_states "target 0 score  3 hits  3/s  latest -; target 1 lives  0 hits  0/s  latest none matched" \
	    "target 0 score  6 hits  latest 0x6e; target 1 lives  0 hits  latest none matched"
}

@test "wp watch on a terminal: the live table until Ctrl-C, then the report and a clean terminal" {
	"$WP_BUILD/wp-demo" > "$BATS_TEST_TMPDIR/demo.out" &
	WP_TARGET_PIDS+=("$!")
	local pid=$! i pidf=$BATS_TEST_TMPDIR/wp.pid save=$BATS_TEST_TMPDIR/raw.ndjson s
	for i in $(seq 100); do
		[ -s "$BATS_TEST_TMPDIR/demo.out" ] && break
		sleep 0.05
	done
	env --default-signal=INT timeout 60 script -qfec "stty cols 100 rows 40; echo \$\$ > '$pidf'; exec wp watch --save '$save' -d inf $pid score" /dev/null > "$BATS_TEST_TMPDIR/tty" 2>&1 &
	s=$!
	wait_armed "$save" "$s"
	sleep 3.5
	kill -INT "$(cat "$pidf")"
	wait "$s"
	run cat "$BATS_TEST_TMPDIR/tty"
	# the game writes its score all the time: each frame counts more
	local c
	c=$(counts)
	[ "$(wc -l <<< "$c")" -ge 4 ] || fail "too few frames: $c"
	assert_equal "$(sort -n <<< "$c")" "$c"
	assert_equal "$(head -n 4 <<< "$c" | sort -n -u)" "$(head -n 4 <<< "$c")"
	frames | grep -qE '^ +[0-9]+  pick_coin\+0x9 +wp-demo\.c:18$' || fail "no pick_coin row"
	# the last frame, drawn at the end, counts what the report does: the
	# writes attributed to a writer (bpf: tallied by writer, in the kernel)
	assert_line --regexp "^  [0-9]+ writes counted by [a-z -]+; $(tail -n 1 <<< "$c") (attributed to a writer|tallied by writer in the kernel)"
	assert_line --regexp '^watch +[a-z_]+  [0-9]+/inf ms  stop signal SIGINT  lost 0'
	after_erase "$output"
}

@test "wp-report --live: names from the stream reach the terminal without their control characters" {
	local s=$BATS_TEST_TMPDIR/hostile.ndjson
	sed -e 's|"symbol":"pick_coin+0x0"|"symbol":"evil\\u001b[2J\\u001b]0;owned\\u0007"|' \
	    -e 's|"input":"score"|"input":"score\\u001b[31m"|' "$DATA/report-basic.in.ndjson" > "$s"
	run script -qec "stty cols 100 rows 40; (head -n 8 '$s'; sleep 1.2; tail -n +9 '$s') | '$WP_BUILD/wp-report' --live --interval 1s > /dev/null" /dev/null
	assert_success
	frames | grep -qF '  target 0 score?[31m  ' || fail "no target line: $(frames)"
	frames | grep -qF '  evil?[2J?]0;owned?' || fail "no writer line: $(frames)"
	run grep -c $'\x1b\\[2J\|\x1b\\]0\|\x1b\\[31m' <<< "$output"
	assert_output 0
}

@test "wp-report --live on a terminal: the header's hits are the targets' as their lines count them, tallies too (was: the hit records read, 3 above rows of 100 and 50)" {
	local feed="f=$DATA/report-tally.in.ndjson; head -n 6 \$f; sleep 1.3; sed -n 7,9p \$f; sleep 1.2; tail -n +10 \$f"
	run script -qec "stty cols 100 rows 40; ($feed) | '$WP_BUILD/wp-report' --live --interval 1s" /dev/null
	assert_success
	# each frame: its header's hits, then the sum of its targets' lines
	run awk '/^--frame--$/ { if (h != "") print h, s; h = ""; s = 0; next }
	    /^wp: watching/ { h = $(NF - 1) } /^  target / { for (i = 1; i < NF; i++) if ($(i + 1) == "hits") s += $i }
	    END { if (h != "") print h, s }' <<< "$(frames)"
	# (the frame at arming may come before or after the first hits)
	local sums=$output
	assert_equal "$(awk '$1 != $2' <<< "$sums")" ""
	assert_equal "$(sed -n '/^150 /p; $p' <<< "$sums")" "150 150
607 607"
}

# live_page ARM-ARGS...: mt-writer's 2 threads, 3000 writes each, watched
# with the page backend and ARM-ARGS, the live view a line per second on
# $LIVE; the report on $REPORT.  Its writes done, the watch runs on long
# enough (3 s) for frames and count records (every 0.5 s) to come.
live_page() {
	start_target mt-writer -t 2 -n 3000 -L 0 -w
	LIVE=$BATS_TEST_TMPDIR/live.err REPORT=$BATS_TEST_TMPDIR/report.out
	local raw=$BATS_TEST_TMPDIR/raw.ndjson
	wp-resolve -p "$TPID" wpt_counter |
		wp-arm --backend page --interval 500ms -d 60s "$@" | tee "$raw" |
		wp-decode | wp-report --live=lines --interval 1s > "$REPORT" 2> "$LIVE" &
	local w=$!
	wait_armed "$raw" "$w"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60 "$TPID"
	sleep 3
	kill -USR1 "$TPID"
	wait "$w"
	wait "$TPID"
}

@test "wp-report --live, page backend with --if: mid-watch, the count so far beside the matched hits, marked provisional (was: 0 or 1 hits until the tallies at the end)" {
	# mt-writer's thread 1 writes 1000005 once, at its 6th write
	live_page --if 'value == 1000005'
	# the target's own: 2 threads of 3000 writes, done as unwatched
	assert_equal "$(tail -n 1 "$TOUT")" "done 1002999"
	run grep -c '^target 0 wpt_counter  1 hits  [0-9]*/s  latest 0xf4245  of 6000 counted so far (provisional: the writers'"'"' tallies come at the end)$' \
		<(sed -E 's/^wp: [0-9]+\.[0-9] s of 60 s: //' "$LIVE")
	[ "$output" -ge 2 ] || fail "no two frames after the writes said the count so far: $(cat "$LIVE")"
	# the report, once the tallies came: every write by its writer
	run grep -A1 '^target 0' "$REPORT"
	assert_line "  6000 writes counted by page faults; 6000 tallied by writer; 1 matched --if 'value == 1000005'"
	# on an 80-column terminal, the stream replayed up to its first count
	# of all 6000, then a pause: a frame says it on a line of its own
	local dec=$BATS_TEST_TMPDIR/dec.ndjson n
	wp-decode < "$BATS_TEST_TMPDIR/raw.ndjson" > "$dec"
	n=$(grep -n '"type":"count".*"counted":6000' "$dec" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || fail "no count record of 6000 writes"
	run script -qec "stty cols 80 rows 40; (head -n $n '$dec'; sleep 1.3; tail -n +$((n + 1)) '$dec') | '$WP_BUILD/wp-report' --live --interval 1s" /dev/null
	assert_success
	frames | grep -A1 '^  target 0 wpt_counter  1 hits  ' | grep -qxF "    of 6000 counted so far (provisional: the writers' tallies come at the end)" ||
		fail "no frame said it under the target's line: $(frames)"
}

@test "wp-report --live, page backend: where every write is a hit read, nothing is provisional" {
	live_page
	assert_equal "$(tail -n 1 "$TOUT")" "done 1002999"
	local last undelivered
	last=$(sed -nE 's/^wp: [0-9]+\.[0-9] s of 60 s: (target 0 wpt_counter .*)/\1/p' "$LIVE" | tail -n 1)
	undelivered=$(jq -r 'select(.type=="observation") | .lost_events.undelivered_records // 0' "$BATS_TEST_TMPDIR/raw.ndjson")
	if [ "$undelivered" = 0 ]; then
		# the frames after the writes: the target's 6000, as the report's
		[[ $last == "target 0 wpt_counter  6000 hits  "* ]] || fail "the last frame: $last"
		run grep -c 'counted so far' "$LIVE"
		assert_output 0
	else
		# the reader fell behind (a loaded host): the hits it did not
		# take are tallied at the end, and the frames say so
		[[ $last == *" of 6000 counted so far (provisional: the writers' tallies come at the end)" ]] ||
			fail "the last frame, $undelivered hits undelivered: $last"
	fi
	run grep -A1 '^target 0' "$REPORT"
	assert_line --regexp "^  6000 writes counted by page faults; 6000 (attributed to a writer|tallied by writer)"
}
