# What the tests of the second question (issue 43: which addresses does
# this instruction access?) share: tests/80-insn.bats (the uprobe and
# ptrace backends) and tests/live/80-insn-bpf.bats (execute breakpoints).

# store_in FILE FUNCTION: the static address of the first plain store
# mov %reg,(%reg) of the function, as objdump shows it.
store_in() {
	objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit }
			on && /mov +%r[a-z0-9]+,\(%r[a-z0-9]+\)$/ { sub(":", "", $1); print "0x" $1; exit }'
}

# accesses [SITE]: the last access record of each (site, addr, tid) of
# site SITE (0), as "ADDR TID WRITES READS" lines, sorted
accesses() {
	jq -s -r --argjson s "${1:-0}" '[.[] | select(.type == "access" and .site == $s)]
		| group_by([.addr, .tid]) | map(last)[] | "\(.addr) \(.tid) \(.writes) \(.reads)"' "$WOUT" | sort
}

# expected_walk [KEY]: what insn-walk (insn-lock: counters) says of
# itself: each of its n addresses at KEY (array) written rounds times by
# each thread, as accesses prints them
expected_walk() {
	local base n tid rounds i
	base=$(tinfo "${1:-array}")
	n=$(tinfo n)
	tail -n +2 "$TOUT" | grep '"tid"' | while read -r line; do
		tid=$(jq .tid <<< "$line")
		rounds=$(jq .rounds <<< "$line")
		for (( i = 0; i < n; i++ )); do
			printf '0x%x %d %d 0\n' $(( base + 8 * i )) "$tid" "$rounds"
		done
	done | sort
}

# code_at PID ADDR N: the N bytes at ADDR of process PID, in hex
code_at() {
	dd if="/proc/$1/mem" iflag=skip_bytes,count_bytes skip=$(( $2 )) count="$3" bs=4096 status=none | od -An -tx1 | tr -d ' \n'
}

# regex_quote TEXT: TEXT with the characters an ERE gives meaning quoted
regex_quote() {
	sed 's/[][\.*^$()+?{}|]/\\&/g' <<< "$1"
}

# target_ends LAST: the target exits 0, its last lines LAST and "done",
# as it ends unwatched
target_ends() {
	local st=0
	wait "$TPID" || st=$?
	assert_equal "$st" 0
	assert_equal "$(tail -n 2 "$TOUT")" "$1
done"
}

# The scenarios each backend that counts sites runs: scenario_insn_NAME
# BACKEND ARG..., BACKEND the armed record's backend, ARG... wp-arm's
# options (--backend WORD).

# the walk: insn-walk's store over its 1000 addresses from 3 threads, one
# made after arming, and its add (a read operand, with -a rw): every
# address's exact count per thread, against the target's own rounds
scenario_insn_walk() {
	local name=$1
	shift
	start_target insn-walk
	watch_start --insn wpt_walk_store --insn wpt_walk_add -a rw -- -d 60s "$@"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" "$name"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(grep -c '"tid"' "$TOUT")" 3
	assert_equal "$(accesses 0)" "$(expected_walk)"
	assert_equal "$(obs '.uprobe.sites[0] | [.id, .executions, .addresses, .tally_full, .backend] | map(tostring) | join(" ")')" "0 6000 3000 0 $name"
	# the read-modify-write: each address read and written once, by main
	assert_equal "$(accesses 1 | awk '{ print $2, $3, $4 }' | sort | uniq -c | awk '{ print $1, $2, $3, $4 }')" "1000 $TPID 1 1"
	assert_contract "$WOUT"
}

# a lock add from 3 threads, one made after arming: every counter's
# exact count per thread, the target's own counts as unwatched
scenario_insn_lock() {
	local name=$1
	shift
	start_target insn-lock -r 20
	watch_start --insn wpt_lock_add -- -d 60s "$@"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" "$name"
	kill -USR1 "$TPID"
	watch_wait
	local st=0
	wait "$TPID" || st=$?
	assert_equal "$st" 0
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	# what the target counted itself: 20 + 40 + 60 adds to each counter
	assert_equal "$(tail -n 2 "$TOUT")" "120 120 120 120 120 120 120 120
done"
	assert_equal "$(grep -c '"tid"' "$TOUT")" 3
	assert_equal "$(accesses 0)" "$(expected_walk counters)"
	assert_equal "$(obs '.uprobe.sites[0] | [.id, .executions, .addresses] | map(tostring) | join(" ")')" "0 960 24"
	assert_equal "$(jq -r 'select(.type=="access") | .region' "$WOUT" | sort -u)" "[heap]"
	assert_contract "$WOUT"
}

