#!/usr/bin/env bats
# The record contract (wp-records(7), share/wp-records.schema.json): one
# parser decides what a record is, and every stage agrees with it.  A
# record outside the contract is a malformed line (status 2), named;
# never an abort, a cut line or a report that claims to be complete.

load helpers

SESSION='{"type":"session","schema_version":1,"pid":1,"start_time":1}'
OBSERVATION='{"type":"observation","stop_reason":"duration","targets":[],"follows":[]}'

# report LINE...: wp-report --json of a session, the lines, an observation
report() {
	printf '%s\n' "$SESSION" "$@" "$OBSERVATION" > "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-report --json "$BATS_TEST_TMPDIR/in.ndjson"
}

@test "records: a member of the wrong type is a malformed line, named, never an abort" {
	report '{"type":"session","schema_version":1,"warnings":"x"}'
	assert_failure 2
	assert_equal "$stderr" "wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 2: session.warnings is not an array"
	assert_equal "$(jq .stream.malformed_lines <<< "$output")" 1
	for bad in '"targets":5' '"follows":{}' '"targets":[{"id":"0"}]' '"lost_events":{"total":"many"}'; do
		printf '%s\n' "$SESSION" "{\"type\":\"observation\",$bad}" > "$BATS_TEST_TMPDIR/in.ndjson"
		run --separate-stderr wp-report --json "$BATS_TEST_TMPDIR/in.ndjson"
		assert_failure 3
		assert_regex "$(head -n 1 <<< "$stderr")" "line 2: observation\.[a-z_.0-9]+(\[0\]\.[a-z]+)? is not (an )?[a-z]+$"
		jq -e . <<< "$output" > /dev/null
	done
	report '{"type":"hit","target":"0","pid":1,"tid":1,"cpu":0,"time_ns":1,"ip":"0x10"}' \
		'{"type":"hit","target":0,"pid":1,"tid":1,"cpu":0,"time_ns":1,"ip":"16"}'
	assert_failure 2
	assert_equal "$stderr" "wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 2: hit.target is not integer
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 3: hit.ip is not hex"
	# the same record is refused the same way by every stage
	printf '%s\n' "$SESSION" '{"type":"target","id":0,"runtime_addr":"0x1000","len":"4"}' > "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 2: target.len is not integer"
	run --separate-stderr wp-arm < "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 1
	assert_line --index 0 "$SESSION"
	assert_equal "${lines[0]}" "$SESSION"
	assert_equal "$(head -n 1 <<< "$stderr")" "wp-arm: stdin: line 2: target.len is not integer"
}

@test "records: schema_version must be the one this wp reads" {
	for v in 2 0 '"1"' null; do
		printf '%s\n' "{\"type\":\"session\",\"schema_version\":$v,\"pid\":1}" "$OBSERVATION" > "$BATS_TEST_TMPDIR/in.ndjson"
		run --separate-stderr wp-report --json "$BATS_TEST_TMPDIR/in.ndjson"
		assert_failure 2
		assert_equal "$stderr" "wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 1: session record: schema_version $v: this wp reads 1"
	done
	printf '%s\n' '{"type":"session","pid":1}' > "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 1: session record: schema_version absent: this wp reads 1"
}

@test "records: invalid UTF-8 and duplicate member names are malformed; the report stays valid JSON" {
	report "$(printf '{"type":"x","s":"caf\xc3"}')" "$(printf '{"type":"x","s":"\xed\xa0\x80"}')" \
		'{"type":"x","a":1,"a":2}' '{"type":"x","s":"\ud800"}'
	assert_failure 2
	assert_equal "$stderr" "wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 2: invalid JSON at byte 21: invalid UTF-8 in a string
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 3: invalid JSON at byte 18: invalid UTF-8 in a string
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 4: invalid JSON at byte 19: duplicate member name
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 5: invalid JSON at byte 23: bad \\u escape"
	jq -e . <<< "$output" > /dev/null
	assert_equal "$(jq .stream.malformed_lines <<< "$output")" 4
}

@test "records: long types, escaped types, many members and deep nesting are records" {
	long=$(printf 't%.0s' $(seq 200))
	deep=1
	for _ in $(seq 63); do deep="[$deep]"; done
	members=$(for i in $(seq 100); do printf '"k%d":%d,' "$i" "$i"; done)
	report "{\"type\":\"$long\"}" '{"type":"\u0073ession","schema_version":1}' \
		"{${members}\"type\":\"many\"}" "{\"type\":\"deep\",\"v\":$deep}"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '[.stream.malformed_lines, .stream.other_records, .complete]' <<< "$output")" '[0,3,true]'
	# one level more is too deep, and says so
	report "{\"type\":\"deeper\",\"v\":[$deep]}"
	assert_failure 2
	assert_equal "$stderr" "wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 2: invalid JSON at byte 85: nested too deep"
	# the reader and wp-decode pass them on byte for byte
	report "{\"type\":\"$long\"}" "{${members}\"type\":\"many\"}" "{\"type\":\"deep\",\"v\":$deep}"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/in.ndjson")"
}

