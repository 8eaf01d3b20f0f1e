#!/usr/bin/env bats
# wp-resolve against live test targets: every ADDR form, PIE and non-PIE.

load helpers

@test "wp-resolve: runtime address in a PIE binary, exact target record" {
	start_target mt-writer
	local addr static slide
	addr=$(tinfo counter)
	static=$(static_of "$T/mt-writer" wpt_counter)
	run --separate-stderr wp-resolve -p "$TPID" -l 8 "$addr"
	assert_success
	assert_ndjson "$output"
	[ -z "$stderr" ] || fail "unexpected stderr: $stderr"
	slide=$(printf '0x%x' $(( addr - static )))
	assert_json_eq "$(jq -n --arg a "$addr" --arg s "$static" --arg exe "$T/mt-writer" '
		{type:"target", id:0, input:$a, runtime_addr:$a, static_addr:$s,
		 module:$exe, region:$exe, perms:"rw-p", len:8, access:"w",
		 slots:1, initial_value:"0x0", initial_bytes:"0000000000000000",
		 warnings:[]}')" "$(sed -n 2p <<< "$output")"
	run jq -r 'select(.type=="session") | [.schema_version, .pid, .pie, .pie_slide, .arch, .exe, .binary_match] | @tsv' <<< "$output"
	assert_output "$(printf '1\t%s\ttrue\t%s\tx86_64\t%s\tnot_checked' "$TPID" "$slide" "$T/mt-writer")"
}

@test "wp-resolve: session record carries start time, build-id and mappings" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" wpt_counter
	assert_success
	local st bid
	st=$(awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[20] }' "/proc/$TPID/stat")
	bid=$(readelf -n "$T/mt-writer" | awk '/Build ID/ { print $3 }')
	run jq -r 'select(.type=="session") | [.start_time, .exe_build_id] | @tsv' <<< "$output"
	assert_output "$(printf '%s\t%s' "$st" "$bid")"
	# every file-backed mapping of the process is listed with its
	# offset, and the vDSO
	local want got
	want=$(awk '$6 ~ /^\// || $6 == "[vdso]" { split($1, a, "-"); printf "0x%s %s 0x%s %s\n", a[1], $2, $3, $6 }' "/proc/$TPID/maps" | sed 's/0x0*\([0-9a-f]\)/0x\1/g')
	got=$(jq -r 'select(.type=="session") | .mappings[] | select(.path != null) | "\(.start) \(.perms) \(.offset) \(.path)"' <<< "$(wp-resolve -p "$TPID" wpt_counter)")
	assert_equal "$got" "$want"
	# the vDSO is a module, read from the process's memory
	run jq -c 'select(.type=="session") | .modules[] | select(.path == "[vdso]") | [.file, .kind, (.build_id | length > 0)]' <<< "$(wp-resolve -p "$TPID" wpt_counter)"
	assert_output '[null,"vdso",true]'
}

@test "wp-resolve: static:0xHEX is moved by the PIE slide" {
	start_target mt-writer
	local static
	static=$(static_of "$T/mt-writer" wpt_score)
	run --separate-stderr wp-resolve -p "$TPID" "static:$static"
	assert_success
	run jq -r 'select(.type=="target") | [.runtime_addr, .static_addr, .len, .initial_value] | @tsv' <<< "$output"
	assert_output "$(printf '%s\t%s\t4\t0x7' "$(tinfo score)" "$static")"
}

@test "wp-resolve: a symbol takes its size as the length; SYMBOL+OFF does not" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" wpt_small wpt_byte wpt_array+8
	assert_success
	run jq -r 'select(.type=="target") | "\(.input) \(.runtime_addr) \(.len)"' <<< "$output"
	assert_output "wpt_small $(tinfo small) 2
wpt_byte $(tinfo byte) 1
wpt_array+8 $(hexadd "$(tinfo array)" 8) 4"
}

