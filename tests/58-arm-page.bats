#!/usr/bin/env bats
# wp-arm --backend page: runs here for real (page protection needs no
# debug registers).  The scenarios every backend shares (tests/arm.bash),
# then what is the page backend's own: exact writers at the fault, page
# neighbours, kernel writes, the target's health however the watch ends.

load helpers
load arm
load callchain
load follow
load page
load cond

@test "wp-arm page: exact hits from several threads, one created mid-watch" {
	scenario_threads page
	assert_equal "$(obs .backend)" page_protect
	assert_equal "$(obs .page.faults_watched)" 700
	assert_equal "$(obs .page.pages)" 1
	# the four threads there at the start and the late one, each named
	run jq -r 'select(.type=="thread" and (.event=="seeded" or .event=="start")) | "\(.event) \(.comm)"' "$WOUT"
	assert_equal "$(sort <<< "$output" | uniq -c | tr -s ' ')" "$(printf ' 4 seeded mt-writer\n 1 start mt-writer')"
}

@test "wp-arm page: forty threads made while watched: each one's start before its first hit, its exit after its last, every write" {
	scenario_start_order page 4
}

@test "wp-arm page: a tight loop on three threads: every write counted and written" {
	scenario_counted page
	assert_equal "$(hits)" 2400
	# every fault was made one way or the other
	assert_equal "$(obs .page.faults_watched)" 2400
	assert_equal "$(obs '.page | .emulated + .stepped')" "$(obs '.page | .faults_watched + .faults_neighbour')"
}

@test "wp-arm page: a write of the same value is still a hit" {
	scenario_same_value page
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_equal "$(sort -u <<< "$output")" "0x1"
}

@test "wp-arm page: -n stops at max events and flags truncation" {
	scenario_max_events page
}

@test "wp-arm page: -d stops at the duration and reads the latest value" {
	scenario_duration page
}

@test "wp-arm page: SIGINT, SIGTERM and SIGHUP yield the hits and an observation" {
	scenario_signal page
}

@test "wp-arm page: the target exiting mid-watch ends the watch" {
	scenario_target_exit page
}

@test "wp-arm page: exec in the target ends the watch" {
	scenario_exec page
}

@test "wp-arm page: a pid reused since wp-resolve is refused (status 4)" {
	scenario_pid_reused page
}

@test "wp-arm page: a malformed line is reported, the watch still runs (status 2)" {
	scenario_malformed page
}

@test "wp-arm page: a closed stdout stops the watch and leaves the target running" {
	scenario_closed_stdout page
}

@test "wp-arm page: however the watch ends, the target computes what it computes unwatched" {
	scenario_healthy page
}

# unwatched_out ARGS...: what mt-writer ARGS prints, unwatched
unwatched_out() {
	local out=$BATS_TEST_TMPDIR/plain.$RANDOM.out p
	"$T/mt-writer" "$@" > "$out" &
	p=$!
	wait_for "$out" pid 10
	kill -USR1 "$p"
	wait "$p"
	tail -n +2 "$out"
}

