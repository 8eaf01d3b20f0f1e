#!/usr/bin/env bats
# The second question (issue 43): which addresses does this instruction
# write (and read)?  wp-resolve --insn checks and decodes the site.

load helpers
load insn

# the uprobe and ptrace paths, on either kind of machine: where
# breakpoints fire auto takes execute breakpoints (tests/live/80)
setup() {
	export WP_ARM_BP=none
}

# why auto passes the bpf backend over, first of its reasons
NOBP="hardware breakpoints do not fire on this machine (they do on bare metal and in VMs that virtualize debug registers)"

@test "wp-resolve --insn: a store instruction, decoded, its operand in the site record" {
	start_target insn-walk
	run --separate-stderr wp-resolve -p "$TPID" --insn wpt_walk_store --insn "insn-walk+$(static_of "$T/insn-walk" wpt_walk_add)" -a rw
	assert_success
	assert_equal "$stderr" ""
	assert_contract <(echo "$output")
	sites=$(grep '"type":"site"' <<< "$output")
	assert_equal "$(jq -c '[.id, .runtime_addr, .insn, .insn_len, .access, .operand.writes, .operand.reads, .operand.width, .operand.base, .operand.index, .operand.scale, .operand.disp]' <<< "$sites")" \
		"[0,\"$(tinfo store)\",\"mov qword ptr [rdi + rax*8], rdx\",4,\"rw\",true,false,8,\"rdi\",\"rax\",8,\"0x0\"]
[1,\"$(tinfo add)\",\"add qword ptr [rdi + rax*8], 1\",5,\"rw\",true,true,8,\"rdi\",\"rax\",8,\"0x0\"]"
	# a uprobe's place: the file and the offset in it
	assert_equal "$(jq -r '[.region, .file_offset, .static_addr] | join(" ")' <<< "$(head -n 1 <<< "$sites")")" \
		"$T/insn-walk $(static_of "$T/insn-walk" wpt_walk_store) $(static_of "$T/insn-walk" wpt_walk_store)"
}

@test "wp-resolve --insn: in a shared library, and in a stripped program by its runtime address and MODULE+0xOFF" {
	start_target shlib-writer
	off=$(store_in "$T/libwpt.so" wpt_lib_write)
	[ -n "$off" ] || fail "no plain store in wpt_lib_write"
	run --separate-stderr wp-resolve -p "$TPID" --insn "libwpt.so+$off"
	assert_success
	site=$(grep '"type":"site"' <<< "$output")
	assert_equal "$(jq -r '[.module, .static_addr, .operand.writes, .operand.reads] | map(tostring) | join(" ")' <<< "$site")" \
		"$(realpath "$T/libwpt.so") $off true false"
	assert_regex "$(jq -r .insn <<< "$site")" '^mov qword ptr \[r[a-z0-9]+\], r[a-z0-9]+$'
	start_target insn-walk-stripped
	run --separate-stderr wp-resolve -p "$TPID" --insn "$(tinfo store)" --insn "insn-walk-stripped+$(static_of "$T/insn-walk" wpt_walk_store)"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(grep '"type":"site"' <<< "$output" | jq -r .runtime_addr | sort -u)" "$(tinfo store)"
}

@test "wp-resolve --insn: refusals name the site, status 1" {
	start_target insn-walk
	store=$(tinfo store)
	for bad in "wpt_walk_store+1|wpt_walk_store+1: at $(hexadd "$store" 1): not the start of an instruction (inside 'mov qword ptr [rdi + rax*8], rdx' at $store)" \
		"$(tinfo array)|$(tinfo array): not in executable code ([heap] rw-p)" \
		"0x10|0x10: not mapped in pid $TPID" \
		"nosuchsymbol|"; do
		run --separate-stderr wp-resolve -p "$TPID" --insn "${bad%%|*}"
		assert_failure 1
		assert_equal "$output" ""
		[ -z "${bad#*|}" ] || assert_equal "$stderr" "wp-resolve: ${bad#*|}"
	done
	# an instruction that accesses no memory, and a load without -a rw
	lea=$(objdump -d --no-show-raw-insn "$T/insn-walk" | awk '/\tlea /{ sub(":", "", $1); print "0x" $1; exit }')
	run --separate-stderr wp-resolve -p "$TPID" --insn "insn-walk+$lea"
	assert_failure 1
	assert_regex "$stderr" "^wp-resolve: insn-walk\+$lea: at 0x[0-9a-f]+: 'lea [^']*' accesses no memory$"
	load=$(objdump -d --no-show-raw-insn "$T/insn-walk" | awk '/\tmov +(0x[0-9a-f]+)?\(%r[a-z0-9]+\),%r[a-z0-9]+$/{ sub(":", "", $1); print "0x" $1; exit }')
	run --separate-stderr wp-resolve -p "$TPID" --insn "insn-walk+$load"
	assert_failure 1
	assert_regex "$stderr" "^wp-resolve: insn-walk\+$load: at 0x[0-9a-f]+: 'mov [^']*' only reads memory: -a rw counts its reads$"
	run --separate-stderr wp-resolve -p "$TPID" -a rw --insn "insn-walk+$load"
	assert_success
	assert_equal "$(grep '"type":"site"' <<< "$output" | jq -c '[.operand.writes, .operand.reads]')" '[false,true]'
}

@test "wp-arm uprobe: one store's 1000 addresses, every one with its exact count per thread, a thread made after arming too" {
	scenario_insn_walk uprobe_bpf
	# each address where it lies: the heap
	assert_equal "$(jq -r 'select(.type=="access") | .region' "$WOUT" | sort -u)" "[heap]"
	# the values: the store's source register before it ran, the
	# thread's tid in insn-walk; the add's are not known before it runs
	assert_equal "$(jq -s -r '[.[] | select(.type=="access" and .site==0)] | group_by([.addr, .tid]) | map(last)[] | "\(.tid) \(.first_value) \(.last_value)"' "$WOUT" |
		awk '{ t = sprintf("0x%x", $1) } $2 == t && $3 == t { n++ } END { print n + 0 }')" 3000
	assert_equal "$(jq -r 'select(.type=="access" and .site==1) | has("first_value")' "$WOUT" | sort -u)" false
	assert_equal "$(grep '"type":"site"' "$WOUT" | jq -c '.written_value')" '{"kind":"register_store","register":"rdx","width":8,"value":null}
{"kind":"unknown","reason":"read-modify-write"}' 
}

