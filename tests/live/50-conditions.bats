#!/usr/bin/env bats
# wp-arm --if, --stop and --last on the perf backend, live (the QEMU
# guest suite runs these; elsewhere they skip): the condition is
# evaluated in wp-arm at each sample, the value from the sampled
# registers of the decoded store, the writer from the trap IP.  The
# targets and helpers are tests/cond.bash's.  Then the bpf backend,
# whose program evaluates the condition in the kernel, stops the writer
# itself, and keeps the last writes in a map.

load ../helpers
load ../cond

setup() {
	require_bp
}

# Writes per thread: three threads, every sample in the rings (a
# sample with registers is some 200 bytes; each CPU's ring is 2 MiB).
N=2000

@test "wp-arm perf --if 'value == 0': the one write of 0 is the hit; every write counted per writer" {
	zero_watch perf "$N" wp-arm
	# --if reads the target's memory at the sample: formatted as drained
	assert_equal "$(jq -c 'select(.type=="observation") | .perf | [.formatter, .formatter_reason]' "$WOUT")" '["inline","if"]'
}

@test "wp-arm perf --if 'writer != good_writer': only the stray's write, by its trap IP" {
	COND_ARM=(--regs)
	stray_watch perf "$N"
	COND_ARM=()
}

@test "wp-arm perf --if 'value == 0' --stop: the process stopped when the sample was read, and says how late" {
	local n=20000
	# the process runs on long enough after its write of 0 for the
	# sample to be read: 10,000 more writes of that thread, every one in
	# rings of 8 MiB
	stop_watch perf "$n" --ring-pages 2048
	[ "$(obs .stopped_at.late_us)" -ge 0 ] || fail "no late_us: $(obs .stopped_at)"
	run cat "$WERR"
	assert_line --regexp "^wp-arm: perf_breakpoint: stopped [0-9]+ us after the write, when wp-arm read its sample"
	# gdb (where there is one) attaches to the stopped process
	if command -v gdb > /dev/null; then
		[ -n "$(pc_of_thread "$TPID" -p "$TPID")" ] ||
			fail "gdb did not attach to $TPID"
	fi
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	kill -CONT "$TPID"
	wait_for "$TOUT" '^done' 60
	assert_equal "$(target_count zero) $(target_count rare)" "1 $n"
}

@test "wp-arm perf --last 8: the last writes before SIGSEGV, the garbage one last; exit 6" {
	scenario_last perf
}

@test "wp-arm perf --last 8 --callchain: each last write with its sample's chain (frame pointers), as its hit's" {
	scenario_last perf --callchain
}

# The bpf backend's program evaluates the condition in the kernel at
# each hit: 100,002 writes, every one tallied there.
NB=33334

@test "wp-arm bpf --if 'value == 0': evaluated in the kernel; the one write of 0 is the hit, every write tallied" {
	zero_watch bpf "$NB" kernel
	# the program's value: the store's register (rdi), not what memory
	# held at the trap, where another thread's write may be already
	assert_equal "$(jq -r 'select(.type=="hit") | .new_value' "$WOUT")" 0x0
}

@test "wp-arm perf --if 'value == 0': a writer that writes 0 from its first write on, two others not: each writer's matched count exact" {
	zeros_watch perf "$N"
}

# A global's writers that store to it by its address (rip-relative):
# wp-arm decodes them before arming, and the program takes each hit's
# value from its store from the first hit on, none sent to wp-arm to
# test.  cond-writers has four: good_, busy_, rare_ and stray_writer.
@test "wp-arm bpf --if 'value == 0': a global's four writers decoded before arming, no hit pending: each writer's matched count exact" {
	zeros_watch bpf "$NB"
	assert_equal "$(obs .bpf.writers_prelearned) $(obs .bpf.samples_pending)" "4 0"
}

# The same, stripped as distributions ship programs: no symbol gives
# the writers' functions (cond-writers-stripped has no .symtab, its
# .dynsym none of them); the unwind table's FDEs do, and wp-arm decodes
# them from their starts all the same.  wp-resolve and wp-decode take
# the names from the unstripped build.
@test "wp-arm bpf --if 'value == 0' on a stripped program: its global's four writers found from its unwind table before arming, no hit pending: each writer's matched count exact" {
	COND_TARGET=cond-writers-stripped
	COND_WATCH=(--bin "$T/cond-writers" wpt_cell)
	COND_DECODE=(--bin "$T/cond-writers")
	zeros_watch bpf "$NB"
	assert_equal "$(obs .bpf.writers_prelearned) $(obs .bpf.samples_pending)" "4 0"
}

# Writers through a pointer are not known before their hits: the
# program cannot take the value from a store it has not decoded, and
# sends such a hit to wp-arm, which tests it on its registers (memory at
# the trap may hold another thread's store) and decodes the writer.
@test "wp-arm bpf --if 'value == 0': writers through a pointer, decoded from their first hits (pending), tested on their store: each writer's matched count exact" {
	zeros_watch bpf "$NB" -p
	# the four that store to wpt_cell by its address are decoded before
	# arming, never called; each _p writer's first hit at least is
	# pending (how many more: until wp-arm has decoded its writer)
	assert_equal "$(obs .bpf.writers_prelearned)" 4
	[ "$(obs .bpf.samples_pending)" -ge 3 ] || fail "samples_pending: $(obs .bpf.samples_pending)"
}

# The same, stripped: no symbol holds the _p writers either, and wp-arm
# sweeps each one from the start of the unwind table's FDE that holds
# its trap, so its store is decoded and its hits tested on it, not on
# memory at the trap.
@test "wp-arm bpf --if 'value == 0' on a stripped program: writers through a pointer, decoded from their unwind table's FDEs at their first hits: each writer's matched count exact" {
	COND_TARGET=cond-writers-stripped
	COND_WATCH=(--bin "$T/cond-writers" wpt_cell)
	COND_DECODE=(--bin "$T/cond-writers")
	zeros_watch bpf "$NB" -p
	assert_equal "$(obs .bpf.writers_prelearned)" 4
	[ "$(obs .bpf.samples_pending)" -ge 3 ] || fail "samples_pending: $(obs .bpf.samples_pending)"
}

@test "wp-arm perf --if changed: three threads writing the value the target had at arming change nothing" {
	changed_watch perf "$N"
}

@test "wp-arm bpf --if changed: the program compares the first write with the value at arming" {
	changed_watch bpf 33334
}

# No value test: the program reads the stray's value in memory at the
# trap, where another thread's store may already stand; with --regs
# wp-decode takes it from the store's register instead.
@test "wp-arm bpf --if 'writer != good_writer': only the stray's write" {
	COND_ARM=(--regs)
	stray_watch bpf "$NB"
	COND_ARM=()
}

@test "wp-arm bpf --if 'value == 0xbad' --stop: the stray's one write, its writer's first hit, stops the process at it" {
	scenario_stray_stop bpf "$NB"
}

@test "wp-arm bpf --if 'value == 0' --stop: the program stops the writer at the write; its pc is the next instruction" {
	scenario_cond_stop bpf "$NB"
}

@test "wp-arm bpf --last 8: the program's ring, the last writes before SIGSEGV, the garbage one last; exit 6" {
	scenario_last bpf
}

@test "wp-arm bpf --last 8 --callchain: each last write with its chain (the program's stack id), as its hit's" {
	scenario_last bpf --callchain
}

@test "wp-arm bpf --last 64: 100,002 writes of three threads, the last 64 kept by the program, sampled or not" {
	scenario_last_threads bpf "$NB"
}
