#!/usr/bin/env bats
# wp-report --html: the report page, checked as text (tidy, the counts
# against the JSON report) and as a browser renders it (headless
# Chromium: the DOM its script leaves, and a screenshot kept in
# $WP_BUILD/artefacts/).

load helpers

ARTEFACTS=$WP_BUILD/artefacts

# lanes PAGE KIND: "KEY HITS" of each lane of KIND (writer: KEY its trap
# IP; thread: its tid) in the page or DOM PAGE, in its order.
lanes() {
	grep -o "<g class=\"lane\" data-lane=\"$2\"[^>]*>" "$1" |
		sed -E 's/.*data-(trap|tid)="([^"]*)".*data-hits="([0-9]+)".*/\2 \3/'
}

# json_lanes JSON KIND [WATCH]: the same from the JSON report.
json_lanes() {
	local w=${3:-0}
	if [ "$2" = writer ]; then
		jq -r ".watches[$w].writer_sites[] | \"\(.trap_runtime_ip) \(.hits)\"" "$1"
	else
		jq -r ".watches[$w].threads[] | \"\(.tid) \(.hits)\"" "$1"
	fi
}

# report STREAM [OPTS...]: the page ($PAGE) and JSON report ($JSON) of
# STREAM; the page passes tidy without a warning.
report() {
	local s=$1
	shift
	PAGE=$BATS_TEST_TMPDIR/page.html
	JSON=$BATS_TEST_TMPDIR/report.json
	wp-report --json --html "$PAGE" "$@" "$s" > "$JSON"
	assert_tidy "$PAGE"
}

assert_tidy() {
	command -v tidy > /dev/null || return 0
	run tidy -errors -q "$1"
	assert_success
	assert_output ""
}

# browser PAGE [PNG]: the DOM headless Chromium renders of PAGE, into
# $DOM; with PNG, a screenshot of it there too.
browser() {
	local flags=(--headless --disable-gpu --hide-scrollbars
	    --user-data-dir="$BATS_TEST_TMPDIR/chromium")
	command -v chromium > /dev/null ||
		skip "chromium is not installed (make deps installs it)"
	# root: Chromium's sandbox refuses to run without this
	[ "$(id -u)" -ne 0 ] || flags+=(--no-sandbox)
	DOM=$BATS_TEST_TMPDIR/dom.html
	timeout 120 chromium "${flags[@]}" --dump-dom "file://$1" > "$DOM" 2> /dev/null ||
		fail "chromium --dump-dom failed"
	if [ -n "${2:-}" ]; then
		mkdir -p "$(dirname "$2")"
		timeout 120 chromium "${flags[@]}" --window-size=1200,1000 \
		    --screenshot="$2" "file://$1" > /dev/null 2>&1 ||
			fail "chromium --screenshot failed"
		[ "$(head -c 4 "$2" | tail -c 3)" = PNG ] || fail "$2 is not a PNG"
	fi
}

# assert_rendered: the page's script ran in the browser, and each lane
# of the DOM drew as many hits as it counts.
assert_rendered() {
	grep -q '<html lang="en" data-ready="yes">' "$DOM" || fail "the page's script did not run"
	[ "$(grep -c 'data-check="mismatch"' "$DOM")" -eq 0 ] || fail "a lane draws other than its hits"
	assert_equal "$(grep -o '<g class="lane"[^>]*data-check="ok"' "$DOM" | wc -l)" \
		"$(grep -o '<g class="lane"' "$PAGE" | wc -l)"
}