# page_perms HEXPAGE: the permissions of the target's mapping of it
page_perms() {
	local range perm rest
	while read -r range perm rest; do
		if (( 16#${range%-*} <= 16#$1 && 16#$1 < 16#${range#*-} )); then
			echo "$perm"
		fi
	done < "/proc/$TPID/maps"
}

@test "wp-arm page: every writer IP is the store in write_counter, as objdump shows it, with the value" {
	start_target mt-writer -t 1 -n 40
	watch_start wpt_counter -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	local slide store
	slide=$(jq -r 'select(.type=="session") | .pie_slide' "$WOUT")
	store=$(objdump -d --no-show-raw-insn "$T/mt-writer" |
		awk '/<write_counter>:/ { f = 1; next } f && /wpt_counter/ { sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
	run jq -r 'select(.type=="hit") | .writer_ip' "$WOUT"
	assert_equal "${#lines[@]}" 40
	assert_equal "$(sort -u <<< "$output")" "$(printf '0x%x' $(( slide + 0x$store )))"
	run jq -r 'select(.type=="hit") | .new_value' "$WOUT"
	assert_output "$(for i in $(seq 0 39); do printf '0x%x\n' $((1000000 + i)); done)"
	# wp-decode names it, exact
	run jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" "write_counter exact"
}

@test "wp-arm page: read(2) into the watched page is the kernel's write by read; the target reads what it reads unwatched" {
	local want
	want=$(unwatched_out -t 0 -r)
	start_target mt-writer -t 0 -r
	watch_start wpt_counter -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(tail -n +2 "$TOUT")" "$want"
	run jq -c 'select(.type=="hit") | [.flags, .new_bytes]' "$WOUT"
	assert_output "[[\"syscall\"],\"$(head -c 8 "$T/mt-writer" | od -An -tx1 | tr -d ' \n')\"]"
	assert_equal "$(obs .page.kernel_writes)" 1
	assert_equal "$(obs .page.windows)" 1
	assert_equal "$(obs .counts_are_lower_bound)" false
	run jq -r 'select(.type=="hit") | "\(.writer.insn) \(.writer.confidence)"' <<< "$(wp-decode < "$WOUT")"
	assert_output "syscall exact"
}

@test "wp-arm page: read(2) of the same bytes again is a write each time; another thread's call or signal on the page takes none of the reader's" {
	local reader
	start_target page-kread -n 200
	watch_start -l 64 "$(tinfo kbuf)" -- --backend page -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(sed -n 3p "$TOUT")" "reads 400"
	reader=$(awk '$1 == "reader" { print $2 }' "$TOUT")
	# before, the 199 reads of the same bytes were not counted, and a
	# change the reader made was at times the signalled thread's frame
	# or the side thread's read
	assert_equal "$(hits)" 400
	assert_equal "$(hits ".tid == $reader and .flags == [\"syscall\"]")" 400
	run jq -r 'select(.type=="hit") | .writer.insn' <<< "$(wp-decode < "$WOUT")"
	assert_equal "$(sort -u <<< "$output")" syscall
	assert_equal "$(obs .page.kernel_writes)" 400
}

@test "wp-arm page: a hot neighbour on the same page is counted, never a hit, and the target computes what it does unwatched" {
	local want
	want=$(unwatched_out -t 0 -c 100000)
	start_target mt-writer -t 0 -c 100000
	# wpt_score shares wpt_counter's page; the loop writes wpt_counter
	[ $(( $(tinfo score) / 4096 )) = $(( $(tinfo counter) / 4096 )) ] || fail "not one page"
	watch_start wpt_score -- --backend page -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(tail -n +2 "$TOUT")" "$want"
	assert_equal "$(hits)" 0
	assert_equal "$(obs .page.faults_watched)" 0
	[ "$(obs .page.faults_neighbour)" -ge 100000 ] || fail "neighbour faults: $(obs .page.faults_neighbour)"
	assert_equal "$(obs '.page | .emulated + .stepped')" "$(obs .page.faults_neighbour)"
}

@test "wp-arm page: a forked child gets its pages back and is let go; both finish as unwatched" {
	start_target fork-exec -c 10 -n 20
	watch_start wpt_counter -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	grep -q '^done' "$TOUT" || fail "the target did not finish"
	assert_equal "$(obs .thread_coverage.forked_processes)" 1
	assert_equal "$(obs .page.forks_restored)" 1
	# the parent's writes: the child's are to memory of its own
	assert_equal "$(hits)" 20
}

# movs_writers: "COUNT FUNCTION" of the decoded hits in $WOUT
movs_writers() {
	wp-decode < "$WOUT" | jq -r 'select(.type=="hit") | .writer.function' |
	    sort | uniq -c | tr -s ' '
}

# movs_watch PAGES N OFFSET...: page-movs -n N -p PAGES watched on page,
# 8 bytes at each OFFSET into its span, until it exits as it does
# unwatched, its output the same.
movs_watch() {
	local pages=$1 n=$2 off a=()
	shift 2
	unwatched page-movs -n "$n" -p "$pages"
	start_target page-movs -n "$n" -p "$pages"
	for off; do
		a+=("$(printf '0x%x' $(( $(tinfo span) + off )))")
	done
	watch_start -l 8 "${a[@]}" -- --backend page -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(tail -n +2 "$TOUT")" "$PLAIN"
	assert_equal "$PLAIN_STATUS" 0
}

@test "wp-arm page: a rep movsb and a rep stosb over 20 watched pages (more than one step is given): one hit per element on each, the target computes what it does unwatched" {
	local k off=()
	# one copy and one fill of 81,920 rounds: those on a target stepped
	# 8 bytes on each of the 20 pages, each at another offset
	for ((k = 0; k < 20; k++)); do
		off+=($(( k * 4096 + k * 200 )))
	done
	movs_watch 20 1 "${off[@]}"
	# before, the fault on the 17th page lost its siginfo to an
	# injected mprotect and was passed on: the target died of SIGSEGV
	assert_equal "$(obs .stop_detail)" null
	assert_equal "$(obs .page.signals_passed)" 0
	assert_equal "$(obs .page.pages)" 20
	# two faulting instructions, each stepped from its first fault on:
	# its stepping stops at the 17th page (16 given at a time), and its
	# fault there is the same one (was: 4, each counted again)
	assert_equal "$(obs .page.faults_watched) $(obs .page.stepped)" "2 2"
	# a copy and a fill, each writing 8 elements of each target
	assert_equal "$(movs_writers)" "$(printf ' 160 copy_span\n 160 fill_span')"
	assert_equal "$(obs '[.targets[].hits] | add')" 320
	# the fill's bytes, round 0's (0x40)
	run jq -rs '[group_by(.target)[] | last | .new_value] | unique | join(" ")' \
	    <<< "$(jq -c 'select(.type=="hit")' "$WOUT")"
	assert_output 0x4040404040404040
}

@test "wp-arm page: a rep string instruction that first faults elsewhere on the page still counts each element it writes into the target (was: none)" {
	# the middle of the second page: each instruction first faults at
	# the page's start, a neighbour's byte, then runs into the target
	movs_watch 2 3 $(( 4096 + 904 ))
	assert_equal "$(movs_writers)" "$(printf ' 24 copy_span\n 24 fill_span')"
	assert_equal "$(obs .page.faults_watched)" 6
	assert_equal "$(obs .page.faults_neighbour)" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "wp-arm page: a rep string instruction cut by its step limit is one fault, its hits each element's (was: a fault more each time it was taken up again)" {
	# 8192 rounds each, stepped 1000 at a time (the limit is 2^20:
	# a test of it would step for a minute)
	export WP_PAGE_REP_STEPS=1000
	movs_watch 2 1 0 $(( 4096 + 904 ))
	assert_equal "$(movs_writers)" "$(printf ' 16 copy_span\n 16 fill_span')"
	# the copy and the fill, each one fault (was: 12 watched, and 6
	# page neighbours' once their passes were past the targets)
	assert_equal "$(obs .page.faults_watched) $(obs .page.faults_neighbour)" "2 0"
	assert_equal "$(obs .page.stepped) $(obs .page.emulated)" "2 0"
}

@test "wp-arm page: a 64 KiB rep movsb and rep stosb whose first page holds an 8-byte target: the rounds that reach no target are made in one go, each of the target's elements still a hit (was: every round stepped)" {
	movs_watch 16 1 904
	# each instruction's 8 rounds on the target, each a hit
	assert_equal "$(movs_writers)" "$(printf ' 8 copy_span\n 8 fill_span')"
	assert_equal "$(obs '.targets[0].hits')" 16
	assert_equal "$(obs .page.faults_watched) $(obs .page.faults_neighbour)" "2 0"
	assert_equal "$(obs .counts_are_lower_bound)" false
	# the target's 8 rounds stepped, the 65,528 others not (was: 131,072
	# stops, a step each)
	[ "$(obs .page.stops)" -le 64 ] ||
		fail "$(obs .page.stops) stops for two instructions"
}

@test "wp-arm page: a stopped target stays stopped under watch, nothing counted, its page never taken" {
	local k page
	start_target mt-writer -t 2 -n 100 -w
	kill -STOP "$TPID"
	for ((k = 0; k < 100; k++)); do
		[ "$(state "$TPID")" = T ] && break
		sleep 0.05
	done
	page=$(printf '%x' $(( $(tinfo counter) / 4096 * 4096 )))
	# before, no thread was found to run mprotect in: status 1
	watch_start wpt_counter -- --backend page -d 1s
	run cat "$WERR"
	assert_output --partial "pid $TPID is stopped (SIGSTOP): its pages are protected when it is continued"
	[[ $(state "$TPID") == [Tt] ]] || fail "state $(state "$TPID") under watch"
	assert_equal "$(page_perms "$page")" rw-p
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(hits)" 0
	assert_equal "$(state "$TPID")" T
	assert_equal "$(page_perms "$page")" rw-p
	kill -CONT "$TPID"
}

@test "wp-arm page: a stopped target continued mid-watch: its pages taken then, every write counted" {
	local page
	scenario_stopped_continued page
	page=$(printf '%x' $(( $(tinfo counter) / 4096 * 4096 )))
	assert_equal "$(page_perms "$page")" rw-p
	kill -USR1 "$TPID"
}

@test "wp-arm page: SIGKILL of wp-arm mid-watch: the target runs on, its page writable again" {
	local want page i
	want=$(unwatched_out -t 0 -c 3000000)
	start_target mt-writer -t 0 -c 3000000 -w
	watch_start wpt_counter -- --backend page -d 300s
	kill -USR1 "$TPID"
	sleep 0.5
	page=$(printf '%x' $(( $(tinfo counter) / 4096 * 4096 )))
	assert_equal "$(page_perms "$page")" r--p
	kill -9 "$WPID"
	watch_wait
	# the tracing process detaches once wp-arm is gone
	for i in $(seq 200); do
		[ "$(awk '/^TracerPid/ { print $2 }' "/proc/$TPID/status")" = 0 ] && break
		sleep 0.05
	done
	assert_equal "$(awk '/^TracerPid/ { print $2 }' "/proc/$TPID/status")" 0
	assert_equal "$(page_perms "$page")" rw-p
	wait_for "$TOUT" '^done' 120
	assert_equal "$(sed -n 2p "$TOUT")" "$(head -n 1 <<< "$want")"
	kill -USR1 "$TPID"
}

@test "wp-arm page: pages it cannot watch are refused with the reason, the target untouched" {
	# -a rw takes every access away: not from a page of code
	start_target jit -w
	run --separate-stderr bash -c "wp-resolve -p $TPID -a rw -l 4 $(tinfo code) | wp-arm --backend page -d 5s"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: target 0: page $(tinfo code) is executable (rwxp): -a rw takes every access away from the page, its code's fetches too: use --backend ptrace"
	# untouched: it runs as ever
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
	stop_targets
	start_target attrib shm
	run --separate-stderr bash -c "wp-resolve -p $TPID -l 8 $(tinfo shared) | wp-arm --backend page -d 5s"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: target 0: page $(tinfo shared) is shared memory (/dev/zero (deleted)): another process could write it unseen, and its protection is not this process's alone: use --backend ptrace"
	# its child waits for the go
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
}

@test "wp-arm page: --regs gives the registers at the fault: its IP is the writer's" {
	start_target mt-writer -t 1 -n 5
	watch_start wpt_counter -- --backend page -d 120s --regs
	kill -USR1 "$TPID"
	watch_wait
	run jq -r 'select(.type=="hit") | .regs.rip == .writer_ip' "$WOUT"
	assert_equal "${#lines[@]}" 5
	assert_equal "$(sort -u <<< "$output")" true
}

@test "wp-arm page --callchain: one setter called from three callers, each chain with its exact count" {
	scenario_chain_callers callers complete --backend page --callchain
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.callchain) \(.callchain_depth)"' "$WOUT")" "cfi 16"
}

@test "wp-arm page --callchain: libc's memcpy as the writer, its callers named" {
	scenario_chain_memcpy --backend page --callchain
}

@test "wp-arm page --callchain dwarf: unwound at the fault with the modules' CFI, as ptrace does: each chain with its exact count, the registers carried" {
	scenario_chain_callers callers complete --backend page --callchain dwarf
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.callchain) \(.callchain_depth)"' "$WOUT")" "cfi 16"
	# dwarf implies --regs: each hit's registers are the writer's
	run jq -r 'select(.type=="hit") | .regs.rip == .writer_ip' "$WOUT"
	assert_equal "$(sort -u <<< "$output") ${#lines[@]}" "true 15"
}

@test "wp-arm page --callchain dwarf: libc's memcpy as the writer; a deeper chain marked truncated" {
	scenario_chain_memcpy --backend page --callchain dwarf
	stop_targets
	scenario_chain_deep callers --backend page --callchain dwarf
}

@test "wp-arm page --tid: a thread-local variable on the page of the thread's rseq area: its rseq set aside for the watch, every write counted, registered again after" {
	start_target page-tls -n 1000
	[ "$(tinfo rseq)" != 0x0 ] || skip "glibc registers no rseq area (before 2.35)"
	[ $(( $(tinfo tls) / 4096 )) = $(( $(tinfo rseq) / 4096 )) ] ||
		skip "wpt_tls and the rseq area are on two pages here"
	watch_start --tid "$(tinfo tid)" wpt_tls -- --backend page -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^wrote' 60
	kill -INT "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	# (the thread's control block is at the top of its stack: a warning)
	grep -v "is on the stack of thread $(tinfo tid)" "$WERR" && fail "wp-arm said more"
	assert_equal "$(hits)" 1000
	assert_equal "$(obs .counts_are_lower_bound)" false
	# after the watch the kernel keeps the thread's rseq area again
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
	assert_equal "$(tail -n +2 "$TOUT")" "$(printf 'wrote 1000\nrseq cpu_id ok\ndone')"
}

@test "wp-arm page: a page under a thread's stack pointer is watched, with a warning; the target runs as unwatched" {
	local want
	want=$(unwatched_out -t 1 -n 50)
	start_target mt-writer -t 1 -n 50
	watch_start "$(tinfo stack)" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(cat "$WERR")" "wp-arm: target 0: page 0x$(printf '%x' $(( $(tinfo stack) / 4096 * 4096 ))) is on the stack of thread $TPID: each push and call there faults and is stepped, and its system calls' writes there give the page back: the watch will be slow"
	assert_equal "$(tail -n +2 "$TOUT")" "$want"
	assert_equal "$(obs .stop_reason)" target_exited
	[ "$(obs .page.stepped)" -ge 1 ] || fail "no push or call stepped: $(obs .page)"
}

# attrib_watch MODE ADDR-KEY RESOLVE-ARGS...: watches attrib MODE
attrib_watch() {
	local mode=$1 key=$2
	shift 2
	start_target attrib "$mode"
	watch_start "$@" "$(tinfo "$key")" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	DEC=$(wp-decode < "$WOUT")
}

@test "wp-arm page attribution: a signal frame on a watched alternate stack is the kernel's write, with the signal" {
	attrib_watch sigframe altstack --no-slot-limit -l 8192
	assert_equal "$(awk '{ print $2 }' <<< "$(grep '^done' "$TOUT")")" 3
	run jq -c 'select(.type=="hit" and (.flags | index("kernel"))) | [.writer_ip, .signal, .writer.kind, .writer.confidence, .writer.insn]' <<< "$DEC"
	assert_equal "${#lines[@]}" 3
	assert_equal "$(sort -u <<< "$output")" '[null,12,"kernel","unknown",null]'
	# any other hit (the handler's own stores) is an instruction's, exact
	run jq -r 'select(.type=="hit" and .flags == []) | "\(.writer.confidence) \(.writer.kind)"' <<< "$DEC"
	[ -z "$output" ] || assert_equal "$(sort -u <<< "$output")" "exact write"
	assert_equal "$(obs .page.signals_passed)" 3
}

@test "wp-arm page: signal frames of the same bytes on a watched alternate stack: each one a write, as the target counts them (was: the first only, the bytes unchanged after)" {
	scenario_alt_frames page 10
	assert_equal "$(obs .page.signals_passed)" 10
}

@test "wp-arm page: writes through /proc/PID/mem (a debugger's) pass the protection: each change found at the next tick, unexplained, and the counts a lower bound (was: none seen)" {
	local v addr
	start_target truth altwait 1
	addr=$(tinfo counter)
	watch_start "$addr" -l 8 -- --backend page -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^ready' 30
	for v in 41 42 43; do
		printf "\\x$(printf %x "$v")" |
			dd of="/proc/$TPID/mem" bs=1 seek=$((addr)) conv=notrunc status=none
		sleep 0.2
	done
	kill -USR2 "$TPID"
	watch_wait
	assert_equal "$(grep '^done' "$TOUT")" "done 1"
	assert_equal "$(jq -r 'select(.type=="hit") | "\(.flags) \(.new_value)"' "$WOUT" | paste -sd ' ')" \
		'["unexplained"] 0x29 ["unexplained"] 0x2a ["unexplained"] 0x2b'
	assert_equal "$(obs .page.unexplained_changes)" 3
	assert_equal "$(obs .counts_are_lower_bound)" true
	assert_contract "$WOUT"
}

@test "wp-arm page attribution: a read(2) the watch found blocked names the syscall instruction, and never fails" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	TOUT=$BATS_TEST_TMPDIR/attrib.out
	"$T/attrib" pipe < "$BATS_TEST_TMPDIR/fifo" > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	exec 7> "$BATS_TEST_TMPDIR/fifo"
	wait_for "$TOUT" pid 10
	TINFO=$(head -n 1 "$TOUT")
	local k
	for ((k = 0; k < 200; k++)); do
		[[ $(cat "/proc/$TPID/syscall" 2> /dev/null) == "0 "* ]] && break
		sleep 0.05
	done
	[[ $(cat "/proc/$TPID/syscall") == "0 "* ]] || fail "the target is not in read(2)"
	watch_start -l 8 "$(tinfo buf)" -- --backend page -d 120s
	printf 'abcdefgh' >&7
	exec 7>&-
	watch_wait
	grep -q '^done' "$TOUT" || fail "the read failed: $(cat "$TOUT")"
	run jq -c 'select(.type=="hit") | [.flags, .new_bytes, .writer.insn, .writer.kind, .writer.confidence]' <<< "$(wp-decode < "$WOUT")"
	assert_output '[["syscall"],"6162636465666768","syscall","syscall","exact"]'
}

@test "wp-arm page attribution: a store in the vDSO is named and decoded" {
	attrib_watch vdso ts -l 8
	run jq -r 'select(.type=="hit") | "\(.writer.module) \(.writer.confidence) \(.writer.kind) \(.writer.insn | split(" ")[0])"' <<< "$DEC"
	assert_equal "${#lines[@]}" 3
	assert_equal "$(sort -u <<< "$output")" "[vdso] exact write mov"
}

@test "wp-arm --backend auto: uses page protection where breakpoints do not fire, and says so" {
	if wp-arm --check-bp > /dev/null 2>&1; then
		skip "hardware breakpoints fire on this machine: auto picks bpf or perf"
	fi
	start_target mt-writer -t 1 -n 10
	watch_start wpt_counter -- -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(hits)" 10
	assert_equal "$(obs .backend)" page_protect
	assert_equal "$(cat "$WERR")" "wp-arm: hardware breakpoints do not fire on this machine (they do on bare metal and in VMs that virtualize debug registers): using the page-protection backend (writes to the watched pages fault and stop the target a moment each: a hot neighbour on them slows it, and its own timeouts may fire)"
}

# dropped_bound: the observation and wp-report of $WOUT say the counts
# are a lower bound because a page was let go.
dropped_bound() {
	assert_equal "$(obs .counts_are_lower_bound)" true
	assert_equal "$(obs '.thread_coverage.partial_coverage_reasons | join(" ")')" pages_dropped
	assert_contract "$WOUT"
	run --separate-stderr wp-report --json "$WOUT"
	assert_equal "$(jq -c '[.counts_are_lower_bound, .lower_bound_reasons]' <<< "$output")" '[true,["pages_dropped"]]'
	run --separate-stderr wp-report "$WOUT"
	assert_line 'note     counts are a lower bound: pages_dropped'
}

@test "wp-arm page -a rw: a page the process makes read-only mid-watch is let go, said; its reads are not hits, the counts a lower bound, the target runs on" {
	start_target page-rw -n 10 -p
	watch_start -a rw -l 8 "$(tinfo rw)" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 30
	assert_equal "$WSTATUS" 0
	grep -qx "read-only sum 100" "$TOUT" || fail "the target: $(cat "$TOUT")"
	assert_equal "$(obs .page.pages_dropped)" 1
	# 2 threads x 10 rounds x 2 of each; the 10 read-only reads unseen
	assert_equal "$(hits '.flags == ["read"]') $(hits '.flags == []')" "40 40"
	assert_equal "$(cat "$WERR")" "wp-arm: page $(tinfo rw) was made unwritable by the process: -a rw no longer watches it"
	dropped_bound
}

@test "wp-arm page: a watched page the process maps shared mid-watch is let go, said; its writes since unseen, the counts a lower bound" {
	start_target page-rw -n 10 -u
	watch_start -l 8 "$(tinfo rw)" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 30
	assert_equal "$WSTATUS" 0
	grep -qx "shared writes 10" "$TOUT" || fail "the target: $(cat "$TOUT")"
	assert_equal "$(obs .page.pages_dropped)" 1
	# the threads' 40 writes (rw_write, rw_inc), and mmap's (the new page
	# reads 0: a kernel write); the 10 writes after the remap unseen, and
	# the page still writable to the target
	assert_equal "$(hits '.flags == []') $(hits '.flags == ["syscall"]')" "40 1"
	assert_equal "$(obs '.targets[0].counted')" 41
	assert_equal "$(cat "$WERR")" "wp-arm: page $(tinfo rw) was remapped shared by the process: writes to it are no longer watched"
	dropped_bound
}

@test "wp-arm page: a page let go makes the counts of the targets on it a lower bound, not those of a target on another page" {
	start_target page-rw -n 10 -u
	watch_start -l 8 "$(tinfo rw)" bad -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 30
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs '[.targets[] | "\(.id) \(.counted) \(.pages_dropped)"] | join(", ")')" "0 41 1, 1 0 0"
	assert_contract "$WOUT"
	run --separate-stderr wp-report "$WOUT"
	assert_line 'note     counts are a lower bound: pages_dropped'
	assert_line '  41 writes counted by page faults; 41 attributed to a writer (lower bound)'
	assert_line '  0 writes counted by page faults; 0 attributed to a writer'
}

