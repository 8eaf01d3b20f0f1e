# Shared by the host suite: paths, starting test targets, JSON checks.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

: "${WP_BUILD:=$BATS_TEST_DIRNAME/../build}"
# tests/, where the helpers are (tests/live loads them from there too)
WP_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PATH="$WP_BUILD:$PATH"
T="$WP_BUILD/targets"
DATA="$BATS_TEST_DIRNAME/data"
WP_TARGET_PIDS=()
# never the network: debuginfod only where a test starts its own server
unset DEBUGINFOD_URLS

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

# start_target_unreaped NAME ARGS...: start_target, under a parent that
# never reaps it, so that once it exits it stays a zombie.
start_target_unreaped() {
	local name=$1 i
	shift
	TOUT="$BATS_TEST_TMPDIR/$name.$RANDOM.out"
	sh -c '"$@" & echo $! > "$0.pid"; exec sleep 600' "$TOUT" "$T/$name" "$@" > "$TOUT" 2>&1 &
	WP_TARGET_PIDS+=("$!")
	for i in $(seq 100); do
		[ -s "$TOUT" ] && [ -s "$TOUT.pid" ] && break
		sleep 0.05
	done
	TPID=$(cat "$TOUT.pid")
	WP_TARGET_PIDS+=("$TPID")
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
	# every record a watch wrote, and what wp-decode adds, is in the
	# contract, and its report's table keeps to 100 columns
	if [ -n "${WOUT:-}" ] && [ -s "$WOUT" ] && [ -n "${WP_RECORDS:-}" ]; then
		# in the guest: kept for the host to check (tests/vm/run-guest)
		local base
		base=$WP_RECORDS/$(basename "$BATS_TEST_FILENAME" .bats)-$BATS_TEST_NUMBER
		cp "$WOUT" "$base.out"
		wp-decode < "$WOUT" > "$base.decoded" 2> /dev/null
	elif [ -n "${WOUT:-}" ] && [ -s "$WOUT" ]; then
		assert_contract "$WOUT" || return 1
		wp-decode < "$WOUT" > "$WOUT.decoded" 2> /dev/null
		assert_contract "$WOUT.decoded" || return 1
		assert_narrow_table "$WOUT.decoded" || return 1
	fi
}

# Builds the fail-open shim (tests/shims/fail-open.c) into $1.  A tool
# built with AddressSanitizer (make asan-check) refuses to start with a
# library preloaded before its runtime unless told it may.
fail_open_shim() {
	cc -shared -fPIC -o "$1" "$WP_TESTS/shims/fail-open.c" -ldl ||
	    fail "cannot build the fail-open shim"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
}