# a rep stosq up and one down (DF), a push and a gs-based store, 5
# rounds: each element, the push's rsp - 8 and the gs slot exactly
scenario_insn_kinds() {
	local name=$1 s base i
	shift
	start_target insn-kinds
	watch_start --insn wpt_kinds_rep --insn wpt_kinds_repdown --insn wpt_kinds_push --insn wpt_kinds_gs -- -d 60s "$@"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" "$name"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	assert_equal "$(tail -n 2 "$TOUT" | head -n 1 | jq .counter)" 5
	for s in 0 1; do
		base=$(tinfo "$([ "$s" = 0 ] && echo buf || echo down)")
		assert_equal "$(accesses "$s")" \
			"$(for (( i = 0; i < 16; i++ )); do echo "$(hexadd "$base" $(( 8 * i ))) $TPID 5 0"; done | sort)"
	done
	assert_equal "$(accesses 2)" "$(sed -n 's/.*"push":"\(0x[0-9a-f]*\)".*/\1/p' "$TOUT") $TPID 5 0"
	assert_equal "$(accesses 3)" "$(tinfo gs) $TPID 5 0"
	assert_equal "$(obs '[.uprobe.sites[] | .executions] | map(tostring) | join(" ")')" "80 80 5 5"
	assert_contract "$WOUT"
}

# an instruction in a shared library, and a stripped program's by
# MODULE+0xOFF
scenario_insn_lib() {
	local name=$1
	shift
	start_target shlib-writer -n 250
	watch_start --insn "libwpt.so+$(store_in "$T/libwpt.so" wpt_lib_write)" -- -d 60s "$@"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" "$name"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(accesses 0)" "$(tinfo lib_counter) $TPID 250 0"
	start_target insn-walk-stripped -n 300
	watch_start --insn "insn-walk-stripped+$(static_of "$T/insn-walk" wpt_walk_store)" -- -d 60s "$@"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(obs .uprobe.sites[0].executions)" 1800
	assert_equal "$(accesses 0)" "$(expected_walk)"
}

# matched [SITE]: as accesses, of the (addr, tid) whose executions
# matched --if: "ADDR TID MATCHED UNKNOWN" lines, sorted
matched() {
	jq -s -r --argjson s "${1:-0}" '[.[] | select(.type == "access" and .site == $s)]
		| group_by([.addr, .tid]) | map(last)[] | select(.matched > 0 or .match_unknown > 0)
		| "\(.addr) \(.tid) \(.matched) \(.match_unknown)"' "$WOUT" | sort
}

# walk_if IF BACKEND ARG...: the walk watched with --if IF, where @N
# is the address N bytes into its array and PID its main thread's tid:
# every execution still counted, the target's output as unwatched
walk_if() {
	local cond=$1 name=$2
	shift 2
	start_target insn-walk
	while [[ $cond =~ @([0-9]+) ]]; do
		cond=${cond/"${BASH_REMATCH[0]}"/$(hexadd "$(tinfo array)" "${BASH_REMATCH[1]}")}
	done
	watch_start --insn wpt_walk_store -- -d 60s --if "${cond//PID/$TPID}" "$@"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" "$name"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	assert_equal "$(grep -c '"tid"' "$TOUT")" 3
	assert_equal "$(accesses 0)" "$(expected_walk)"
	assert_equal "$(obs '.uprobe.sites[0].executions')" 6000
	assert_contract "$WOUT"
}

# expected_if TEST: expected_walk's lines for which TEST (bash
# arithmetic on a: the offset into the array, t: the tid, main: the
# main thread's) holds, as matched prints them
expected_if() {
	local base=$(( $(tinfo array) )) main=$TPID addr t n r a
	expected_walk | while read -r addr t n r; do
		a=$(( addr - base ))
		if (( $1 )); then echo "$addr $t $n 0"; fi
	done | sort
}

