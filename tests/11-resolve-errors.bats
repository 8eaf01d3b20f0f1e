#!/usr/bin/env bats
# wp-resolve refuses what cannot be watched, with one line naming the
# thing and a documented exit status, and writes no records then.

load helpers

# expect_error STATUS MESSAGE CMD...: fails with STATUS, prints exactly
# MESSAGE on stderr, nothing on stdout.
expect_error() {
	local status=$1 msg=$2
	shift 2
	run --separate-stderr "$@"
	assert_failure "$status"
	assert_equal "$stderr" "$msg"
	assert_equal "$output" ""
}

@test "wp-resolve: no such process (status 4)" {
	local pid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
	expect_error 4 "wp-resolve: pid $pid: no such process" wp-resolve -p "$pid" 0x1000
}

@test "wp-resolve: a process that has exited but is not reaped is no process to watch (status 4)" {
	start_target_unreaped mt-writer -t 0
	kill -9 "$TPID"
	for _ in $(seq 50); do
		[ "$(awk '{ print $3 }' "/proc/$TPID/stat")" = Z ] && break
		sleep 0.05
	done
	expect_error 4 "wp-resolve: pid $TPID: the process has exited (a zombie its parent has not reaped)" wp-resolve -p "$TPID" wpt_counter
}

@test "wp-resolve: a kernel thread is no process to watch (status 4)" {
	expect_error 4 "wp-resolve: pid 2: no such process (or a kernel thread)" wp-resolve -p 2 0x1000
}

@test "wp-resolve: permission denied for another user's process (status 4)" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run wp-resolve as another user"
	command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
	start_target mt-writer
	expect_error 4 "wp-resolve: pid $TPID: permission denied (run as the process's user with ptrace allowed, or as root)" \
	    setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_BUILD/wp-resolve" -p "$TPID" wpt_counter
}

@test "wp-resolve: a /proc file of the process it cannot open (denied, out of descriptors): the file and its cause" {
	local so=$BATS_TEST_TMPDIR/fail-open.so f
	fail_open_shim "$so"
	start_target mt-writer
	for f in stat maps; do
		expect_error 4 "wp-resolve: pid $TPID: cannot read /proc/$TPID/$f: Permission denied" \
		    env WPT_FAIL_PATH="/proc/$TPID/$f" LD_PRELOAD="$so" wp-resolve -p "$TPID" wpt_counter
		expect_error 4 "wp-resolve: pid $TPID: cannot read /proc/$TPID/$f: Too many open files" \
		    env WPT_FAIL_PATH="/proc/$TPID/$f" WPT_FAIL_ERRNO=24 LD_PRELOAD="$so" wp-resolve -p "$TPID" wpt_counter
	done
	expect_error 4 "wp-resolve: pid $TPID: cannot open /proc/$TPID/mem: Too many open files" \
	    env WPT_FAIL_PATH="/proc/$TPID/mem" WPT_FAIL_ERRNO=24 LD_PRELOAD="$so" wp-resolve -p "$TPID" wpt_counter
}

@test "wp-resolve: unmapped address (status 1)" {
	start_target mt-writer
	expect_error 1 "wp-resolve: 0x10: not mapped in pid $TPID" wp-resolve -p "$TPID" 0x10
}

@test "wp-resolve: an address not aligned to its length (status 1)" {
	start_target mt-writer
	local a
	a=$(hexadd "$(tinfo counter)" 2)
	expect_error 1 "wp-resolve: $a: not aligned to its length 4 (debug registers need natural alignment)" \
	    wp-resolve -p "$TPID" --backend bpf "$a"
	expect_error 1 "wp-resolve: wpt_counter+2: at $a: not aligned to its length 8 (debug registers need natural alignment)" \
	    wp-resolve -p "$TPID" --backend perf -l 8 wpt_counter+2
}

@test "wp-resolve: LEN other than 1, 2, 4, 8 for the debug registers (status 64)" {
	start_target mt-writer
	expect_error 64 "wp-resolve: -l 3: debug registers watch 1, 2, 4 or 8 bytes (--backend page or ptrace watches any length)" \
	    wp-resolve -p "$TPID" --backend bpf -l 3 wpt_counter
	expect_error 64 "wp-resolve: -l x: not a length" wp-resolve -p "$TPID" -l x wpt_counter
}

@test "wp-resolve: a read-only region for -a w is a warning, not an error" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" wpt_const
	assert_success
	assert_equal "$stderr" "wp-resolve: wpt_const: warning: region is not writable: a write there would fault"
	run jq -r 'select(.type=="target") | "\(.perms) \(.initial_value) \(.warnings[0])"' <<< "$output"
	assert_output "r--p 0x2a region is not writable: a write there would fault"
}