@test "wp-resolve: non-PIE binary has slide 0 and static equals runtime" {
	start_target mt-writer-nopie
	run --separate-stderr wp-resolve -p "$TPID" wpt_counter "static:$(static_of "$T/mt-writer-nopie" wpt_score)"
	assert_success
	run jq -r '[.pie, .pie_slide, .runtime_addr, .static_addr] | map(tostring) | join(" ")' <<< "$output"
	assert_output "false 0x0 null null
null null $(tinfo counter) $(tinfo counter)
null null $(tinfo score) $(tinfo score)"
}

@test "wp-resolve: a shared-library symbol, plain and as MODULE:SYMBOL" {
	start_target shlib-writer
	local lib=$T/libwpt.so static
	static=$(static_of "$lib" wpt_lib_counter)
	run --separate-stderr wp-resolve -p "$TPID" libwpt:wpt_lib_counter
	assert_success
	run jq -r 'select(.type=="target") | [.runtime_addr, .static_addr, .module, .len] | @tsv' <<< "$output"
	assert_output "$(printf '%s\t%s\t%s\t8' "$(tinfo lib_counter)" "$static" "$(realpath "$lib")")"
	run --separate-stderr wp-resolve -p "$TPID" libwpt.so:wpt_lib_counter
	assert_success
	run --separate-stderr wp-resolve -p "$TPID" "$(tinfo lib_counter)"
	assert_success
	run jq -r 'select(.type=="target") | .static_addr' <<< "$output"
	assert_output "$static"
}

@test "wp-resolve: a program started through a link is named by the link too (redis-server:server)" {
	# Debian's redis-server is a link to redis-check-rdb: the same here
	ln -s "$T/mt-writer" "$BATS_TEST_TMPDIR/linked-writer"
	TOUT=$BATS_TEST_TMPDIR/linked.out
	"$BATS_TEST_TMPDIR/linked-writer" > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" pid 10
	run --separate-stderr wp-resolve -p "$TPID" linked-writer:wpt_counter mt-writer:wpt_score
	assert_success
	run jq -r 'select(.type=="target") | [.runtime_addr, .module] | @tsv' <<< "$output"
	assert_output "$(printf '%s\t%s\n' "$(head -n 1 "$TOUT" | jq -r .counter)" "$T/mt-writer" "$(head -n 1 "$TOUT" | jq -r .score)" "$T/mt-writer")"
	run --separate-stderr wp-resolve -p "$TPID" linked-writer:wpt_counter
	run jq -r 'select(.type=="session") | "\(.exe) \(.comm)"' <<< "$output"
	assert_output "$T/mt-writer linked-writer"
	# the report names the command, then the file
	run --separate-stderr wp-report <<< "$(wp-resolve -p "$TPID" linked-writer:wpt_counter)"
	assert_line --regexp "^process  pid $TPID  linked-writer \(mt-writer\)  start "
	# a name it was not started by is still no module
	run --separate-stderr wp-resolve -p "$TPID" other-writer:wpt_counter
	assert_failure
	assert_equal "$stderr" "wp-resolve: other-writer:wpt_counter: no module 'other-writer' is loaded"
}

@test "wp-resolve: a libc symbol by MODULE:SYMBOL" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" libc:program_invocation_name
	assert_success
	run jq -r 'select(.type=="target") | .module' <<< "$output"
	assert_output --regexp '/libc\.so\.6$'
}

@test "wp-resolve: --bin with the same build (unstripped for a stripped process)" {
	start_target mt-writer-stripped
	run --separate-stderr wp-resolve -p "$TPID" wpt_counter
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: wpt_counter: unknown symbol 'wpt_counter': $T/mt-writer-stripped is stripped (no symbol table); name it with --bin (an unstripped build), --debug-file, static:0xADDR or MODULE+0xOFF"
	run --separate-stderr wp-resolve -p "$TPID" --bin "$T/mt-writer" wpt_counter
	assert_success
	run jq -r 'select(.type=="session") | [.binary_match, .bin, .bin_build_id == .exe_build_id] | @tsv' <<< "$output"
	assert_output "$(printf 'match\t%s\ttrue' "$T/mt-writer")"
}

