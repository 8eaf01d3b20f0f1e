#!/usr/bin/env bats
# --callchain with the ptrace backend: each hit's callers, unwound with
# libdw at the stop, named by wp-decode.

load helpers

# callers_of JQ-FILTER: "CALLER1 CALLER2 ... STATUS" per hit, the
# functions of the decoded callers (offsets dropped).
callers_of() {
	wp-decode < "$WOUT" | jq -r "select(.type==\"hit\") | select($1) |
		[(.callers[] | .symbol // \"?\" | sub(\"\\\\+0x[0-9a-f]+$\"; \"\")), .callchain_status] | join(\" \")"
}

@test "wp-arm ptrace --callchain: one setter called from three callers, each chain with its exact count" {
	start_target callers -a 3 -b 5 -c 7
	watch_start wpt_counter -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	run callers_of true
	assert_output "$(printf 'caller_a main __libc_start_call_main __libc_start_main _start complete\n%.0s' 1 2 3)
$(printf 'caller_b main __libc_start_call_main __libc_start_main _start complete\n%.0s' 1 2 3 4 5)
$(printf 'caller_c main __libc_start_call_main __libc_start_main _start complete\n%.0s' 1 2 3 4 5 6 7)"
	# the report: the site's chains, most hits first, with counts
	run wp-report --json < <(wp-decode < "$WOUT")
	run jq -r '.watches[0].writer_sites[0] | (.call_chains[] | "\(.hits) \(.status) \(.callers[0].symbol | sub("\\+0x[0-9a-f]+$"; ""))"), "rest \(.other_call_chains_hits)"' <<< "$output"
	assert_output "7 complete caller_c
5 complete caller_b
3 complete caller_a
rest 0"
	run wp-report --chains 2 --json < <(wp-decode < "$WOUT")
	run jq -r '.watches[0].writer_sites[0] | "\(.call_chains | length) \(.other_call_chains_hits)"' <<< "$output"
	assert_output "2 3"
	run wp-report --chains 2 < <(wp-decode < "$WOUT")
	assert_line --regexp '^ +7  by caller_c\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < main\+0x[0-9a-f]+ < '
	assert_line --regexp '^ +5  by caller_b\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < main\+0x[0-9a-f]+ < '
	assert_line --regexp '^ +3  in other call chains$'
	# each frame with its source line
	local line
	line=$(grep -n 'set_counter(2);' "$BATS_TEST_DIRNAME/targets/callers.c" | cut -d: -f1)
	run wp-decode < "$WOUT"
	run jq -r 'select(.type=="hit" and .new_value=="0x2") | .callers[0] | "\(.source.file | split("/") | last):\(.source.line)"' <<< "$output"
	assert_equal "$(sort -u <<< "$output")" "callers.c:$line"
}

@test "wp-arm ptrace --callchain: libc's memcpy as the writer, its callers named" {
	start_target callers -a 2 -b 4
	watch_start -l 8 wpt_buf -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	# memcpy may make one store or two to the 8 bytes watched, the same
	# in every call: copy_b (4 calls) has twice copy_a's (2 calls)
	local per
	per=$(( $(hits) / 6 ))
	[ "$per" -ge 1 ] || fail "memcpy made no store to wpt_buf"
	assert_equal "$(hits)" $(( 6 * per ))
	run jq -r 'select(.type=="hit") | .callers[0].symbol | sub("\\+0x[0-9a-f]+$"; "")' <<< "$(wp-decode < "$WOUT")"
	assert_output "$(for i in $(seq $(( 2 * per ))); do echo copy_a; done; for i in $(seq $(( 4 * per ))); do echo copy_b; done)"
	run jq -r 'select(.type=="hit") | .writer.module | split("/") | last' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" libc.so.6
}

@test "wp-arm ptrace --callchain-depth: a deeper chain is marked truncated, never silently cut" {
	start_target callers -a 0 -b 0 -c 0
	watch_start wpt_deep -- --backend ptrace --callchain-depth 5 -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	run callers_of true
	assert_output "deep deep deep deep deep truncated"
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --regexp '^ +1  \[truncated\] by deep\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < deep\+'
	run --separate-stderr wp-arm --callchain-depth 0 < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --callchain-depth 0: not a depth (1 to 128)"
}

@test "wp-arm ptrace --callchain: a stripped program's frames are module+0xOFF" {
	cp "$T/callers" "$BATS_TEST_TMPDIR/callers-s"
	strip --strip-all "$BATS_TEST_TMPDIR/callers-s"
	TOUT=$BATS_TEST_TMPDIR/s.out
	"$BATS_TEST_TMPDIR/callers-s" -a 1 -b 0 -c 0 > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" pid 10
	# the stripped program has no symbol: watch the address it printed
	local addr
	addr=$(head -n 1 "$TOUT" | jq -r .counter)
	watch_start -l 8 "$addr" -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	local off
	off=$(( $(static_of "$T/callers" caller_a) ))
	run jq -r 'select(.type=="hit") | .callers[0] | "\(.symbol) \(.module | split("/") | last) \(.static_ip)"' <<< "$(wp-decode < "$WOUT" 2> /dev/null)"
	[[ $output =~ ^null\ callers-s\ (0x[0-9a-f]+)$ ]] || fail "frame: $output"
	# the return address lies in caller_a, whose size nm knows
	local ra=$(( BASH_REMATCH[1] )) size
	size=$(nm -S "$T/callers" | awk '$4 == "caller_a" { print $2 }')
	(( ra > off && ra <= off + 0x$size )) || fail "0x$(printf %x $ra) is not in caller_a"
	run wp-report < <(wp-decode < "$WOUT" 2> /dev/null)
	assert_line --regexp "^ +1  by callers-s\\+$(printf '0x%x' "$ra") < "
}
