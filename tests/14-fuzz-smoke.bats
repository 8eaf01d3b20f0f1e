#!/usr/bin/env bats
# The fuzzing harnesses (tests/fuzz, make fuzz): each runs a few seconds
# over its seeds and finds nothing.  And what fuzzing found, kept in
# data/fuzz: each a stream a stage takes without crashing.

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

# Builds the harnesses and their seeds once, where clang can link
# libFuzzer; FUZZ_SKIP says why not.
setup_file() {
	local probe=$BATS_FILE_TMPDIR/probe
	export FUZZ_SKIP=
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		> "$probe.c"
	if ! command -v clang > /dev/null; then
		FUZZ_SKIP="clang is not installed"
	elif ! clang -fsanitize=fuzzer,address,undefined -o "$probe" \
	    "$probe.c" 2> /dev/null; then
		FUZZ_SKIP="clang cannot link libFuzzer (libclang-rt-dev)"
	elif ! make -s -j"$(nproc)" -C "$TOP" O="$WP_BUILD" fuzz-build \
	    > "$BATS_FILE_TMPDIR/build.log" 2>&1; then
		cat "$BATS_FILE_TMPDIR/build.log" >&2
		return 1
	fi
}

# fuzz NAME MAXLEN: the harness runs about 3 seconds (libFuzzer stops in
# the second after max_total_time) over its seeds, new inputs kept
# apart, and ends with no crash, leak or undefined behaviour.
fuzz() {
	[ -z "$FUZZ_SKIP" ] || skip "$FUZZ_SKIP"
	mkdir -p "$BATS_TEST_TMPDIR/corpus"
	run --separate-stderr "$WP_BUILD/fuzz/fuzz-$1" -max_total_time=2 \
		-max_len="$2" -timeout=20 -close_fd_mask=3 \
		-artifact_prefix="$BATS_TEST_TMPDIR/" \
		"$BATS_TEST_TMPDIR/corpus" "$WP_BUILD/fuzz/seeds/$1"
	[ "$status" -eq 0 ] || fail "fuzz-$1 exited $status:
$(tail -n 40 <<< "$stderr")"
	[[ "$stderr" == *"Done "*" runs in "* ]] || fail "fuzz-$1 did not finish:
$(tail -n 20 <<< "$stderr")"
	! compgen -G "$BATS_TEST_TMPDIR/crash-*" > /dev/null ||
		fail "fuzz-$1 left a crash"
}

@test "fuzz: the stream reader, JSON parser and record check" {
	fuzz records 8192
}

@test "fuzz: wp-resolve's ADDR and --follow parsers" {
	fuzz resolve 256
}

@test "fuzz: wp-arm's input records" {
	fuzz arm-input 8192
}

@test "fuzz: wp-decode's sessions, targets and hits" {
	fuzz decode 8192
}

@test "fuzz: wp-report's aggregate, document and table" {
	fuzz report 8192
}

@test "fuzz: the x86 instruction decoder" {
	fuzz x86 64
}

@test "fuzz: the AArch64 instruction decoder" {
	fuzz a64 64
}

@test "fuzz found: a tally whose writer is unknown (writer_ip null) is a site of its own, not a crash" {
	run --separate-stderr wp-report --json "$DATA/fuzz/report-tally-unknown-writer.ndjson"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	run jq -c '.watches[0] | [.writer_counts, .tallied_hits, (.writer_sites | map([.hits, .writer_runtime_ip, .confidence]))]' <<< "$output"
	assert_output '["tallied",3,[[3,null,"unknown"]]]'
	run --separate-stderr wp-report "$DATA/fuzz/report-tally-unknown-writer.ndjson"
	assert_success
	assert_line --regexp '^ +3  unknown '
}