@test "wp-report --html: a page with a lane per writer and per thread, counts as the JSON report's" {
	report "$DATA/report-basic.in.ndjson"
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
	assert_equal "$(lanes "$PAGE" thread)" "$(json_lanes "$JSON" thread)"
	assert_equal "$(lanes "$PAGE" writer | wc -l)" 3
	# each hit is a mark (11 in all), the header is the table's
	assert_equal "$(grep -o 'class="hit"' "$PAGE" | wc -l)" 22
	grep -q 'data-binned="no">Each hit is a mark at its time' "$PAGE"
	grep -q '^watch    perf_breakpoint  5002/5000 ms  stop duration  lost 0$' "$PAGE"
	grep -q 'Counts are not a lower bound' "$PAGE"
	grep -q '^<p class="caveat">values read as the threads ran' "$PAGE"
	# writers with their source lines and instructions
	grep -q '<td class="mono">/src/game.c:23</td><td class="mono">mov dword ptr \[rip + 0x2e9d\], eax</td>' "$PAGE"
	# nothing from elsewhere: no link, source, stylesheet or address (but
	# the SVG namespace's name, which the script's createElementNS takes)
	run grep -oEi "(src|href)=|url\\([^#]|@import|https?:[^'\"]*" "$PAGE"
	assert_output "http://www.w3.org/2000/svg"
	# the report on standard output is as without --html
	assert_equal "$(wp-report --html "$PAGE" "$DATA/report-basic.in.ndjson")" \
		"$(wp-report "$DATA/report-basic.in.ndjson")"
}

@test "wp-report --html: in a browser, each lane draws its hits; axis labels; a screenshot" {
	report "$DATA/report-basic.in.ndjson"
	browser "$PAGE" "$ARTEFACTS/report-basic.png"
	assert_rendered
	assert_equal "$(lanes "$DOM" writer)" "$(json_lanes "$JSON" writer)"
	assert_equal "$(lanes "$DOM" thread)" "$(json_lanes "$JSON" thread)"
	# the watch's time axis (5002 ms): a tick a second, in each drawing
	run bash -c "grep -o '<text class=\"t tick\"[^>]*>[^<]*<' '$DOM' | sed 's/.*>//; s/<\$//' | sort | uniq -c"
	assert_output "      3 0
      3 1 s
      3 2 s
      3 3 s
      3 4 s
      3 5 s"
	grep -q '<text class="axislabel"[^>]*>time since armed</text>' "$DOM"
	# the value written: from 0x0 to 0x136
	grep -q '<text class="vlabel"[^>]*>0x136 (310)</text>' "$DOM"
	grep -q '<text class="vlabel"[^>]*>0x0 (0)</text>' "$DOM"
}

@test "wp-report --html: in-kernel tallies, each bar the writes between two tallies" {
	report "$DATA/report-tally.in.ndjson"
	assert_equal "$(lanes "$PAGE" writer)" "0x555555555186 600
0x5555555551a3 7"
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
	assert_equal "$(lanes "$PAGE" thread)" "$(json_lanes "$JSON" thread)"
	grep -q 'data-binned="tallied"' "$PAGE"
	# bpf read initial and latest as the threads ran: said under them
	grep -q '^<p class="caveat">values read as the threads ran, apart from the hits: latest - initial need not be the count</p>$' "$PAGE"
	# 4242 tallied 100 by 1 s and 400 by 5 s: 100 then 300
	run bash -c "grep 'data-lane=\"thread\" data-tid=\"4242\"' '$PAGE' | grep -o 'data-n=\"[0-9]*\"'"
	assert_output 'data-n="100"
data-n="300"'
	browser "$PAGE"
	assert_rendered
}

@test "wp-report --html: text from the stream is text: a symbol named <script> cannot run; any time fits" {
	local s=$BATS_TEST_TMPDIR/hostile.ndjson
	sed -e 's|"symbol":"pick_coin+0x0"|"symbol":"<script>document.title=\\"pwned\\"</script>"|' \
	    -e 's|"function":"hit_enemy"|"function":"<img src=x onerror=alert(1)>"|' \
	    -e 's|"symbol":"hit_enemy+0xd"|"symbol":"a\&amp;b</td></tr></table>\\u0007"|' \
	    -e 's|"file":"/src/game.c","line":29|"file":"/src/<b>\x27q\x27</b>.c","line":29|' \
	    -e 's|"exe":"/opt/game/bin/game"|"exe":"/opt/<i>game</i>"|' \
	    -e 's|"time_ns":11000000|"time_ns":9223372036854775807|' \
	    -e 's|"time_ns":1000000,|"time_ns":-9223372036854775807,|' \
	    "$DATA/report-basic.in.ndjson" > "$s"
	echo '{"type":"thread","event":"start","tid":4243,"by_tid":4242,"coverage":"inherited","time_ns":600,"comm":"<svg onload=alert(2)>"}' > "$s.2"
	sed -i '5r '"$s.2" "$s"
	report "$s"
	# one script element, the page's own; the names as text
	assert_equal "$(grep -o '<script' "$PAGE" | wc -l)" 1
	grep -q '&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;' "$PAGE"
	grep -q 'a&amp;amp;b&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;?' "$PAGE"
	grep -q '/src/&lt;b&gt;&#39;q&#39;&lt;/b&gt;.c:29' "$PAGE"
	grep -q '<title>wp report: pid 4242 /opt/&lt;i&gt;game&lt;/i&gt;</title>' "$PAGE"
	grep -q '4243 &lt;svg onload=alert(2)&gt;' "$PAGE"
	# times at either end of int64 are drawn at the ends of the axis
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
	run grep -E '<(img|svg onload|i>|b>)' "$PAGE"
	assert_failure
	browser "$PAGE"
	assert_rendered
	assert_equal "$(grep -o '<script' "$DOM" | wc -l)" 1
	grep -q '<title>wp report: pid 4242 /opt/&lt;i&gt;game&lt;/i&gt;</title>' "$DOM"
	run grep -E '<img|pwned</title>|<svg onload' "$DOM"
	assert_failure
}