@test "wp-arm uprobe: an instruction in a shared library, and a stripped program's" {
	scenario_insn_lib uprobe_bpf
}

@test "wp-arm uprobe: 100 sites in one watch (the same store, a site each), each counted exactly; past 1024 sites refused, the limit named (status 1)" {
	start_target insn-walk -n 50
	local args=() i
	for (( i = 0; i < 1025; i++ )); do args+=(--insn wpt_walk_store); done
	wp-resolve -p "$TPID" "${args[@]}" > "$BATS_TEST_TMPDIR/sites"
	assert_equal "$(grep -c '"type":"site"' "$BATS_TEST_TMPDIR/sites")" 1025
	run --separate-stderr wp-arm --backend uprobe -d 1s < "$BATS_TEST_TMPDIR/sites"
	assert_failure 1
	assert_equal "$stderr" "wp-arm: 1025 sites: the uprobe backend counts at most 1024"
	watch_start "${args[@]:0:200}" -- -d 60s
	assert_equal "$(jq -r 'select(.type=="armed") | "\(.backend) \(.events)"' "$WOUT")" "uprobe_bpf 100"
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	# every site: the target's 3 threads' 50 + 100 + 150 stores
	assert_equal "$(obs '[.uprobe.sites[] | "\(.executions) \(.addresses) \(.tally_full)"] | group_by(.) | map("\(length) \(.[0])")[]')" "100 300 150 0"
	assert_equal "$(accesses 99)" "$(expected_walk)"
}

@test "wp-arm: site records go to the backends that count them only, and without targets" {
	start_target insn-walk
	wp-resolve -p "$TPID" --insn wpt_walk_store > "$BATS_TEST_TMPDIR/sites"
	run --separate-stderr wp-arm --backend perf -d 1s < "$BATS_TEST_TMPDIR/sites"
	assert_failure 1
	assert_equal "$(tail -n 1 <<< "$output" | jq -r '[.stop_reason, .error] | join(": ")')" \
		"error: the perf backend watches addresses, not instructions (site records): --backend uprobe counts those"
	# bpf's site mode (execute breakpoints) where breakpoints do not
	# fire: the machine's reason, status 5
	run --separate-stderr wp-arm --backend bpf -d 1s < "$BATS_TEST_TMPDIR/sites"
	assert_failure 5
	assert_equal "$(tail -n 1 <<< "$output" | jq -r '[.stop_reason, .error] | join(": ")')" \
		"error: hardware breakpoints cannot be used here"
	wp-resolve -p "$TPID" --insn wpt_walk_store "$(tinfo array)" > "$BATS_TEST_TMPDIR/both"
	run --separate-stderr wp-arm -d 1s < "$BATS_TEST_TMPDIR/both"
	assert_failure 1
	assert_equal "$(tail -n 1 <<< "$output" | jq -r .error)" \
		"site records are counted (instructions' addresses), targets watched: a watch of its own each"
}

@test "wp accesses: the summary first, every address with its exact count per thread; --json; the text report too" {
	start_target insn-walk
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	wp accesses --json --save "$save" -d 60s "$TPID" wpt_walk_store > "$BATS_TEST_TMPDIR/report.json" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	doc=$BATS_TEST_TMPDIR/report.json
	assert_equal "$(jq -r '.sites[0] | [.insn, .summary, .distinct_addresses, .writes, .threads, .stride] | map(tostring) | join("|")' "$doc")" \
		"mov qword ptr [rdi + rax*8], rdx|wrote 1,000 distinct addresses, 100% in [heap], stride 0x8; 6,000 writes by 3 threads|1000|6000|3|0x8"
	# every address, each written once by the first thread, twice by
	# the second, three times by the one made after arming
	expected=$(tail -n +2 "$TOUT" | grep '"tid"' | jq -s -c 'sort_by(.tid) | map({tid, writes: .rounds, reads: 0})')
	assert_equal "$(jq -c '[.sites[0].addresses[] | .threads | map(del(.first_value, .last_value))] | unique' "$doc")" "[$expected]"
	# and the value each wrote: its tid, from the source register
	assert_equal "$(jq -r '[.sites[0].addresses[] | .threads[] | "\(.tid) \(.first_value) \(.last_value)"] | unique[]' "$doc" |
		awk '{ t = sprintf("0x%x", $1) } $2 == t && $3 == t { n++ } END { print n + 0 }')" 3
	assert_equal "$(jq -r '.sites[0].addresses[0].addr, .sites[0].addresses[999].addr' "$doc")" \
		"$(tinfo array)
