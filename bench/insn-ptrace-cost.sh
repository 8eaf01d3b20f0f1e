#!/bin/bash
# What the ptrace backend's site mode (an int3 at the instruction, for
# the sites no uprobe can take) costs the target per execution: this
# build's wp-arm, and with WP_ARM_BEFORE another wp-arm (a build from
# before a change: one that steps every execution in place, the other
# threads held) run in turns on the same machine, with their ratio.
# One store (bench/insn-loop: mov [rdi + rax*8], rdx over 1024 heap
# addresses) run N times in each of T threads at once under --backend
# ptrace, timed by the target's own clock; the median of R runs of
# each; the cost per execution is the watched time less the unwatched,
# over N x T.  wp-arm's counts are checked: every execution, over 1024
# addresses per thread.
#
# usage: [WP_ARM_BEFORE=OTHER/wp-arm] bench/insn-ptrace-cost.sh [N [R [T]]]
# (make first; root, or ptrace rights over the target)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
PATH=$b:$PATH
n=${1:-5000}
rounds=${2:-3}
threads=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$b/bench"
cc -O1 -g -Wall -Wextra -Werror -pthread -o "$b/bench/insn-loop" \
	"$top/bench/insn-loop.c"

# one WP-ARM: one run's ns (WP-ARM "-": unwatched)
one() {
	local w=
	rm -f "$work/t" "$work/wp"
	"$b/bench/insn-loop" "$n" 1024 "$threads" > "$work/t" &
	tp=$!
	until [ -s "$work/t" ]; do sleep 0.02; done
	if [ "$1" != - ]; then
		wp-resolve -p "$tp" --insn bench_insn_store |
			"$1" --backend ptrace -d 600s > "$work/wp" 2> /dev/null &
		w=$!
		until grep -q '"type":"armed"' "$work/wp" 2> /dev/null; do
			kill -0 "$w" 2> /dev/null || { cat "$work/wp" >&2; exit 1; }
			sleep 0.05
		done
	fi
	kill -USR1 "$tp"
	until grep -q '^ns ' "$work/t"; do sleep 0.02; done
	kill -USR1 "$tp"
	wait "$tp"
	if [ -n "$w" ]; then
		wait "$w"
		got=$(jq -r 'select(.type=="observation") | .uprobe.sites[0] |
		    "\(.executions) \(.addresses)"' "$work/wp")
		[ "$got" = "$(( n * threads )) $(( 1024 * threads ))" ] ||
			{ echo "$1: counted $got, not $(( n * threads )) $(( 1024 * threads ))" >&2; exit 1; }
	fi
	sed -n 's/^ns //p' "$work/t"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for (( r = 0; r < rounds; r++ )); do
	one - >> "$work/ns.base"
	one "$b/wp-arm" >> "$work/ns.now"
	[ -z "${WP_ARM_BEFORE-}" ] || one "$WP_ARM_BEFORE" >> "$work/ns.before"
done
base=$(median < "$work/ns.base")
now=$(median < "$work/ns.now")
before=$( [ -z "${WP_ARM_BEFORE-}" ] || median < "$work/ns.before")

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
virt=$(systemd-detect-virt 2> /dev/null || echo unknown)
echo "machine: $cpu, $(nproc) CPUs, virtualization $virt, Linux $(uname -r)"
echo "runs:    $rounds each in turns, $n executions in each of $threads threads a run (medians)"
awk -v n="$(( n * threads ))" -v base="$base" -v now="$now" -v before="$before" \
    -v bname="${WP_ARM_BEFORE-}" 'BEGIN {
	w = (now - base) / n
	printf "unwatched       %10.1f ns per execution\n", base / n
	printf "wp-arm ptrace   %10.1f ns per execution (%.0f a second)\n", w, 1e9 / w
	if (before == "")
		exit
	o = (before - base) / n
	printf "before          %10.1f ns per execution (%.0f a second; %s)\n", o, 1e9 / o, bname
	printf "before / now    %10.2fx\n", o / w
}'