# assert_narrow_table FILE: the table wp-report makes of FILE keeps to
# 100 columns when asked to (a pipe without COLUMNS gets the width its
# lines need).
assert_narrow_table() {
	local wide
	wide=$(COLUMNS=100 wp-report < "$1" 2> /dev/null | awk 'length > 100')
	[ -z "$wide" ] || fail "table lines over 100 columns:
$wide"
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

# doctor FILTER: what wp doctor --json says of this machine, through
# jq -r FILTER (asked once a suite run): the machine facts a test skips
# on, and the backend auto takes (.default_backend["8"].name).  A test's
# own WP_ARM_BP is not the machine's; the suite's (WP_SUITE_ARM_BP,
# tests/run.sh) is.
doctor() {
	local f=${BATS_RUN_TMPDIR:-$BATS_TEST_TMPDIR}/doctor.json
	if [ ! -s "$f" ]; then
		env -u WP_ARM_BP ${WP_SUITE_ARM_BP:+WP_ARM_BP=$WP_SUITE_ARM_BP} \
		    wp-arm --doctor --json > "$f.$$" &&
			mv -f "$f.$$" "$f"
	fi
	[ -s "$f" ] || fail "wp-arm --doctor --json wrote nothing"
	jq -r "$1" "$f"
}

# require_bp: skip where hardware breakpoints do not fire, with the
# reason wp doctor gives; in the guest (WP_GUEST=1) that is a failure,
# never a skip.
require_bp() {
	[ "$(doctor .breakpoints.fire)" = true ] && return 0
	[ "${WP_GUEST:-0}" = 1 ] && fail "breakpoints must fire in the guest: $(doctor .breakpoints.why)"
	skip "$(doctor .breakpoints.why) (wp doctor); the QEMU guest suite runs this test"
}

# ended PID: whether process PID has exited (gone, or a zombie its
# parent has not reaped yet: a background job of this shell is one).
ended() {
	local st
	st=$(cat "/proc/$1/stat" 2> /dev/null) || return 0
	st=${st##*) }
	[ "${st%% *}" = Z ] || [ "${st%% *}" = X ]
}

# wait_for FILE PATTERN [SECONDS [PID [ERRFILE]]]: until a line of FILE
# matches.  With PID (the process that writes FILE), a PID that exits
# first ends the wait at once: a failure that shows ERRFILE, its
# standard error, rather than the whole timeout.
wait_for() {
	local i n=$(( ${3:-30} * 20 )) name=process st
	# its name while it runs (bash reaps its jobs as they exit)
	[ -z "${4-}" ] || name=$(cat "/proc/$4/comm" 2> /dev/null) ||
		name=process
	for (( i = 0; i < n; i++ )); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		if [ -n "${4-}" ] && ended "$4"; then
			# what it wrote before it exited
			grep -q "$2" "$1" 2>/dev/null && return 0
			# its status, where it is a job of this shell
			st=$(wait "$4" 2> /dev/null; echo $?)
			fail "$name (pid $4) exited (status $st) before '$2' in $(basename "$1"), which ends: $(tail -c 300 "$1" 2> /dev/null)${5:+; its standard error:
$(cat "$5" 2> /dev/null)}"
			return 1
		fi
		sleep 0.05
	done
	fail "timed out waiting for '$2' in $(basename "$1")"
}

# wait_armed FILE PID [ERRFILE]: the armed record in FILE, written by
# PID (wp-arm, or wp watch --save FILE), within 60 s; a PID that exits
# first fails at once, with ERRFILE shown.
wait_armed() {
	wait_for "$1" '"type":"armed"' 60 "$2" "${3-}"
}

# watch_start ADDR... -- ARM-ARGS...: runs wp-resolve -p $TPID ADDR... |
# wp-arm ARM-ARGS... in the background into $WOUT and $WERR, sets WPID
# (wp-arm's pid) and waits for the armed record.
watch_start() {
	local r=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do r+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	WOUT=$BATS_TEST_TMPDIR/watch.out
	WERR=$BATS_TEST_TMPDIR/watch.err
	rm -f "$WOUT" "$WERR"	# no armed record of an earlier watch
	wp-resolve -p "$TPID" "${r[@]}" | wp-arm "$@" > "$WOUT" 2> "$WERR" &
	WPID=$!
	wait_armed "$WOUT" "$WPID" "$WERR"
}

# watch_wait: waits for wp-arm; sets WSTATUS and OBS (the observation).
watch_wait() {
	WSTATUS=0
	wait "$WPID" || WSTATUS=$?
	OBS=$(jq -c 'select(.type=="observation")' "$WOUT")
}

# hits [JQ-FILTER]: number of hit records (matching the filter).
hits() {
	jq -s "map(select(.type==\"hit\") | select(${1:-true})) | length" "$WOUT"
}

obs() {
	jq -r "$1" <<< "$OBS"
}

# assert_contract FILE: every record in FILE (lines that are not JSON
# objects aside) has the members wp-records(7) documents, of their
# types, and no others (share/wp-records.schema.json).
assert_contract() {
	local errs
	# in the guest: kept for the host to check, as teardown keeps WOUT
	# (tests/vm/run-guest: jq under emulation takes minutes a stream)
	if [ -n "${WP_RECORDS:-}" ]; then
		cp "$1" "$WP_RECORDS/$(basename "$BATS_TEST_FILENAME" .bats)-$BATS_TEST_NUMBER-$RANDOM.out"
		return
	fi
	errs=$("$WP_TESTS/contract-check" "$1" 2>&1) ||
		fail "the contract check failed on $(basename "$1"): $errs"
	[ -z "$errs" ] || fail "records outside the contract in $(basename "$1"):
$(head -n 20 <<< "$errs")"
}