@test "wp-arm page: a watch whose pages all stay watched is no lower bound" {
	start_target page-rw -n 10
	watch_start -l 8 "$(tinfo rw)" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 30
	assert_equal "$(hits) $(obs .page.pages_dropped) $(obs .counts_are_lower_bound)" "40 0 false"
	run --separate-stderr wp-report "$WOUT"
	refute_line --partial 'lower bound'
}

@test "wp-arm page: -d is kept when the reader is slow: the hits it did not take in time are dropped, counted, and their writers' tallies hold them" {
	start_target mt-writer -t 1 -n 100000000 -w
	WOUT=$BATS_TEST_TMPDIR/slow.out
	# 3 s of hits with registers: several times the 1 MiB pipe and the
	# 1 MiB buffer, however busy the machine
	wp-resolve -p "$TPID" wpt_counter | wp-arm --backend page --regs -d 3s -n 1000000000 --interval 100ms 2> "$BATS_TEST_TMPDIR/slow.err" | { sleep 8; cat; } > "$WOUT" &
	local reader=$!
	sleep 0.5
	kill -USR1 "$TPID"
	# the watch ends at its deadline, the target let go, though nothing was read yet
	sleep 5
	assert_equal "$(awk '/^TracerPid/ { print $2 }' "/proc/$TPID/status")" 0
	wait "$reader"
	OBS=$(jq -c 'select(.type=="observation")' "$WOUT")
	assert_equal "$(obs .stop_reason)" duration
	(( $(obs .elapsed_ms) >= 3000 && $(obs .elapsed_ms) < 4000 )) || fail "elapsed $(obs .elapsed_ms) ms"
	# every write counted: written as a hit, or dropped, and then in
	# its writer's tally (was: lost)
	local counted dropped
	counted=$(obs '.targets[0].counted')
	dropped=$(obs .lost_events.undelivered_records)
	(( dropped > 0 )) || fail "nothing was dropped: the reader was not slow enough"
	# only hits give way: no other record was dropped, and the last
	# count arrived though hits were dropped before it
	assert_equal "$(( $(hits) + dropped ))" "$counted"
	assert_equal "$(jq -s '[.[] | select(.type=="tally") | .hits] | add' "$WOUT")" "$counted"
	assert_equal "$(obs '.targets[0].lost') $(obs .lost_events.total)" "0 0"
	local last_count
	last_count=$(jq -s '[.[] | select(.type=="count")] | last | .counted' "$WOUT")
	(( last_count > $(hits) )) || fail "the last count ($last_count) came before any hit was dropped"
	assert_equal "$(jq -c .lost_events.reasons <<< "$OBS")" '[]'
	assert_equal "$(obs .counts_are_lower_bound)" false
	assert_contract "$WOUT"
	run --separate-stderr wp-report < "$WOUT"
	assert_line --regexp "^watch +page_protect .* lost 0$"
	refute_line --partial 'lower bound'
}

