#!/bin/bash
# What wp accesses costs the target per execution of the instruction,
# against a uprobe whose BPF program only counts (bench/uprobe-floor),
# on the same machine in the same run (issue 43's goal: at most 1.2x).
# One store (bench/insn-loop: mov [rdi + rax*8], rdx over 1024 heap
# addresses) run N times, timed by the target's own clock: unwatched,
# under the floor, and under wp-arm's uprobe backend (its access records
# read to the end); the median of R runs of each, taken in turns.  The
# cost per execution is the watched time less the unwatched, over N.
# wp-arm's counts are checked: every execution, over 1024 addresses.
# Where hardware breakpoints fire (wp-arm --check-bp), the same again
# with execute breakpoints: wp-arm --backend bpf against an execute
# breakpoint whose program only counts (uprobe-floor --exec).
#
# usage: bench/insn-cost.sh [N [R]]   (make first; root, or CAP_BPF and
# CAP_PERFMON)
# WP_BENCH_NOCHECK=1: wp-arm's counts are not checked (for timing a
# program changed by hand, which may count nothing).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
PATH=$b:$PATH
n=${1:-200000}
rounds=${2:-3}
goal=1.2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$b/bench"
cc -O1 -g -Wall -Wextra -Werror -pthread -o "$b/bench/insn-loop" "$top/bench/insn-loop.c"
clang -O2 -g -target bpf -I"/usr/include/$(cc -dumpmachine)" -Wall -Werror \
	-c -o "$b/bench/uprobe-floor.bpf.o" "$top/bench/uprobe-floor.bpf.c"
cc -O1 -g -Wall -Wextra -Werror -o "$b/bench/uprobe-floor" \
	"$top/bench/uprobe-floor.c" -lbpf

# start: the target, ready; its pid in $tp, its output $work/t
start() {
	rm -f "$work/t"
	"$b/bench/insn-loop" "$n" > "$work/t" &
	tp=$!
	until [ -s "$work/t" ]; do sleep 0.02; done
}

# go [WATCHER]: the loop run, its ns in $ns (not in a subshell: it
# waits for $tp); with WATCHER (a pid), its program's ns per run (the
# kernel's statistics) appended to $work/prog.KIND first
go() {
	kill -USR1 "$tp"
	until grep -q '^ns ' "$work/t"; do sleep 0.02; done
	[ -z "${1-}" ] || prog_ns "$1" >> "$work/prog.$kind"
	kill -USR1 "$tp"
	wait "$tp"
	ns=$(sed -n 's/^ns //p' "$work/t")
}