$(hexadd "$(tinfo array)" $(( 8 * 999 )))"
	# the table: the summary under the site, then a line per address
	run --separate-stderr wp report "$save"
	assert_success
	refute_output --partial "no slot limit"
	assert_line --index 3 --regexp "^site 0  wpt_walk_store  $(tinfo store)  mov qword ptr \[rdi \+ rax\*8\], rdx$"
	assert_line --index 4 "  wrote 1,000 distinct addresses, 100% in [heap], stride 0x8; 6,000 writes by 3 threads"
	assert_line --index 5 "  counted in the kernel by a uprobe (the uprobe backend), every execution"
	assert_equal "$(jq -r '.sites[0].counted_by' "$doc")" uprobe_bpf
	# the values: each thread's tid, as many times as it wrote, most first
	vals=$(tail -n +2 "$TOUT" | grep '"tid"' | jq -s -r 'sort_by(-.rounds) | .[] | "\(.tid) \(.rounds)"' |
		while read -r t k; do printf '0x%x %s,000, ' "$t" "$k"; done)
	assert_line --index 6 "  values ${vals%, }"
	assert_line --index 7 "  (the first 4 distinct per address and thread, kept in the kernel; 0 writes of others)"
	assert_equal "$(grep -c '^  0x[0-9a-f]* *6 *0  \[heap\] ' <<< "$output")" 1000
	run --separate-stderr wp accesses "$TPID"
	assert_failure 64
	assert_equal "$stderr" "wp: accesses: no instruction (wp accesses PID SITE...)"
}

@test "wp-arm uprobe: an fs-based store (TLS) lands at each thread's own copy, the fs base read from its task" {
	start_target tls-writer -t 3 -n 7
	off=$(objdump -d --no-show-raw-insn "$T/tls-writer" | awk '/mov +%r[a-z0-9]+,%fs:/{ sub(":", "", $1); print "0x" $1; exit }')
	[ -n "$off" ] || fail "no fs-based store in tls-writer"
	watch_start --insn "tls-writer+$off" -- -d 60s
	assert_equal "$(grep '"type":"site"' "$WOUT" | jq -r .operand.segment)" fs
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(accesses 0)" "$(jq -r '.threads[] | "\(.tls) \(.tid) 7 0"' <<< "$TINFO" | sort)"
	assert_equal "$(obs '.uprobe.sites[0] | [.executions, .segment_unread, .tally_full] | map(tostring) | join(" ")')" "21 0 0"
}

@test "wp-arm: --last does not apply to site records, nor --stop with the uprobe backend, said in one line (status 64)" {
	start_target insn-walk
	wp-resolve -p "$TPID" --insn wpt_walk_store > "$BATS_TEST_TMPDIR/sites"
	run --separate-stderr wp-arm --last 4 -d 1s < "$BATS_TEST_TMPDIR/sites"
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --last keeps the writes to addresses: site records are counted (by the uprobe or the ptrace backend), not watched"
	run --separate-stderr wp-arm --stop --backend uprobe -d 1s < "$BATS_TEST_TMPDIR/sites"
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --stop on site records: the ptrace backend stops at an execution (--backend ptrace); the uprobe backend only counts (its thread runs the instruction before it takes a signal)"
	# addr is a site's: an address watch's writes are to its targets
	run --separate-stderr bash -c "wp-resolve -p $TPID $(tinfo array) | wp-arm -d 1s --if 'addr == 0x10'"
	assert_failure 64
	assert_equal "$stderr" "wp-arm: --if 'addr == 0x10': addr tests the address a site record's instruction accesses; an address watch's writes are to its targets"
}

@test "wp-arm uprobe --if: an address range of 100 addresses, one thread, a value: the matching executions exact per address and thread; writer, and the value of a store not known before it runs, refused" {
	scenario_insn_if uprobe_bpf
}

@test "wp-arm ptrace --if: the same, forced (--backend ptrace)" {
	scenario_insn_if ptrace_singlestep --backend ptrace
}

@test "wp accesses --if: the main thread's executions, counted as matched beside every execution, in the JSON document and the table" {
	start_target insn-walk
	local save=$BATS_TEST_TMPDIR/raw.ndjson doc=$BATS_TEST_TMPDIR/report.json
	wp accesses --json --save "$save" -d 60s --if "tid == $TPID" "$TPID" wpt_walk_store > "$doc" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	rounds=$(grep '"tid"' "$TOUT" | jq -r "select(.tid == $TPID) | .rounds")
	assert_equal "$(jq -c '.sites[0] | [.writes, .matched, .match_unknown]' "$doc")" "[6000,$(( 1000 * rounds )),0]"
	assert_equal "$(jq -r '.sites[0].addresses[] | .threads[] | select(.matched > 0) | "\(.tid) \(.writes) \(.matched)"' "$doc" | sort | uniq -c | awk '{ print $1, $2, $3, $4 }')" \
		"1000 $TPID $rounds $rounds"
	run --separate-stderr wp report "$save"
	assert_success
	assert_equal "$(grep -- --if <<< "$output")" "  --if matched $rounds,000 of 6,000 executions, at 1,000 addresses by 1 thread"
	wp report --html "$BATS_TEST_TMPDIR/page.html" "$save" > /dev/null
	assert_equal "$(grep -o '<p class="matched">[^<]*</p>' "$BATS_TEST_TMPDIR/page.html")" "<p class=\"matched\">--if matched $rounds,000 of 6,000 executions, at 1,000 addresses by 1 thread</p>"
}

