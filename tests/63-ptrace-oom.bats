#!/usr/bin/env bats
# wp-arm short of memory (ulimit -v): wherever it runs out, the target
# finishes as it does unwatched.  What the stepping allocates is
# allocated at arm; a failure after the attach lets every thread go
# first (no trap flag left set, the pages' own protection given back),
# and the observation says why.  Each case runs per tracing backend.

load helpers

# A bash loop through much of bash's own code (thousands of instructions
# to decode), waiting for a line on its standard input to begin.
LOOP='read -r _; s=; for i in $(seq 2000); do s="$s$i"; done; echo "len ${#s}"'

# oom_watch BACKEND KB: the loop watched by wp-arm --backend BACKEND
# under ulimit -v KB; sets ARMRC, ARMED (1 when it armed), TRC and TGOT
# (the target's status and output).
oom_watch() {
	local d=$BATS_TEST_TMPDIR/$2 tp apid i gofd
	mkdir -p "$d"
	mkfifo "$d/go"
	bash -c "$LOOP" < "$d/go" > "$d/target.out" 2>&1 &
	tp=$!
	exec {gofd}> "$d/go"
	wp-resolve -p "$tp" EOF_Reached > "$d/in.ndjson"
	(ulimit -v "$2"; exec wp-arm --backend "$1" -d 1s) \
	    < "$d/in.ndjson" > "$d/arm.out" 2> "$d/arm.err" &
	apid=$!
	for i in $(seq 200); do
		grep -q '"type":"armed"' "$d/arm.out" && break
		kill -0 "$apid" 2> /dev/null || break
		sleep 0.05
	done
	echo go >&"$gofd"
	exec {gofd}>&-
	ARMRC=0
	wait "$apid" || ARMRC=$?
	TRC=0
	wait "$tp" || TRC=$?
	TGOT=$(cat "$d/target.out")
	ARMED=0
	grep -q '"type":"armed"' "$d/arm.out" && ARMED=1
	AOUT=$d/arm.out
	AERR=$d/arm.err
}

# oom_sweep BACKEND: ulimit -v from 12 to 24 MB, each the target's end
# as unwatched, and wp-arm's an observation or an error.
oom_sweep() {
	nm -D /usr/bin/bash | grep -q ' EOF_Reached$' ||
		skip "this bash exports no EOF_Reached to watch"
	local want kb
	want=$(bash -c "$LOOP" <<< go)
	for kb in $(seq 12000 1000 24000); do
		oom_watch "$1" "$kb"
		[ "$TRC" = 0 ] && [ "$TGOT" = "$want" ] ||
			fail "ulimit -v $kb: the target ended with status $TRC, output '$TGOT' (unwatched: '$want'); wp-arm: $ARMRC, $(head -c 300 "$AERR")"
		if [ "$ARMED" = 1 ]; then
			# armed: an observation, the watch's end or why it failed
			jq -e 'select(.type=="observation") | .stop_reason == "duration" or .stop_reason == "target_exited" or (.stop_reason == "error" and (.error | test("out of memory")))' "$AOUT" > /dev/null ||
				fail "ulimit -v $kb: wp-arm exited $ARMRC without the observation: $(tail -c 300 "$AOUT") $(head -c 300 "$AERR")"
		else
			# not armed: it said why, and nothing was touched
			[ "$ARMRC" != 0 ] ||
				fail "ulimit -v $kb: wp-arm neither armed nor failed"
		fi
	done
}

# A malloc that fails in wp-arm's tracing process (named wp-trace) once
# the file $WPT_OOM_AFTER exists: memory running out mid-watch.
oom_preload() {
	! ldd "$WP_BUILD/wp-arm" | grep -q libasan ||
		skip "wp-arm is built with AddressSanitizer (make asan-check), whose malloc no LD_PRELOAD one replaces"
	cat > "$BATS_TEST_TMPDIR/oom.c" <<'C'
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void	*__libc_malloc(size_t);
void	*__libc_calloc(size_t, size_t);
void	*__libc_realloc(void *, size_t);

static int
failing(void)
{
	const char *t = getenv("WPT_OOM_AFTER");
	char name[16] = "";

	prctl(PR_GET_NAME, name);
	return t != NULL && strcmp(name, "wp-trace") == 0 &&
	    access(t, F_OK) == 0;
}

void *malloc(size_t n) { return failing() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t s) { return failing() ? NULL : __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { return failing() ? NULL : __libc_realloc(p, n); }
C
	cc -shared -fPIC -o "$BATS_TEST_TMPDIR/oom.so" "$BATS_TEST_TMPDIR/oom.c"
}

# oom_midwatch BACKEND: malloc fails in the tracer mid-watch.
oom_midwatch() {
	oom_preload
	start_target churn -n 200 -c 4 -k 50
	export WPT_OOM_AFTER=$BATS_TEST_TMPDIR/now
	LD_PRELOAD=$BATS_TEST_TMPDIR/oom.so watch_start wpt_churn -- --backend "$1" -d 600s
	touch "$WPT_OOM_AFTER"
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
	# the target's own count: every thread ran, none died of a trap
	assert_equal "$(awk '/^writes/ { print $2 }' "$TOUT")" 10000
	assert_equal "$WSTATUS" 1
	assert_equal "$(obs .stop_reason)" error
	[[ "$(obs .error)" == *"failed (out of memory): it let the process go first"* ]] ||
		fail "the observation's error: $(obs .error)"
}

@test "wp-arm ptrace: out of memory anywhere, the target finishes as unwatched" {
	oom_sweep ptrace
}

@test "wp-arm page: out of memory anywhere, the target finishes as unwatched" {
	oom_sweep page
}

@test "wp-arm ptrace: memory running out mid-watch: the threads let go first, then the observation says why" {
	oom_midwatch ptrace
}

@test "wp-arm page: memory running out mid-watch: the pages given back and the threads let go first, then the observation says why" {
	oom_midwatch page
}