@test "wp-resolve --debug-file: a stripped process's static and global data by name, from the debug file's symbol table" {
	command -v objcopy > /dev/null || skip "no objcopy (binutils) to make a debug file"
	objcopy --only-keep-debug "$T/mt-writer" "$BATS_TEST_TMPDIR/mt-writer.debug"
	start_target mt-writer-stripped
	run --separate-stderr wp-resolve -p "$TPID" --debug-file "$BATS_TEST_TMPDIR/mt-writer.debug" nwrites wpt_counter
	assert_success
	want=$(nm "$T/mt-writer" | while read -r a t name; do
		case $name in nwrites | wpt_counter) printf '%s 0x%x\n' "$name" "$((16#$a))" ;; esac
	done | sort)
	run jq -r 'select(.type=="target") | "\(.input) \(.static_addr) \(.len)"' <<< "$output"
	assert_equal "$(awk '{ print $1, $2 }' <<< "$output" | sort)" "$want"
	assert_output --partial "nwrites $(awk '$1 == "nwrites" { print $2 }' <<< "$want") 8"
}

@test "wp-resolve: -a rw and -l are carried into the target record" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" -a rw -l 2 wpt_counter
	assert_success
	run jq -r 'select(.type=="target") | "\(.access) \(.len) \(.initial_bytes)"' <<< "$output"
	assert_output "rw 2 0000"
}

@test "wp-resolve: heap and stack addresses have no module or static address" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" "$(tinfo stack)"
	assert_success
	run jq -r 'select(.type=="target") | "\(.region) \(.module) \(.static_addr)"' <<< "$output"
	assert_output "[stack] null null"
}

@test "wp-resolve: --no-slot-limit allows any length and count" {
	start_target mt-writer
	run --separate-stderr wp-resolve -p "$TPID" --no-slot-limit -l 16 wpt_score wpt_array wpt_array+16 wpt_counter wpt_counter+16
	assert_success
	run jq -r 'select(.type=="session") | "\(.slot_limit) \(.limits)"' <<< "$output"
	assert_output "null none"
	run jq -sr 'map(select(.type=="target")) | "\(length) \(.[0].len) \(.[0].initial_value) \(.[0].initial_bytes | length)"' <<< "$(wp-resolve -p "$TPID" --no-slot-limit -l 32 wpt_array)"
	assert_output "1 32 null 64"
}

@test "wp-resolve: a symbol wider than 8 bytes is split over debug-register slots, never cut" {
	start_target mt-writer
	local a=$(tinfo array)
	run --separate-stderr wp-resolve -p "$TPID" wpt_array
	assert_success
	assert_equal "$stderr" "wp-resolve: wpt_array: 32 bytes, watched in 4 debug-register slots (wpt_array+0x0 to +0x18)"
	local out=$output
	run jq -r 'select(.type=="session") | "\(.slot_limit) \(.limits)"' <<< "$out"
	assert_output "4 debug_registers"
	run jq -r 'select(.type=="target") | "\(.id) \(.input) \(.runtime_addr) \(.len) \(.slots)"' <<< "$out"
	assert_output "0 wpt_array+0x0 $a 8 1
1 wpt_array+0x8 $(hexadd "$a" 8) 8 1
2 wpt_array+0x10 $(hexadd "$a" 16) 8 1
3 wpt_array+0x18 $(hexadd "$a" 24) 8 1"
	# the same with --backend bpf; -l 16 from an offset: 4 + 8 + 4
	run --separate-stderr wp-resolve -p "$TPID" --backend bpf -l 16 wpt_counter+4
	assert_success
	assert_equal "$stderr" "wp-resolve: wpt_counter+4: warning: 16 bytes at offset 0x4 reach past the end of wpt_counter (8 bytes)
wp-resolve: wpt_counter+4: 16 bytes, watched in 3 debug-register slots (wpt_counter+0x4 to +0x10)"
	run jq -r 'select(.type=="target") | "\(.input) \(.len)"' <<< "$output"
	assert_output "wpt_counter+0x4 4
wpt_counter+0x8 8
wpt_counter+0x10 4"
}

