# Scenarios of the page backend's issue, written once and run against
# each backend that watches any width (tests/59-page-scenarios.bats:
# page with full counts, ptrace with small ones).  Each takes the
# backend and a count, and asserts exact counts against the targets' own
# (tests/targets/page-struct.c, page-array.c).

# Where the page backend's observation counts writes to the watched
# pages outside the watched ranges (page neighbours).
PAGE_NEIGHBOUR_FAULTS=${PAGE_NEIGHBOUR_FAULTS:-.page.faults_neighbour}

# page_built: whether this wp-arm has the page backend (its --help
# names it among the backends)
page_built() {
	wp-arm --help 2> /dev/null | grep -qE -- '--backend [^ ]*page'
}

require_page() {
	page_built || skip "the page backend is not built"
}

# unwatched NAME ARGS...: what target NAME prints unwatched, its ready
# line left out, into $PLAIN (and its exit status into $PLAIN_STATUS).
unwatched() {
	local name=$1 out p
	shift
	out=$BATS_TEST_TMPDIR/plain.$RANDOM.out
	"$T/$name" "$@" > "$out" 2>&1 &
	p=$!
	wait_for "$out" pid 10
	kill -USR1 "$p"
	PLAIN_STATUS=0
	wait "$p" || PLAIN_STATUS=$?
	PLAIN=$(tail -n +2 "$out")
}

# own WRITER: the stores the target says WRITER made ("WRITER writes N
# stores S" lines of page-struct)
own() {
	awk -v w="$1" '$1 == w && $2 == "writes" { print $5 }' "$TOUT"
}

# writer_hits FUNCTION: the hits whose decoded writer is in FUNCTION
# (the stream is decoded once, into "COUNT FUNCTION" lines)
writer_hits() {
	local w=$WOUT.writers
	[ -s "$w" ] && [ "$w" -nt "$WOUT" ] ||
		wp-decode < "$WOUT" 2> /dev/null |
		jq -r 'select(.type=="hit") | .writer.function // "?"' |
		sort | uniq -c > "$w"
	awk -v f="$1" '$2 == f { n = $1 } END { print n + 0 }' "$w"
}

# page_struct_watch BACKEND TARGET-ARGS...: page-struct's whole struct
# watched (address and -l 512), the target started and waited for.
page_struct_watch() {
	local backend=$1
	shift
	start_target page-struct "$@"
	rm -f "$BATS_TEST_TMPDIR/watch.out.writers"
	watch_start --backend "$backend" -l 512 "$(tinfo ps)" -- --backend "$backend" -d 600s -n 100000000
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
}

# the target's own output, ready line aside
target_output() {
	tail -n +2 "$TOUT"
}

# Three threads write different fields of one 512-byte struct in tight
# loops (mov of an immediate, lock add, a 64-byte copy, an AVX store):
# each writer's hits are the target's own count of its stores, and the
# lock add's total is right (no store lost or doubled).  With -u the
# struct spans two pages.
scenario_page_struct() {
	local backend=$1 n=$2 want
	shift 2
	page_struct_watch "$backend" -n "$n" "$@"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(writer_hits write_imm)" "$(own imm)"
	assert_equal "$(writer_hits write_lock)" "$(own lock)"
	assert_equal "$(writer_hits write_copy)" "$(own copy)"
	assert_equal "$(writer_hits write_avx)" "$(own avx)"
	want=$(( $(own imm) + $(own lock) + $(own copy) + $(own avx) ))
	assert_equal "$(hits)" "$want"
	assert_equal "$(obs .accepted_hits)" "$want"
	assert_equal "$(obs '.targets[0].hits')" "$want"
	assert_equal "$(awk '/^lock value/ { print $3 }' "$TOUT")" "$n"
	# each writer's hits came from one thread: three writer threads
	run jq -s -c '[.[] | select(.type=="hit") | .tid] | unique | length' "$WOUT"
	assert_output 3
}

# A read(2) from a pipe into the watched struct: the target reads what
# an unwatched run reads, and the hit is the kernel's write by read.
scenario_page_read() {
	local backend=$1
	unwatched page-struct -n 0 -r
	page_struct_watch "$backend" -n 0 -r
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_output)" "$PLAIN"
	assert_equal "$(hits)" 1
	run jq -c 'select(.type=="hit") | .flags' "$WOUT"
	assert_output '["syscall"]'
	assert_equal "$(writer_hits read)" 1
	run bash -c "wp-decode < '$WOUT' 2> /dev/null | jq -r 'select(.type==\"hit\") | .writer.kind'"
	assert_output syscall
}

