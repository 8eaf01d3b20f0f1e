#!/usr/bin/env bats
# Asynchronous I/O contexts (io_uring, Linux AIO): the kernel completes
# their reads into the process's memory apart from any system call the
# page backend gives its pages back to, and on a protected page such a
# read fails with EFAULT.  auto watches such a process by single-step
# instead, saying why; --backend page says so at arming (or when the
# process makes one while watched) and marks the counts a lower bound
# (page_async_io).  tests/targets/page-aio.c makes them with the raw
# system calls.

load helpers
load page

# aio_watch OPTIONS -- ARM-ARGS...: page-aio OPTIONS started, its buffer
# watched (64 bytes), its reads made; the watch ends with the target.
aio_watch() {
	local o=()
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	shift
	start_target page-aio "${o[@]}"
	watch_start -l 64 "$(tinfo abuf)" -- "$@" -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	TSTATUS=0
	wait "$TPID" || TSTATUS=$?
}

# auto_single_step OPTION KIND: a target with a context of KIND (made
# with OPTION) is watched by single-step under auto, said in one line,
# and reads what it reads unwatched, exit status too.
auto_single_step() {
	if wp-arm --check-bp > /dev/null 2>&1; then
		skip "hardware breakpoints fire on this machine: auto picks bpf or perf"
	fi
	unwatched page-aio "$1"
	assert_equal "$PLAIN_STATUS" 0
	aio_watch "$1" --
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .backend)" ptrace_singlestep
	assert_equal "$(target_output)" "$PLAIN"
	assert_equal "$TSTATUS" "$PLAIN_STATUS"
	assert_equal "$(wc -l < "$WERR")" 1
	run cat "$WERR"
	assert_output --regexp "^wp-arm: target 0: a debug register cannot watch 64 bytes \(1, 2, 4 or 8\), and pid $TPID has $2 \([^)]*\): the reads it completes into the watched pages would fail with EFAULT while they are protected: using single-step \(the ptrace backend: exact, but slow\)$"
}

# page_said OPTIONS... -- KIND: with --backend page, one line says that
# the context's reads into the watched pages fail, and the observation
# and wp-report mark the counts a lower bound.
page_said() {
	local o=()
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	aio_watch "${o[@]}" -- --backend page
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .backend)" page_protect
	assert_equal "$(wc -l < "$WERR")" 1
	run cat "$WERR"
	assert_output --regexp "^wp-arm: pid $TPID has $2 \([^)]*\): a read it completes into the watched pages fails with EFAULT while they are protected, unseen, and the counts are a lower bound \(page_async_io; --backend ptrace lets it run as it would\)$"
	assert_equal "$(obs .counts_are_lower_bound)" true
	assert_equal "$(obs '.thread_coverage.partial_coverage_reasons | join(" ")')" page_async_io
	assert_equal "$(obs .page.async_io)" 1
	run --separate-stderr wp-report --json "$WOUT"
	assert_equal "$(jq -c '[.counts_are_lower_bound, .lower_bound_reasons]' <<< "$output")" '[true,["page_async_io"]]'
	run --separate-stderr wp-report "$WOUT"
	assert_line 'note     counts are a lower bound: page_async_io'
}

@test "wp-arm auto: a process with an io_uring is single-stepped, said why; its reads into the watched buffer succeed as unwatched" {
	auto_single_step -u "an io_uring"
}

@test "wp-arm auto: a process with a Linux AIO context is single-stepped, said why; its reads succeed as unwatched" {
	auto_single_step -a "a Linux AIO context"
}

@test "wp-arm --backend page: an io_uring at arming is said in one line, the counts a lower bound (page_async_io)" {
	page_said -u -- "an io_uring"
}

@test "wp-arm --backend page: a Linux AIO context at arming is said in one line, the counts a lower bound" {
	page_said -a -- "a Linux AIO context"
}

@test "wp-arm --backend page: an io_uring made while watched is said when it is made, the counts a lower bound" {
	page_said -u -l -- "an io_uring"
}

@test "wp-arm --backend page: a Linux AIO context made while watched is said, the counts a lower bound" {
	page_said -a -l -- "a Linux AIO context"
}

@test "wp-arm --backend page: a process with no such context gets no such line, and its reads into the watched buffer are exact" {
	start_target page-kread -n 5
	watch_start -l 64 "$(tinfo kbuf)" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs '.page.async_io // 0')" 0
	run cat "$WERR"
	refute_output --partial 'EFAULT'
}