@test "wp-arm --backend auto: where page protection cannot serve (shared memory), single-steps, and says why" {
	if wp-arm --check-bp > /dev/null 2>&1; then
		skip "hardware breakpoints fire on this machine: auto picks bpf or perf"
	fi
	start_target attrib shm
	watch_start -l 8 "$(tinfo shared)" -- -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .backend)" ptrace_singlestep
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(cat "$WERR")" "wp-arm: hardware breakpoints do not fire on this machine (they do on bare metal and in VMs that virtualize debug registers), and target 0: page $(tinfo shared) is shared memory (/dev/zero (deleted)): another process could write it unseen, and its protection is not this process's alone: using single-step (the ptrace backend: exact, but slow)"
}

@test "wp-arm page --follow: SLOT+OFF, every binding in order, leaf hits per generation exact, no window" {
	follow_run page wpt_ptr+0x10
	follow_check 0
	assert_equal "$(hits '.role == "pointer"')" 4
	assert_equal "$(obs .counts_are_lower_bound)" false
	# every thread held from the pointer's store to the re-arm
	assert_equal "$(obs .follow_mode)" stop-all
}

@test "wp-arm page --follow: a two-level chain [[SLOT]+8]+0x10" {
	follow_run page '[[wpt_holder]+8]+0x10'
	follow_check 1
	assert_equal "$(hits '.role == "pointer"')" 4
	assert_equal "$(obs .counts_are_lower_bound)" false
}