# A hot neighbour on the same page, written n times by a fourth
# thread: never a hit; the page backend counts its faults.
scenario_page_neighbour() {
	local backend=$1 n=$2 want
	shift 2
	page_struct_watch "$backend" -n 10 -N "$n" "$@"
	assert_equal "$WSTATUS" 0
	assert_equal "$(own neighbour)" "$n"
	want=$(( $(own imm) + $(own lock) + $(own copy) + $(own avx) ))
	assert_equal "$(hits)" "$want"
	assert_equal "$(writer_hits write_neighbour)" 0
	if [ "$backend" = page ]; then
		assert_equal "$(obs "$PAGE_NEIGHBOUR_FAULTS")" "$n"
		page_report_header "$want" "$n"
	fi
}

# pace_said_bound: wp-report's output ($output) states the target's
# pace as a bound, for the stops every few microseconds of its own time
pace_said_bound() {
	assert_line --regexp '^estimate at most [0-9.]+ m?s of the target.s native run time in [0-9.]+ s \(1/[0-9.]+ of native speed or slower\)$'
	assert_line --regexp '^ +it was stopped every [0-9.]+ us of its own time \(faults, steps, system calls\): part of each stop.s cost counts as its own$'
}

# page_report_header WATCHED NEIGHBOUR: wp-report's header of $WOUT
# shows the page backend's faults, the neighbours' share, and the
# target's pace, which the neighbour's faults slowed: a bound, as the
# neighbour faults every few microseconds of the target's own time.
page_report_header() {
	local share
	share=$(awk -v n="$2" -v w="$1" 'BEGIN { printf "%.1f", 100 * n / (n + w) }')
	run --separate-stderr wp-report "$WOUT"
	assert_success
	assert_line "page     $(( $1 + $2 )) faults: $1 watched, $2 by page neighbours ($share%)"
	assert_line "         $(obs .page.emulated) emulated, $(obs .page.stepped) stepped, 0 kernel writes"
	assert_line "note     most faults were page neighbours': writes to other variables on the watched pages"
	pace_said_bound
	run --separate-stderr wp-report --json "$WOUT"
	assert_equal "$(jq -r '.observation.page | "\(.faults_watched) \(.faults_neighbour) \(.native_run_us < .watched_us)"' <<< "$output")" "$1 $2 true"
}

# The target forks a child that writes the watched page and the
# neighbour: both finish with the output and status of an unwatched
# run; the parent's writes are all counted, the child's (if the backend
# watches it too) are its own process's.
scenario_page_fork() {
	local backend=$1 want child
	unwatched page-struct -n 5 -f
	page_struct_watch "$backend" -n 5 -f
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_output)" "$PLAIN"
	grep -qx "child status 7" "$TOUT" || fail "the child did not exit 7: $(cat "$TOUT")"
	want=$(( $(own imm) + $(own lock) + $(own copy) + $(own avx) ))
	assert_equal "$(hits ".pid == $TPID")" "$want"
	child=$(hits ".pid != $TPID")
	case $child in
	0) ;;
	1) assert_equal "$(writer_hits write_imm)" $(( $(own imm) + 1 )) ;;
	*) fail "$child hits of the child: it wrote the struct once" ;;
	esac
	kill -0 "$TPID" 2> /dev/null && fail "the target is still running"
	return 0
}

# A 64 KiB array (16 pages) written at random offsets, in four widths,
# then read(2) into across two pages: every write is a hit of its
# width's writer, the read one of the kernel's; each says where in the
# array it landed and what it left there (page_array_stores).
scenario_page_array() {
	local backend=$1 n=$2 w
	shift 2
	unwatched page-array -n "$n" -L -r "$@"
	start_target page-array -n "$n" -L -r "$@"
	rm -f "$BATS_TEST_TMPDIR/watch.out.writers"
	watch_start --backend "$backend" wpt_big -- --backend "$backend" -d 600s -n 100000000
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	# one target, the whole array
	run jq -r 'select(.type=="target") | "\(.input) \(.len)"' "$WOUT"
	assert_output "wpt_big 65536"
	assert_equal "$(hits)" $(( n + 1 ))
	for w in u8 u16 u32 u64; do
		assert_equal "$(writer_hits "write_$w")" \
			"$(awk -v w="$w" '$1 == w { print $3 }' "$TOUT")"
	done
	assert_equal "$(hits '.flags == ["syscall"]')" 1
	# with one thread the array ends as in an unwatched run
	assert_equal "$(target_output)" "$PLAIN"
	page_array_stores
}