@test "wp-resolve: --backend ptrace or page watches a wide symbol whole, with no limits" {
	start_target mt-writer
	local b out
	for b in ptrace page; do
		run --separate-stderr wp-resolve -p "$TPID" --backend "$b" wpt_array wpt_counter wpt_score wpt_small wpt_byte
		assert_success
		assert_equal "$stderr" ""
		out=$output
		run jq -r 'select(.type=="session") | "\(.slot_limit) \(.limits)"' <<< "$out"
		assert_output "null none"
		run jq -r 'select(.type=="target") | "\(.input) \(.len)"' <<< "$out"
		assert_output "wpt_array 32
wpt_counter 8
wpt_score 4
wpt_small 2
wpt_byte 1"
	done
}

@test "wp-resolve: --backend auto lets targets the slots cannot hold through, and records that only page or ptrace can watch them" {
	start_target mt-writer
	local w="5 hardware slots requested (2 addresses, 0 follow chains): x86-64 has 4 (DR0..DR3): only the page or ptrace backend can watch these targets"
	run --separate-stderr wp-resolve -p "$TPID" wpt_array wpt_counter
	assert_success
	assert_equal "$stderr" ""
	local out=$output
	run jq -c 'select(.type=="session") | [.slot_limit, .limits, .warnings]' <<< "$out"
	assert_output "$(jq -nc --arg w "$w" '[null, "none", [$w]]')"
	run jq -r 'select(.type=="target") | "\(.input) \(.len)"' <<< "$out"
	assert_output "wpt_array 32
wpt_counter 8"
	# a value no single register holds is not split (a store to it
	# would count in two slots)
	local a
	a=$(hexadd "$(tinfo counter)" 2)
	run --separate-stderr wp-resolve -p "$TPID" --backend auto "$a"
	assert_success
	assert_equal "$stderr" ""
	out=$output
	run jq -r 'select(.type=="session") | .warnings[0]' <<< "$out"
	assert_output "$a: 4 bytes at $a fit no debug register (1, 2, 4 or 8 bytes, aligned to their length): only the page or ptrace backend can watch these targets"
	run jq -r 'select(.type=="target") | "\(.input) \(.len)"' <<< "$out"
	assert_output "$a 4"
}

@test "wp-resolve: --help prints the usage line and exits 0" {
	run --separate-stderr wp-resolve --help
	assert_success
	assert_line --index 0 --partial "usage: wp-resolve -p pid"
}

@test "wp-resolve: a thread-local variable is refused without --tid, and is that thread's copy with it" {
	start_target tls-writer -t 2
	run --separate-stderr wp-resolve -p "$TPID" wpt_tls
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: wpt_tls: 'wpt_tls' is thread-local (each thread has its own copy): give --tid TID to watch one thread's"
	local th tid want
	for th in 0 1; do
		tid=$(tinfo "threads[$th].tid")
		want="$(tinfo "threads[$th].tls") 8
$(tinfo "threads[$th].errno") 4"
		# the program's own, and libc's errno
		run --separate-stderr wp-resolve -p "$TPID" --tid "$tid" wpt_tls libc.so.6:errno
		assert_success
		run jq -r 'select(.type=="target") | "\(.runtime_addr) \(.len)"' <<< "$output"
		assert_output "$want"
	done
	run --separate-stderr wp-resolve -p "$TPID" --tid 999999999 wpt_tls
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: wpt_tls: --tid 999999999: no such thread of pid $TPID"
}

@test "wp-resolve --tid where no address is thread-local: one warning line, the target as without it" {
	start_target tls-writer -t 2
	local tid
	tid=$(tinfo "threads[0].tid")
	run --separate-stderr wp-resolve -p "$TPID" --tid "$tid" n
	assert_success
	assert_equal "$stderr" "wp-resolve: --tid $tid: no addr is thread-local: every thread's writes are watched"
	assert_equal "$(jq -c 'select(.type=="target") | [.input, .len, .initial_value]' <<< "$output")" '["n",8,"0xa"]'
	run --separate-stderr wp-resolve -p "$TPID" --tid 999999999 n
	assert_success
	assert_equal "$stderr" "wp-resolve: --tid 999999999: no such thread of pid $TPID, and no addr is thread-local: ignored"
	# a thread-local one among them: no warning
	run --separate-stderr wp-resolve -p "$TPID" --tid "$tid" n wpt_tls
	assert_success
	assert_equal "$stderr" ""
}