@test "wp-arm page --follow --if: only the matching leaf write is a hit, all 30 tallied, the pointers all reported" {
	follow_cond page '[[wpt_holder]+8]+0x10' tracer
}

@test "wp-arm page --follow --if --stop: the process left stopped at the matching leaf write" {
	follow_stop page
}

@test "wp-arm page: lock add, sub, and, or, xor, inc, dec, neg, not, adc, sbb, xadd, xchg, cmpxchg are emulated exactly: values, flags, registers" {
	local n=200
	unwatched page-rmw -n "$n"
	start_target page-rmw -n "$n"
	watch_start -l 64 "$(tinfo rmw)" -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	# the hash of every value, flag and register after each store
	assert_equal "$(tail -n +2 "$TOUT")" "$PLAIN"
	assert_equal "$(hits)" $(( n * 20 ))
	assert_equal "$(obs .page.faults_watched)" $(( n * 20 ))
	# bts alone is stepped
	assert_equal "$(obs .page.stepped)" "$n"
	assert_equal "$(obs .page.emulated)" $(( n * 19 ))
}

# busy_cpu_watch TARGET ARGS...: the target pinned to CPU 0 beside a
# busy loop there, its wpt_score watched by page for 2 s.
busy_cpu_watch() {
	command -v taskset > /dev/null || skip "taskset (util-linux) is not installed"
	start_target "$@"
	taskset -p -c 0 "$TPID" > /dev/null
	taskset -c 0 sh -c 'while :; do :; done' &
	WP_TARGET_PIDS+=("$!")
	watch_start wpt_score -- --backend page -d 2s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .stop_reason)" duration
}

