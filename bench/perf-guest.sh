#!/bin/bash
# Runs inside the QEMU guest (tests/vm/run-guest --bench), where
# breakpoints fire.  Prints, from one run, first the ratios of issue 23
# with their goals beside them, then the rows they come from:
#   - the run time of a tight loop on three threads (tests/targets/stress,
#     one thread created after the go) unwatched, under each backend,
#     under perf record -c 1 and under the BPF tally floor (bench/
#     tally-floor: a BPF program on the same breakpoints that only
#     counts), the median of three runs each, with the counts of every
#     run (exact: the tallies and the kernel's count equal the target's
#     own, in every run) and where the last sample fell (its time after
#     the first, as a share of the loop's run time);
#   - the target's cost per hit, on one thread (bench/hit-loop), with
#     wp-arm attached (bpf, the default, and perf) as ratios to the
#     in-process breakpoint-sampling floor (bench/bp-floor.c), and gdb's
#     hardware watchpoint on the same loop;
#   - per backend, the highest write rate with exact counts and every
#     hit written (--all-hits).
# Absolute times under TCG mean nothing; the ratios are the result.
# bench/callchain-cost.sh runs alone: tests/vm/run-guest --bench
# callchain-cost.
set -u
B=${WP_BUILD:-/wp/build}
N=${WP_BENCH_HITS:-20000}
NG=${WP_BENCH_GDB_HITS:-300}
R=${WP_BENCH_ROUNDS:-500}
work=$(mktemp -d)
rows=$work/rows
: > "$rows"
# every hit sampled: an option of wp-arm builds from issue 23 on
all=()
wp-arm --help 2>&1 | grep -q -- --all-hits && all=(--all-hits)

# armed PID: waits until wp-arm (PID) has armed, or has ended
armed() {
	until grep -q '"type":"armed"' "$work/arm.out" 2>/dev/null || ! kill -0 "$1" 2> /dev/null; do
		sleep 0.05
	done
}

# prec PID ADDR: perf record -c 1 on PID's write breakpoint, its events
# enabled through its control fifo, which acknowledges: armed on return
# (a fixed sleep let the loop start before it now and then); pid in $rp
prec() {
	rm -f "$work/ctl" "$work/ack"
	mkfifo "$work/ctl" "$work/ack"
	perf record -q -D -1 --control "fifo:$work/ctl,$work/ack" -e "mem:$2:w" \
	    -c 1 -p "$1" -o "$work/perf.data" > /dev/null 2>&1 &
	rp=$!
	echo enable > "$work/ctl"
	read -r _ < "$work/ack"
}

# floor_on PID ADDR: the BPF tally floor on PID; returns once armed; its
# pid in $fl, its output in $work/floor.out
floor_on() {
	"$B/bench/tally-floor" "$1" "$2" 8 "$B/bench/tally-floor.bpf.o" > "$work/floor.out" &
	fl=$!
	until grep -q armed "$work/floor.out" 2>/dev/null || ! kill -0 "$fl" 2> /dev/null; do
		sleep 0.05
	done
}

