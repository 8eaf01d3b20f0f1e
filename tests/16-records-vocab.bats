#!/usr/bin/env bats
# The contract's vocabularies (hit flags, roles, writer kinds,
# confidence words, value kinds, thread events, stop and lost reasons)
# have one table each in lib/vocab.c, and share/wp-records.schema.json
# lists the same words as its "enum"s.

load helpers

TOP=$BATS_TEST_DIRNAME/..

# schema_words: "MEMBER WORD" for each word of each enum of the schema
schema_words() {
	jq -r '
	def specs($spec; $path):
	  if ($spec | type) != "object" then empty
	  elif $spec | has("enum") then
	    $spec.enum[] | select(. != null) | "\($path) \(.)"
	  elif $spec.array then specs($spec.array; $path)
	  elif $spec.map then specs($spec.map; $path)
	  elif $spec.oneof then $spec.oneof[] as $o | specs($o; $path)
	  elif $spec.object then
	    ($spec.object.required // {}) + ($spec.object.optional // {})
	    | to_entries[] | specs(.value; "\($path).\(.key)")
	  else empty end;
	(.types, .objects) | to_entries[] | specs({object: .value}; .key)
	' "$TOP/share/wp-records.schema.json" | sort
}

@test "vocabularies: the schema's enums and lib/vocab.c's tables hold the same words" {
	[ -x "$WP_BUILD/progs/vocab-words" ] || skip "no $WP_BUILD/progs/vocab-words (make first)"
	run --separate-stderr "$WP_BUILD/progs/vocab-words"
	assert_success
	c_words=$(sort <<< "$output")
	s_words=$(schema_words)
	# each table is there, and no enum of the schema lacks its table
	assert_equal "$(grep -c '^hit.flags ' <<< "$c_words")" 6
	assert_equal "$(grep -c '^\$writer.confidence ' <<< "$c_words")" 5
	assert_equal "$(grep -c '^observation.stop_reason ' <<< "$c_words")" 8
	assert_equal "$(diff <(echo "$c_words") <(echo "$s_words"))" ""
}

@test "vocabularies: a word the tools do not write is outside the contract" {
	printf '%s\n' '{"type":"thread","event":"respawn","tid":1}' \
		'{"type":"hit","target":0,"pid":1,"tid":1,"cpu":0,"time_ns":1,"ip":"0x10","flags":["read","sideways"]}' \
		'{"type":"thread","event":"exit","tid":1}' > "$BATS_TEST_TMPDIR/in.ndjson"
	run assert_contract "$BATS_TEST_TMPDIR/in.ndjson"
	assert_failure
	assert_output --partial 'thread.event: "respawn" is not one of its words'
	assert_output --partial 'hit.flags[1]: "sideways" is not one of its words'
	refute_output --partial 'line 3'
	refute_output --partial '"exit"'
}

@test "vocabularies: --backend's words are lib/vocab.c's, in both tools' --help and SYNOPSIS, and wp-arm's table has each" {
	[ -x "$WP_BUILD/progs/vocab-words" ] || skip "no $WP_BUILD/progs/vocab-words (make first)"
	run --separate-stderr "$WP_BUILD/progs/vocab-words" --backend
	assert_success
	words=$(sort <<< "$output")
	assert_equal "$(wc -l <<< "$words")" 6
	for tool in wp-arm wp-resolve; do
		run --separate-stderr "$WP_BUILD/$tool" --help
		assert_equal "$(grep -o -- '--backend [a-z|]*' <<< "$output" |
			head -n 1 | cut -d' ' -f2 | tr '|' '\n' | sort)" "$words"
		assert_equal "$(grep -m1 -- '^\.Op Fl -backend Cm' "$TOP/man/$tool.1" |
			sed 's/.*Cm //' | tr -d ' ' | tr '|' '\n' | sort)" "$words"
	done
	for w in $words; do
		[ "$w" = auto ] && continue
		run --separate-stderr wp-arm --backend "$w" --follow-mode stop < /dev/null
		refute_output --partial "not in wp-arm's table"
		[[ "$stderr" != *"not in wp-arm's table"* ]]
	done
}
