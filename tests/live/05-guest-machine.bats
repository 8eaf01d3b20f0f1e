#!/usr/bin/env bats
# What a guest must offer before any watch: its machine, test targets
# built for it that run, and perf hardware watchpoints that count every
# write.  No wp tool runs in a guest here: tests/vm/run-guest-arm64 runs
# this file before the arm64 build of the tools exists.  On a host, the
# watchpoint tests run where wp doctor says breakpoints fire.

load ../helpers

# a guest's watchpoints must fire (its tests fail if not); a host's may not
require_bp_off_guest() {
	[ "${WP_GUEST:-0}" = 1 ] || require_bp
}

@test "guest: the machine is the one the guest was made for" {
	[ -n "${WP_GUEST_MACHINE:-}" ] ||
		skip "only tests/vm/run-guest-arm64 names its machine (WP_GUEST_MACHINE)"
	run --separate-stderr uname -m
	assert_success
	assert_output "$WP_GUEST_MACHINE"
}

@test "guest: a test target runs, unwatched: three threads and a late one, its last write" {
	start_target mt-writer -t 3 -n 1000 -L 5
	assert_equal "$(tinfo threads)" 3
	kill -USR1 "$TPID"
	wait "$TPID"
	run tail -n 1 "$TOUT"
	assert_output "done 900000004"
}

@test "guest: a target's JIT page, the machine's own code, stores 42" {
	start_target jit
	kill -USR1 "$TPID"
	wait "$TPID"
	run tail -n 1 "$TOUT"
	assert_output "done 42"
}

@test "guest: nm reads the targets: a non-PIE target's variable where its ready line says" {
	start_target mt-writer-nopie -t 1 -n 1
	assert_equal "$(tinfo counter)" "$(static_of "$T/mt-writer-nopie" wpt_counter)"
}

@test "guest: objdump disassembles the targets: write_counter, once" {
	run --separate-stderr objdump -d --no-show-raw-insn "$T/mt-writer"
	assert_success
	assert_equal "$(grep -c '<write_counter>:$' <<< "$output")" 1
}

@test "guest: the kernel offers perf breakpoints (PERF_TYPE_BREAKPOINT, 5)" {
	require_bp_off_guest
	run --separate-stderr cat /sys/bus/event_source/devices/breakpoint/type
	assert_success
	assert_output 5
}

@test "guest: a perf write watchpoint counts each of 1000 writes, exactly" {
	require_bp_off_guest
	run --separate-stderr "$T/bp-self" -n 1000
	assert_success
	assert_output "writes 1000 hits 1000"
}
