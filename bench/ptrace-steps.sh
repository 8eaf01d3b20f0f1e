#!/bin/bash
# Steps per second of wp-arm's ptrace backend on a busy loop, as a ratio
# to a bare PTRACE_SINGLESTEP loop (bench/ss-floor.c: the floor for this
# mechanism on this machine), in paired runs: each pair runs the two back
# to back on the same loop for the same time (the order alternating from
# pair to pair, so that a drift of the machine's load does not favour
# either), and the median of the pairs' ratios is the result.  Both
# count the steps they made and time them with CLOCK_MONOTONIC from the
# first step to the last stop; wp-arm watches a variable the loop never
# writes.  Then, once, gdb's software watchpoint (set
# can-use-hw-watchpoints 0), whose progress is read from the loop's own
# iteration counter.
# Targets: the median wp/floor at least 0.95, and wp at least 2x gdb.
#
# usage: bench/ptrace-steps.sh [seconds [pairs]]   (make first; gdb optional)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
secs=${1:-3}
pairs=${2:-5}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT

cc -O1 -g -o "$work/busy" "$top/bench/busy.c"
cc -O2 -o "$work/ss-floor" "$top/bench/ss-floor.c"
"$work/busy" > "$work/ready" &
pid=$!
until [ -s "$work/ready" ]; do sleep 0.05; done
iters_addr=$(awk '{ print $2 }' "$work/ready")

# floor: prints steps/s, and the loop's instructions per iteration
floor() {
	local steps ns iters

	read -r steps ns iters < <("$work/ss-floor" "$pid" "$secs" "$iters_addr")
	[ "$ns" -gt 0 ] && [ "$iters" -gt 0 ] ||
		{ echo "ss-floor did not step the loop" >&2; exit 1; }
	awk -v s="$steps" -v ns="$ns" -v i="$iters" \
	    'BEGIN { printf "%.0f %.2f\n", s * 1e9 / ns, s / i }'
}

# wp: prints steps/s, as wp-arm counted and timed them
wp() {
	"$b/wp-resolve" -p "$pid" quiet |
		"$b/wp-arm" --backend ptrace -d "${secs}s" > "$work/wp.out" 2> "$work/wp.err" ||
		{ cat "$work/wp.err" >&2; exit 1; }
	jq -r 'select(.type=="observation") | .ptrace.steps_per_second' "$work/wp.out"
}

echo "single-steps per second on one busy loop, ${secs}s a run, $pairs pairs:"
echo "  pair  order        floor         wp   wp/floor"
ratios=()
wps=()
for ((i = 1; i <= pairs; i++)); do
	if ((i % 2)); then
		read -r f k < <(floor)
		w=$(wp)
		order="floor,wp"
	else
		w=$(wp)
		read -r f k < <(floor)
		order="wp,floor"
	fi
	r=$(awk -v w="$w" -v f="$f" 'BEGIN { printf "%.3f", w / f }')
	ratios+=("$r")
	wps+=("$w")
	printf "  %4d  %-8s %9.0f  %9.0f   %s\n" "$i" "$order" "$f" "$w" "$r"
done
kill -0 "$pid" || { echo "the busy loop did not survive" >&2; exit 1; }
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
	    END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
median=$(median "${ratios[@]}")
printf "(%s instructions per loop iteration)\n" "$k"
printf "median ratio wp/floor: %s (target >= 0.95)\n" "$median"

# gdb, once: loop iterations between two timestamps while the watchpoint
# is set, as steps through the floor's instructions per iteration
if ! command -v gdb > /dev/null; then
	echo "gdb: not installed, no comparison (apt-get install gdb)"
	exit 0
fi
timeout -s INT "$((secs + 5))" gdb -q -nx -batch -p "$pid" \
	-ex 'set can-use-hw-watchpoints 0' -ex 'watch quiet' \
	-ex 'shell date +T%s.%N' -ex 'print iters' \
	-ex "shell (sleep $secs; kill -INT \$(pgrep -x gdb | head -n 1)) &" \
	-ex continue -ex 'shell date +T%s.%N' -ex 'print iters' \
	> "$work/gdb.out" 2>&1 || true
kill -0 "$pid" || { echo "the busy loop did not survive gdb" >&2; exit 1; }
mapfile -t ts < <(sed -n 's/^T//p' "$work/gdb.out")
mapfile -t its < <(sed -n 's/^\$[0-9]* = //p' "$work/gdb.out")
[ "${#ts[@]}" -eq 2 ] && [ "${#its[@]}" -eq 2 ] ||
	{ echo "could not read gdb's progress:" >&2; cat "$work/gdb.out" >&2; exit 1; }
awk -v k="$k" -v w="$(median "${wps[@]}")" -v t0="${ts[0]}" -v t1="${ts[1]}" \
    -v i0="${its[0]}" -v i1="${its[1]}" 'BEGIN {
	g = (i1 - i0) * k / (t1 - t0)
	printf "gdb software watchpoint: %.0f steps/s; wp (median) / gdb: %.1fx (target >= 2x)\n", g, w / g
}'
