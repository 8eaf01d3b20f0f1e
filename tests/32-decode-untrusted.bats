#!/usr/bin/env bats
# wp-decode on a stream that may have been crafted: a stream is data, not
# an instruction.  It reads no process's memory unless asked (--live),
# and then only the session's own process, as its caller could trace it;
# it opens no path a stream names but regular ELF files of the recorded
# build, and tells no reason apart; and it finds a moved module by its
# build-id where the user says (--module-dir, --bin).

load helpers

# trap_after FILE FUNC N: the static address after FUNC's Nth instruction.
trap_after() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" -v n="$3" '
		$2 == f { g = 1; next }
		g && NF == 0 { next }
		g && i++ == n { a = $1; sub(/:$/, "", a); print "0x" a; exit }'
}

# jit_stream: the session of a jit target and a hit after its store, in
# $S; the target keeps running.
jit_stream() {
	start_target jit
	S=$BATS_TEST_TMPDIR/jit.ndjson
	wp-resolve -p "$TPID" wpt_jit_var > "$S"
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"$(printf '0x%x' $(( $(tinfo code) + 2 )))\",\"regs\":{\"rdi\":\"$(tinfo var)\",\"rsi\":\"0x2a\"}}" >> "$S"
}

# anon_writer FILE [OPTIONS]: "insn confidence reason" of the hit.
anon_writer() {
	local f=$1
	shift
	run --separate-stderr wp-decode "$@" "$f"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.insn) \(.writer.confidence) \(.writer.reason)"' <<< "$output"
}

@test "wp-decode: a saved stream's process memory is read only with --live, and only the session's own process" {
	jit_stream
	# the live pipeline's own: the code in anonymous memory is read
	anon_writer "$S" --live
	assert_output "mov dword ptr [rdi], esi high null"
	# without --live nothing is read, whatever the stream names
	anon_writer "$S"
	assert_output "null unknown not read: the stream is not live (--live)"
	run wp-decode "$S"
	refute_output --partial "mov"
	# with --live, a stream naming the process with another start time,
	# or another program than the one it runs, reads nothing
	jq -c 'if .type == "session" then .start_time += 1 else . end' "$S" > "$BATS_TEST_TMPDIR/other-start.ndjson"
	anon_writer "$BATS_TEST_TMPDIR/other-start.ndjson" --live
	assert_output "null unknown no code bytes: anonymous memory of a process that is gone"
	jq -c 'if .type == "session" then .exe = "/usr/bin/passwd" else . end' "$S" > "$BATS_TEST_TMPDIR/other-exe.ndjson"
	anon_writer "$BATS_TEST_TMPDIR/other-exe.ndjson" --live
	assert_output "null unknown not read: the process runs another program than the session's"
	jq -c 'if .type == "session" then .exe_build_id = "00ff" else . end' "$S" > "$BATS_TEST_TMPDIR/other-id.ndjson"
	anon_writer "$BATS_TEST_TMPDIR/other-id.ndjson" --live
	assert_output "null unknown not read: the process runs another program than the session's"
}

@test "wp watch reads a JIT's code from the process (wp-decode --live); wp report of the saved stream does not" {
	start_target jit -w
	local save=$BATS_TEST_TMPDIR/raw.ndjson
	wp watch --json --save "$save" -d 3s "$TPID" wpt_jit_var > "$BATS_TEST_TMPDIR/report.json" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$!
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	kill -USR1 "$TPID"
	wait "$w"
	run jq -r '.watches[0].writer_sites[] | "\(.hits) \(.insn) \(.reason)"' "$BATS_TEST_TMPDIR/report.json"
	assert_output --regexp '^1 mov dword ptr \[rdi\], esi null$'
	run --separate-stderr wp report --json "$save"
	assert_success
	run jq -r '.watches[0].writer_sites[] | "\(.hits) \(.insn) \(.reason)"' <<< "$output"
	assert_output "1 null not read: the stream is not live (--live)"
}

@test "wp-decode --live: another user's process is not read, though the stream names it exactly" {
	[ "$(id -u)" -eq 0 ] || skip "needs root, to run a target as one user and wp-decode as another"
	setpriv --reuid=nobody --regid=nogroup --clear-groups wp-decode --version > /dev/null 2>&1 ||
		skip "nobody cannot run $WP_BUILD/wp-decode"
	jit_stream
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups wp-decode --live < "$S"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.insn) \(.writer.confidence) \(.writer.reason)"' <<< "$output"
	assert_output "null unknown not read: the process may not be traced by this user"
}