# le HEX: the little-endian value of bytes HEX (memory order), as
# wp-report shows a value
le() {
	local b=$1 r=
	while [ -n "$b" ]; do
		r=${b:0:2}$r
		b=${b:2}
	done
	printf '0x%x' "$(( 16#$r ))"
}

# page_array_stores: where each write of page-array -L -r landed in the
# array and the bytes it left, as the target logged them ("at OFF HEX",
# "read OFF LEN HEX"), are the report's, through wp-decode and
# wp-report, in the JSON document (every write, in order: one thread)
# and in the table's rows (its first write, the read).
page_array_stores() {
	local doc=$BATS_TEST_TMPDIR/report.json first
	local -a w
	wp-decode < "$WOUT" 2> /dev/null | wp-report --json --samples 1000000 > "$doc"
	diff -u <(awk '$1 == "at" { print $2, $3 } $1 == "read" { print $2, $3, $4 }' "$TOUT") \
		<(jq -r '.watches[0].samples[] | if .store_len > 8 then
			"\(.store_offset) \(.store_len) \(.written_value.bytes)"
			else "\(.store_offset) \(.written_value.bytes)" end' "$doc") ||
		fail "the writes' offsets and bytes are not the target's"
	run jq -r '[.watches[0].samples[] | "\(.written_value.kind) \(.written_value.width == .store_len)"] | unique[]' "$doc"
	assert_output "observed true"
	run --separate-stderr bash -c "wp-decode < '$WOUT' 2> /dev/null | wp-report"
	assert_success
	read -r _ first < <(grep -m1 '^at ' "$TOUT")
	read -r -a w <<< "$first"
	# TID, THREAD (where named), TIME ms, AT, LEN, WRITER, VALUE
	assert_line --regexp "^ +[0-9]+( +[^ ]+)? +[0-9.]+  \\+${w[0]} +$(( ${#w[1]} / 2 ))  write_u$(( ${#w[1]} * 4 ))\\+0x[0-9a-f]+ +$(le "${w[1]}")\$"
	assert_line --regexp "^ +$TPID( +[^ ]+)? +[0-9.]+  \\+0x1f00 +512  [^ ]+ +030a11181f262d343b424950575e656c~\$"
}

# rw_own WORD: the count the target says (page-rw's "reads R writes W
# bad B" line)
rw_own() {
	awk -v w="$1" '$1 == "reads" { for (i = 1; i < NF; i += 2) if ($i == w) print $(i + 1) }' "$TOUT"
}

# -a rw: two threads read and write their own field of the watched
# struct in tight loops (a mov store, a mov load, a cmp with memory, a
# lock inc), and the neighbour on the page: every read and every write
# counted apart, each site's kind right, each load read what was stored;
# the neighbour's accesses are no hit (the page backend counts them);
# then the kernel reads the struct (write(2), writev(2)): it gets the
# bytes, no EFAULT, and its reads are not hits.
scenario_page_rw() {
	local backend=$1 n=$2 r w tid
	start_target page-rw -n "$n" -k
	rm -f "$BATS_TEST_TMPDIR/watch.out.writers"
	watch_start --backend "$backend" -a rw -l 8 "$(tinfo rw)" -- --backend "$backend" -d 600s -n 100000000
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	r=$(rw_own reads)
	w=$(rw_own writes)
	assert_equal "$r $w $(rw_own bad)" "$(( 4 * n )) $(( 4 * n )) 0"
	grep -qx "kernel read 8 8 same 1" "$TOUT" || fail "the kernel's reads: $(grep kernel "$TOUT")"
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_equal "$(hits '.flags == ["read"]')" "$r"
	assert_equal "$(hits '.flags == []')" "$w"
	assert_equal "$(hits)" $(( r + w ))
	# each site its kind: the load and the cmp read, the mov and the
	# lock inc (which reads too) write
	assert_equal "$(writer_hits rw_load) $(writer_hits rw_cmp)" "$(( r / 2 )) $(( r / 2 ))"
	assert_equal "$(writer_hits rw_write) $(writer_hits rw_inc)" "$(( w / 2 )) $(( w / 2 ))"
	assert_equal "$(writer_hits rw_nb)" 0
	run jq -r 'select(.type=="hit") | .tid' "$WOUT"
	assert_equal "$(sort -u <<< "$output" | wc -l)" 2
	for tid in $(sort -u <<< "$output"); do
		assert_equal "$(hits ".tid == $tid and .flags == [\"read\"]") $(hits ".tid == $tid and .flags == []")" "$(( r / 2 )) $(( w / 2 ))"
	done
	run --separate-stderr wp-report < <(wp-decode < "$WOUT" 2> /dev/null)
	assert_line --regexp "^  $(( r + w )) accesses counted by [a-z -]+; $(( r + w )) attributed to a writer \\($r reads, $w writes\\)$"
	assert_line --regexp "^ +$(( r / 2 ))  exact +read +rw_load\\+0x0 "
	assert_line --regexp "^ +$(( w / 2 ))  exact +write +rw_inc\\+0x0 "
	if [ "$backend" = page ]; then
		# the neighbour: a load and a store a round, on each thread
		assert_equal "$(obs "$PAGE_NEIGHBOUR_FAULTS")" $(( 4 * n ))
		assert_equal "$(obs .page.faults_watched)" $(( r + w ))
		assert_line "page     $(( r + w + 4 * n )) faults: $(( r + w )) watched, $(( 4 * n )) by page neighbours (33.3%)"
	fi
}

# sig_own WHAT N: field N of page-signals' line that starts with WHAT
# ("stepped writes N early E", "signals sent S handled H lost L", ...)
sig_own() {
	awk -v w="$1" -v n="$2" '$1 == w { print $n }' "$TOUT"
}

# target_values TARGET: the new values of target TARGET's hits, in
# order, on one line
target_values() {
	jq -r "select(.type==\"hit\" and .target == $1) | .new_value" "$WOUT" |
		paste -sd ' '
}

# hex_seq N: 0x1 to N, on one line
hex_seq() {
	printf '0x%x\n' $(seq "$1") | paste -sd ' '
}

# A thread's writes to a watched page while another thread sends it a
# signal at each one, which comes while its fault is being made: one
# movsq (no rep), which the page backend steps, so that the signal is
# delivered before the step runs it, its handler runs, and it faults
# again; one mov, emulated with the signal pending, which the kernel
# delivers after it; the handler's own store.  Each write one fault,
# counted once (stepped or emulated), one hit with its own value, each
# signal handled once, as the target counts them.  SIG: the signal
# (default SIGUSR2; 5, SIGTRAP: the target's own, not the step's).
scenario_page_signals() {
	local n=$1 early status
	start_target page-signals -n "$n" -s "${2:-12}"
	rm -f "$BATS_TEST_TMPDIR/watch.out.writers"
	watch_start -l 24 "$(tinfo sig)" -- --backend page -d 300s
	kill -USR1 "$TPID"
	watch_wait
	status=0
	wait "$TPID" || status=$?
	assert_equal "$WSTATUS $status" "0 0"
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(sig_own stepped 3) $(sig_own emulated 3)" "$n $n"
	assert_equal "$(sig_own signals 3) $(sig_own signals 5) $(sig_own signals 7)" "$(( 2 * n )) $(( 2 * n )) 0"
	assert_equal "$(sig_own values 2) $(sig_own values 3) $(sig_own values 4)" "$n $n $(( 2 * n ))"
	early=$(sig_own stepped 5)
	[ "$early" -gt 0 ] || skip "no signal came before a stepped write ran: the case was not provoked"
	assert_equal "$(writer_hits write_stepped)" "$n"
	assert_equal "$(writer_hits write_emulated)" "$n"
	assert_equal "$(writer_hits on_signal)" $(( 2 * n ))
	assert_equal "$(hits)" $(( 4 * n ))
	# a hit per store made, with its value: none for a store not made
	assert_equal "$(target_values 0)" "$(hex_seq "$n")"
	assert_equal "$(target_values 1)" "$(hex_seq "$n")"
	assert_equal "$(target_values 2)" "$(hex_seq $(( 2 * n )))"
	# each fault counted once: before, a step a signal came before was
	# counted again at the fault after the handler (once per early)
	assert_equal "$(obs .page.faults_watched) $(obs .page.faults_neighbour)" "$(( 4 * n )) 0"
	assert_equal "$(obs .page.stepped) $(obs .page.emulated)" "$n $(( 3 * n ))"
	assert_equal "$(obs .page.signals_passed)" $(( 2 * n ))
	assert_equal "$(obs .counts_are_lower_bound)" false
}

# The watched word written n times where SIGSEGV and SIGTRAP are blocked
# (page-sigkeep MODE): in a thread that blocks every signal, with a
# stepped store there (trap), in a handler with a full sa_mask (mask),
# in the SIGSEGV handler itself (handler).  A write fault there is a
# SIGSEGV the kernel forces while it is blocked, a step's trap a forced
# SIGTRAP: each resets the process's handler to SIG_DFL and unblocks
# the signal in the thread.  The target ends as unwatched: its masks
# and both its handlers as it set them, its next fault and int3 caught
# by them; a hit per write, and with the page backend each handler put
# back counted (page.handlers_restored).
scenario_page_sigkeep() {
	local backend=$1 mode=$2 n=5 status
	unwatched page-sigkeep -m "$mode" -n "$n"
	assert_equal "$PLAIN_STATUS" 0
	start_target page-sigkeep -m "$mode" -n "$n"
	watch_start "$(tinfo keep)" -- --backend "$backend" -d 60s
	kill -USR1 "$TPID"
	watch_wait
	status=0
	wait "$TPID" || status=$?
	assert_equal "$WSTATUS $status" "0 0"
	assert_equal "$(tail -n +2 "$TOUT")" "$PLAIN"
	assert_equal "$(hits)" "$n"
	assert_equal "$(obs .stop_reason)" target_exited
	# each fault of SIGSEGV's blocked: its handler put back, counted
	[ "$backend" = page ] || return 0
	[ "$mode" = trap ] && n=null
	assert_equal "$(obs .page.handlers_restored)" "$n"
	assert_contract "$WOUT"
}

# scenario_vfork BACKEND [-E PATH]: the target's vfork child stores the
# watched counter 9 times in its parent's memory, then exits (with -E,
# execs PATH, as posix_spawn's child does); the parent then stores it 20
# times.  Every store is a hit, the child's of its own tid (a thread
# record starts it, by the parent, and ends it), with the values it
# wrote; the counts are exact, not a lower bound, and no fork is said
# to be unfollowed; both finish as unwatched.
scenario_vfork() {
	local backend=$1 child own st=0
	shift
	unwatched fork-exec -v -c 9 -n 20 "$@"
	assert_equal "$PLAIN_STATUS $PLAIN" "0 vfork child stores 9 status 0
done"
	start_target fork-exec -v -c 9 -n 20 "$@"
	watch_start wpt_counter -- --backend "$backend" -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait "$TPID" || st=$?
	assert_equal "$st" "$PLAIN_STATUS"
	assert_equal "$(tail -n +2 "$TOUT")" "$PLAIN"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	child=$(jq -r "select(.type==\"thread\" and .event==\"start\" and .by_tid==$TPID) | .tid" "$WOUT")
	[ -n "$child" ] || fail "no thread record starts the vfork child"
	# the stores the target counted, its child's and its own
	own=$(awk '$1 == "vfork" && $3 == "stores" { print $4 }' "$TOUT")
	assert_equal "$(hits ".tid == $child")" "$own"
	assert_equal "$(hits ".tid == $TPID")" 20
	assert_equal "$(hits)" $(( own + 20 ))
	run jq -r "select(.type==\"hit\" and .tid==$child) | .new_value" "$WOUT"
	assert_equal "$output" "$(printf '0x%x\n' $(seq 5000 5008))"
	assert_equal "$(jq -c "select(.type==\"thread\" and .tid==$child) | .event" "$WOUT" | tr '\n' ' ')" '"start" "exit" '
	assert_equal "$(obs .thread_coverage.forked_processes)" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	run --separate-stderr wp-report < <(wp-decode < "$WOUT")
	assert_success
	refute_line --partial "forked children were not followed"
	refute_line --partial "lower bound"
}

# scenario_vfork_cut BACKEND: the watch ends (-d 1s) while the target's
# vfork child stores the watched counter (5000 + i, 3 million times) and
# its parent waits in vfork, where no interrupt stops it: the watch ends
# all the same, the child's hits are its stores up to the value the watch
# ends on, and both finish as unwatched.
scenario_vfork_cut() {
	local backend=$1 child latest st=0
	unwatched fork-exec -v -c 3000000 -n 20
	assert_equal "$PLAIN_STATUS $PLAIN" "0 vfork child stores 3000000 status 0
done"
	start_target fork-exec -v -c 3000000 -n 20
	watch_start wpt_counter -- --backend "$backend" -d 1s
	kill -USR1 "$TPID"
	run timeout 60 tail --pid="$WPID" -f /dev/null
	assert_success
	watch_wait
	wait "$TPID" || st=$?
	assert_equal "$st" "$PLAIN_STATUS"
	assert_equal "$(tail -n +2 "$TOUT")" "$PLAIN"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" duration
	child=$(jq -r "select(.type==\"thread\" and .event==\"start\" and .by_tid==$TPID) | .tid" "$WOUT")
	[ -n "$child" ] || fail "no thread record starts the vfork child"
	latest=$(obs '.targets[0].latest_value')
	assert_equal "$(hits ".tid == $child")" $(( latest - 5000 + 1 ))
	assert_equal "$(hits)" $(( latest - 5000 + 1 ))
	assert_equal "$(obs .counts_are_lower_bound)" false
}