@test "wp-arm page: a target stopped at every write of a hot neighbour, sharing its CPU, is said to be slowed: its waits for the CPU after each fault are the watch's" {
	# a write a few nanoseconds apart, each a fault: unwatched the loop
	# takes well under a second of the two
	busy_cpu_watch mt-writer -t 0 -c 100000000 -w
	[ "$(obs .page.faults_neighbour)" -ge 1000 ] || fail "neighbour faults: $(obs .page.faults_neighbour)"
	# before, each resume's wait for the CPU was the target's own: it
	# was said to run at half its native speed or more
	jq -e '.page.native_run_us * 4 <= .page.watched_us' <<< "$OBS" > /dev/null ||
		fail "native run time $(obs .page.native_run_us) us of $(obs .page.watched_us) us watched, $(obs .page.faults_neighbour) faults"
}

@test "wp-arm page: a target that faults every few microseconds of its own time is said to run at that pace or slower, not about it" {
	start_target mt-writer -t 0 -c 100000000 -w
	watch_start wpt_score -- --backend page -d 2s
	kill -USR1 "$TPID"
	watch_wait
	[ "$(obs .page.faults_neighbour)" -ge 1000 ] || fail "neighbour faults: $(obs .page.faults_neighbour)"
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	# before: "estimate about 80 ms ... (1/24 of native speed)", where the
	# loop ran at about 1/1000 of its speed unwatched
	pace_said_bound
}

# usr1_run NAME ARGS...: target NAME started (start_target), watched
# by page when WATCH is set, sent SIGUSR1 and waited for; RUN_NS: from
# the signal to its exit
usr1_run() {
	local t0
	start_target "$@"
	[ -z "${WATCH:-}" ] || watch_start $WATCH -- --backend page -d 300s
	t0=$(date +%s%N)
	kill -USR1 "$TPID"
	wait "$TPID"
	RUN_NS=$(( $(date +%s%N) - t0 ))
	[ -z "${WATCH:-}" ] || watch_wait
}