@test "wp accesses: what each address is: a static array's element by name, the heap, an anonymous mapping by its start, each thread's stack and TLS; each copyable into wp watch" {
	start_target insn-where
	local save=$BATS_TEST_TMPDIR/raw.ndjson doc=$BATS_TEST_TMPDIR/report.json
	arr3=$(hexadd "$(tinfo arr)" 24)
	# the name the report gives, as wp watch takes it, is the address
	assert_equal "$(wp-resolve -p "$TPID" wpt_where_arr+0x18 | jq -r 'select(.type=="target") | .runtime_addr')" "$arr3"
	# the anonymous mapping that holds the target's own, as the maps say
	local range rest start=
	while read -r range rest; do
		(( $(tinfo anon) >= 0x${range%-*} && $(tinfo anon) < 0x${range#*-} )) && start=0x${range%-*}
	done < "/proc/$TPID/maps"
		wp accesses --json --save "$save" -d 60s "$TPID" wpt_where_store > "$doc" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	assert_equal "$(tail -n 1 "$TOUT")" done
	# what the target says of itself: its TLS copy 8 bytes below its
	# fs base (the main program's block, first below the thread pointer)
	expected=$({
		echo "$arr3 wpt_where_arr+0x18 2"
		grep '"tid"' "$TOUT" | while read -r t; do
			tid=$(jq .tid <<< "$t")
			[ $(( $(jq -r .fs <<< "$t") - $(jq -r .tls <<< "$t") )) = 8 ] || fail "$t"
			jq -r --arg m "$start" '"\(.heap) [heap] 1", "\(.anon) [anon] at \($m) 1", "\(.stack) stack of \(.tid) 1", "\(.tls) TLS of \(.tid), fs-0x8 1"' <<< "$t"
		done
	} | sort)
	assert_equal "$(jq -r '.sites[0].addresses[] | "\(.addr) \(.what) \(.writes)"' "$doc" | sort)" "$expected"
	assert_equal "$(jq -c '[.sites[0].addresses[] | select(.tls_of) | .tls_offset] | unique' "$doc")" '["-0x8"]'
	assert_equal "$(jq -r '.sites[0].summary' "$doc")" \
		"wrote 9 distinct addresses, 22% in [heap], most often 0x8 apart (2 of 8); 10 writes by 2 threads"
	# the table's WHERE column says the same
	run --separate-stderr wp report "$save"
	assert_success
	assert_line --regexp "^  $arr3 +2 +0  wpt_where_arr\+0x18 +[0-9]+:1 [0-9]+:1$"
	t=$(grep '"tid"' "$TOUT" | head -n 1)
	assert_line --regexp "^  $(jq -r .tls <<< "$t") +1 +0  TLS of $(jq .tid <<< "$t"), fs-0x8 +$(jq .tid <<< "$t"):1$"
	assert_line --regexp "^  $(jq -r .stack <<< "$t") +1 +0  stack of $(jq .tid <<< "$t") +$(jq .tid <<< "$t"):1$"
	assert_contract "$save"
}

@test "wp accesses on a terminal: the live table counts the site's executions and addresses, the last frame as the report; --html has the site" {
	command -v script > /dev/null || skip "script(1) (util-linux) is not installed"
	start_target insn-walk
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	# SIGUSR1 once armed: the walk runs, the target exits, the watch ends
	(wait_armed "$save" "" /dev/null; kill -USR1 "$TPID") 3>&- &
	run script -qec "stty cols 100 rows 40; wp accesses --save '$save' -d 60s $TPID wpt_walk_store" /dev/null
	assert_success
	frames=$(sed 's/\x1b\[[0-9]*A//g; s/\x1b\[J/\n--frame--\n/g' <<< "$output" | tr -d '\r')
	# a frame at arming with none yet, and the last after the counts
	assert_equal "$(grep -m 1 '^  site 0 ' <<< "$frames")" "  site 0 wpt_walk_store  0 executions  0/s  0 addresses"
	assert_regex "$(grep '^  site 0 ' <<< "$frames" | tail -n 1)" '^  site 0 wpt_walk_store  6000 executions  [0-9]+/s  1000 addresses$'
	assert_regex "$(grep '^wp: watching ' <<< "$frames" | tail -n 1)" '^wp: watching [0-9.]+ s of 60 s, 6000 executions +$'
	# the page: the site's section, its summary and a row per address
	run --separate-stderr wp report --html "$BATS_TEST_TMPDIR/page.html" "$save"
	assert_success
	page=$BATS_TEST_TMPDIR/page.html
	assert_equal "$(grep -c '<section class="site" id="site-0" data-site="0" data-addresses="1000">' "$page")" 1
	assert_equal "$(grep -o '<p class="summary">[^<]*' "$page")" \
		'<p class="summary">wrote 1,000 distinct addresses, 100% in [heap], stride 0x8; 6,000 writes by 3 threads'
	assert_equal "$(grep -c '<tr data-addr="0x[0-9a-f]*"><td class="mono">0x[0-9a-f]*</td><td class="num">6</td><td class="num">0</td><td class="mono">\[heap\]</td>' "$page")" 1000
}

@test "wp accesses: a rep stosq counted per element, up and down (DF); a push at rsp - 8; a gs-based store at the gs base; a lock add and code in no file: no uprobe, the ptrace backend, said why" {
	start_target insn-kinds -n 5
	local doc=$BATS_TEST_TMPDIR/report.json save=$BATS_TEST_TMPDIR/raw.ndjson
	wp accesses --json --save "$save" -d 60s "$TPID" wpt_kinds_rep wpt_kinds_repdown wpt_kinds_push wpt_kinds_gs > "$doc" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	assert_equal "$(tail -n 1 "$TOUT")" done
	# each of the 16 elements written once per round, 5 rounds, both ways
	for s in 0 1; do
		base=$(tinfo "$([ "$s" = 0 ] && echo buf || echo down)")
		assert_equal "$(jq -r --argjson s "$s" '.sites[$s].addresses[] | "\(.addr) \(.writes)"' "$doc")" \
			"$(for (( i = 0; i < 16; i++ )); do echo "$(hexadd "$base" $(( 8 * i ))) 5"; done)"
	done
	assert_equal "$(jq -r '.sites[0].addresses[0].what, .sites[1].addresses[15].what' "$doc")" "wpt_kinds_buf
wpt_kinds_down+0x78"
	# the push: where the target says rsp - 8 was, the main thread's stack
	assert_equal "$(jq -r '.sites[2].addresses[] | "\(.addr) \(.what) \(.writes)"' "$doc")" \
		"$(sed -n 's/.*"push":"\(0x[0-9a-f]*\)".*/\1/p' "$TOUT") stack of $TPID 5"
	assert_equal "$(jq -r '.sites[3] | .insn, (.addresses[] | "\(.addr) \(.writes)")' "$doc")" "mov qword ptr gs:[0x10], rdx
$(tinfo gs) 5"
	# its values 0 to 4, one each: the budget keeps the first 4 distinct
	assert_equal "$(jq -c '.sites[3] | [.value_budget, .values, .values_other]' "$doc")" \
		'[4,[{"value":"0x0","count":1},{"value":"0x1","count":1},{"value":"0x2","count":1},{"value":"0x3","count":1}],1]'
	run --separate-stderr wp report "$save"
	assert_line "  values 0x0 1, 0x1 1, 0x2 1, 0x3 1"
	assert_line "  (the first 4 distinct per address and thread, kept in the kernel; 1 write of others)"
	assert_contract "$save"
	# the kernel places no uprobe on a lock prefix: --backend uprobe
	# says so; auto counts it with the ptrace backend, saying why
	start_target insn-kinds
	wp-resolve -p "$TPID" --insn wpt_kinds_lock > "$BATS_TEST_TMPDIR/lock"
	run --separate-stderr wp-arm --backend uprobe -d 1s < "$BATS_TEST_TMPDIR/lock"
	assert_failure 1
	assert_regex "$stderr" "^wp-arm: site 0: 'lock add qword ptr \[rip \+ 0x[0-9a-f]+\], 1': the kernel puts no uprobe on a lock-prefixed instruction$"
	run --separate-stderr wp accesses -d 1s "$TPID" wpt_kinds_lock
	assert_success
	assert_regex "$stderr" "^wp-arm: $(regex_quote "$NOBP"), and site 0: 'lock add qword ptr \[rip \+ 0x[0-9a-f]+\], 1': the kernel puts no uprobe on a lock-prefixed instruction: using the ptrace backend \\(an int3 at each instruction"
	# code in no file: no uprobe there either, an int3 is
	run --separate-stderr wp accesses -d 1s "$TPID" "$(tinfo anon)"
	assert_success
	assert_regex "$(grep "^wp-arm:" <<< "$stderr")" "^wp-arm: $(regex_quote "$NOBP"), and site 0: $(tinfo anon) is in no file \\(anonymous code\\): a uprobe needs one: using the ptrace backend "
}

@test "wp-arm ptrace: a lock add (no uprobe there) from 3 threads, one made after arming: every counter's exact count per thread; the output as unwatched" {
	scenario_insn_lock ptrace_singlestep
	assert_equal "$(cat "$WERR")" "wp-arm: $NOBP, and site 0: 'lock add qword ptr [rdi + rax*8], 1': the kernel puts no uprobe on a lock-prefixed instruction: using the ptrace backend (an int3 at each instruction, every execution counted per address and thread, the instruction single-stepped: exact, but slow)"
}

@test "wp-arm auto: a lock add and a plain store, 3 threads: the plain store by a uprobe, only the lock add by the ptrace backend, in one watch; exact counts, each record saying which counted" {
	start_target insn-lock -r 20
	watch_start --insn wpt_lock_add --insn wpt_plain_store -- -d 60s
	assert_equal "$(cat "$WERR")" "wp-arm: $NOBP, and site 0: 'lock add qword ptr [rdi + rax*8], 1': the kernel puts no uprobe on a lock-prefixed instruction: using the uprobe backend, and the ptrace backend for the sites no uprobe can take (an int3 at each, every execution counted per address and thread, the instruction single-stepped: exact, but slow)"
	# both count: the armed record and the observation say so
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" uprobe_bpf+ptrace_singlestep
	# the int3 at the lock add only; the store's uprobe is the kernel's
	assert_equal "$(code_at "$TPID" "$(tinfo add)" 1)" cc
	kill -USR1 "$TPID"
	watch_wait
	local st=0
	wait "$TPID" || st=$?
	assert_equal "$st" 0
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(tail -n 2 "$TOUT")" "120 120 120 120 120 120 120 120
done"
	assert_equal "$(grep -c '"tid"' "$TOUT")" 3
	assert_equal "$(accesses 0)" "$(expected_walk counters)"
	assert_equal "$(accesses 1)" "$(expected_walk seen)"
	assert_equal "$(jq -r 'select(.type=="access") | "\(.site) \(.backend)"' "$WOUT" | sort -u)" "0 ptrace_singlestep
1 uprobe_bpf"
	assert_equal "$(obs .backend)" uprobe_bpf+ptrace_singlestep
	assert_equal "$(obs '.uprobe.sites[] | [.id, .executions, .addresses, .backend] | map(tostring) | join(" ")')" "0 960 24 ptrace_singlestep
1 960 24 uprobe_bpf"
	# the values the plain store wrote: each counter's index
	local base n=0 a v
	base=$(tinfo seen)
	while read -r a v; do
		(( a - base == 8 * v )) && n=$(( n + 1 ))
	done < <(jq -s -r '[.[] | select(.type=="access" and .site==1)] | group_by([.addr, .tid]) | map(last)[] | "\(.addr) \(.first_value) \(.last_value)"' "$WOUT" |
		awk '$2 == $3 { print $1, $3 }')
	assert_equal "$n" 24
	assert_contract "$WOUT"
	# the report names what counted each site, and where the values
	# were kept
	run --separate-stderr wp-report "$WOUT"
	assert_success
	assert_equal "$(grep -A 2 '^site 0 ' <<< "$output" | tail -n 1)" "  counted by wp-arm at an int3 (the ptrace backend), every execution"
	assert_equal "$(grep -A 4 '^site 1 ' <<< "$output" | tail -n 3)" "  counted in the kernel by a uprobe (the uprobe backend), every execution
  values 0x0 120, 0x1 120, 0x2 120, 0x3 120, 0x4 120, 0x5 120, 0x6 120, 0x7 120
  (the first 4 distinct per address and thread, kept in the kernel; 0 writes of others)"
	# stopped (SIGTERM): both sites' code as it was (the int3 and the
	# uprobe's), the target runs on to its own counts
	start_target insn-lock -r 3000
	local add plain want
	add=$(tinfo add)
	plain=$(tinfo plain)
	want="$(code_at "$TPID" "$add" 6) $(code_at "$TPID" "$plain" 4)"
	watch_start --insn wpt_lock_add --insn wpt_plain_store -- -d 60s
	assert_equal "$(code_at "$TPID" "$add" 1) $(code_at "$TPID" "$plain" 1)" "cc cc"
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" signal
	assert_equal "$(code_at "$TPID" "$add" 6) $(code_at "$TPID" "$plain" 4)" "$want"
	kill -USR1 "$TPID"
	target_ends "18000 18000 18000 18000 18000 18000 18000 18000"
}

@test "wp-arm ptrace: wp-arm stopped (SIGTERM), armed or mid-loop: the code bytes back as they were, the target runs on to its own counts" {
	start_target insn-lock -r 3000
	site=$(tinfo add)
	want=$(code_at "$TPID" "$site" 6)
	watch_start --insn wpt_lock_add -- -d 60s
	# the int3 in place while armed, its own byte back after
	assert_equal "$(code_at "$TPID" "$site" 1)" cc
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" signal
	assert_equal "$(code_at "$TPID" "$site" 6)" "$want"
	kill -USR1 "$TPID"
	target_ends "18000 18000 18000 18000 18000 18000 18000 18000"
	# stopped while the threads trap there: none is left at an int3
	start_target insn-lock -r 3000
	watch_start --insn wpt_lock_add -- -d 60s
	kill -USR1 "$TPID"
	sleep 1
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" signal
	(( $(obs '.uprobe.sites[0].executions') > 0 ))
	target_ends "18000 18000 18000 18000 18000 18000 18000 18000"
}

# xol_pages PID: the anonymous one-page r-x mappings of PID (the site
# mode's scratch page is one)
xol_pages() {
	local r n=0
	for r in $(awk '$2 == "r-xp" && $5 == 0 && NF == 5 { print $1 }' "/proc/$1/maps"); do
		(( 0x${r#*-} - 0x${r%-*} == 4096 )) && n=$(( n + 1 ))
	done
	echo "$n"
}

@test "wp-arm ptrace: out of line: a rip-relative lock add stepped from the scratch page writes its own counter, exactly; the page there while armed, gone after, the code as it was" {
	start_target insn-kinds
	local before
	before=$(xol_pages "$TPID")
	watch_start --insn wpt_kinds_lock -- --backend ptrace -d 60s
	assert_equal "$(xol_pages "$TPID")" $(( before + 1 ))
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	# the copy's displacement reached the counter: the target's own count
	assert_equal "$(tail -n 2 "$TOUT" | head -n 1 | jq .counter)" 5
	assert_equal "$(accesses 0)" "$(tinfo counter) $TPID 5 0"
	# stopped while armed: the page unmapped, the int3 gone
	start_target insn-lock -r 20
	before=$(xol_pages "$TPID")
	local want
	want=$(code_at "$TPID" "$(tinfo add)" 6)
	watch_start --insn wpt_lock_add -- -d 60s
	assert_equal "$(xol_pages "$TPID")" $(( before + 1 ))
	kill -TERM "$WPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(xol_pages "$TPID")" "$before"
	assert_equal "$(code_at "$TPID" "$(tinfo add)" 6)" "$want"
	kill -USR1 "$TPID"
	target_ends "120 120 120 120 120 120 120 120"
}

@test "wp-arm ptrace: a rep stosq counted per element, up and down (DF), forced (--backend ptrace): each element exact, the target's output as unwatched" {
	start_target insn-kinds
	watch_start --insn wpt_kinds_rep --insn wpt_kinds_repdown -- --backend ptrace -d 60s
	assert_equal "$(cat "$WERR")" ""
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	assert_equal "$(tail -n 2 "$TOUT" | head -n 1 | jq .counter)" 5
	local s base i
	for s in 0 1; do
		base=$(tinfo "$([ "$s" = 0 ] && echo buf || echo down)")
		assert_equal "$(accesses "$s")" \
			"$(for (( i = 0; i < 16; i++ )); do echo "$(hexadd "$base" $(( 8 * i ))) $TPID 5 0"; done | sort)"
	done
	assert_equal "$(obs '[.uprobe.sites[] | .executions] | map(tostring) | join(" ")')" "80 80"
	assert_contract "$WOUT"
}

@test "wp-arm ptrace: the array walk, forced (--backend ptrace): every address with its exact count per thread" {
	start_target insn-walk
	watch_start --insn wpt_walk_store -- --backend ptrace -d 60s
	assert_equal "$(cat "$WERR")" ""
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" ptrace_singlestep
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$WSTATUS" 0
	assert_equal "$(tail -n 1 "$TOUT")" done
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(accesses 0)" "$(expected_walk)"
	assert_equal "$(obs '.uprobe.sites[0] | [.executions, .addresses] | map(tostring) | join(" ")')" "6000 3000"
	# the values: the store's source register before it ran, its tid
	assert_equal "$(jq -s -r '[.[] | select(.type=="access" and .site==0)] | group_by([.addr, .tid]) | map(last)[] | "\(.tid) \(.first_value) \(.last_value)"' "$WOUT" |
		awk '{ t = sprintf("0x%x", $1) } $2 == t && $3 == t { n++ } END { print n + 0 }')" 3000
	assert_contract "$WOUT"
}

@test "wp-arm uprobe: a slow reader misses counts along the way, not the last: every address exact, nothing called lost" {
	start_target insn-walk
	WOUT=$BATS_TEST_TMPDIR/watch.out
	# the reader takes the records up to the armed one, then none for 3 s
	wp-resolve -p "$TPID" --insn wpt_walk_store |
		wp-arm --interval 50ms -d 60s 2> "$BATS_TEST_TMPDIR/err" |
		{ while IFS= read -r l; do printf '%s\n' "$l"; [[ $l != *'"type":"armed"'* ]] || break; done
		  sleep 3; cat; } > "$WOUT" &
	local w=$!
	wait_armed "$WOUT" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	OBS=$(jq -c 'select(.type=="observation")' "$WOUT")
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(accesses 0)" "$(expected_walk)"
	assert_equal "$(obs '[.lost_events.total, .lost_events.reasons, .counts_are_lower_bound, .lost_events.undelivered_records] | tostring')" '[0,[],false,null]'
	run --separate-stderr wp report "$WOUT"
	refute_output --partial "lower bound"
}

@test "wp-arm ptrace: a forked child's copy of the code is mended before it is let go: it runs as unwatched, the parent's executions counted" {
	start_target fork-exec -c 7 -n 10
	local child parent
	local src=$BATS_TEST_DIRNAME/targets/fork-exec.c a line
	# the stores of a register to wpt_counter, each by its source line:
	# the child's loop, and the parent's
	for a in $(objdump -d --no-show-raw-insn "$T/fork-exec" | awk '/mov +%r[a-z0-9]+,0x[0-9a-f]+\(%rip\) +# [0-9a-f]+ <wpt_counter>/{ sub(":", "", $1); print "0x" $1 }'); do
		line=$(addr2line -e "$T/fork-exec" "$a" | sed 's/.*://; s/ .*//')
		case $(sed -n "${line}p" "$src") in
		*"wpt_counter = 5000 + i;"*) child=$a ;;
		*"wpt_counter = i;"*) parent=$a ;;
		esac
	done
	[ -n "${child-}" ] && [ -n "${parent-}" ] || fail "no store of a register to wpt_counter on the child's and the parent's lines"
	watch_start --insn "fork-exec+$child" --insn "fork-exec+$parent" -- --backend ptrace -d 60s
	kill -USR1 "$TPID"
	watch_wait
	local st=0
	wait "$TPID" || st=$?
	assert_equal "$st" 0
	assert_equal "$WSTATUS" 0
	# the child exited 0, not killed by a SIGTRAP of an int3 left in
	assert_equal "$(tail -n 2 "$TOUT")" "child 0
done"
	assert_equal "$(obs '.thread_coverage.forked_processes')" 1
	assert_equal "$(obs '[.uprobe.sites[] | .executions] | map(tostring) | join(" ")')" "0 10"
	assert_equal "$(accesses 1)" "$(tinfo counter) $TPID 10 0"
}

@test "wp-arm ptrace: whose stack and TLS each address is, as the uprobe backend says it" {
	start_target insn-where
	watch_start --insn wpt_where_store -- --backend ptrace -d 60s
	kill -USR1 "$TPID"
	watch_wait
	assert_equal "$(tail -n 1 "$TOUT")" done
	# what the target says of itself: each thread's stack local and TLS
	# copy (8 bytes below its fs base), each written once by it
	expected=$(grep '"tid"' "$TOUT" | jq -r '"\(.stack) \(.tid) stack \(.tid)", "\(.tls) \(.tid) tls \(.tid) -0x8"' | sort)
	assert_equal "$(jq -r 'select(.type=="access" and (.stack_of or .tls_of)) | if .stack_of then "\(.addr) \(.tid) stack \(.stack_of)" else "\(.addr) \(.tid) tls \(.tls_of) \(.tls_offset)" end' "$WOUT" | sort)" "$expected"
	assert_equal "$(obs '.uprobe.sites[0] | [.executions, .addresses] | map(tostring) | join(" ")')" "10 10"
	assert_contract "$WOUT"
}

@test "wp-arm ptrace --stop: the process left stopped at the site's first execution, not run; SIGCONT runs it on to its own counts" {
	start_target insn-lock -r 20
	site=$(tinfo add)
	want=$(code_at "$TPID" "$site" 6)
	watch_start --insn wpt_lock_add -- -d 60s --backend ptrace --stop
	kill -USR1 "$TPID"
	watch_wait
	stop_checks "$site" "$want"
	# the first add not done: every counter still 0
	for i in 0 1 2 3 4 5 6 7; do
		assert_equal "$(code_at "$TPID" "$(hexadd "$(tinfo counters)" $((i * 8)))" 8)" 0000000000000000
	done
	assert_equal "$(jq -s -r 'map(select(.type=="access")) | map([.addr, .writes] | map(tostring) | join(" ")) | join(",")' "$WOUT")" "$(tinfo counters) 1"
	assert_contract "$WOUT"
	kill -CONT "$TPID"
	target_ends "120 120 120 120 120 120 120 120"
}

@test "wp-arm --stop --if: auto takes ptrace, stopped at the first execution that matches (addr), not run" {
	start_target insn-lock -r 20
	site=$(tinfo add)
	want=$(code_at "$TPID" "$site" 6)
	third=$(hexadd "$(tinfo counters)" 24)
	# auto takes the ptrace backend for --stop
	watch_start --insn wpt_lock_add -- -d 60s --stop --if "addr == $third"
	assert_equal "$(jq -r 'select(.type=="armed") | .backend' "$WOUT")" ptrace_singlestep
	kill -USR1 "$TPID"
	watch_wait
	stop_checks "$site" "$want"
	# counters[3] not added to yet: the stopped execution is its first
	assert_equal "$(code_at "$TPID" "$third" 8)" 0000000000000000
	assert_equal "$(jq -s -r --arg a "$third" 'map(select(.type=="access" and .addr==$a)) | map([.writes, .matched] | map(tostring) | join(" ")) | join(",")' "$WOUT")" "1 1"
	kill -CONT "$TPID"
	target_ends "120 120 120 120 120 120 120 120"
}

@test "wp-arm ptrace --stop: a lock add in one thread, stopped before its first execution, the counter 0; SIGCONT runs it on to 5" {
	scenario_insn_stop ptrace_singlestep --backend ptrace
}

@test "wp accesses --stop: the process left stopped at the instruction's first execution, said on stderr; SIGCONT runs it on" {
	start_target insn-lock -r 20
	local save=$BATS_TEST_TMPDIR/raw.ndjson site
	site=$(tinfo add)
	wp accesses --save "$save" -d 60s --stop "$TPID" wpt_lock_add > "$BATS_TEST_TMPDIR/report" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$! st=0
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w" || st=$?
	assert_equal "$st" 0
	assert_equal "$(awk '{ print $3 }' "/proc/$TPID/stat")" T
	assert_equal "$(code_at "$TPID" "$(tinfo counters)" 8)" 0000000000000000
	tid=$(jq -r 'select(.type=="observation") | .stopped_at.tid' "$save")
	assert_equal "$(grep -cE "^wp-arm: the first matching execution: pid $TPID thread $tid at [^ ]+, the instruction at $site not run yet\$" "$BATS_TEST_TMPDIR/err")" 1
	assert_equal "$(grep -c "^    gdb -p $TPID\$" "$BATS_TEST_TMPDIR/err")" 1
	kill -CONT "$TPID"
	target_ends "120 120 120 120 120 120 120 120"
}
