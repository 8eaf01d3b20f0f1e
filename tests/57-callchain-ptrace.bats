#!/usr/bin/env bats
# --callchain with the ptrace backend: each hit's callers, unwound with
# libdw at the stop, named by wp-decode.

load helpers

load callchain

@test "wp-arm ptrace --callchain: one setter called from three callers, each chain with its exact count" {
	scenario_chain_callers callers complete --backend ptrace --callchain
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
