#!/usr/bin/env bats
# wp doctor (wp-arm --doctor): what wp can use on this machine, and why,
# each fact checked against the machine itself; the backend it says auto
# takes is the one a watch takes (tests/60-wp.bats, tests/live/30).

load helpers

@test "wp doctor: one screen, a line per fact, each yes or no with its reason" {
	run --separate-stderr wp doctor
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 0 --regexp '^wp doctor: what wp can use on this machine \(Linux [^ ]+, x86_64\)$'
	local k
	for k in breakpoints bpf perf ptrace page uprobes tracefs avx-512 debuginfod; do
		assert_line --regexp "^  $k +(yes|no ) +[^ ]"
	done
	assert_line --regexp '^  8    bytes   (bpf|perf|page|ptrace) +the default backend'
	assert_line --regexp '^  4096 bytes   (page|ptrace) +the default backend; passed over: target 0: a debug register cannot watch 4096 bytes \(1, 2, 4 or 8\)$'
	[ "${#lines[@]}" -le 24 ] || fail "more than a screen: ${#lines[@]} lines"
}

@test "wp doctor --json: the same facts, each as the machine shows it" {
	run --separate-stderr wp doctor --json
	assert_success
	local j=$output
	jq -e 'type == "object"' <<< "$j" > /dev/null || fail "not one JSON object: $j"
	# breakpoints fire where wp-arm --check-bp says they do
	if wp-arm --check-bp > /dev/null 2>&1; then
		assert_equal "$(jq -r .breakpoints.fire <<< "$j")" true
		assert_equal "$(jq -r '.breakpoints.slots_free' <<< "$j")" 4
	else
		assert_equal "$(jq -r .breakpoints.fire <<< "$j")" false
		assert_equal "$(jq -r .breakpoints.why <<< "$j")" "$(wp-arm --check-bp 2>&1 | sed 's/^wp-arm: hardware breakpoints do not fire on this machine: .*/hardware breakpoints do not fire on this machine (they do on bare metal and in VMs that virtualize debug registers)/')${WP_SUITE_ARM_BP:+ (WP_ARM_BP=none says so)}"
	fi
	assert_equal "$(jq -r .breakpoints.slots <<< "$j")" 4
	assert_equal "$(jq -r .perf.perf_event_paranoid <<< "$j")" "$(cat /proc/sys/kernel/perf_event_paranoid)"
	if [ -r /proc/sys/kernel/yama/ptrace_scope ]; then
		assert_equal "$(jq -r .ptrace.ptrace_scope <<< "$j")" "$(cat /proc/sys/kernel/yama/ptrace_scope)"
	else
		assert_equal "$(jq -r '.ptrace | has("ptrace_scope")' <<< "$j")" false
	fi
	local avx=false uprobes=false
	grep -qw avx512f /proc/cpuinfo && avx=true
	[ -e /sys/bus/event_source/devices/uprobe/type ] && uprobes=true
	assert_equal "$(jq -r .cpu.avx512 <<< "$j")" "$avx"
	assert_equal "$(jq -r .uprobes <<< "$j")" "$uprobes"
	if [ -e /sys/kernel/tracing/trace ]; then
		assert_equal "$(jq -r .tracefs <<< "$j")" /sys/kernel/tracing
	elif [ ! -e /sys/kernel/debug/tracing/trace ]; then
		assert_equal "$(jq -r .tracefs <<< "$j")" null
	fi
	# the XSAVE area a signal frame holds, where the CPU has one
	if grep -qw xsave /proc/cpuinfo; then
		[ "$(jq -r .cpu.xsave_bytes <<< "$j")" -ge 576 ] || fail "no XSAVE area: $j"
	else
		assert_equal "$(jq -r .cpu.xsave_bytes <<< "$j")" 0
	fi
	# root traces any process, and a traced write fault reaches it
	assert_equal "$(jq -r .page.works <<< "$j")" true
	# the defaults: debug registers for a word where they fire and the
	# program loads, page protection for a page
	local want=page
	if [ "$(jq -r .breakpoints.fire <<< "$j")" = true ]; then
		want=perf
		[ "$(jq -r .bpf.loads <<< "$j")" = true ] && want=bpf
	fi
	assert_equal "$(jq -r '.default_backend["8"].backend' <<< "$j")" "$want"
	assert_equal "$(jq -r '.default_backend["4096"].backend' <<< "$j")" page
	assert_equal "$(jq -r '.default_backend["4096"].name' <<< "$j")" page_protect
	assert_equal "$(jq -r .debuginfod.urls <<< "$j")" null
}

@test "wp doctor: WP_ARM_BP=none answers as a machine whose breakpoints do not fire, and says so; DEBUGINFOD_URLS is read" {
	run --separate-stderr env WP_ARM_BP=none DEBUGINFOD_URLS=http://127.0.0.1:9/ wp doctor --json
	assert_success
	assert_equal "$(jq -r .breakpoints.fire <<< "$output")" false
	assert_equal "$(jq -r .breakpoints.why <<< "$output")" "hardware breakpoints do not fire on this machine (they do on bare metal and in VMs that virtualize debug registers) (WP_ARM_BP=none says so)"
	assert_equal "$(jq -r '.default_backend["8"].backend' <<< "$output")" page
	assert_equal "$(jq -r .debuginfod.urls <<< "$output")" http://127.0.0.1:9/
	run --separate-stderr env WP_ARM_BP=none wp-arm --check-bp
	assert_failure 5
}

@test "wp doctor: bad words are usage errors (status 64), one line; --json alone is wp-arm's error" {
	run --separate-stderr wp doctor --frob
	assert_failure 64
	assert_equal "$stderr" "wp: doctor: unknown option --frob"
	run --separate-stderr wp doctor 1234
	assert_failure 64
	assert_equal "$stderr" "wp: doctor: unexpected operand 1234"
	run --separate-stderr wp-arm --json
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --json goes with --doctor"
	assert_output ""
}

@test "wp doctor as a user who is not root: what that user may do, and no probe left behind" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to drop to another user"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_BUILD/wp-arm" --doctor --json
	assert_success
	local p
	p=$(cat /proc/sys/kernel/perf_event_paranoid)
	if [ "$p" -ge 3 ]; then
		assert_equal "$(jq -r .perf.allows <<< "$output")" "no events for users without CAP_PERFMON (Debian's 3)"
	else
		assert_equal "$(jq -r .perf.allows <<< "$output")" "this user may open user-space breakpoint events on its own processes"
	fi
	# the probes' children are gone: nothing of user 65534 runs on
	sleep 0.2
	local d left=
	for d in /proc/[0-9]*; do
		grep -qE '^Uid:[[:space:]]+65534[[:space:]]' "$d/status" 2> /dev/null &&
			left="$left $(cat "$d/comm" 2> /dev/null)"
	done
	assert_equal "$left" ""
}