@test "wp-report --html: 200,000 hits are binned, and the page says so and stays small" {
	local s=$BATS_TEST_TMPDIR/big.ndjson f=$DATA/report-basic.in.ndjson
	# three writers and two threads in turn, a hit every 25 us for 5 s
	{
		head -n 5 "$f"
		sed -n '6p;11p;15p' "$f" | awk -v n=200000 '
		{ i = index($0, "\"time_ns\":"); p[NR] = substr($0, 1, i + 9)
		  r = substr($0, i + 10); s[NR] = substr(r, index(r, ",")) }
		END { for (i = 0; i < n; i++) printf "%s%.0f%s\n", p[1 + i % 3], i * 25000, s[1 + i % 3] }'
		tail -n 1 "$f"
	} > "$s"
	report "$s"
	assert_equal "$(jq '.watches[0].accepted_hits' "$JSON")" 200000
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
	assert_equal "$(lanes "$PAGE" thread)" "$(json_lanes "$JSON" thread)"
	grep -q 'data-binned="yes">Binned: 200000 hits are too many to draw each' "$PAGE"
	assert_equal "$(grep -c 'class="hit"' "$PAGE")" 0
	local size
	size=$(stat -c %s "$PAGE")
	[ "$size" -lt 300000 ] || fail "the page is $size bytes"
	browser "$PAGE" "$ARTEFACTS/report-binned.png"
	assert_rendered
}

@test "wp-report --html: a page that cannot be written is an error (status 1); wp says so before watching, a directory that takes no file too" {
	run --separate-stderr wp-report --html "$BATS_TEST_TMPDIR/no/page.html" "$DATA/report-basic.in.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp-report: --html $BATS_TEST_TMPDIR/no/page.html: No such file or directory"
	assert_equal "$output" ""
	run --separate-stderr wp report --html "$BATS_TEST_TMPDIR/no/page.html" "$DATA/report-basic.in.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp: --html $BATS_TEST_TMPDIR/no/page.html: no such directory $BATS_TEST_TMPDIR/no"
	run --separate-stderr wp watch --html "$BATS_TEST_TMPDIR" 1 x
	assert_failure 1
	assert_equal "$stderr" "wp: --html $BATS_TEST_TMPDIR: is a directory"
	# a directory that takes no new file (/proc, as a read-only file
	# system): said before the watch, which never begins
	start_target mt-writer -t 1 -n 5
	run --separate-stderr wp watch --backend page --html /proc/page.html -d 1 "$TPID" wpt_counter
	assert_failure 1
	assert_equal "$stderr" "wp: --html /proc/page.html: cannot create a file in /proc"
	assert_equal "$output" ""
	run --separate-stderr wp report --html /proc/page.html "$DATA/report-basic.in.ndjson"
	assert_failure 1
	assert_equal "$stderr" "wp: --html /proc/page.html: cannot create a file in /proc"
	assert_equal "$output" ""
	# wp report --html: the page of a saved stream
	run wp report --html "$BATS_TEST_TMPDIR/page.html" "$DATA/report-basic.in.ndjson"
	assert_success
	grep -q 'data-lane="writer"' "$BATS_TEST_TMPDIR/page.html"
}

