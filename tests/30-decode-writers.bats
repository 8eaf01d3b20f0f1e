#!/usr/bin/env bats
# wp-decode against hit streams built from compiled programs: each trap
# IP is the address after a known store, found with objdump.

load helpers

# insns FILE FUNC: "ADDR TEXT" per instruction of FUNC, then the first
# address after it.
insns() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { g = 1; next }
		g && /^[0-9a-f]+ </ { sub(/ .*/, ""); print $0 " <next>"; exit }
		g && NF == 0 { next }
		g { a = $1; sub(/:$/, "", a); $1 = ""; print a $0 }'
}

# trap FILE FUNC N: the static address after the Nth instruction.
trap_after() {
	printf '0x%s\n' "$(insns "$1" "$2" | sed -n "$(( $3 + 1 ))p" | cut -d' ' -f1)"
}

setup_stores() {
	start_target "${1:-stores}"
	wp-resolve -p "$TPID" -l 8 "$(tinfo buf)" > "$BATS_TEST_TMPDIR/in.ndjson"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$BATS_TEST_TMPDIR/in.ndjson")
	BUF=$(tinfo buf)
}

# hit FUNC N [REGS-JSON]: appends a hit trapping after instruction N.
hit() {
	local ip
	ip=$(printf '0x%x' $(( SLIDE + $(trap_after "$T/stores" "$1" "$2") )))
	jq -cn --arg ip "$ip" --argjson regs "${3:-null}" \
		'{type:"hit", target:0, pid:1, tid:1, cpu:0, time_ns:0, ip:$ip} + (if $regs then {regs:$regs} else {} end)' \
		>> "$BATS_TEST_TMPDIR/in.ndjson"
}