@test "records: a target record's length out of range is named, not a failed allocation" {
	for len in -4 0 99999999999 1048577; do
		printf '%s\n' "$SESSION" "{\"type\":\"target\",\"id\":0,\"runtime_addr\":\"0x1000\",\"len\":$len}" > "$BATS_TEST_TMPDIR/in.ndjson"
		run --separate-stderr wp-arm < "$BATS_TEST_TMPDIR/in.ndjson"
		assert_failure 1
		assert_equal "$(head -n 1 <<< "$stderr")" "wp-arm: stdin: line 2: target record 0: \"len\" must be 1 to 1048576"
		assert_equal "$(tail -n 1 <<< "$output" | jq -r .stop_reason)" error
	done
}

@test "wp-decode: no fixed buffer cuts a record: long values and long names" {
	path=/$(printf 'd%.0s' $(seq 1500))/game
	bytes=$(printf '%02x' $(seq 0 255) $(seq 0 255) $(seq 0 255) $(seq 0 255))
	printf '%s\n' \
		"{\"type\":\"session\",\"schema_version\":1,\"pid\":1,\"start_time\":1,\"modules\":[{\"path\":\"$path\",\"file\":\"$path\",\"build_id\":null,\"load_bias\":\"0x400000\",\"kind\":\"dyn\",\"main\":true}],\"mappings\":[{\"start\":\"0x400000\",\"end\":\"0x401000\",\"perms\":\"r-xp\",\"offset\":\"0x0\",\"path\":\"$path\",\"load_bias\":\"0x400000\"}]}" \
		'{"type":"target","id":0,"input":"buf","runtime_addr":"0x600000","static_addr":null,"module":null,"region":"[heap]","perms":"rw-p","len":1024,"access":"w","slots":1,"initial_value":null,"initial_bytes":null,"warnings":[]}' \
		"{\"type\":\"hit\",\"target\":0,\"pid\":1,\"tid\":1,\"cpu\":0,\"time_ns\":1,\"ip\":\"0x400010\",\"new_bytes\":\"$bytes\"}" \
		> "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	hit=$(tail -n 1 <<< "$output")
	assert_equal "$(jq -r .new_bytes <<< "$hit")" "$bytes"
	assert_equal "$(jq -r .writer.trap_module <<< "$hit")" "$path"
	assert_contract <(tail -n 1 <<< "$output")
}

@test "records: site and access records are in the contract; an access names a site before it" {
	site='{"type":"site","id":0,"input":"walk+0x1c","runtime_addr":"0x401136","static_addr":"0x401136","module":"/t/insn","region":"/t/insn","perms":"r-xp","file_offset":"0x1136","insn":"mov dword ptr [rax + rdx*4], ecx","insn_len":3,"access":"w","operand":{"writes":true,"reads":false,"width":4,"segment":null,"base":"rax","index":"rdx","scale":4,"disp":"0x0","rip_relative":false,"addr_bytes":8},"warnings":[]}'
	access='{"type":"access","site":0,"addr":"0x4c6010","tid":7,"writes":3,"reads":0,"time_ns":5}'
	printf '%s\n' "$SESSION" "$site" "$access" > "$BATS_TEST_TMPDIR/in.ndjson"
	assert_contract <(tail -n 2 "$BATS_TEST_TMPDIR/in.ndjson")
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/in.ndjson")"
	# an access of no site, and one whose writes are not a count
	printf '%s\n' "$SESSION" "$access" "${site/\"scale\":4/\"scale\":\"4\"}" \
		"${access/\"writes\":3/\"writes\":\"3\"}" > "$BATS_TEST_TMPDIR/in.ndjson"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 2: access.site 0: no site record of that id before it
wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 3: site.operand.scale is not integer
wp-decode: $BATS_TEST_TMPDIR/in.ndjson: line 4: access.writes is not integer"
}

@test "records: the session names the target's machine, as uname -m; arch says the same" {
	start_target stores
	run --separate-stderr wp-resolve -p "$TPID" -l 8 "$(tinfo buf)"
	assert_success
	run jq -r 'select(.type=="session") | "\(.machine) \(.arch)"' <<< "$output"
	assert_output "$(uname -m) $(uname -m)"
	# a hit's registers may be AArch64's, in the session of that machine
	printf '%s\n' '{"type":"session","schema_version":1,"pid":1,"start_time":1,"machine":"aarch64"}' \
		'{"type":"target","id":0,"runtime_addr":"0x1000","len":4}' \
		'{"type":"hit","target":0,"pid":1,"tid":1,"cpu":0,"time_ns":1,"ip":"0x400154","regs":{"x0":"0x3e8","x30":"0x4001f8","sp":"0x7ffffff0","pc":"0x400154","pstate":"0x60000000"}}' \
		> "$BATS_TEST_TMPDIR/in.ndjson"
	assert_contract <(tail -n 1 "$BATS_TEST_TMPDIR/in.ndjson")
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_contract <(tail -n 1 <<< "$output")
	run jq -r 'select(.type=="hit") | .writer.reason' <<< "$output"
	assert_output "trap IP is in no mapping of the session"
}
