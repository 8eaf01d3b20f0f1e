#!/usr/bin/env bats
# The record reader every filter shares: strict JSON, one object per
# line, bad lines named and skipped, everything else passed on verbatim.

load helpers

@test "records: malformed JSON of every kind is named by line and byte; valid lines pass verbatim" {
	cat > "$BATS_TEST_TMPDIR/in.ndjson" <<'IN'
{"type":"a","s":"tab\tok \u00e9 \"q\" \\","n":-1.5e+3,"z":0,"t":true,"f":false,"x":null,"l":[1,[2,{}]],"o":{"k":{}}}
{"type":"b","n":01}
{"type":"b","s":"ctl	char"}
{"type":"b","s":"bad \x escape"}
{"type":"b","l":[1,2,]}
{"type":"b",}
{"type":"b" "n":1}
{"type":"b","n":1.}
{"type":"b","s":"\u12G4"}
{"type":"b","v":tru}

   
{"type":7}
{"type":"b"}{"type":"c"}
{  "type" : "spaced" , "k" : [ ]  }
IN
	run --separate-stderr wp-report --json "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 3
	assert_equal "$stderr" "wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 2: invalid JSON at byte 18: expected ',' or '}'
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 3: invalid JSON at byte 21: control character in a string
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 4: invalid JSON at byte 23: bad escape in a string
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 5: invalid JSON at byte 22: expected a value
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 6: invalid JSON at byte 13: expected a quoted member name
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 7: invalid JSON at byte 13: expected ',' or '}'
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 8: invalid JSON at byte 19: bad number
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 9: invalid JSON at byte 19: bad \\u escape
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 10: invalid JSON at byte 17: expected a value
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 11: empty line
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 12: empty line
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 13: no \"type\" string field
wp-report: $BATS_TEST_TMPDIR/in.ndjson: line 14: text after the JSON object
wp-report: $BATS_TEST_TMPDIR/in.ndjson: the stream ended without an observation record; the report is incomplete"
	assert_equal "$(jq .stream.malformed_lines <<< "$output")" 13
	# wp-decode passes the valid lines on byte for byte
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure 2
	assert_equal "$output" "$(sed -n '1p;15p' "$BATS_TEST_TMPDIR/in.ndjson")"
}

@test "records: a stream that cannot be read (a directory) is status 1, as the man pages say, the file named; the report still written" {
	local dir=$BATS_TEST_TMPDIR/adir
	mkdir "$dir"
	run --separate-stderr wp-decode "$dir"
	assert_failure 1
	assert_equal "$stderr" "wp-decode: $dir: read: Is a directory"
	assert_equal "$output" ""
	run --separate-stderr wp-report "$dir"
	assert_failure 1
	assert_equal "$stderr" "wp-report: $dir: read: Is a directory
wp-report: $dir: the stream ended without an observation record; the report is incomplete"
	assert_line --partial "INCOMPLETE"
	run --separate-stderr wp-report "$dir" --json
	assert_failure 1
	assert_equal "$(jq -r .complete <<< "$output")" false
}

@test "records: a 64-bit value above 2^63 in hex survives the pipeline" {
	printf '%s\n' '{"type":"session","schema_version":1,"pid":1,"start_time":1,"modules":[],"mappings":[]}' \
		'{"type":"target","id":0,"input":"x","runtime_addr":"0xffffffffffff0000","len":8,"initial_value":"0xfedcba9876543210"}' \
		'{"type":"observation","stop_reason":"duration","targets":[{"id":0,"hits":0,"latest_value":"0xffffffffffffffff"}]}' \
		> "$BATS_TEST_TMPDIR/in.ndjson"
	run wp-report --json "$BATS_TEST_TMPDIR/in.ndjson"
	assert_success
	assert_equal "$(jq -r '.watches[0] | "\(.runtime_addr) \(.initial_value) \(.latest_value)"' <<< "$output")" \
		"0xffffffffffff0000 0xfedcba9876543210 0xffffffffffffffff"
}