# pace_bound PLAIN_NS WATCHED_NS: the observation's native run time is
# a bound the truth satisfies, the truth being the time watched less
# what the watch added to the target's run (PLAIN_NS unwatched,
# WATCHED_NS watched, both measured by the test, in two runs a loaded
# host may stretch apart: a quarter of the truth is their margin (a
# tenth was short once, at a load average of 8 on 2 cores); the
# estimates this replaced were 24 times off); and the report says it is
# a bound, for the stops
pace_bound() {
	local truth=$(( ($(obs .page.watched_us) - ($2 - $1) / 1000) * 3 / 4 ))
	(( $(obs .page.native_run_us) >= truth )) ||
		fail "native run time $(obs .page.native_run_us) us of $(obs .page.watched_us) us watched, under the truth: $truth us"
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	pace_said_bound
}

@test "wp-arm page: a tight write loop is said to run at a pace its unwatched run bounds, stated as a bound" {
	local plain
	# 20000 writes, a few nanoseconds apart: unwatched, about 50 us
	usr1_run page-game -m tight -n 20000
	plain=$(awk '$1 == "run_ns" { print $2 }' "$TOUT")
	WATCH=wpt_score usr1_run page-game -m tight -n 20000
	assert_equal "$(obs .page.faults_watched)" 20000
	pace_bound "$plain" "$(awk '$1 == "run_ns" { print $2 }' "$TOUT")"
}

@test "wp-arm page: a target stopped at each round of a rep instruction it steps, not at faults, is said to run at a pace its unwatched run bounds, stated as a bound (was: about, for its 2 faults)" {
	local plain
	usr1_run page-movs -n 1 -p 4
	plain=$RUN_NS
	# the whole span: every round reaches the target, and is stepped
	WATCH="-l 16384 wpt_span" usr1_run page-movs -n 1 -p 4
	assert_equal "$(obs .page.faults_watched)" 2
	pace_bound "$plain" "$RUN_NS"
}

@test "wp-arm page: a burst of writes in a quiet watch: its slowest second is kept beside the whole watch's pace, which averages it away" {
	start_target mt-writer -t 1 -n 20000 -w
	watch_start wpt_counter -- --backend page -d 5s
	sleep 1.5
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .page.faults_watched)" 20000
	# a window of a second (half a second at least, the last), in the watch
	jq -e '.page | .worst_second.span_us >= 500000 and
	    .worst_second.native_run_us <= .worst_second.span_us and
	    .worst_second.stops > 0 and
	    .worst_second.from_us + .worst_second.span_us <= .watched_us + 100000' <<< "$OBS" > /dev/null ||
		fail "worst second: $(jq -c .page <<< "$OBS")"
	# slower than the whole watch: the burst, not averaged away
	jq -e '.page | .worst_second.native_run_us * .watched_us < .native_run_us * .worst_second.span_us' <<< "$OBS" > /dev/null ||
		fail "worst second no slower than the watch: $(jq -c .page <<< "$OBS")"
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	assert_line --regexp '^         slowest second, from [0-9]+\.[0-9] s: (about|at most) [0-9.]+ (s|ms|us) of its native run time in [01]\.[0-9] s \(1/[0-9.]+ of native speed( or slower)?\)$'
}

@test "wp-arm page: a target that waits for a CPU another program takes is not said to be slowed by the watch" {
	# four frames of about 0.4 s of arithmetic, one write each: no wait
	# that is the watch's worth a tenth of the time
	busy_cpu_watch page-game -m game -f 4 -c 400000000
	# the loop took half the CPU: the target's wait for it is not the watch's
	jq -e '.page.native_run_us * 10 >= .page.watched_us * 9' <<< "$OBS" > /dev/null ||
		fail "native run time $(obs .page.native_run_us) us of $(obs .page.watched_us) us watched"
}

# slow_reader: passes its input on up to the armed record, then takes
# no more until the target is done ($TOUT), as a reader held up.
slow_reader() {
	local line
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in *'"type":"armed"'*) break ;; esac
	done
	wait_for "$TOUT" '^done' 300
	cat
}

@test "wp-arm page: a reader too slow for a burst of 60,000 writes on three threads: the hits it could not take are tallied, every writer's count exact" {
	start_target cond-writers -n 20000
	WOUT=$BATS_TEST_TMPDIR/watch.out
	WERR=$BATS_TEST_TMPDIR/watch.err
	wp-resolve -p "$TPID" wpt_cell | wp-arm --backend page -d 600s 2> "$WERR" |
		slow_reader > "$WOUT" &
	WPID=$!
	wait_armed "$WOUT" "$WPID" "$WERR"
	kill -USR1 "$TPID"
	watch_wait
	wait "$TPID"
	assert_equal "$(target_count good) $(target_count busy) $(target_count rare)" "20000 20000 20000"
	assert_equal "$(obs '.targets[0].counted')" 60000
	# the reader did fall behind: hits went undelivered
	[ "$(obs .lost_events.undelivered_records)" -gt 0 ] ||
		fail "no record went undelivered"
	[ "$(hits)" -lt 60000 ] || fail "every hit was written"
	# yet every write kept its writer: none lost, the counts exact
	assert_equal "$(obs .lost_events.total)" 0
	assert_equal "$(obs '.targets[0].lost')" 0
	assert_equal "$(obs .counts_are_lower_bound)" false
	WDEC=$WOUT.dec
	wp-decode < "$WOUT" > "$WDEC"
	assert_equal "$(tally_of good_writer hits)" "$(target_count good)"
	assert_equal "$(tally_of busy_writer hits)" "$(target_count busy)"
	assert_equal "$(tally_of rare_writer hits)" "$(target_count rare)"
	run jq -c '.watches[0] | [.writer_counts, .counted, (.writer_sites | map(.hits) | add)]' <<< "$(wp-report --json "$WDEC")"
	assert_output '["tallied",60000,60000]'
}

