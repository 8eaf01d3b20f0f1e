#!/bin/bash
# Issue 42's candidate designs measured before one is chosen: what a
# watched write costs under each way of resolving its fault
# (bench/fault-designs.c says what each mode does), each figure the
# median of ROUNDS interleaved rounds, beside issue 42's two goals:
#   tight loop: WRITES writes back to back    goal: at most 1.5x the
#       fault resolved in the target by a SIGSEGV handler (the "agent"
#       row, the in-process floor, measured in the same rounds)
#   paced loop: PACED writes, each after GAP iterations of arithmetic
#       (about 0.6 ms on an idle machine)    goal: at most 1.1x the
#       unwatched loop ("none")
# The tracer rows are also run with the whole bench on one CPU
# (taskset -c 0): tracer and target then never wake each other across
# CPUs.  It says which machine the figures are from.
#
# usage: bench/fault-designs.sh [rounds [writes [paced [gap]]]]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
writes=${2:-2000}
paced=${3:-200}
gap=${4:-400000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc -O2 -Wall -Wextra -Werror -pthread -o "$work/fd" "$top/bench/fault-designs.c" ||
	{ echo "fault-designs: cannot build bench/fault-designs.c" >&2; exit 1; }

modes="none tracer tracer@cpu0 spin traced-agent agent uffd-thread uffd-tracer"

# one MODE N GAP FILE: a run's ns_per_write and total_ns, appended to FILE
one() {
	local m=$1 pre=()
	case $m in *@cpu0) pre=(taskset -c 0); m=${m%@cpu0} ;; esac
	"${pre[@]+"${pre[@]}"}" "$work/fd" "$m" "$2" "$3" |
	    awk '{ print $3, $7 }' >> "$4" ||
		{ echo "fault-designs: $1 failed" >&2; exit 1; }
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load0=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 0; r < rounds; r++)); do
	# rotate the order each round so no mode always follows another
	set -- $modes
	for ((i = 0; i < r % $#; i++)); do set -- "${@:2}" "$1"; done
	for m in "$@"; do
		one "$m" "$writes" 0 "$work/t.$m"
		one "$m" "$paced" "$gap" "$work/p.$m"
	done
done

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
virt=$(systemd-detect-virt --vm 2> /dev/null || true)
[ -n "$virt" ] || { grep -qw hypervisor /proc/cpuinfo && virt="a hypervisor" || virt=none; }
echo "machine: $cpu, $(nproc) CPUs, kernel $(uname -r), virtualisation: $virt;"
echo "         load average $load0 at the start, $(cut -d' ' -f1 /proc/loadavg) at the end"
echo "medians of $rounds interleaved rounds, the writer's own clock"
floor=$(cut -d' ' -f1 "$work/t.agent" | median)
none=$(cut -d' ' -f2 "$work/p.none" | median)
pnone=$(cut -d' ' -f1 "$work/p.none" | median)
printf '%-13s %9s %9s %5s %10s %9s %5s %10s %9s\n' mode "tight us" "x agent" goal \
    "paced us" "x none" goal "paced ms" "x none"
for m in $modes; do
	t=$(cut -d' ' -f1 "$work/t.$m" | median)
	p=$(cut -d' ' -f1 "$work/p.$m" | median)
	tot=$(cut -d' ' -f2 "$work/p.$m" | median)
	awk -v m="$m" -v t="$t" -v f="$floor" -v p="$p" -v pn="$pnone" -v tot="$tot" \
	    -v none="$none" -v n="$paced" 'BEGIN {
		d = 1 + (p - pn) * n / none
		printf "%-13s %9.2f %8.2fx %5s %10.2f %8.3fx %5s %10.1f %8.2fx\n", m, t / 1000,
		    t / f, t / f <= 1.5 ? "met" : "not", p / 1000, d, d <= 1.1 ? "met" : "not",
		    tot / 1e6, tot / none }'
done
awk -v n="$none" -v p="$paced" 'BEGIN { printf "goals: tight at most 1.50x agent (the in-process floor, same rounds);\n       paced at most 1.10x none (%.0f us of work a write unwatched)\n", n / p / 1000 }'
echo "paced x none: first from the write's own latency, 1 + (latency - unwatched"
echo "latency) * writes / unwatched loop; then the whole loop's time against the"
echo "unwatched loop's, which the load on this machine moves more than the watch"