@test "wp-report, wp report, wp watch --html: a link planted at the page's name is replaced, never followed; the page is 0600" {
	local d=$BATS_TEST_TMPDIR victim=$BATS_TEST_TMPDIR/victim f
	echo precious > "$victim"
	chmod 600 "$victim"
	for f in tool report watch; do ln -s "$victim" "$d/$f.html"; done
	run --separate-stderr wp-report --html "$d/tool.html" "$DATA/report-basic.in.ndjson"
	assert_success
	run --separate-stderr wp report --html "$d/report.html" "$DATA/report-basic.in.ndjson"
	assert_success
	start_target mt-writer -t 1 -n 5
	run --separate-stderr wp watch --backend page --html "$d/watch.html" -d 1 "$TPID" wpt_counter
	assert_success
	assert_equal "$(cat "$victim")" precious
	for f in tool report watch; do
		[ -f "$d/$f.html" ] && [ ! -L "$d/$f.html" ] || fail "$f.html: the link was not replaced by the page"
		grep -q '^</html>' "$d/$f.html" || fail "$f.html: no page"
		assert_equal "$(stat -c %a "$d/$f.html")" 600
	done
	# nothing left under the page's hidden name
	assert_equal "$(find "$d" -name '.wp.*')" ""
}

@test "wp watch --html: two threads writing 50 times each; the page counts as the report" {
	start_target mt-writer -t 2 -n 50
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	PAGE=$BATS_TEST_TMPDIR/watch.html
	JSON=$BATS_TEST_TMPDIR/report.json
	# the backend auto takes here; --all-hits: a record of every write
	wp watch --json --html "$PAGE" --save "$save" -d 120s --all-hits "$TPID" wpt_counter > "$JSON" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	assert_equal "$(jq -r .observation.backend "$JSON")" "$(doctor '.default_backend["8"].name')"
	assert_equal "$(jq '.watches[0].accepted_hits' "$JSON")" 100
	assert_equal "$(lanes "$PAGE" writer | awk '{ print $2 }')" 100
	assert_equal "$(lanes "$PAGE" thread)" "$(json_lanes "$JSON" thread)"
	assert_equal "$(lanes "$PAGE" thread | awk '{ print $2 }')" "50
50"
	assert_tidy "$PAGE"
	browser "$PAGE"
	assert_rendered
}

@test "wp watch --html: the demo game's score, as the README shows it" {
	"$WP_BUILD/wp-demo" > "$BATS_TEST_TMPDIR/demo.out" &
	WP_TARGET_PIDS+=("$!")
	local pid=$! i
	for i in $(seq 100); do
		[ -s "$BATS_TEST_TMPDIR/demo.out" ] && break
		sleep 0.05
	done
	PAGE=$BATS_TEST_TMPDIR/demo.html
	JSON=$BATS_TEST_TMPDIR/demo.json
	run --separate-stderr wp watch --json --html "$PAGE" -d 3s "$pid" score
	assert_success
	printf '%s\n' "$output" > "$JSON"
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
	assert_equal "$(lanes "$PAGE" writer | wc -l)" 3
	assert_tidy "$PAGE"
	browser "$PAGE" "$ARTEFACTS/report-page.png"
	assert_rendered
	grep -q '<svg class="values"' "$DOM"
}

@test "wp watch --callchain --html: each writer's call chains, their callers with source lines" {
	start_target callers -a 2 -b 4
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	PAGE=$BATS_TEST_TMPDIR/chains.html
	JSON=$BATS_TEST_TMPDIR/chains.json
	# page: every write a record, unwound with the modules' CFI (libc has
	# no frame pointers for bpf's default chains to walk)
	wp watch --backend page --json --html "$PAGE" --save "$save" -d 120s --callchain "$TPID" -- wpt_buf > "$JSON" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	assert_tidy "$PAGE"
	# the chains of each writer, as the JSON report has them: hits, the
	# innermost caller
	run bash -c "grep -o '<li><span class=\"n\">[0-9]*</span> by<ol class=\"frames\"><li>[a-z_]*' '$PAGE' | sed -E 's/.*\"n\">([0-9]+)<.*<li>/\1 /'"
	assert_output "$(jq -r '.watches[0].writer_sites[] | .call_chains[] | "\(.hits) \(.callers[0].symbol | sub("\\+0x[0-9a-f]+$"; ""))"' "$JSON")"
	grep -qE '<li>copy_b\+0x[0-9a-f]+  [^<]*callers\.c:[0-9]+</li><li>main\+0x' "$PAGE"
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
}