@test "wp-arm page, wp-report: writers whose writes add up to more than the value moved: the report says updates were lost (one of a non-atomic += on two threads)" {
	start_target lost-update -n 1000
	watch_start wpt_total -- --backend page -d 600s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	# the target's own: 1000 adds of 1 and of 1000, one of 1 lost
	assert_equal "$(target_count expected) $(target_count total)" "1001000 1000999"
	assert_equal "$(obs '.targets[0].counted') $(hits)" "2000 2000"
	assert_equal "$(obs .counts_are_lower_bound)" false
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	assert_line "  lost updates: the value moved by 1000999, but the 2000 writes, each the step most of its"
	assert_line "  writer's make, add up to 1001000: 1 less, as where a non-atomic read-modify-write"
	# a watch whose writes add up says nothing of it
	start_target cond-writers -n 1000
	watch_start wpt_cell -- --backend page -d 600s
	kill -USR1 "$TPID"
	watch_wait
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	refute_line --partial "lost updates"
}

@test "wp-arm page, wp-report: a field of a struct whose writers' steps add up to more than it moved: updates were lost there, not in the field beside it" {
	# wpt_acct: rounds (+0x0, one thread's, nothing lost), total (+0x8)
	start_target lost-update -s -n 1000
	watch_start --backend page wpt_acct -l 16 -- --backend page -d 600s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	assert_equal "$WSTATUS" 0
	assert_equal "$(target_count expected) $(target_count total)" "1001000 1000999"
	assert_equal "$(obs '.targets[0].counted') $(hits)" "3000 3000"
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	# the first write's step is not known (a struct's value at arming
	# is not read): the 1999 after it, from 0x1 to 1000999
	assert_line "  lost updates at +0x8 (8 bytes): from its first write the field moved by 1000998, but the 1999"
	assert_line "  writes since, each the step most of its writer's make, add up to 1000999: 1 less, as where a"
	assert_equal "$(grep -c 'lost updates' <<< "$output")" 1
}

# paced_watch [ARM-ARGS...]: page-game's paced loop (60 writes, each
# after a stretch of arithmetic) watched by page with ARM-ARGS; sets
# CPUS_BEFORE, CPUS_DURING and CPUS_AFTER (the target's CPUs allowed:
# before the watch, once it is armed, after its loop)
paced_watch() {
	start_target page-game -m game -f 60 -c 300000 -w
	CPUS_BEFORE=$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$TPID/status")
	watch_start wpt_score -- --backend page -d 300s "$@"
	CPUS_DURING=$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$TPID/status")
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 120
	CPUS_AFTER=$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$TPID/status")
	kill -USR1 "$TPID"
	watch_wait
}

@test "wp-arm page: a paced loop with the tracer following the writer's CPU (the default): every write counted, the result and the target's CPUs as unwatched, the moves counted" {
	local plain
	usr1_run page-game -m game -f 60 -c 300000
	plain=$(awk '$1 == "sum" { print $2 }' "$TOUT")
	paced_watch
	assert_equal "$WSTATUS" 0
	assert_equal "$(awk '$1 == "sum" { print $2 }' "$TOUT")" "$plain"
	assert_equal "$(obs .page.faults_watched) $(hits) $(obs '.targets[0].counted')" "60 60 60"
	# only the tracer moves: the target keeps the CPUs it was given
	assert_equal "$CPUS_DURING $CPUS_AFTER" "$CPUS_BEFORE $CPUS_BEFORE"
	if [ "$(nproc)" -ge 2 ]; then
		# a number: 0 where its writes never came after a long wait
		assert_equal "$(obs '.page.tracer_moves | type')" number
		(( $(obs .page.tracer_moves) <= 60 )) ||
			fail "$(obs .page.tracer_moves) moves for 60 faults"
		run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
		assert_success
		assert_line "         each resolved by wp-arm's tracer, which moved to the writer's CPU $(obs .page.tracer_moves) times"
	else
		# one CPU: nowhere to move, not said
		assert_equal "$(obs '.page.tracer_moves')" null
	fi
}

@test "wp-arm page: a writer on another CPU at every write (as an idle machine's scheduler may place it): the tracer stops following after 8 moves, every write still counted" {
	[ "$(nproc)" -ge 2 ] || skip "one CPU: the tracer has nowhere to follow"
	start_target page-game -m hop -f 200 -c 300000
	watch_start wpt_score -- --backend page -d 300s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .page.faults_watched) $(hits)" "200 200"
	# 8 moves in its first 64 long waits (its system calls stop it too),
	# then 1024 long waits free
	assert_equal "$(obs .page.tracer_moves)" 8
}

@test "wp-arm page --tracer-cpu free: the same loop, every write counted, no moves said" {
	paced_watch --tracer-cpu free
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .page.faults_watched) $(hits)" "60 60"
	assert_equal "$CPUS_DURING $CPUS_AFTER" "$CPUS_BEFORE $CPUS_BEFORE"
	assert_equal "$(obs '.page.tracer_moves')" null
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report"
	assert_success
	assert_line --partial "60 faults: 60 watched"
	refute_line --partial "moved to the writer's CPU"
}

@test "wp-arm --tracer-cpu: refused with a backend whose tracer does not follow, and a word it does not know named" {
	run --separate-stderr wp-arm --backend ptrace --tracer-cpu free < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --tracer-cpu with --backend ptrace: only the tracer of page follows a thread's CPU"
	run --separate-stderr wp-arm --tracer-cpu near < /dev/null
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --tracer-cpu near: expected follow or free"
}

@test "wp-arm page: a counter ticking before and while the watch is armed: the writes counted are what its value moved from arming" {
	scenario_ticking page
}