project() {
	jq -r 'select(.type=="hit") | [.writer.symbol, .writer.confidence, (.writer.insn // "-" | split(" ")[0]),
		.written_value.kind, (.written_value.register // "-"), (.written_value.value // .written_value.reason),
		(.writer.caveat // "-")] | join(" | ")'
}

@test "wp-decode: register and immediate stores of widths 1, 2, 4, 8, base+index, RMW, atomics, stack, strings, SIMD" {
	setup_stores
	local r='{"rax":"0x1234","rdi":"0x1122334455667788","rsi":"0x99"}'
	for f in st_reg1 st_reg2 st_reg4 st_reg8 st_regh st_imm1 st_imm2 st_imm4 st_imm8; do
		hit "$f" 1 "$r"
	done
	hit st_index 2 "{\"rax\":\"$BUF\",\"rdi\":\"0x0\",\"rsi\":\"0x99\"}"
	hit st_index 2 "{\"rax\":\"$BUF\",\"rdi\":\"0x1\",\"rsi\":\"0x99\"}"
	for f in st_add st_inc st_xchg st_xadd st_cmpxchg st_push st_movups st_movq st_movnti st_vmovdqa; do
		hit "$f" 1 "$r"
	done
	hit st_stos 2		# trapped between iterations: IP on the rep stos
	hit st_stos 3		# the last iteration: IP after it
	hit st_movs 3
	hit st_long 4 "$r"
	hit st_long 4		# no registers
	hit st_tail 1 "$r"	# the trap IP is st_after's first instruction
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_ndjson "$output"
	project <<< "$output" > "$BATS_TEST_TMPDIR/got"
	[ -z "${WP_BLESS:-}" ] || cp "$BATS_TEST_TMPDIR/got" "$WP_BLESS"
	diff -u "$BATS_TEST_DIRNAME/data/decode-stores.expected" "$BATS_TEST_TMPDIR/got"
}

@test "wp-decode: writer and trap addresses agree with objdump; records pass through unchanged" {
	setup_stores
	hit st_reg4 1 '{"rdi":"0x5"}'
	hit st_tail 1
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	local w4 t4 wt
	w4=0x$(insns "$T/stores" st_reg4 | sed -n 1p | cut -d' ' -f1)
	t4=$(trap_after "$T/stores" st_reg4 1)
	wt=0x$(insns "$T/stores" st_tail | sed -n 1p | cut -d' ' -f1)
	run jq -r 'select(.type=="hit") | "\(.writer.writer_static_ip) \(.writer.trap_static_ip) \(.writer.writer_ip) \(.writer.function_static) \(.writer.module)"' <<< "$output"
	assert_line --index 0 "$(printf '0x%x 0x%x 0x%x 0x%x %s' "$w4" "$t4" $((SLIDE + w4)) "$w4" "$T/stores")"
	assert_line --index 1 --partial "$(printf '0x%x' "$wt")"
	# session and target lines are byte for byte what came in; hits keep their fields
	diff <(head -n 2 "$BATS_TEST_TMPDIR/in.ndjson") <(wp-decode < "$BATS_TEST_TMPDIR/in.ndjson" | head -n 2)
	run jq -c 'select(.type=="hit") | del(.writer, .written_value)' <<< "$(wp-decode < "$BATS_TEST_TMPDIR/in.ndjson")"
	assert_equal "$output" "$(jq -c 'select(.type=="hit")' "$BATS_TEST_TMPDIR/in.ndjson")"
}

# A trap's hit carries what memory held when the backend read it (perf
# and bpf read it after the trap, when another thread may have written):
# the store's register, where sampled, says what this instruction wrote.
@test "wp-decode: a trap's hit with registers has its store's value, not memory's read after it" {
	setup_stores
	hit st_reg8 1 '{"rdi":"0xbad"}'
	hit st_reg8 1
	hit st_imm4 1
	jq -c 'if .type == "hit" then . + {new_value:"0xf86bc"} else . end' "$BATS_TEST_TMPDIR/in.ndjson" > "$BATS_TEST_TMPDIR/v.ndjson"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/v.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.written_value.kind) \(.written_value.register // "-") \(.written_value.value)"' <<< "$output"
	assert_output "$(printf '%s\n' 'register_store rdi 0xbad' 'observed - 0xf86bc' 'immediate_store - 0x44444444')"
}

@test "wp-decode: source file and line from DWARF" {
	start_target mt-writer -t 0
	wp-resolve -p "$TPID" wpt_counter > "$BATS_TEST_TMPDIR/in.ndjson"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$BATS_TEST_TMPDIR/in.ndjson")
	local n ip line
	n=$(insns "$T/mt-writer" write_counter | grep -n wpt_counter | head -n 1 | cut -d: -f1)
	ip=$(printf '0x%x' $(( SLIDE + $(trap_after "$T/mt-writer" write_counter "$n") )))
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"$ip\",\"regs\":{\"rdi\":\"0x2a\"}}" >> "$BATS_TEST_TMPDIR/in.ndjson"
	line=$(grep -n 'wpt_counter = v;' "$BATS_TEST_DIRNAME/targets/mt-writer.c" | cut -d: -f1)
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.source.file | split("/") | last) \(.writer.source.line) \(.writer.confidence) \(.written_value.value)"' <<< "$output"
	assert_output "write_counter mt-writer.c $line high 0x2a"
}

@test "wp-decode: a store in a shared library" {
	start_target shlib-writer
	wp-resolve -p "$TPID" libwpt:wpt_lib_counter > "$BATS_TEST_TMPDIR/in.ndjson"
	local lib bias n ip
	lib=$(realpath "$T/libwpt.so")
	bias=$(jq -r --arg l "$lib" 'select(.type=="session") | .modules[] | select(.path == $l) | .load_bias' "$BATS_TEST_TMPDIR/in.ndjson")
	n=$(insns "$lib" wpt_lib_write | grep -n 'mov .*,(%r[a-z0-9]*)$' | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || n=$(insns "$lib" wpt_lib_write | grep -n 'mov  *%r.*,(' | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || fail "no store in wpt_lib_write"
	ip=$(printf '0x%x' $(( bias + $(trap_after "$lib" wpt_lib_write "$n") )))
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"$ip\"}" >> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.module) \(.writer.function) \(.writer.confidence) \(.writer.source.file | split("/") | last)"' <<< "$output"
	assert_output "$lib wpt_lib_write high libwpt.c"
}

@test "wp-decode: a stripped binary falls back to the backward scan" {
	setup_stores stores-stripped
	hit st_reg8 1
	hit st_reg8 1 "{\"rdi\":\"0x7\",\"rip\":\"0x0\"}"
	hit st_index 2 "{\"rax\":\"$BUF\",\"rdi\":\"0x0\",\"rsi\":\"0x99\"}"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	local w8 wi
	w8=$(printf '0x%x' 0x$(insns "$T/stores" st_reg8 | sed -n 1p | cut -d' ' -f1))
	wi=$(printf '0x%x' 0x$(insns "$T/stores" st_index | sed -n 2p | cut -d' ' -f1))
	run jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.writer_static_ip) \(.writer.confidence) \(.writer.candidates) \(.written_value.value // .written_value.reason)"' <<< "$output"
	# without symbols the scan finds several instructions that end at
	# the trap IP; a rip-relative store on the watched range needs no
	# registers to be chosen (medium: others could not be placed), and
	# registers that put exactly one store there raise it
	assert_line --index 0 --regexp "^null $w8 medium [2-9] no registers sampled \(watch with --regs\)$"
	assert_line --index 1 --regexp "^null $w8 (medium|high) [1-9] 0x7$"
	assert_line --index 2 --regexp "^null $wi (medium|high) [1-9] 0x99$"
}

@test "wp-decode: a missing module file is reported once; hits pass with unknown writers" {
	cp "$T/stores" "$BATS_TEST_TMPDIR/stores-copy"
	"$BATS_TEST_TMPDIR/stores-copy" > "$BATS_TEST_TMPDIR/copy.out" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$BATS_TEST_TMPDIR/copy.out" pid 10
	wp-resolve -p "$TPID" -l 8 wpt_buf > "$BATS_TEST_TMPDIR/in.ndjson"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$BATS_TEST_TMPDIR/in.ndjson")
	stop_targets
	rm "$BATS_TEST_TMPDIR/stores-copy"
	hit st_reg4 1
	hit st_reg8 1
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/stores-copy: not usable as recorded (give it with --module-dir or --bin); its writers are unknown"
	run jq -r 'select(.type=="hit") | "\(.writer.confidence) \(.writer.reason) \(.written_value.kind)"' <<< "$output"
	assert_output "unknown module file missing or changed unknown
unknown module file missing or changed unknown"
}

@test "wp-decode: a module whose build-id changed is not trusted" {
	setup_stores
	hit st_reg4 1
	jq -c 'if .type == "session" then .modules[0].build_id = "00ff" else . end' "$BATS_TEST_TMPDIR/in.ndjson" > "$BATS_TEST_TMPDIR/changed.ndjson"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/changed.ndjson"
	assert_success
	assert_equal "$stderr" "wp-decode: $T/stores: not usable as recorded (give it with --module-dir or --bin); its writers are unknown"
}

@test "wp-decode: exact hits from the ptrace backend keep their writer and value" {
	setup_stores
	local w4
	w4=$(printf '0x%x' $(( SLIDE + 0x$(insns "$T/stores" st_reg4 | sed -n 1p | cut -d' ' -f1) )))
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"0x1\",\"writer_ip\":\"$w4\",\"new_value\":\"0x2a\",\"new_bytes\":\"2a00000000000000\"}" >> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.symbol) \(.writer.confidence) \(.written_value.kind) \(.written_value.value)"' <<< "$output"
	assert_output "st_reg4+0x0 exact observed 0x2a"
}

@test "wp-decode: malformed lines are named, the rest decoded and passed on (status 2)" {
	setup_stores
	hit st_reg4 1
	sed -i '2a{"type":' "$BATS_TEST_TMPDIR/in.ndjson"
	echo 'garbage' >> "$BATS_TEST_TMPDIR/in.ndjson"
	echo '{"type":"custom","keep":"me"}' >> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 3: invalid JSON at byte 9: truncated
wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 5: invalid JSON at byte 1: expected a value"
	run jq -r .type <<< "$output"
	assert_output "session
target
hit
custom"
}

@test "wp-decode --live: code in anonymous executable memory is read from the live process, while it lives" {
	start_target jit
	wp-resolve -p "$TPID" wpt_jit_var > "$BATS_TEST_TMPDIR/in.ndjson"
	local trap
	trap=$(printf '0x%x' $(( $(tinfo code) + 2 )))
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"$trap\",\"regs\":{\"rdi\":\"$(tinfo var)\",\"rsi\":\"0x2a\"}}" >> "$BATS_TEST_TMPDIR/in.ndjson"
	# the session lists the anonymous executable mapping
	run jq -r --arg c "$(tinfo code)" 'select(.type=="session") | .mappings[] | select(.start == $c) | "\(.perms) \(.path)"' "$BATS_TEST_TMPDIR/in.ndjson"
	assert_output --regexp '^rwxp null$'
	run --separate-stderr wp-decode --live "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.module) \(.writer.writer_ip) \(.writer.insn) \(.writer.confidence) \(.written_value.value)"' <<< "$output"
	assert_output "null $(tinfo code) mov dword ptr [rdi], esi high 0x2a"
	# once the process is gone, its anonymous code is too
	stop_targets
	run --separate-stderr wp-decode --live "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.confidence) \(.writer.reason)"' <<< "$output"
	assert_output "unknown no code bytes: anonymous memory of a process that is gone"
}

# stripped_copy NAME: a copy of mt-writer stripped of symbols and DWARF,
# as $D/NAME, its debug file $D/mt-writer.debug, and ID its build-id.
stripped_copy() {
	D=$BATS_TEST_TMPDIR/dbg
	mkdir -p "$D"
	cp "$T/mt-writer" "$D/$1"
	[ -f "$D/mt-writer.debug" ] ||
		objcopy --only-keep-debug "$T/mt-writer" "$D/mt-writer.debug"
	strip --strip-all "$D/$1"
	ID=$(readelf -n "$D/$1" | awk '/Build ID/ { print $3 }')
}

# watch_copy PATH: runs PATH, resolves wpt_counter (extra wp-resolve
# options in RESOLVE_OPTS) and appends a hit on write_counter's store.
watch_copy() {
	TOUT=$BATS_TEST_TMPDIR/copy.$RANDOM.out
	"$1" -t 0 > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" pid 10
	wp-resolve -p "$TPID" ${RESOLVE_OPTS:-} wpt_counter > "$BATS_TEST_TMPDIR/in.ndjson"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$BATS_TEST_TMPDIR/in.ndjson")
	local n ip
	n=$(insns "$T/mt-writer" write_counter | grep -n wpt_counter | head -n 1 | cut -d: -f1)
	ip=$(printf '0x%x' $(( SLIDE + $(trap_after "$T/mt-writer" write_counter "$n") )))
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"$ip\",\"regs\":{\"rdi\":\"0x2a\"}}" >> "$BATS_TEST_TMPDIR/in.ndjson"
	LINE=$(grep -n 'wpt_counter = v;' "$BATS_TEST_DIRNAME/targets/mt-writer.c" | cut -d: -f1)
}

writer_line() {
	jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.source.file // "-" | split("/") | last) \(.writer.source.line) \(.writer.confidence)"'
}

@test "wp-decode: a stripped program's writer gets its name and line from a debug file: build-id tree, --debug-file" {
	stripped_copy mt-writer-s
	mkdir -p "$D/root/.build-id/${ID:0:2}"
	cp "$D/mt-writer.debug" "$D/root/.build-id/${ID:0:2}/${ID:2}.debug"
	# wpt_counter is in no symbol table of the stripped file: the debug
	# file's names it for wp-resolve too
	RESOLVE_OPTS="--debug-dir $D/root" watch_copy "$D/mt-writer-s"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$stderr" "wp-decode: no debug info for $D/mt-writer-s (build-id $ID; none under /usr/lib/debug/.build-id/, give it with --debug-file): source lines unknown"
	# no function bounds: the backward scan's answer
	run writer_line <<< "$output"
	assert_output "null - null medium"
	run --separate-stderr wp-decode --debug-dir "$D/root" < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$stderr" ""
	run writer_line <<< "$output"
	assert_output "write_counter mt-writer.c $LINE high"
	run --separate-stderr wp-decode --debug-file "$D/mt-writer.debug" < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	run writer_line <<< "$output"
	assert_output "write_counter mt-writer.c $LINE high"
	# a debug file of another build is not used
	run --separate-stderr wp-decode --debug-file "$T/stores" < "$BATS_TEST_TMPDIR/in.ndjson"
	run writer_line <<< "$output"
	assert_output "null - null medium"
	run --separate-stderr wp-resolve -p "$TPID" wpt_counter
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: wpt_counter: unknown symbol 'wpt_counter': $D/mt-writer-s is stripped (no symbol table); name it with --bin (an unstripped build), --debug-file, static:0xADDR or MODULE+0xOFF"
}

@test "wp-decode: the .gnu_debuglink name, beside the file and in its .debug/" {
	stripped_copy mt-writer-l
	objcopy --add-gnu-debuglink="$D/mt-writer.debug" "$D/mt-writer-l"
	mkdir -p "$D/.debug"
	mv "$D/mt-writer.debug" "$D/.debug/"
	watch_copy "$D/mt-writer-l"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$stderr" ""
	run writer_line <<< "$output"
	assert_output "write_counter mt-writer.c $LINE high"
}

# debuginfod_start DIR: a debuginfod server (no network: 127.0.0.1, a
# free port) serving the debug files under DIR; sets DIPORT, DIPID, and
# waits until it serves build-id $ID.
debuginfod_start() {
	command -v debuginfod > /dev/null ||
		skip "the debuginfod server is not installed (Debian package debuginfod)"
	ldconfig -p | grep -q 'libdebuginfod\.so\.1 ' ||
		skip "libdebuginfod.so.1 is not installed (Debian package libdebuginfod1)"
	local try i log=$BATS_TEST_TMPDIR/debuginfod.log
	for try in 1 2 3 4 5; do
		DIPORT=$(( 20000 + RANDOM % 40000 ))
		debuginfod -F -p "$DIPORT" -d "$BATS_TEST_TMPDIR/debuginfod.sqlite" \
			-t 0 -g 0 "$1" > "$log" 2>&1 &
		DIPID=$!
		WP_TARGET_PIDS+=("$DIPID")
		for i in $(seq 100); do
			# a cache of its own each time: misses are cached too
			rm -rf "$BATS_TEST_TMPDIR/probe"
			DEBUGINFOD_URLS=http://127.0.0.1:$DIPORT \
			    DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/probe \
			    debuginfod-find debuginfo "$ID" > /dev/null 2>&1 && return 0
			kill -0 "$DIPID" 2> /dev/null || break
			sleep 0.1
		done
		# the port was taken: another one
		kill "$DIPID" 2> /dev/null; wait "$DIPID" 2> /dev/null || true
	done
	fail "debuginfod did not serve $ID: $(tail -n 5 "$log")"
}

@test "wp watch: a stripped program's writer gets its line through debuginfod (DEBUGINFOD_URLS)" {
	stripped_copy mt-writer-d
	mkdir -p "$D/srv"
	mv "$D/mt-writer.debug" "$D/srv/"
	debuginfod_start "$D/srv"
	local cache=$BATS_TEST_TMPDIR/cache line
	line=$(grep -n 'wpt_counter = v;' "$BATS_TEST_DIRNAME/targets/mt-writer.c" | cut -d: -f1)
	TOUT=$BATS_TEST_TMPDIR/copy.out
	"$D/mt-writer-d" -t 1 -n 5 > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" pid 10
	WOUT=$BATS_TEST_TMPDIR/raw.ndjson
	# wpt_counter is named by the debug file too
	DEBUGINFOD_URLS=http://127.0.0.1:$DIPORT DEBUGINFOD_CACHE_PATH=$cache \
		wp watch --backend ptrace --save "$WOUT" -d 60s "$TPID" wpt_counter \
		> "$BATS_TEST_TMPDIR/report" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$WOUT" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
	run grep -E '^ +5  exact +write_counter\+0x0 +mt-writer\.c:[0-9]+ ' "$BATS_TEST_TMPDIR/report"
	assert_success
	assert_output --partial "mt-writer.c:$line "
	[ -s "$cache/$ID/debuginfo" ] || fail "nothing came from debuginfod into $cache"
	# once the server is gone, wp-decode says where it looked
	kill "$DIPID"
	wait "$DIPID" || true
	DEBUGINFOD_URLS=http://127.0.0.1:$DIPORT DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache2 \
		run --separate-stderr wp-decode < "$WOUT"
	assert_success
	assert_equal "$stderr" "wp-decode: no debug info for $D/mt-writer-d (build-id $ID; none under /usr/lib/debug/.build-id/ nor from debuginfod (Connection refused), give it with --debug-file): source lines unknown"
}

@test "wp-decode: --bin naming a debug-only file: code from the program, names and lines from the debug file" {
	stripped_copy mt-writer-b
	RESOLVE_OPTS="--bin $D/mt-writer.debug" watch_copy "$D/mt-writer-b"
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$stderr" ""
	run jq -r 'select(.type=="hit") | "\(.writer.function) \(.writer.source.line) \(.writer.confidence) \(.writer.insn | split(" ")[0]) \(.written_value.value)"' <<< "$output"
	assert_output "write_counter $LINE high mov 0x2a"
}

@test "wp-decode | wp-report: a hit whose store the sampled registers place elsewhere is spurious and kept out of the writers" {
	setup_stores
	hit st_index 2 "{\"rax\":\"$BUF\",\"rdi\":\"0x0\",\"rsi\":\"0x99\"}"	# buf[0]
	hit st_index 2 "{\"rax\":\"$BUF\",\"rdi\":\"0x1\",\"rsi\":\"0x99\"}"	# buf+8: outside
	hit st_index 2 "{\"rdi\":\"0x1\",\"rsi\":\"0x99\"}"	# no base: not known
	run --separate-stderr wp-decode < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	jq -r 'select(.type=="hit") | [.writer.kind, .writer.confidence, .writer.caveat // "-"] | join(" | ")' <<< "$output" > "$BATS_TEST_TMPDIR/got"
	run cat "$BATS_TEST_TMPDIR/got"
	assert_output "write | high | -
spurious | low | spurious: its address (its operand, the sampled registers) lies outside the watched range; not counted as an access there
write | high | -"
	wp-decode < "$BATS_TEST_TMPDIR/in.ndjson" > "$BATS_TEST_TMPDIR/dec.ndjson"
	run --separate-stderr wp-report --json "$BATS_TEST_TMPDIR/dec.ndjson"
	run jq -c '.watches[0] | [.accepted_hits, .write_hits, .spurious_hits, (.writer_sites | map(.hits))]' <<< "$output"
	assert_output '[2,2,1,[2]]'
	run --separate-stderr wp-report "$BATS_TEST_TMPDIR/dec.ndjson"
	assert_line "  spurious 1: hits whose instruction accessed elsewhere, not among the writers"
}