@test "make install puts the tools, man pages and license under DESTDIR/PREFIX" {
	run make -C "$BATS_TEST_DIRNAME/.." O="$WP_BUILD" install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/wp
	assert_success
	for f in bin/wp bin/wp-resolve bin/wp-arm bin/wp-decode bin/wp-report \
	    share/man/man1/wp.1 share/man/man1/wp-arm.1 share/man/man7/wp-records.7 \
	    share/doc/wp/LICENSE share/doc/wp/README.md; do
		[ -e "$BATS_TEST_TMPDIR/root/opt/wp/$f" ] || fail "$f not installed"
	done
	grep -q "either version 2 of the License, or" "$BATS_TEST_TMPDIR/root/opt/wp/share/doc/wp/LICENSE"
	run "$BATS_TEST_TMPDIR/root/opt/wp/bin/wp" report "$DATA/report-basic.in.ndjson"
	assert_success
	assert_line --index 0 --partial "process  pid 4242  game"
}

@test "records: a line of 200,000 members is read in linear time, a repeated name found past the first 32" {
	local f=$BATS_TEST_TMPDIR/big.ndjson d=$BATS_TEST_TMPDIR/dup.ndjson
	awk 'BEGIN { printf "{\"type\":\"x\""; for (i = 0; i < 200000; i++) printf ",\"k%d\":%d", i, i; print "}" }' > "$f"
	# the last name repeats the 2000th, spelled with an escape
	awk 'BEGIN { printf "{\"type\":\"x\""; for (i = 0; i < 200000; i++) printf ",\"k%d\":%d", i, i; print ",\"k\\u0031999\":0}" }' > "$d"
	# quadratic, each took 50 s and more
	run --separate-stderr timeout 10 wp-decode "$f"
	assert_success
	assert_equal "$output" "$(cat "$f")"
	run --separate-stderr timeout 10 wp-report --json "$f"
	assert_failure 3
	assert_equal "$(jq -r '.stream | "\(.records) \(.other_records) \(.malformed_lines)"' <<< "$output")" "1 1 0"
	run --separate-stderr timeout 10 wp-decode "$d"
	assert_failure 2
	assert_equal "$output" ""
	assert_equal "$stderr" "wp-decode: $d: line 1: invalid JSON at byte $(( $(wc -c < "$d") - 15 )): duplicate member name"
	run --separate-stderr timeout 10 wp-report --json "$d"
	assert_failure 3	# no observation either
	assert_equal "${stderr%%$'\n'*}" "wp-report: $d: line 1: invalid JSON at byte $(( $(wc -c < "$d") - 15 )): duplicate member name"
	assert_equal "$(jq -r .stream.malformed_lines <<< "$output")" 1
	# escapes and plain names are the same name, before 32 names and after
	printf '%s\n' '{"type":"x","a\u0062":1,"ab":2}' \
		"$(awk 'BEGIN { printf "{\"type\":\"x\""; for (i = 0; i < 40; i++) printf ",\"k%d\":%d", i, i; print ",\"k\\u0033\":0,\"k3\\u0030\":0}" }')" \
		"$(awk 'BEGIN { printf "{\"type\":\"x\""; for (i = 0; i < 40; i++) printf ",\"k%d\":%d", i, i; print ",\"k\\u0033x\":0}" }')" > "$BATS_TEST_TMPDIR/esc.ndjson"
	run --separate-stderr wp-decode "$BATS_TEST_TMPDIR/esc.ndjson"
	assert_failure 2
	assert_equal "$stderr" "wp-decode: $BATS_TEST_TMPDIR/esc.ndjson: line 1: invalid JSON at byte 25: duplicate member name
wp-decode: $BATS_TEST_TMPDIR/esc.ndjson: line 2: invalid JSON at byte 353: duplicate member name"
	assert_equal "$output" "$(sed -n 3p "$BATS_TEST_TMPDIR/esc.ndjson")"
}