# loop_ns N SPIN [BACKEND [wp-arm ARGS]]: the loop's time, unwatched or
# under wp-arm (or the BPF tally floor: BACKEND floor); wp-arm's counts
# into $work/counts
loop_ns() {
	local out=$work/loop.out pid n=$1 spin=$2 be=${3:-}
	shift 2
	[ $# -gt 0 ] && shift
	# the last run's line would let the go out before the signal is blocked
	rm -f "$work/arm.out" "$out"
	"$B/bench/hit-loop" "$n" "$spin" > "$out" &
	pid=$!
	until [ -s "$out" ]; do sleep 0.05; done
	if [ "$be" = floor ]; then
		floor_on "$pid" "$(awk '{ print $2 }' "$out")"
		kill -USR1 "$pid"
		wait
	elif [ -n "$be" ]; then
		wp-resolve -p "$pid" hitvar | wp-arm --backend "$be" -d 600s \
		    -n 100000000 "$@" > "$work/arm.out" &
		armed $!
		kill -USR1 "$pid"
		wait
		jq -rs '(map(select(.type=="observation"))[0]) as $o |
		    "\($o.targets[0].counted) \(map(select(.type=="hit")) | length) \($o.lost_events.total)"' \
		    "$work/arm.out" > "$work/counts"
	else
		kill -USR1 "$pid"
		wait "$pid"
	fi
	awk '/^ns/ { print $2 }' "$out"
}

# stress_run HOW [wp-arm ARGS]: HOW is none, perf-record, floor or wp;
# prints "ns writes counted hits tallied span" of one run (- where not
# known; span: the last sample's time after the first, per cent of the
# loop's run time)
stress_run() {
	local how=$1 out=$work/s.out pid addr rp fl
	shift
	rm -f "$out" "$work/arm.out" "$work/floor.out"
	"$B/targets/stress" -t 2 -r "$R" > "$out" &
	pid=$!
	until [ -s "$out" ]; do sleep 0.05; done
	addr=$(head -n 1 "$out" | jq -r .stress)
	case $how in
	none)
		kill -USR1 "$pid"; wait "$pid" ;;
	perf-record)
		prec "$pid" "$addr"
		kill -USR1 "$pid"; wait "$pid"
		kill -INT "$rp" 2> /dev/null; wait "$rp" ;;
	floor)
		floor_on "$pid" "$addr"
		kill -USR1 "$pid"; wait "$pid"; wait "$fl" ;;
	wp)
		wp-resolve -p "$pid" -l 8 "$addr" | wp-arm -d 600s -n 100000000 "$@" > "$work/arm.out" &
		armed $!
		kill -USR1 "$pid"; wait ;;
	esac
	local ns w
	ns=$(awk '$1 == "ns" { print $2 }' "$out")
	w=$(awk '$1 == "writes" { print $2 }' "$out")
	printf '%s %s ' "$ns" "$w"
	case $how in
	wp)
		jq -rs --argjson ns "$ns" '(map(select(.type=="observation"))[0]) as $o |
		    (map(select(.type=="hit")) | map(.time_ns)) as $t |
		    [$o.targets[0].counted, ($t | length),
		     (map(select(.type=="tally")) | group_by([.ip, .tid]) | map(last.hits) | add // "-"),
		     (if ($t | length) > 1 then (($t | max) - ($t | min)) * 100 / $ns | floor else "-" end)] |
		    map(tostring) | join(" ")' "$work/arm.out" ;;
	floor)
		awk '$1 == "tallied" { print $4, "-", $2, "-" }' "$work/floor.out" ;;
	perf-record)
		echo "- $(perf script -i "$work/perf.data" -F ip 2> /dev/null | wc -l) - -" ;;
	*)
		echo "- - - -" ;;
	esac
}

# row NAME HOW [wp-arm ARGS]: three runs; the median's time into $work/t.NAME,
# a line into $rows; exact: every run's tallies (else samples) and count
# equal the target's writes
row() {
	local name=$1 i line t w c h y s ok=yes hs=""
	shift
	: > "$work/runs"
	for i in 1 2 3; do
		line=$(stress_run "$@")
		echo "$line" >> "$work/runs"
		read -r t w c h y s <<< "$line"
		hs="$hs $h"
		case $1 in
		none) ;;
		perf-record) [ "$h" = "$w" ] || ok=no ;;
		# per-writer counts: the tallies, else (perf) the samples
		*) { [ "$c" = "$w" ] && { [ "$y" = "$w" ] ||
		    { [ "$y" = - ] && [ "$h" = "$w" ]; }; }; } || ok=no ;;
		esac
	done
	line=$(sort -n "$work/runs" | sed -n 2p)
	read -r t w c h y s <<< "$line"
	echo "$t" > "$work/t.$name"
	echo "$s" > "$work/span.$name"
	echo "$ok" > "$work/exact.$name"
	printf '  %-22s %12s  writes %s counted %s hits %s tallied %s span %s%%  exact %s\n' \
	    "$name" "$t" "$w" "$c" "$h" "$y" "$s" "$ok" >> "$rows"
	[ "$ok" = yes ] || echo "    hits of each run:$hs" >> "$rows"
}