@test "wp-report --html: why counts are a lower bound, each reason said" {
	report "$DATA/report-lower.in.ndjson" --samples 4
	assert_equal "$(grep -o '<li data-reason="[a-z_]*">' "$PAGE" | sed -E 's/.*="([a-z_]+)".*/\1/')" \
		"$(jq -r '.lower_bound_reasons[]' "$JSON")"
	grep -q '<p class="bound">Counts are a lower bound:</p>' "$PAGE"
	grep -q 'hits (a lower bound)' "$PAGE"
	assert_equal "$(lanes "$PAGE" writer)" "$(json_lanes "$JSON" writer)"
}

@test "wp-report --html: #zoom=FROM-TO (a drag does the same) draws that time across the axis" {
	report "$DATA/report-basic.in.ndjson"
	browser "$PAGE#zoom=3500000-9500000"
	assert_rendered
	# the ticks of 3.5 ms to 9.5 ms, in each drawing
	run bash -c "grep -o '<text class=\"t tick\"[^>]*>[^<]*<' '$DOM' | sed 's/.*>//; s/<\$//' | sort | uniq -c"
	assert_output "      3 4 ms
      3 5 ms
      3 6 ms
      3 7 ms
      3 8 ms
      3 9 ms"
	# the hits in that time shown, the others not: pick_coin at 4 and 5
	# ms, hit_enemy at 6, 7 and 8, new_level at 9 (of 9, 10 and 11)
	run bash -c "grep -o '<g class=\"lane\" data-lane=\"writer\".*</g>' '$DOM' | while read -r l; do grep -o '<rect class=\"hit\"[^>]*>' <<< \"\$l\" | grep -vc 'display: none' || true; done"
	assert_output "2
3
1"
}

# cond_page BACKEND: wp watch --backend BACKEND --if over mt-writer's
# two threads writing 50 times each (thread 2 writes 2000000 and up):
# its page ($PAGE) and JSON report ($JSON).
cond_page() {
	start_target mt-writer -t 2 -n 50
	local save=$BATS_TEST_TMPDIR/raw-$1.ndjson
	PAGE=$BATS_TEST_TMPDIR/cond-$1.html
	JSON=$BATS_TEST_TMPDIR/cond-$1.json
	wp watch --backend "$1" --if 'value >= 2000000' --json --html "$PAGE" \
	    --save "$save" -d 120s "$TPID" wpt_counter > "$JSON" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	assert_tidy "$PAGE"
}

@test "wp watch --if --html, page and ptrace: each write that matched is a mark at its time; who counted; MATCHED" {
	local b counter
	for b in page ptrace; do
		cond_page "$b"
		[ "$b" = page ] && counter="page faults" || counter=single-stepping
		assert_equal "$(jq '.watches[0] | .tallied_hits, .matched_hits' "$JSON")" "100
50"
		# the 50 writes that matched, each at its time (the tallies of
		# all 100, read at the end, say nothing of when)
		grep -q "data-binned=\"no\">Each hit is a mark at its time. The hits are the writes that matched --if 'value &gt;= 2000000': <span class=\"drawn\">50</span> of the 100 writes counted by $counter, tallied at the end;" "$PAGE" ||
			fail "$b: not drawn as its hits: $(grep binning "$PAGE")"
		assert_equal "$(lanes "$PAGE" writer | awk '{ print $2 }')" 50
		assert_equal "$(lanes "$PAGE" thread | awk '{ print $2 }')" 50
		run bash -c "grep -o '<g class=\"lane\" data-lane=\"writer\".*</g>' '$PAGE' | grep -o 'data-t=\"[0-9]*\"' | grep -o '[0-9]*' | sort -n | sed -n '1p;\$p'"
		assert_output "$(jq '.watches[0] | .first_time_ns, .last_time_ns' "$JSON")"
		run grep -c 'Counted in the kernel' "$PAGE"
		assert_output 0
		grep -q "<p class=\"counts\"><span class=\"hits\">100</span> writes counted by $counter, tallied by writer; <span class=\"matched\">50</span> matched --if 'value &gt;= 2000000'; initial " "$PAGE" ||
			fail "$b: counts: $(grep 'class="counts"' "$PAGE")"
		grep -q '<th>HITS</th><th>MATCHED</th>' "$PAGE"
		grep -q '<td class="num">100</td><td class="num matched">50</td><td>exact</td>' "$PAGE"
		browser "$PAGE"
		assert_rendered
		stop_targets
	done
}