@test "wp-resolve: unknown symbol, unknown module (status 1)" {
	start_target mt-writer
	expect_error 1 "wp-resolve: wpt_nope: unknown symbol 'wpt_nope' (not in $T/mt-writer or its shared objects)" \
	    wp-resolve -p "$TPID" wpt_nope
	expect_error 1 "wp-resolve: libnope:x: no module 'libnope' is loaded" wp-resolve -p "$TPID" libnope:x
}

@test "wp-resolve: SYMBOL-N is not taken for an offset silently: the error says how offsets are written (status 1)" {
	start_target mt-writer
	expect_error 1 "wp-resolve: wpt_counter-8: unknown symbol 'wpt_counter-8' (not in $T/mt-writer or its shared objects); an offset is added (SYMBOL+0xOFF): bytes before a symbol are named by their address (static:0xADDR or 0xADDR)" \
	    wp-resolve -p "$TPID" wpt_counter-8
	# an offset past the symbol's end is watched, with a warning
	run --separate-stderr wp-resolve -p "$TPID" wpt_score+8
	assert_success
	assert_equal "$stderr" "wp-resolve: wpt_score+8: warning: 4 bytes at offset 0x8 reach past the end of wpt_score (4 bytes)"
}

@test "wp-resolve: 0xADDR+OFF and static:0xADDR+OFF are the address plus the offset" {
	start_target mt-writer
	local c
	c=$(tinfo counter)
	run --separate-stderr wp-resolve -p "$TPID" "$(hexadd "$c" -8)+8"
	assert_success
	assert_equal "$(jq -r 'select(.type=="target") | .runtime_addr' <<< "$output")" "$c"
	local st
	st=$(jq -r 'select(.type=="target") | .static_addr' <<< "$output")
	run --separate-stderr wp-resolve -p "$TPID" "static:$(hexadd "$st" -0x10)+0x10"
	assert_success
	assert_equal "$(jq -r 'select(.type=="target") | .runtime_addr' <<< "$output")" "$c"
	expect_error 64 "wp-resolve: 0x10+zz: not a hex address (0xHEX or 0xHEX+OFF)" wp-resolve -p "$TPID" 0x10+zz
}

@test "wp-resolve: ambiguous symbol across shared objects (status 1)" {
	start_target shlib-writer
	local l1 l2
	l1=$(realpath "$T/libwpt.so")
	l2=$(realpath "$T/libwpt2.so")
	expect_error 1 "wp-resolve: wpt_lib_counter: ambiguous symbol 'wpt_lib_counter': defined in $l1 and $l2; write MODULE:wpt_lib_counter" \
	    wp-resolve -p "$TPID" wpt_lib_counter
	run wp-resolve -p "$TPID" libwpt2:wpt_lib_counter
	assert_success
}

@test "wp-resolve: duplicate and overlapping targets (status 1)" {
	start_target mt-writer
	expect_error 1 "wp-resolve: $(tinfo counter): overlaps target 0 (wpt_counter) at $(tinfo counter); watch it once" \
	    wp-resolve -p "$TPID" wpt_counter "$(tinfo counter)"
}

@test "wp-resolve: a fifth hardware slot is refused (status 1)" {
	start_target mt-writer
	expect_error 1 "wp-resolve: 5 hardware slots requested (5 addresses, 0 follow chains): x86-64 has 4 (DR0..DR3); watch fewer, or use --backend page or ptrace (no slot limit)" \
	    wp-resolve -p "$TPID" --backend bpf wpt_counter wpt_score wpt_small wpt_byte wpt_array
	expect_error 1 "wp-resolve: 6 hardware slots requested (2 addresses, 2 follow chains): x86-64 has 4 (DR0..DR3); watch fewer, or use --backend page or ptrace (no slot limit)" \
	    wp-resolve -p "$TPID" --backend bpf wpt_counter wpt_score --follow wpt_array+8 --follow wpt_array+16
	# a wide symbol counts the slots it takes
	expect_error 1 "wp-resolve: 5 hardware slots requested (2 addresses, 0 follow chains): x86-64 has 4 (DR0..DR3); watch fewer, or use --backend page or ptrace (no slot limit)" \
	    wp-resolve -p "$TPID" --backend perf wpt_array wpt_counter
}

@test "wp-resolve: a target wider than the four slots is refused with its size and the choices (status 1)" {
	start_target mt-writer
	expect_error 1 "wp-resolve: wpt_array: 64 bytes need 8 debug-register slots, x86-64 has 4 (DR0..DR3): watch it whole with --backend page (or ptrace), or a part of it with -l LEN and ADDR+OFF" \
	    wp-resolve -p "$TPID" --backend bpf -l 64 wpt_array
}

