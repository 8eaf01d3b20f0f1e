#!/bin/bash
# What --callchain costs, as ratios from one run.  One setter called N
# times from one caller (tests/targets/callers-fp: frame pointers kept,
# so every mode has real chains), timed by the target's own clock:
#   - per backend and mode, the target's time per hit watched with
#     --callchain, against the same watch without it (the median of
#     three runs each, taken in turns): perf and bpf, each with frame
#     pointers and with copied stacks, where breakpoints fire (the QEMU
#     guest: tests/vm/run-guest --bench callchain-cost), else ptrace;
#   - wp-decode on the hits with chains (each frame named; a copied
#     stack unwound), against `jq -c .` on the same.
# Counts are checked (every hit, each with a chain); losses are printed.
#
# usage: bench/callchain-cost.sh [hits]   (make first)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
PATH=$b:$PATH
n=${1:-3000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME [ARM-OPTION...]: the target's ns for n calls, watched with
# the options (none: unwatched); the watch's output in $work/NAME.
run() {
	local name=$1 pid
	shift
	"$b/targets/callers-fp" -a "$n" -b 0 -c 0 > "$work/$name.t" &
	pid=$!
	until [ -s "$work/$name.t" ]; do sleep 0.02; done
	if [ "$#" -gt 0 ]; then
		wp-resolve -p "$pid" wpt_counter |
			wp-arm -d 600s -n 100000000 "$@" > "$work/$name" &
		until grep -q '"type":"armed"' "$work/$name" 2>/dev/null; do
			sleep 0.02
		done
	fi
	kill -USR1 "$pid"
	wait
	awk '$1 == "ns" { print $2 }' "$work/$name.t"
}

# check NAME: hits counted, sampled, with a chain, lost
check() {
	jq -rs '[(.[] | select(.type=="observation") | .targets[0].counted // "-", .targets[0].lost // 0),
		([.[] | select(.type=="hit")] | length),
		([.[] | select(.type=="hit" and (has("callchain") or has("user_stack")))] | length)] |
		"counted \(.[0]), lost \(.[1]), hits \(.[2]), with a chain \(.[3])"' "$work/$1"
}

plain=$(run plain)
# where breakpoints fire (the guest, under TCG, where single-stepping
# crawls) the breakpoint backends; elsewhere ptrace
if wp-arm --check-bp > /dev/null 2>&1; then
	rows=("perf" "fp" "perf" "dwarf" "bpf" "fp" "bpf" "dwarf")
else
	rows=("ptrace" "")
	echo "(breakpoints do not fire here: ptrace only; run-guest --bench callchain-cost has the rest)"
fi
awk -v n="$n" -v p="$plain" 'BEGIN {
	printf "the target: %d calls of a setter, %.2f ms unwatched\n", n, p / 1e6 }'
printf '%-14s %12s %12s %8s\n' backend "ns/hit" "+callchain" ratio
for ((k = 0; k < ${#rows[@]}; k += 2)); do
	be=${rows[k]} mode=${rows[k + 1]}
	cc=(--callchain${mode:+=$mode})
	# three pairs, in turns; the median of each
	bs=() ws=()
	for r in 1 2 3; do
		bs+=("$(run "$be" --backend "$be")")
		ws+=("$(run "$be-cc$mode" --backend "$be" "${cc[@]}")")
	done
	base=$(printf '%s\n' "${bs[@]}" | sort -n | sed -n 2p)
	with=$(printf '%s\n' "${ws[@]}" | sort -n | sed -n 2p)
	awk -v p="$plain" -v a="$base" -v c="$with" -v n="$n" -v name="$be${mode:+ $mode}" 'BEGIN {
		x = (a - p) / n; y = (c - p) / n
		printf "%-14s %12.0f %12.0f %7.2fx\n", name, x, y, (x > 0 ? y / x : 0) }'
	echo "   without: $(check "$be")"
	echo "   with:    $(check "$be-cc$mode")"
done

# wp-decode over hits with chains, against jq -c . on the same lines:
# the captured hits repeated to about 200,000 lines (copied stacks, some
# 16 kB a line: 3,000)
for f in "$work"/ptrace-cc "$work"/perf-ccdwarf "$work"/bpf-ccdwarf; do
	[ -s "$f" ] || continue
	grep -v '"type":"hit"' "$f" | grep -v '"type":"observation"' > "$f.big"
	hits=$(grep -c '"type":"hit"' "$f")
	want=200000
	case $f in *dwarf) want=3000 ;; esac
	reps=$(( want / hits + 1 ))
	for ((r = 0; r < reps && r < 100000; r++)); do grep '"type":"hit"' "$f"; done >> "$f.big"
	lines=$(wc -l < "$f.big")
	t0=$EPOCHREALTIME; wp-decode "$f.big" > /dev/null; t1=$EPOCHREALTIME
	jq -c . "$f.big" > /dev/null; t2=$EPOCHREALTIME
	awk -v l="$lines" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v name="${f##*/}" 'BEGIN {
		d = t1 - t0; j = t2 - t1
		printf "wp-decode, %s hits: %.0f lines/s, %.1fx jq -c .\n",
		    name, l / d, j / d }'
done