# tally_cond WHERE: report-tally's stream as if watched with --if
# 'value > 5', evaluated WHERE (the armed record's condition_where):
# each tally says how many of its writes matched (half, rounded down);
# wp-arm tallies once, at the end.
tally_cond() {
	local s=$BATS_TEST_TMPDIR/cond-$1.ndjson
	jq -c --arg w "$1" 'select(.type != "tally" or $w != "wp-arm" or .time_ns > 1000000000) |
	    if .type == "armed" then . + { condition: "value > 5", condition_where: $w }
	    elif .type == "tally" then . + { matched: (.hits / 2 | floor) } else . end' \
	    "$DATA/report-tally.in.ndjson" > "$s"
	echo "$s"
}

@test "wp-report --html --if: the kernel's tallies, read as the watch went on, are bars; wp-arm's of its samples, read at the end, are not" {
	# bpf: the kernel evaluates the condition and tallies, every interval
	report "$(tally_cond kernel)"
	grep -q 'data-binned="tallied">Counted in the kernel (every write)' "$PAGE"
	assert_equal "$(lanes "$PAGE" writer)" "0x555555555186 600
0x5555555551a3 7"
	grep -q "<span class=\"hits\">607</span> writes counted by the kernel, tallied by writer; <span class=\"matched\">303</span> matched --if 'value &gt; 5'" "$PAGE"
	grep -q '<td class="num">600</td><td class="num matched">300</td>' "$PAGE"
	# perf: wp-arm evaluates it on the samples it reads, and tallies
	# them once, at the end: the 3 hits that matched drawn at 1, 2, 3 ms
	report "$(tally_cond wp-arm)"
	grep -q "data-binned=\"no\">Each hit is a mark at its time. The hits are the writes that matched --if 'value &gt; 5': <span class=\"drawn\">3</span> of the 607 writes counted by wp-arm in the samples it read" "$PAGE"
	assert_equal "$(lanes "$PAGE" writer)" "0x555555555186 3"
	run bash -c "grep -o 'class=\"hit\"[^>]*data-t=\"[0-9]*\"' '$PAGE' | grep -o 'data-t=\"[0-9]*' | sort -u"
	assert_output 'data-t="1000000
data-t="2000000
data-t="3000000'
	run grep -c 'Counted in the kernel' "$PAGE"
	assert_output 0
	browser "$PAGE"
	assert_rendered
}

@test "wp-report --html: frame-pointer chains that come back with no callers say to try --callchain dwarf, as the table does" {
	local s=$BATS_TEST_TMPDIR/fp.ndjson
	sed 's/"type":"hit",/"type":"hit","callchain":[],"callchain_status":"frame_pointers",/' \
	    "$DATA/report-basic.in.ndjson" > "$s"
	report "$s"
	run grep '<li data-note=' "$PAGE"
	assert_output "<li data-note=\"no_callers\">no callers: the frame pointers ended at the writer (code built without them, as Debian&#39;s is); --callchain dwarf unwinds with the modules&#39; call frame information</li>"
	# the note is the JSON report's
	assert_equal "$(jq -r '.notes[] | .note' "$JSON")" no_callers
	# chains with their callers: no note
	sed 's/"type":"hit",/"type":"hit","callchain":["0x555555555190"],"callchain_status":"frame_pointers",/' \
	    "$DATA/report-basic.in.ndjson" > "$s"
	report "$s"
	run grep -c 'data-note=' "$PAGE"
	assert_output 0
}
