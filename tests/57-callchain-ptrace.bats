#!/usr/bin/env bats
# --callchain with the ptrace backend: each hit's callers, unwound with
# libdw at the stop, named by wp-decode.

load helpers

load callchain

@test "wp-arm ptrace --callchain: one setter called from three callers, each chain with its exact count" {
	scenario_chain_callers callers complete --backend ptrace --callchain
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.callchain) \(.callchain_depth)"' "$WOUT")" "cfi 16"
}

@test "wp-arm ptrace --callchain-depth 1: two stacks that read the same once cut are one chain, their hits together" {
	scenario_chain_cut callers --backend ptrace --callchain
}

@test "wp-arm ptrace --callchain dwarf: unwound at the stop with the modules' CFI, as --callchain is" {
	scenario_chain_callers callers complete --backend ptrace --callchain dwarf
	assert_equal "$(jq -r 'select(.type=="armed") | .callchain' "$WOUT")" cfi
}

@test "wp-arm ptrace --callchain: libc's memcpy as the writer, its callers named" {
	scenario_chain_memcpy --backend ptrace --callchain
}

@test "wp-arm ptrace --callchain-depth: a deeper chain is marked truncated, never silently cut" {
	scenario_chain_deep callers --backend ptrace
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

@test "wp-arm ptrace --callchain: a caller inlined into main is named, and marked inlined" {
	start_target callers -a 0 -b 0 -c 0 -i 2
	watch_start wpt_counter -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	local line
	line=$(grep -n 'set_counter(4);' "$BATS_TEST_DIRNAME/targets/callers.c" | cut -d: -f1)
	# the return address is main's; the call is caller_i's, inlined there
	run jq -r 'select(.type=="hit") | .callers[0] | "\(.inlined) \(.symbol | sub("\\+0x[0-9a-f]+$"; "")) \(.source.file | split("/") | last):\(.source.line)"' <<< "$(wp-decode < "$WOUT")"
	assert_output "$(repeat 2 "[\"caller_i\"] main callers.c:$line")"
	run wp-report < <(wp-decode < "$WOUT")
	assert_line --regexp '^ +2  by caller_i \(inline\) < main\+0x[0-9a-f]+ \(callers.c:[0-9]+\) < '
	# a frame not inlined has no such member
	start_target callers -a 1 -b 0 -c 0
	watch_start wpt_counter -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	run jq -c 'select(.type=="hit") | [.callers[] | has("inlined")] | any' <<< "$(wp-decode < "$WOUT")"
	assert_output false
}

@test "wp-arm ptrace, page --callchain: a return address outside executable code ends the chain, which says so" {
	local b
	for b in ptrace page; do
		start_target frames nocfi 3
		watch_start wpt_counter -- --backend "$b" --callchain -d 120s
		kill -USR1 "$TPID"
		wait_for "$TOUT" '^done' 60
		watch_wait
		# libdw, finding no CFI, walks rbp to 0xbebc200: no caller
		run jq -c 'select(.type=="hit") | [.callchain, .callchain_status]' "$WOUT"
		assert_output "$(repeat 3 '[[],"outside_code"]')"
		run --separate-stderr wp-report < <(wp-decode < "$WOUT" 2> /dev/null)
		assert_line --regexp '^ +3  \[outside_code\] no callers$'
		assert_line --partial 'outside_code: a chain stopped at a return address outside executable code (dropped)'
	done
}

@test "wp-arm ptrace --callchain: a writer run as a signal handler is called by <signal handler>, libc's trampoline" {
	start_target frames signal 3
	watch_start wpt_counter -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	run jq -r 'select(.type=="hit") | .callers[0] | "\(.symbol) \(.source)"' <<< "$(wp-decode < "$WOUT" 2> /dev/null)"
	assert_output "$(repeat 3 '<signal handler> null')"
	run --separate-stderr wp-report < <(wp-decode < "$WOUT" 2> /dev/null)
	assert_line --regexp '^ +3  by <signal handler> < [^ ]*(raise|kill)[^ ]*\+0x[0-9a-f]+ < '
}