row unwatched none
row floor floor
row bpf wp --backend bpf
row bpf-regs wp --backend bpf --regs
row perf wp --backend perf
row perf-regs wp --backend perf --regs
if command -v perf > /dev/null; then
	row perf-record perf-record
fi

# per hit, one thread: the median of three runs each, taken in turns
# med FILE: the median of the numbers in FILE
med() { sort -n "$1" | sed -n 2p; }
# floor_cost COMMAND...: ns per hit of one in-process floor run (its
# loop with the breakpoint, less the same loop before it was armed: after
# the close, TCG runs it as slowly as with the breakpoint), its samples
floor_cost() {
	"$@" | awk -v n="$N" '
	    $1 == "ns" { t = $2; s = $4 } $1 == "before" { p = $2 }
	    END { printf "%.0f %d\n", (t - p) / n, s }'
}
: > "$work/plain"; : > "$work/wbpf"; : > "$work/wperf"; : > "$work/fl"; : > "$work/flwp"
: > "$work/tfl"
for i in 1 2 3; do
	loop_ns "$N" 0 >> "$work/plain"
	loop_ns "$N" 0 floor >> "$work/tfl"
	loop_ns "$N" 0 bpf >> "$work/wbpf"; read -r bc bh bl < "$work/counts"
	loop_ns "$N" 0 perf >> "$work/wperf"; read -r pc ph pl < "$work/counts"
	floor_cost "$B/bench/bp-floor" "$N" >> "$work/fl"
	# the same in-process floor with wp-arm's event attributes (clock,
	# cpu, inherit)
	floor_cost taskset -c 0 "$B/bench/bp-floor" "$N" wp >> "$work/flwp"
done
plain=$(med "$work/plain")
wbpf=$(med "$work/wbpf")
wperf=$(med "$work/wperf")
tfloor=$(med "$work/tfl")
read -r fc floor_samples < <(sort -n "$work/fl" | sed -n 2p)
fcw=$(sort -n "$work/flwp" | sed -n 2p | cut -d' ' -f1)

gdb_cost=""
if [ "$NG" -gt 0 ] && command -v gdb > /dev/null; then
	out=$work/g.out
	"$B/bench/hit-loop" "$NG" 0 > "$out" &
	pid=$!
	until [ -s "$out" ]; do sleep 0.05; done
	cat > "$work/g.gdb" <<GDB
set can-use-hw-watchpoints 1
watch hitvar
commands
silent
continue
end
shell kill -USR1 $pid
continue
GDB
	gdb -q -nx -batch -p "$pid" -x "$work/g.gdb" > "$work/gdb.log" 2>&1
	wait "$pid"
	gdb_ns=$(awk '/^ns/ { print $2 }' "$out")
	gplain=$(loop_ns "$NG" 0)
	if [ -n "$gdb_ns" ] && grep -q 'Hardware watchpoint' "$work/gdb.log"; then
		gdb_cost=$(( (gdb_ns - gplain) / NG ))
	fi
fi

t() { cat "$work/t.$1" 2> /dev/null || echo 0; }
echo "issue 23 ratios (goal beside each; three-thread loop $((R * 12)) writes, median of 3):"
awk -v f="$(t floor)" -v b="$(t bpf)" -v br="$(t bpf-regs)" -v p="$(t perf)" \
    -v pr="$(t perf-record)" -v u="$(t unwatched)" \
    -v n="$N" -v pl="$plain" -v wb="$wbpf" -v wp="$wperf" -v fc="$fc" -v tf="$tfloor" 'BEGIN {
	if (f > 0) {
		printf "  wp-arm bpf / BPF tally floor:          %5.2f  (goal <= 1.25)\n", b / f
		printf "  wp-arm bpf --regs / BPF tally floor:   %5.2f  (goal <= 1.50)\n", br / f
	}
	if (pr > 0) {
		printf "  wp-arm bpf / perf record -c 1:         %5.2f  (goal < 1)\n", b / pr
		printf "  wp-arm perf / perf record -c 1:        %5.2f  (goal <= 1)\n", p / pr
	}
	if (fc > 0) {
		printf "  per hit, wp-arm (bpf) / in-process floor:  %5.2f  (goal <= 3)\n", (wb - pl) / n / fc
		printf "  per hit, wp-arm perf / in-process floor:   %5.2f  (goal <= 3)\n", (wp - pl) / n / fc
		# the part of the kernel: a BPF program that only counts, on the
		# same breakpoint; wp-arm bpf runs one, so cannot go below it
		k = (tf - pl) / n / fc
		printf "  per hit, BPF tally floor / in-process floor: %5.2f  (the kernel'"'"'s part: ", k
		if (k > 3)
			printf "above 3, the goal is out of reach of any BPF backend)\n"
		else
			printf "wp-arm bpf adds %.2f)\n", (wb - pl) / n / fc - k
	}
	if (u > 0)
		printf "  vs unwatched: floor %.1fx, bpf %.1fx, bpf --regs %.1fx, perf %.1fx, perf record %.1fx\n",
		    f / u, b / u, br / u, p / u, pr / u
}'
ex=yes
for k in floor bpf bpf-regs perf perf-regs; do
	[ "$(cat "$work/exact.$k")" = yes ] || ex=no
