# Shared by the host suite: paths, starting test targets, JSON checks.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

: "${WP_BUILD:=$BATS_TEST_DIRNAME/../build}"
PATH="$WP_BUILD:$BATS_TEST_DIRNAME/..:$PATH"
T="$WP_BUILD/targets"
DATA="$BATS_TEST_DIRNAME/data"
WP_TARGET_PIDS=()

# start_target NAME ARGS...: runs a test target in the background, waits
# for its JSON ready line and sets TPID, TINFO (that line), TOUT (its
# output file).
start_target() {
	local name=$1 i
	shift
	TOUT="$BATS_TEST_TMPDIR/$name.$RANDOM.out"
	"$T/$name" "$@" > "$TOUT" 2>&1 &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	for i in $(seq 100); do
		[ -s "$TOUT" ] && break
		sleep 0.05
	done
	TINFO=$(head -n 1 "$TOUT")
	[ -n "$TINFO" ] || fail "target $name printed no ready line"
}

# tinfo KEY: a field of the target's ready line.
tinfo() {
	jq -r ".$1" <<< "$TINFO"
}

stop_targets() {
	local p
	for p in "${WP_TARGET_PIDS[@]}"; do
		{ kill -9 "$p" && wait "$p"; } 2>/dev/null || true
	done
	WP_TARGET_PIDS=()
}

teardown() {
	stop_targets
}

# static_of FILE SYMBOL: the symbol's address in FILE, as 0xHEX.
static_of() {
	local a
	a=$(nm "$1" 2>/dev/null | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$a" ] || a=$(nm -D "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	printf '0x%x\n' "0x$a"
}

hexadd() {
	printf '0x%x\n' $(( $1 + $2 ))
}

# assert_ndjson FILE-OR-STRING: every line is one JSON object with a type.
assert_ndjson() {
	local line n=0
	while IFS= read -r line; do
		n=$((n + 1))
		jq -e 'type == "object" and (.type | type == "string")' \
		    <<< "$line" > /dev/null ||
			fail "line $n is not an NDJSON record: $line"
	done <<< "$1"
	[ "$n" -gt 0 ] || fail "no records"
}

# assert_json_eq EXPECTED ACTUAL: equal after jq -cS, shown with diff -u.
assert_json_eq() {
	diff -u <(jq -cS . <<< "$1") <(jq -cS . <<< "$2") ||
		fail "JSON differs"
}
