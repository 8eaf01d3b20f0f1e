#!/bin/bash
# Issue 42's two goals for the page backend, each figure the median of
# several interleaved runs (unwatched, page with the tracer left where
# the scheduler puts it, page with the tracer following the stopped
# thread's CPU: --tracer-cpu free and follow), the target
# tests/targets/page-game.c timing itself:
#   (a) paced loop: FRAMES writes of the watched field, each after WORK
#       iterations of arithmetic (about 0.6 ms)   goal: at most 1.1x the
#                                                   unwatched run
#   (b) tight loop: WRITES writes                   goal: a write at most
#       1.5x what the same fault costs resolved in the target itself by a
#       SIGSEGV handler (bench/fault-floor.c's inproc_ns, measured in the
#       same rounds)
# It also says what machine the figures are from: CPU, CPUs, hypervisor,
# whether hardware breakpoints fire, the load meanwhile.
#
# usage: bench/page-fast.sh [rounds [frames [work [writes]]]]   (make first)
set -euo pipefail
. "$(dirname "$0")/page-lib.sh"
rounds=${1:-5}
frames=${2:-300}
iters=${3:-540000}
writes=${4:-20000}

[ -x "$b/targets/page-game" ] || { echo "page-fast: make first" >&2; exit 1; }
cc -O2 -o "$work/fault-floor" "$top/bench/fault-floor.c" ||
	{ echo "page-fast: cannot build bench/fault-floor.c" >&2; exit 1; }

# run CPU ARGS...: page-game ARGS, unwatched (CPU none) or watched with
# --backend page --tracer-cpu CPU (page-lib.sh's game)
run() {
	local cpu=$1
	shift
	if [ "$cpu" = none ]; then
		game none -- "$@"
	else
		game page --tracer-cpu "$cpu" -- "$@"
	fi
}

# the machine
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
virt=$(systemd-detect-virt --vm 2> /dev/null || true)
[ -n "$virt" ] || { grep -qw hypervisor /proc/cpuinfo && virt="a hypervisor" || virt=none; }
if "$b/wp-arm" --check-bp > /dev/null 2>&1; then bp="fire"; else bp="do not fire"; fi
load0=$(cut -d' ' -f1 /proc/loadavg)

: > "$work/moves"
for ((r = 0; r < rounds; r++)); do
	run none -m game -f "$frames" -c "$iters"
	echo "$RUN_NS" >> "$work/a.none"; sum=$RUN_SUM
	for c in free follow; do
		run "$c" -m game -f "$frames" -c "$iters"
		echo "$RUN_NS" >> "$work/a.$c"
		[ "$RUN_SUM" = "$sum" ] || echo "page-fast: the target's sum differs watched ($c)" >&2
		echo "a $c $RUN_MOVES" >> "$work/moves"
	done
	run none -m tight -n "$writes"
	echo "$RUN_NS" >> "$work/b.none"
	for c in free follow; do
		run "$c" -m tight -n "$writes"
		echo "$RUN_NS" >> "$work/b.$c"
		echo "b $c $RUN_MOVES" >> "$work/moves"
	done
	"$work/fault-floor" "$writes" > "$work/floor"
	awk '$1 == "inproc_ns" { print $2 }' "$work/floor" >> "$work/inproc"
	awk '$1 == "fault_ns" { print $2 }' "$work/floor" >> "$work/tracer"
done

echo "machine: $cpu, $(nproc) CPUs, kernel $(uname -r), virtualisation: $virt,"
echo "         hardware breakpoints $bp; load average $load0 at the start, $(cut -d' ' -f1 /proc/loadavg) at the end"
# more runnable work than CPUs: a target that stops often is given the
# CPU sooner than one that computes, and beats its unwatched self
awk -v a="$load0" -v b="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN {
    if (a > n || b > n) print "note: the load exceeds the CPUs: the ratios measure the scheduler'"'"'s share as much as the watch" }'
echo "medians of $rounds interleaved rounds, the target's own clock:"
an=$(median "$work/a.none")
printf '(a) paced loop: %d writes, each after %d iterations (%.0f us of work)\n' \
    "$frames" "$iters" "$(awk -v n="$an" -v f="$frames" 'BEGIN { print n / f / 1000 }')"
printf '  unwatched                %10.1f ms\n' "$(awk -v n="$an" 'BEGIN { print n / 1e6 }')"
for c in free follow; do
	m=$(median "$work/a.$c")
	printf '  page, --tracer-cpu %-6s %10.1f ms  %sx unwatched  (%s us a write)   goal: at most 1.10x\n' \
	    "$c" "$(awk -v n="$m" 'BEGIN { print n / 1e6 }')" "$(ratio "$m" "$an")" \
	    "$(awk -v a="$m" -v b="$an" -v f="$frames" 'BEGIN { printf "%.1f", (a - b) / f / 1000 }')"
done
bn=$(median "$work/b.none")
ip=$(median "$work/inproc")
printf '(b) tight loop: %d writes\n' "$writes"
printf '  the fault resolved in the target by a SIGSEGV handler (inproc_ns)   %6.1f us\n' "$(awk -v n="$ip" 'BEGIN { print n / 1000 }')"
printf '  the fault resolved by a bare tracer (fault_ns)                      %6.1f us\n' "$(awk -v n="$(median "$work/tracer")" 'BEGIN { print n / 1000 }')"
for c in free follow; do
	m=$(median "$work/b.$c")
	w=$(awk -v a="$m" -v b="$bn" -v n="$writes" 'BEGIN { print (a - b) / n }')
	printf '  page, --tracer-cpu %-6s %6.1f us a write  %sx inproc_ns   goal: at most 1.50x\n' \
	    "$c" "$(awk -v n="$w" 'BEGIN { print n / 1000 }')" "$(ratio "$w" "$ip")"
done
printf 'the tracer'"'"'s moves (--tracer-cpu follow), a run each: paced %s; tight %s\n' \
    "$(awk '$1 == "a" && $2 == "follow" { printf "%s ", $3 }' "$work/moves")" \
    "$(awk '$1 == "b" && $2 == "follow" { printf "%s ", $3 }' "$work/moves")"
