#!/bin/bash
# Two real programs under a wide page-backend watch, each the median of
# ROUNDS interleaved runs: unwatched, --tracer-cpu free (the page path
# as it was) and --tracer-cpu follow (the default):
#   python3: all of _PyRuntime (about 160 KiB) watched while a pure
#            Python loop runs; its own time for the loop
#   redis-server: its `server` struct (4 KiB) watched while
#            redis-benchmark sends SET and GET over a unix socket; the
#            requests per second it reports
# Prints the slowdown against unwatched and against free, with the
# faults of each watched run.
#
# usage: bench/page-real.sh [rounds]   (make first; python3, redis-server
# and redis-benchmark from the distribution)
set -euo pipefail
. "$(dirname "$0")/page-lib.sh"
rounds=${1:-3}
py=/usr/bin/python3

faults() {
	jq -r 'select(.type=="observation") | .page.faults_watched + .page.faults_neighbour' "$work/obs"
}

# python3 CPU: the loop's own time in ms (CPU none: unwatched); FAULTS
python_run() {
	local pid
	# not the last run's line, read before this one's shell empties it
	rm -f "$work/py.out"
	"$py" -c '
import os, signal, time, json
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print(os.getpid(), flush=True)
signal.sigwait([signal.SIGUSR1])
t = time.monotonic()
d = {}
for i in range(300):
    d[i % 1000] = json.dumps([i, str(i)])
print("ms", (time.monotonic() - t) * 1000, flush=True)
' > "$work/py.out" &
	pid=$!
	pids+=("$pid")
	until [ -s "$work/py.out" ]; do sleep 0.02; done
	FAULTS=-
	[ "$1" = none ] || watch "$pid" _PyRuntime page --tracer-cpu "$1"
	kill -USR1 "$pid"
	wait "$pid"
	[ "$1" = none ] || { wait "$WPID" || true; FAULTS=$(faults); }
	awk '$1 == "ms" { print $2 }' "$work/py.out"
}

# redis CPU: SET and GET requests per second (CPU none: unwatched); FAULTS
redis_run() {
	local pid sock=$work/redis.sock
	rm -f "$sock"
	redis-server --port 0 --unixsocket "$sock" --save '' --appendonly no \
	    --daemonize no > "$work/redis.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	until [ -S "$sock" ]; do sleep 0.05; done
	FAULTS=-
	[ "$1" = none ] || watch "$pid" server page --tracer-cpu "$1"
	redis-benchmark -s "$sock" -n 2000 -c 1 -t set,get --csv \
	    > "$work/rb.out" 2> /dev/null
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$1" = none ] || { wait "$WPID" || true; FAULTS=$(faults); }
	# the two lines' requests per second, summed
	awk -F'"' '/^"(SET|GET)"/ { s += $4 } END { print s }' "$work/rb.out"
}

for ((r = 0; r < rounds; r++)); do
	for c in none free follow; do
		python_run "$c" >> "$work/py.$c"
		echo "$FAULTS" >> "$work/pyf.$c"
		redis_run "$c" >> "$work/rd.$c"
		echo "$FAULTS" >> "$work/rdf.$c"
	done
done

echo "machine: $(machine)"
echo "medians of $rounds interleaved rounds:"
pn=$(median "$work/py.none")
size=$(nm -DS "$(readlink -f "$py")" 2> /dev/null | awk '$4 == "_PyRuntime" { print $2 }')
printf 'python3 %s, _PyRuntime watched (%s bytes): 300 rounds of a dict store and json.dumps\n' \
    "$("$py" -c 'import sys; print(sys.version.split()[0])')" "$((16#${size:-0}))"
printf '  unwatched        %8.1f ms\n' "$pn"
for c in free follow; do
	m=$(median "$work/py.$c")
	printf '  page, %-6s     %8.1f ms  %5.2fx unwatched  %5.2fx free   faults %s\n' "$c" "$m" \
	    "$(awk -v a="$m" -v b="$pn" 'BEGIN { print a / b }')" \
	    "$(awk -v a="$m" -v b="$(median "$work/py.free")" 'BEGIN { print a / b }')" \
	    "$(median "$work/pyf.$c")"
done
rn=$(median "$work/rd.none")
printf 'redis-server %s, server watched: redis-benchmark -c 1 SET and GET\n' \
    "$(redis-server --version | sed 's/.* v=\([^ ]*\).*/\1/')"
printf '  unwatched        %8.0f requests/s\n' "$rn"
for c in free follow; do
	m=$(median "$work/rd.$c")
	printf '  page, %-6s     %8.0f requests/s  %5.2fx slower than unwatched  %5.2fx than free   faults %s\n' "$c" "$m" \
	    "$(awk -v a="$m" -v b="$rn" 'BEGIN { print (a > 0 ? b / a : 0) }')" \
	    "$(awk -v a="$m" -v b="$(median "$work/rd.free")" 'BEGIN { print (a > 0 ? b / a : 0) }')" \
	    "$(median "$work/rdf.$c")"
done