done
echo "  counts exact on every run of every wp-arm and floor row: $ex (goal yes)"
[ -f "$work/exact.perf-record" ] &&
	echo "  perf record -c 1 sampled every write on every run: $(cat "$work/exact.perf-record")"
for k in bpf bpf-regs perf perf-regs; do
	s=$(cat "$work/span.$k")
	printf '  %-10s last sample at %s%% of the loop (goal >= 90)\n' "$k" "$s"
done
echo
echo "a tight loop on three threads, $((R * 12)) writes (ns of guest time, median of 3):"
cat "$rows"
echo
awk -v n="$N" -v p="$plain" -v wb="$wbpf" -v wp="$wperf" -v fc="$fc" -v tf="$tfloor" \
    -v fs="$floor_samples" -v fw="$fcw" -v g="$gdb_cost" 'BEGIN {
	printf "cost per hit, one thread, %d writes, ns of guest time, median of 3 (floor sampled %d):\n", n, fs
	printf "  in-process breakpoint sampling (floor): %9.0f\n", fc
	printf "  the floor with wp-arm'"'"'s attributes:    %9.0f\n", fw
	printf "  with the BPF tally floor attached:      %9.0f\n", (tf - p) / n
	printf "  with wp-arm (bpf) attached:             %9.0f\n", (wb - p) / n
	printf "  with wp-arm --backend perf attached:    %9.0f\n", (wp - p) / n
	if (g != "") printf "  gdb hardware watchpoint:                %9.0f\n", g
}'
echo "  counts: bpf counted $bc, hits written $bh, lost $bl; perf counted $pc, hits $ph, lost $pl"

# highest_rate BACKEND: the fastest loop (hit-loop) with exact counts
# and every hit written
highest_rate() {
	local best=0 spin ns c h l rate
	for spin in 3000 1000 300 100 30 10 0; do
		ns=$(loop_ns 20000 "$spin" "$1" "${all[@]}")
		read -r c h l < "$work/counts"
		rate=$(awk -v n=20000 -v t="$ns" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
		echo "  $1: $rate writes/s (spin $spin): counted $c, hits $h"
		if [ "$c" = 20000 ] && [ "$h" = 20000 ]; then best=$rate; else break; fi
	done
	echo "  $1: highest rate with exact counts and every hit written: $best writes/s"
}
echo
echo "the highest write rate each backend keeps up with (20000 writes, one thread, ${all[*]:-every hit}):"
highest_rate bpf
highest_rate perf

# issue 24: --last 64 on bpf (the program keeps every hit in a map ring)
# against the bpf tally alone (the row bpf above), on the same loop
last_cost() {
	row bpf-last64 wp --backend bpf --last 64
	echo
	echo "issue 24, the flight recorder (three-thread loop, median of 3):"
	awk -v b="$(t bpf)" -v l="$(t bpf-last64)" 'BEGIN { if (b > 0)
	    printf "  wp-arm bpf --last 64 / wp-arm bpf:     %5.2f  (goal <= 1.10)\n", l / b }'
	sed -n '/^  bpf-last64 /,$p' "$rows"
}
last_cost
rm -rf "$work"