@test "wp-resolve --tid: a thread-local variable of a dlopen'd module; refused for a thread that has no copy yet" {
	# dl-tls loads libwptls.so after a module with TLS it then unloads:
	# the library's TLS id is not its place among the modules with TLS
	start_target dl-tls
	local a b lib
	a=$(tinfo touched.tid)
	b=$(tinfo untouched.tid)
	lib=$(tinfo lib)
	for form in wpt_dtls libwptls.so:wpt_dtls; do
		run --separate-stderr wp-resolve -p "$TPID" --tid "$a" "$form"
		assert_success
		run jq -r 'select(.type=="target") | "\(.runtime_addr) \(.len)"' <<< "$output"
		assert_output "$(tinfo touched.dtls) 8"
	done
	# glibc makes a thread's copy at its first use: none to watch before
	for tid in "$b" "$TPID"; do
		run --separate-stderr wp-resolve -p "$TPID" --tid "$tid" wpt_dtls
		assert_failure 1
		assert_equal "$stderr" "wp-resolve: wpt_dtls: thread $tid has no copy of the thread-local variables of $lib yet (glibc makes it at the thread's first use of one)"
	done
}

@test "wp-resolve --tid: a dlopen'd module in static TLS: every thread has its copy from the start" {
	start_target dl-tls -i
	local b want
	b=$(tinfo untouched.tid)
	run --separate-stderr wp-resolve -p "$TPID" --tid "$(tinfo touched.tid)" wpt_dtls
	assert_success
	assert_equal "$(jq -r 'select(.type=="target") | .runtime_addr' <<< "$output")" "$(tinfo touched.dtls)"
	run --separate-stderr wp-resolve -p "$TPID" --tid "$b" wpt_dtls
	assert_success
	want=$(jq -r 'select(.type=="target") | .runtime_addr' <<< "$output")
	# where the thread then finds its copy
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 30
	assert_equal "$(awk '$1 == "untouched" { print $2 }' "$TOUT")" "$want"
}

@test "wp-resolve: MODULE+0xOFF and MODULE:0xOFF are static addresses of any module" {
	start_target shlib-writer
	local lib base off want
	run --separate-stderr wp-resolve -p "$TPID" libwpt.so:wpt_lib_counter
	assert_success
	want=$(jq -r 'select(.type=="target") | .runtime_addr' <<< "$output")
	off=$(static_of "$T/libwpt.so" wpt_lib_counter)
	for form in "libwpt.so+$off" "libwpt.so:$off" "libwpt+$off"; do
		run --separate-stderr wp-resolve -p "$TPID" -l 8 "$form"
		assert_success
		assert_equal "$(jq -r 'select(.type=="target") | "\(.runtime_addr) \(.module | split("/") | last) \(.static_addr)"' <<< "$output")" \
			"$want libwpt.so $off"
	done
	# the main program by its name, which has a '-'
	off=$(static_of "$T/shlib-writer" main)
	run --separate-stderr wp-resolve -p "$TPID" -l 1 "shlib-writer+$off"
	assert_success
	run --separate-stderr wp-resolve -p "$TPID" "libwpt.so:0x7fffffff0"
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: libwpt.so:0x7fffffff0: static address 0x7fffffff0 is in no loadable segment of $(readlink -f "$T/libwpt.so")"
	run --separate-stderr wp-resolve -p "$TPID" "nosuchlib+0x10"
	assert_failure 1
	assert_equal "$stderr" "wp-resolve: nosuchlib+0x10: unknown symbol 'nosuchlib' (not in $(readlink -f "$T/shlib-writer") or its shared objects)"
}