@test "wp-decode: a stream's module paths open only regular ELF files of the recorded build, with one message for every other" {
	start_target stores
	S=$BATS_TEST_TMPDIR/in.ndjson
	wp-resolve -p "$TPID" -l 8 "$(tinfo buf)" > "$S"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$S")
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":0,\"ip\":\"$(printf '0x%x' $(( SLIDE + $(trap_after "$T/stores" st_reg4 1) )))\"}" >> "$S"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	ln -s /dev/zero "$BATS_TEST_TMPDIR/zero-link"
	echo 'not ELF' > "$BATS_TEST_TMPDIR/text"
	local f paths=(/dev/zero "$BATS_TEST_TMPDIR/fifo" /etc/shadow /proc/self/mem /proc/kcore
		"$BATS_TEST_TMPDIR/zero-link" "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/text"
		"$BATS_TEST_TMPDIR/missing" "$T/jit")
	for f in "${paths[@]}"; do
		jq -c --arg f "$f" 'if .type == "session" then .modules[0].file = $f else . end' "$S" > "$BATS_TEST_TMPDIR/planted.ndjson"
		# a blocking open of the FIFO would wait for a writer forever;
		# LeakSanitizer (make asan-check) cannot run under strace
		run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			timeout 20 strace -f -qq -e trace=open,openat -o "$BATS_TEST_TMPDIR/trace" \
			wp-decode "$BATS_TEST_TMPDIR/planted.ndjson"
		assert_success
		assert_equal "$stderr" "wp-decode: $f: not usable as recorded (give it with --module-dir or --bin); its writers are unknown"
		run jq -r 'select(.type=="hit") | "\(.writer.confidence) \(.writer.reason)"' <<< "$output"
		assert_output "unknown module file missing or changed"
		# nothing that is not a file on disk was opened
		run grep -E '"(/dev/zero|[^"]*/fifo|/proc/(self|[0-9]+)/mem|/proc/kcore)"' "$BATS_TEST_TMPDIR/trace"
		refute_output --regexp '= [0-9]+$'
	done
}

# moved_stores: stores run from $A, its stream with a hit after st_reg4's
# store in $S, then the binary moved to $B/elsewhere.
moved_stores() {
	A=$BATS_TEST_TMPDIR/a
	B=$BATS_TEST_TMPDIR/b
	mkdir -p "$A" "$B"
	cp "$T/stores" "$A/stores"
	TOUT=$BATS_TEST_TMPDIR/stores.out
	"$A/stores" > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" pid 10
	TINFO=$(head -n 1 "$TOUT")
	S=$BATS_TEST_TMPDIR/saved.ndjson
	wp-resolve -p "$TPID" -l 8 "$(tinfo buf)" > "$S"
	SLIDE=$(jq -r 'select(.type=="session") | .pie_slide' "$S")
	echo "{\"type\":\"hit\",\"target\":0,\"pid\":$TPID,\"tid\":$TPID,\"cpu\":0,\"time_ns\":0,\"ip\":\"$(printf '0x%x' $(( SLIDE + $(trap_after "$T/stores" st_reg4 1) )))\",\"regs\":{\"rdi\":\"0x2a\"}}" >> "$S"
	stop_targets
	mv "$A/stores" "$B/elsewhere"
}

@test "wp-decode: a module moved since the stream was saved is found by build-id with --module-dir or --bin" {
	moved_stores
	run --separate-stderr wp-decode "$S"
	assert_success
	assert_equal "$stderr" "wp-decode: $A/stores: not usable as recorded (give it with --module-dir or --bin); its writers are unknown"
	# its debug file, of the same build-id, is not taken for its code
	objcopy --only-keep-debug "$T/stores" "$B/stores.debug"
	local opt
	for opt in "--module-dir $B" "--bin $B/elsewhere"; do
		run --separate-stderr wp-decode $opt "$S"
		assert_success
		assert_equal "$stderr" ""
		run jq -r 'select(.type=="hit") | "\(.writer.symbol) \(.writer.confidence) \(.written_value.value)"' <<< "$output"
		assert_output "st_reg4+0x0 high 0x2a"
	done
	# a file of another build in the directory is not taken for it
	rm "$B/elsewhere" "$B/stores.debug"
	cp "$T/jit" "$B/stores"
	run --separate-stderr wp-decode --module-dir "$B" "$S"
	assert_equal "$stderr" "wp-decode: $A/stores: not usable as recorded (give it with --module-dir or --bin); its writers are unknown"
	run --separate-stderr wp-decode --bin /dev/zero "$S"
	assert_failure 64
	assert_equal "$stderr" "wp-decode: --bin /dev/zero: not a regular file"
}

@test "wp report --module-dir: a saved stream reported after its binary moved; debug files are found there too" {
	moved_stores
	echo '{"type":"observation","reason":"duration","hits":1}' >> "$S"
	run --separate-stderr wp report --json --module-dir "$B" "$S"
	assert_equal "$stderr" ""
	assert_equal "$(jq -r '.watches[0].writer_sites[0].writer_symbol' <<< "$output")" "st_reg4+0x0"
	run --separate-stderr wp report --json --bin "$B/elsewhere" "$S"
	assert_equal "$(jq -r '.watches[0].writer_sites[0].writer_symbol' <<< "$output")" "st_reg4+0x0"
	# a stripped copy: its names come from its debug file, found in the
	# module directory's build-id tree
	strip --strip-all -o "$B/stripped" "$B/elsewhere"
	rm "$B/elsewhere"
	run --separate-stderr wp-decode --module-dir "$B" "$S"
	run jq -r 'select(.type=="hit") | .writer.symbol' <<< "$output"
	assert_output null
	local id
	id=$(readelf -n "$B/stripped" | awk '/Build ID/ { print $3 }')
	mkdir -p "$B/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$T/stores" "$B/.build-id/${id:0:2}/${id:2}.debug"
	run --separate-stderr wp-decode --module-dir "$B" "$S"
	assert_success
	run jq -r 'select(.type=="hit") | .writer.symbol' <<< "$output"
	assert_output "st_reg4+0x0"
}