# prog_ns PID: the ns per run of PID's program that ran (on_insn, or on_x* at
# an execute breakpoint; its fd's
# prog_id in /proc/PID/fdinfo), as the kernel counted them (its
# statistics on: uprobe-floor --stats)
prog_ns() {
	local ids
	ids=$(cat /proc/"$1"/fdinfo/* 2> /dev/null | sed -n 's/^prog_id:[[:space:]]*//p' |
		jq -s -c .)
	bpftool prog show -j | jq -r --argjson ids "$ids" '.[] |
	    select((.name == "on_insn" or (.name | startswith("on_x"))) and
	    (.id as $i | $ids | index($i))) | select((.run_cnt // 0) > 0) |
	    .run_time_ns / .run_cnt'
}

# armed FILE PATTERN PID: waits for PATTERN in FILE, written by PID
armed() {
	until grep -q "$2" "$1" 2> /dev/null; do
		kill -0 "$3" 2> /dev/null || { cat "$1" >&2; exit 1; }
		sleep 0.05
	done
}

# one KIND: one run's ns (KIND base, floor or wp)
one() {
	local w
	rm -f "$work/floor" "$work/wp"	# no armed line of a run before
	start
	case $1 in
	base)
		go
		echo "$ns" ;;
	floor|xfloor)
		wp-resolve -p "$tp" --insn bench_insn_store > "$work/site"
		if [ "$1" = floor ]; then
			"$b/bench/uprobe-floor" "$tp" \
			    "$(jq -r 'select(.type=="site") | .region' "$work/site")" \
			    "$(jq -r 'select(.type=="site") | .file_offset' "$work/site")" \
			    "$b/bench/uprobe-floor.bpf.o" > "$work/floor" &
		else
			"$b/bench/uprobe-floor" --exec "$tp" \
			    "$(jq -r 'select(.type=="site") | .runtime_addr' "$work/site")" \
			    "$b/bench/uprobe-floor.bpf.o" > "$work/floor" &
		fi
		w=$!
		armed "$work/floor" armed "$w"
		go "$w"
		wait "$w"
		[ "$(sed -n 's/^counted //p' "$work/floor")" = "$n" ] ||
			{ echo "floor: counted $(cat "$work/floor"), not $n" >&2; exit 1; }
		echo "$ns" ;;
	wp|xwp)
		wp-resolve -p "$tp" --insn bench_insn_store |
			wp-arm --backend "$([ "$1" = wp ] && echo uprobe || echo bpf)" \
			-d 600s > "$work/wp" &
		w=$!
		armed "$work/wp" '"type":"armed"' "$w"
		go "$w"
		wait "$w"
		got=$(jq -r 'select(.type=="observation") | .uprobe.sites[0] |
		    "\(.executions) \(.addresses) \(.tally_full)"' "$work/wp")
		[ -n "${WP_BENCH_NOCHECK-}" ] || [ "$got" = "$n 1024 0" ] ||
			{ echo "wp-arm: counted $got, not $n 1024 0" >&2; exit 1; }
		echo "$ns" ;;
	esac
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# the programs' own time too, where the kernel counts it for us
"$b/bench/uprobe-floor" --stats > "$work/stats" &
st=$!
trap 'kill "$st" 2> /dev/null; rm -rf "$work"' EXIT
armed "$work/stats" enabled "$st"
kinds="base floor wp"
! "$b/wp-arm" --check-bp > /dev/null 2>&1 || kinds="$kinds xfloor xwp"
for (( r = 0; r < rounds; r++ )); do
	for kind in $kinds; do one "$kind" >> "$work/ns.$kind"; done
done
base=$(median < "$work/ns.base")
floor=$(median < "$work/ns.floor")
wp=$(median < "$work/ns.wp")
pfloor=$(median < "$work/prog.floor")
pwp=$(median < "$work/prog.wp")

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
virt=$(systemd-detect-virt 2> /dev/null || echo unknown)
echo "machine: $cpu, $(nproc) CPUs, virtualization $virt, Linux $(uname -r)"
echo "runs:    $rounds each in turns, $n executions a run (medians)"
awk -v n="$n" -v base="$base" -v floor="$floor" -v wp="$wp" -v goal="$goal" \
    -v pf="$pfloor" -v pw="$pwp" 'BEGIN {
	f = (floor - base) / n; w = (wp - base) / n
	printf "unwatched       %8.1f ns per execution\n", base / n
	printf "uprobe floor    %8.1f ns per execution (a uprobe whose program only counts)\n", f
	printf "wp-arm uprobe   %8.1f ns per execution (address per thread, in a hash map)\n", w
	printf "wp / floor      %8.2fx   goal: at most %.1fx  %s\n", w / f, goal,
	    w / f <= goal ? "met" : "NOT met"
	printf "the programs alone (the kernel\x27s run time): floor %.0f ns, wp-arm %.0f ns a run\n", pf, pw
}'
if [ -s "$work/ns.xwp" ]; then
	xfloor=$(median < "$work/ns.xfloor")
	xwp=$(median < "$work/ns.xwp")
	awk -v n="$n" -v base="$base" -v floor="$xfloor" -v wp="$xwp" -v goal="$goal" \
	    -v pf="$(median < "$work/prog.xfloor")" -v pw="$(median < "$work/prog.xwp")" 'BEGIN {
		f = (floor - base) / n; w = (wp - base) / n
		printf "exec bp floor   %8.1f ns per execution (an execute breakpoint whose program only counts)\n", f
		printf "wp-arm bpf      %8.1f ns per execution (the same tally, at an execute breakpoint)\n", w
		printf "wp / floor      %8.2fx   goal: at most %.1fx  %s\n", w / f, goal,
		    w / f <= goal ? "met" : "NOT met"
		printf "the programs alone (the kernel\x27s run time): floor %.0f ns, wp-arm %.0f ns a run\n", pf, pw
	}'
else
	echo "exec bp:        not timed (hardware breakpoints do not fire here: wp-arm --check-bp)"
fi
