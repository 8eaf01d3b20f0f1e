# Call-chain scenarios written once and run against each backend:
# tests/57-callchain-ptrace.bats on the host, tests/live/45-callchain.bats
# (perf, frame pointers and copied stacks; bpf) in the guest.  Each takes
# the target program and wp-arm's options; the counts are exact against
# the calls the target made.

# callers_of JQ-FILTER [N]: "CALLER1 ... STATUS" per hit (or tally) the
# filter selects, its first N callers (all by default) by function.
callers_of() {
	wp-decode < "$WOUT" | jq -r --argjson n "${2:-999}" "select($1) |
		[(.callers[:\$n][] | .symbol // \"?\" | sub(\"\\\\+0x[0-9a-f]+$\"; \"\")), .callchain_status] | join(\" \")"
}

# repeat N LINE: LINE, N times
repeat() {
	local k
	for ((k = 0; k < $1; k++)); do echo "$2"; done
}

# scenario_chain_cut PROGRAM OPTION...: caller_a calls the setter 3
# times from main and 4 through via: cut to one caller
# (--callchain-depth 1) the two chains read the same, and the report
# counts the 7 hits in one chain (the bpf backend's tallies of the two
# stacks are summed, not the later in place of the earlier).
scenario_chain_cut() {
	local prog=$1
	shift
	start_target "$prog" -a 3 -b 0 -c 0 -v 4
	watch_start wpt_counter -- "$@" --callchain-depth 1 -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs '.targets[0].counted') $(obs '.targets[0].lost')" "7 0"
	run wp-report --json < <(wp-decode < "$WOUT")
	run jq -r '.watches[0].writer_sites[] | "\(.hits) \([.call_chains[] | "\(.hits) \(.callers | map(.symbol | sub("\\+0x[0-9a-f]+$"; "")) | join(" "))"] | join(", "))"' <<< "$output"
	assert_output "7 7 caller_a"
}

# scenario_chain_callers PROGRAM STATUS OPTION...: one setter called
# from three callers, 3, 5 and 7 times; each hit's callers are its
# caller, then main (then, for a complete chain, on to _start), with
# STATUS; the report counts each chain exactly, most hits first, and
# names each caller's source line.  (STATUS is kept in want: bats' run
# sets $status.)
scenario_chain_callers() {
	local prog=$1 want=$2 line
	shift 2
	start_target "$prog" -a 3 -b 5 -c 7
	watch_start wpt_counter -- "$@" -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	run callers_of '.type=="hit"' 2
	assert_output "$(repeat 3 "caller_a main $want"; repeat 5 "caller_b main $want"; repeat 7 "caller_c main $want")"
	if [ "$want" = complete ]; then
		# libc's own frames are named where its symbols are at hand
		run callers_of '.type=="hit"'
		assert_equal "$(sed 's/ [^ ]* __libc_start_main / ? __libc_start_main /' <<< "$output" | sort -u)" "$(printf 'caller_%s main ? __libc_start_main _start complete\n' a b c)"
	fi
	# the report: the site's chains, most hits first, with counts
	run wp-report --json < <(wp-decode < "$WOUT")
	run jq -r '.watches[0].writer_sites[0] | (.call_chains[] | "\(.hits) \(.status) \(.callers[0].symbol | sub("\\+0x[0-9a-f]+$"; ""))"), "rest \(.other_call_chains_hits)"' <<< "$output"
	assert_output "7 $want caller_c
5 $want caller_b
3 $want caller_a
rest 0"
	run wp-report --chains 2 --json < <(wp-decode < "$WOUT")
	run jq -r '.watches[0].writer_sites[0] | "\(.call_chains | length) \(.other_call_chains_hits)"' <<< "$output"
	assert_output "2 3"
	local mark=""
	[ "$want" = complete ] || mark="\\[$want\\] "
	run wp-report --chains 2 < <(wp-decode < "$WOUT")
	assert_line --regexp "^ +7  ${mark}by caller_c\\+0x[0-9a-f]+ \\(callers.c:[0-9]+\\) < main\\+0x[0-9a-f]+( < |$)"
	assert_line --regexp "^ +5  ${mark}by caller_b\\+0x[0-9a-f]+ \\(callers.c:[0-9]+\\) < main\\+0x[0-9a-f]+( < |$)"
	assert_line --regexp '^ +3  in other call chains$'
	# caller_b's frame is the line that calls the setter
	local src=$BATS_TEST_DIRNAME/targets/callers.c
	[ -f "$src" ] || src=$BATS_TEST_DIRNAME/../targets/callers.c
	line=$(grep -n 'set_counter(2);' "$src" | cut -d: -f1)
	run wp-decode < "$WOUT"
	run jq -r 'select(.type=="hit") | .callers[0] | select(.symbol | startswith("caller_b")) | "\(.source.file | split("/") | last):\(.source.line)"' <<< "$output"
	assert_equal "$output" "$(repeat 5 "callers.c:$line")"
}

# scenario_chain_memcpy OPTION...: libc's memcpy writes, called from
# copy_a (2 calls) and copy_b (4 calls): each hit's first caller named.
scenario_chain_memcpy() {
	start_target callers -a 2 -b 4
	watch_start -l 8 wpt_buf -- "$@" -d 120s
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
	assert_output "$(repeat $(( 2 * per )) copy_a; repeat $(( 4 * per )) copy_b)"
	run jq -r 'select(.type=="hit") | .writer.module | split("/") | last' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" libc.so.6
	# and the table, under each of memcpy's stores
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --regexp '^ +4  by copy_b\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < main\+0x[0-9a-f]+'
	assert_line --regexp '^ +2  by copy_a\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < main\+0x[0-9a-f]+'
}

# scenario_chain_deep PROGRAM OPTION...: a chain deeper than
# --callchain-depth 5 is marked truncated, never silently cut.
scenario_chain_deep() {
	local prog=$1
	shift
	start_target "$prog" -a 0 -b 0 -c 0
	watch_start wpt_deep -- "$@" --callchain-depth 5 -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	run callers_of '.type=="hit"'
	assert_output "deep deep deep deep deep truncated"
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --regexp '^ +1  \[truncated\] by deep\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < deep\+'
}
