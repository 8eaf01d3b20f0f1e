#!/bin/bash
# Steps per second of wp-arm's ptrace backend on a busy loop, as ratios
# measured side by side in one run to
#   - a bare PTRACE_SINGLESTEP loop (bench/ss-floor.c: the floor for this
#     mechanism on this machine), and
#   - gdb's software watchpoint (set can-use-hw-watchpoints 0).
# Each method runs for the same time on the same loop, watching a
# variable the loop never writes; progress is read from the loop's own
# iteration counter, so the three are compared on the same instructions.
# Targets: wp at least 0.8 of the floor, and at least 2x gdb.
#
# usage: bench/ptrace-steps.sh [seconds]   (make first; needs gdb)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
secs=${1:-3}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
command -v gdb > /dev/null || { echo "gdb is needed: apt-get install gdb" >&2; exit 1; }

cc -O1 -g -o "$work/busy" "$top/bench/busy.c"
cc -O2 -o "$work/ss-floor" "$top/bench/ss-floor.c"
"$work/busy" > "$work/ready" &
pid=$!
until [ -s "$work/ready" ]; do sleep 0.05; done
iters_addr=$(awk '{ print $2 }' "$work/ready")

# the floor: steps/s, and instructions per loop iteration
read -r floor_steps floor_iters < <("$work/ss-floor" "$pid" "$secs" "$iters_addr")
# wp-arm measures its own rate
"$b/wp-resolve" -p "$pid" quiet | "$b/wp-arm" --backend ptrace -d "${secs}s" > "$work/wp.out" 2> "$work/wp.err"
wp_sps=$(jq -r 'select(.type=="observation") | .ptrace.steps_per_second' "$work/wp.out")
# gdb: loop iterations between two timestamps while the watchpoint is set
timeout -s INT "$((secs + 5))" gdb -q -nx -batch -p "$pid" \
	-ex 'set can-use-hw-watchpoints 0' -ex 'watch quiet' \
	-ex 'shell date +T%s.%N' -ex 'print iters' \
	-ex "shell (sleep $secs; kill -INT \$(pgrep -x gdb | head -n 1)) &" \
	-ex continue -ex 'shell date +T%s.%N' -ex 'print iters' \
	> "$work/gdb.out" 2>&1 || true
kill -0 "$pid" || { echo "the busy loop did not survive" >&2; exit 1; }
mapfile -t ts < <(sed -n 's/^T//p' "$work/gdb.out")
mapfile -t its < <(sed -n 's/^\$[0-9]* = //p' "$work/gdb.out")
[ "${#ts[@]}" -eq 2 ] && [ "${#its[@]}" -eq 2 ] ||
	{ echo "could not read gdb's progress:" >&2; cat "$work/gdb.out" >&2; exit 1; }
awk -v fs="$floor_steps" -v fi="$floor_iters" -v s="$secs" -v w="$wp_sps" \
    -v t0="${ts[0]}" -v t1="${ts[1]}" -v i0="${its[0]}" -v i1="${its[1]}" 'BEGIN {
	k = fs / fi
	f = fs / s
	g = (i1 - i0) * k / (t1 - t0)
	printf "single-steps per second on one busy loop (%.1f instructions per iteration):\n", k
	printf "  bare PTRACE_SINGLESTEP loop: %8.0f\n", f
	printf "  wp-arm --backend ptrace:     %8.0f\n", w
	printf "  gdb software watchpoint:     %8.0f\n", g
	printf "ratio wp/floor: %.2f (target >= 0.8)\n", w / f
	printf "ratio wp/gdb:   %.1fx (target >= 2x)\n", w / g
}'
