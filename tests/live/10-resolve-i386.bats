#!/usr/bin/env bats
# wp-resolve refuses a 32-bit process.  The build machines cannot run
# one (no IA32 emulation); the guest kernel can.

load ../helpers

@test "wp-resolve: a 32-bit process is refused (status 4)" {
	"$T/i386-pause" & local p=$!
	WP_TARGET_PIDS+=("$p")
	sleep 0.5
	if ! kill -0 "$p" 2>/dev/null; then
		[ "${WP_GUEST:-0}" = 1 ] && fail "the guest kernel must run 32-bit programs"
		skip "this kernel cannot run 32-bit x86 programs (no IA32 emulation)"
	fi
	run --separate-stderr wp-resolve -p "$p" 0x8049000
	assert_failure 4
	assert_equal "$stderr" "wp-resolve: pid $p: $T/i386-pause is not an x86-64 program (ELF machine 3)"
	assert_equal "$output" ""
}
