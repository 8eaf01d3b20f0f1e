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
# The tracer is also run with the whole bench on one CPU (tracer@cpu0,
# taskset -c 0): tracer and target then never wake each other across
# CPUs.  Then the same for a system call: bare, under the page backend's
# PTRACE_SYSCALL stops, caught by an agent's SIGSYS handler through
# Syscall User Dispatch.  It says which machine the figures are from,
# and what its kernel does with a userfaultfd write-protected page, with
# Syscall User Dispatch and with SIGSEGV blocked (bench/agent-facts.c).
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

[ "$(uname -m)" = x86_64 ] ||
	{ echo "fault-designs: x86-64 only (its store and agents are), not $(uname -m)" >&2; exit 1; }
for f in fault-designs agent-facts; do
	cc -O2 -Wall -Wextra -Werror -pthread -o "$work/$f" "$top/bench/$f.c" ||
		{ echo "fault-designs: cannot build bench/$f.c" >&2; exit 1; }
done

modes="none tracer tracer@cpu0 spin traced-agent agent agent+sud uffd-thread uffd-tracer"
sysmodes="sys-none sys-tracer sys-sud"

# one MODE N GAP FILE: a run's ns_per_write, total_ns and median_ns,
# appended to FILE; where this machine lacks what MODE needs, the reason
# in $work/skip.MODE and no more runs of it
one() {
	local m=$1 pre=() out rc=0
	[ ! -e "$work/skip.$m" ] || return 0
	case $m in *@cpu0) pre=(taskset -c 0); m=${m%@cpu0} ;; esac
	out=$("${pre[@]+"${pre[@]}"}" "$work/fault-designs" "$m" "$2" "$3" \
	    2> "$work/err") || rc=$?
	case $rc in
	0)	echo "$out" | awk '{ print $3, $7, $9 }' >> "$4" ;;
	77)	sed 's/^[^:]*: //' "$work/err" > "$work/skip.$1" ;;
	*)	echo "fault-designs: $1: $(cat "$work/err")" >&2; exit 1 ;;
	esac
}

# skipped MODE: says why MODE was not run, where it was not
skipped() {
	[ -e "$work/skip.$1" ] || return 1
	printf '%-13s not run here: %s\n' "$1" "$(cat "$work/skip.$1")"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load0=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 0; r < rounds; r++)); do
	# rotate the order each round so no mode always follows another
	set -- $modes $sysmodes
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
# col FILE N: the median of column N of FILE
col() {
	cut -d' ' -f"$2" "$1" | median
}
floor=$(col "$work/t.agent" 3)
none=$(col "$work/p.none" 2)
pnone=$(col "$work/p.none" 1)
printf '%-13s %7s %7s %8s %4s  %7s %7s %7s %4s %7s\n' "" tight tight "" "" paced paced "" "" "loop"
printf '%-13s %7s %7s %8s %4s  %7s %7s %7s %4s %7s\n' mode "mean" median "x agent" goal \
    mean median "x none" goal "x none"
for m in $modes; do
	skipped "$m" && continue
	awk -v m="$m" -v tm="$(col "$work/t.$m" 1)" -v t="$(col "$work/t.$m" 3)" -v f="$floor" \
	    -v pm="$(col "$work/p.$m" 1)" -v p="$(col "$work/p.$m" 3)" -v pn="$pnone" \
	    -v tot="$(col "$work/p.$m" 2)" -v none="$none" -v n="$paced" 'BEGIN {
		d = 1 + (pm - pn) * n / none
		printf "%-13s %7.2f %7.2f %7.2fx %4s  %7.2f %7.2f %6.3fx %4s %6.2fx\n", m,
		    tm / 1000, t / 1000, t / f, t / f <= 1.5 ? "met" : "not", pm / 1000,
		    p / 1000, d, d <= 1.1 ? "met" : "not", tot / none }'
done
awk -v n="$none" -v p="$paced" 'BEGIN { printf "(us a write; the paced loop: %.0f us of work a write unwatched)\n", n / p / 1000 }'
echo "goals: tight at most 1.50x agent (a store's median time resolved in the"
echo "       target, the in-process floor, in the same rounds); paced at most"
echo "       1.10x none, from the store's mean time: 1 + (mean - unwatched mean)"
echo "       * writes / unwatched loop (the mean is what the loop pays, a resolver"
echo "       that must wait for a CPU included; the median shows the resolution"
echo "       itself).  \"loop x none\": the whole paced loop's time against the"
echo "       unwatched one's, which load moves more than a watch"
echo "a system call (getppid) beside them, us a call, the same rounds: the page"
echo "backend's tracer stops at each call's entry and exit (PTRACE_SYSCALL);"
echo "an agent can catch calls with Syscall User Dispatch (SIGSYS in the target,"
echo "the call made again from the agent's code)"
printf '%-13s %7s %7s   %7s %7s\n' "" tight tight paced paced
printf '%-13s %7s %7s   %7s %7s\n' mode mean median mean median
for m in $sysmodes; do
	skipped "$m" && continue
	awk -v m="$m" -v tm="$(col "$work/t.$m" 1)" -v t="$(col "$work/t.$m" 3)" \
	    -v pm="$(col "$work/p.$m" 1)" -v p="$(col "$work/p.$m" 3)" 'BEGIN {
		printf "%-13s %7.2f %7.2f   %7.2f %7.2f\n", m, tm / 1000, t / 1000, pm / 1000, p / 1000 }'
done
echo "this kernel: a uffd write-protected page, Syscall User Dispatch, SIGSEGV blocked (bench/agent-facts.c):"
"$work/agent-facts" | sed 's/^/  /'