# --if on the walk's store: an address range of 100 of its 1000
# addresses, one thread, a value (the store's source register before it
# ran: the thread's tid in insn-walk) with a range: exactly the target's
# own counts of the executions that match, per address and thread;
# what a site's execution cannot be tested on refused in one line
scenario_insn_if() {
	local name=$1
	shift
	walk_if "addr >= @800 && addr < @1600" "$name" "$@"
	assert_equal "$(matched 0)" "$(expected_if 'a >= 800 && a < 1600')"
	assert_equal "$(matched 0 | wc -l)" 300
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.condition_where) \(.condition)"' "$WOUT")" "wp-arm addr >= $(hexadd "$(tinfo array)" 800) && addr < $(hexadd "$(tinfo array)" 1600)"
	# the report: how many matched, where, by whom, beside every count
	run --separate-stderr wp-report "$WOUT"
	assert_success
	assert_equal "$(grep -- '--if' <<< "$output")" "  --if matched 600 of 6,000 executions, at 100 addresses by 3 threads"
	run --separate-stderr wp-report --json "$WOUT"
	assert_success
	assert_equal "$(jq -c '.sites[0] | [.writes, .matched, .match_unknown, ([.addresses[] | select(.matched > 0)] | length)]' <<< "$output")" "[6000,600,0,100]"
	walk_if "tid == PID" "$name" "$@"
	assert_equal "$(matched 0)" "$(expected_if 't == main')"
	assert_equal "$(matched 0 | wc -l)" 1000
	walk_if "value == PID && addr < @800" "$name" "$@"
	assert_equal "$(matched 0)" "$(expected_if 't == main && a < 800')"
	assert_equal "$(matched 0 | wc -l)" 100
	walk_if "tid == 0" "$name" "$@"
	assert_equal "$(matched 0)" ""
	# what no execution of a site says, and the add's value, which is
	# not known before it runs: refused in one line, nothing armed
	start_target insn-walk
	wp-resolve -p "$TPID" --insn wpt_walk_store --insn wpt_walk_add -a rw > "$BATS_TEST_TMPDIR/sites"
	run --separate-stderr wp-arm -d 1s --if 'value == 1' "$@" < "$BATS_TEST_TMPDIR/sites"
	assert_failure 64
	assert_equal "$(tail -n 1 <<< "$stderr")" "wp-arm: --if 'value == 1': site 1 stores no register's value, so the value it writes is not known before it runs: value cannot be tested"
	run --separate-stderr wp-arm -d 1s --if 'writer == main' "$@" < "$BATS_TEST_TMPDIR/sites"
	assert_failure 64
	assert_equal "$(tail -n 1 <<< "$stderr")" "wp-arm: --if 'writer == main': a site's executions are tested on addr, tid and value, not on writer (the site is the writer)"
}

# stop_checks SITE: the process left stopped (state T) by --stop, its
# stopping thread at SITE (the instruction not run), the code bytes as
# they were (WANT) and the observation's stopped_at saying so
stop_checks() {
	local site=$1 want=$2 tid
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" stopped_at_match
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	tid=$(obs .stopped_at.tid)
	assert_equal "$(obs '.stopped_at | [.ip, .writer_ip, .process] | join(" ")')" "$site $site stopped"
	assert_equal "$(printf '0x%x' "$(awk '{ print $3 }' "/proc/$TPID/task/$tid/syscall")")" "$site"
	assert_equal "$(code_at "$TPID" "$site" 6)" "$want"
}

# --stop: insn-kinds' lock add (one thread, 5 times) stopped before its
# first execution: the counter still 0 and one execution counted at it;
# after SIGCONT the target's own count and status as unwatched
scenario_insn_stop() {
	local name=$1 site want st=0
	shift
	start_target insn-kinds
	site=$(wp-resolve -p "$TPID" --insn wpt_kinds_lock | jq -r 'select(.type=="site") | .runtime_addr')
	want=$(code_at "$TPID" "$site" 6)
	watch_start --insn wpt_kinds_lock -- -d 60s --stop "$@"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" "$name"
	kill -USR1 "$TPID"
	watch_wait
	stop_checks "$site" "$want"
	assert_equal "$(code_at "$TPID" "$(tinfo counter)" 8)" 0000000000000000
	assert_equal "$(jq -s -r 'map(select(.type=="access")) | map([.addr, .writes, .tid] | map(tostring) | join(" ")) | join(",")' "$WOUT")" "$(tinfo counter) 1 $TPID"
	assert_contract "$WOUT"
	kill -CONT "$TPID"
	wait "$TPID" || st=$?
	assert_equal "$st" 0
	assert_equal "$(tail -n 2 "$TOUT")" "{\"push\":\"$(jq -r .push <<< "$(tail -n 2 "$TOUT" | head -n 1)")\",\"counter\":5}
done"
}