@test "wp-resolve: a bare word that is no symbol is never a module's base (status 1)" {
	start_target mt-writer-stripped
	local m="$T/mt-writer-stripped is stripped (no symbol table); name it with --bin (an unstripped build), --debug-file, static:0xADDR or MODULE+0xOFF"
	expect_error 1 "wp-resolve: counter: unknown symbol 'counter': $m" wp-resolve -p "$TPID" counter
	expect_error 1 "wp-resolve: mt-writer-stripped: unknown symbol 'mt-writer-stripped': $m" wp-resolve -p "$TPID" mt-writer-stripped
	expect_error 1 "wp-resolve: mt-writer-stripped:wpt_counter: unknown symbol 'wpt_counter': $m" wp-resolve -p "$TPID" mt-writer-stripped:wpt_counter
	# MODULE+0xOFF is the module's base plus the offset, as written
	run --separate-stderr wp-resolve -p "$TPID" "mt-writer-stripped+0x$(nm "$T/mt-writer" | awk '$3 == "wpt_counter" { print $1 }')"
	assert_success
	run jq -r 'select(.type=="target") | .runtime_addr' <<< "$output"
	assert_output "$(tinfo counter)"
	# a module's name with symbols: the choices
	start_target mt-writer
	expect_error 1 "wp-resolve: libc: unknown symbol 'libc' (not in $T/mt-writer or its shared objects); 'libc' is a module: write libc+0xOFF or libc:SYMBOL" \
	    wp-resolve -p "$TPID" libc
}

@test "wp-resolve: --backend names a backend, and --no-slot-limit is not for the debug registers (status 64)" {
	expect_error 64 "wp-resolve: --backend hw: expected auto, bpf, perf, ptrace, page or uprobe" wp-resolve -p 1 --backend hw 0x10
	expect_error 64 "wp-resolve: --no-slot-limit: the perf backend watches with the debug registers (4 slots); --backend page or ptrace has no limit" \
	    wp-resolve -p 1 --no-slot-limit --backend perf 0x10
}

@test "wp-resolve: --bin of another build is refused unless --force-bin" {
	start_target mt-writer
	local b1 b2
	b1=$(readelf -n "$T/mt-writer" | awk '/Build ID/ { print $3 }')
	b2=$(readelf -n "$T/mt-writer-nopie" | awk '/Build ID/ { print $3 }')
	expect_error 4 "wp-resolve: --bin $T/mt-writer-nopie: build-id $b2 differs from the running $T/mt-writer ($b1); use --force-bin to go on" \
	    wp-resolve -p "$TPID" --bin "$T/mt-writer-nopie" 0x10
	run --separate-stderr wp-resolve -p "$TPID" --bin "$T/mt-writer-nopie" --force-bin "$(tinfo counter)"
	assert_success
	assert_equal "$stderr" "wp-resolve: --bin $T/mt-writer-nopie: warning: build-id $b2 differs from $T/mt-writer's $b1 (--force-bin)"
	run jq -r 'select(.type=="session") | "\(.binary_match) \(.warnings | length)"' <<< "$output"
	assert_output "mismatch_forced 1"
}

@test "wp-resolve: usage errors name the argument (status 64)" {
	expect_error 64 "wp-resolve: -p abc: not a process id" wp-resolve -p abc 0x10
	expect_error 64 "wp-resolve: -a x: access is w or rw" wp-resolve -p 1 -a x 0x10
	expect_error 64 "wp-resolve: 12: addresses are written 0xHEX" wp-resolve -p 1 12
	expect_error 64 "wp-resolve: static:12: static address must be 0xHEX or 0xHEX+OFF" wp-resolve -p 1 static:12
	expect_error 64 "wp-resolve: --follow wpt_ptr: expected SLOT+OFF or [SLOT]+OFF" wp-resolve -p 1 --follow wpt_ptr
	# one length for every addr: a second one, meant for the next addr, is refused
	expect_error 64 "wp-resolve: -l 64: -l 8 was given too: one length applies to every addr" wp-resolve -p 1 0x10 -l 8 0x20 -l 64
	run --separate-stderr wp-resolve -p 1
	assert_failure 64
	assert_equal "${stderr_lines[0]}" "wp-resolve: no address to watch"
}

@test "wp-resolve: a reader that closes the pipe early (| head) ends it quietly" {
	start_target mt-writer -t 1
	run --separate-stderr bash -c "wp-resolve -p $TPID wpt_counter wpt_score | head -c 10 > /dev/null; echo \${PIPESTATUS[0]}"
	assert_output 0
	assert_equal "$stderr" ""
}

@test "wp-resolve: root refused a process blames yama only where yama says so" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	wp-resolve -p 1 x > /dev/null 2>&1 || true
	run --separate-stderr wp-resolve -p 1 x
	[[ $stderr == *"permission denied even to root"* ]] || skip "pid 1 is not refused here"
	if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null)" = 3 ]; then
		assert_equal "$stderr" "wp-resolve: pid 1: permission denied even to root (kernel.yama.ptrace_scope is 3: no process may trace)"
	else
		assert_equal "$stderr" "wp-resolve: pid 1: permission denied even to root (a security module, or a process outside this container's namespaces?)"
	fi
}
