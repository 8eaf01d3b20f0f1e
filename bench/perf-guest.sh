#!/bin/bash
# Runs inside the QEMU guest (tests/vm/run-guest --bench), where
# breakpoints fire.  Prints, from one run, first the ratios of issues 23
# and 24 with their goals beside them, then the rows they come from:
#   - the run time of a tight loop on three threads (tests/targets/stress,
#     one thread created after the go) unwatched, under each backend (and
#     bpf with --regs, with an --if that matches none of its writes, with
#     --last 64), under perf record -c 1 and under the BPF tally floor
#     (bench/tally-floor: a BPF program on the same breakpoints that only
#     counts; and, to tell where wp-arm's cost goes, the floor on wp-arm's
#     events, and wp-arm's program on the floor's, with the programs' own
#     time per run), K runs each (9; wp-arm perf and perf record 2K,
#     the two alone in the rounds after the first K), the
#     rows interleaved round by round; each ratio the median of the
#     rounds' ratios, with the lowest and highest, in wall time and in
#     the target's own CPU time, and the ratio of the fastest runs; with the counts of every run (exact: the
#     tallies and the kernel's count equal the target's own, in every
#     run) and where the last sample fell (its time after the first, as
#     a share of the loop's run time);
#     under the table, each run whose counts were not exact, with its
#     figures and which count was over (extra traps) or under (lost);
#   - the target's cost per hit, on one thread (bench/hit-loop), with
#     wp-arm attached (bpf, the default, and perf) and with perf record
#     -c 1 as ratios to the in-process breakpoint-sampling floor
#     (bench/bp-floor.c), and gdb's hardware watchpoint on the same loop;
#   - per backend, the highest write rate with exact counts and every
#     hit written (--all-hits).
# Absolute times under TCG mean nothing; the ratios are the result.
# bench/callchain-cost.sh runs alone: tests/vm/run-guest --bench
# callchain-cost.
set -u
B=${WP_BUILD:-/wp/build}
N=${WP_BENCH_HITS:-20000}
NG=${WP_BENCH_GDB_HITS:-300}
R=${WP_BENCH_ROUNDS:-1000}
K=${WP_BENCH_REPEAT:-9}
work=$(mktemp -d)
# the BPF programs' run time (kernel.bpf_stats: two clock reads a run,
# on every row alike), for the floors' rows
echo 1 > /proc/sys/kernel/bpf_stats_enabled 2> /dev/null
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

# floor_on PID ADDR [OBJ [wpev]]: the BPF tally floor on PID (or, OBJ
# wp-arm's program, and wpev wp-arm's events: bench/tally-floor.c);
# returns once armed; its pid in $fl, its output in $work/floor.out
floor_on() {
	"$B/bench/tally-floor" "$1" "$2" 8 "${3:-$B/bench/tally-floor.bpf.o}" \
	    ${4:+"$4"} > "$work/floor.out" &
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
	elif [ "$be" = perf-record ]; then
		prec "$pid" "$(awk '{ print $2 }' "$out")"
		kill -USR1 "$pid"
		wait "$pid"
		kill -INT "$rp" 2> /dev/null
		wait "$rp"
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

# stress_run HOW [ARGS]: HOW is none, perf-record, floor (ARGS: those
# of floor_on after ADDR) or wp (ARGS: wp-arm's); prints "ns cpu
# switches writes counted hits tallied span [prog]" of one run (the target's
# wall and CPU time and context switches, from its own clock and
# getrusage; - where not known; span: the last sample's time after the
# first, per cent of the loop's run time; prog, the floor's: its
# program's ns per run, kernel.bpf_stats)
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
		floor_on "$pid" "$addr" "$@"
		kill -USR1 "$pid"; wait "$pid"; wait "$fl" ;;
	wp)
		wp-resolve -p "$pid" -l 8 "$addr" | wp-arm -d 600s -n 100000000 "$@" > "$work/arm.out" &
		armed $!
		kill -USR1 "$pid"; wait ;;
	esac
	awk '$1 == "ns" || $1 == "cpu_ns" || $1 == "switches" || $1 == "writes" { v[$1] = $2 }
	    END { printf "%s %s %s %s ", v["ns"], v["cpu_ns"], v["switches"], v["writes"] }' "$out"
	case $how in
	wp)
		jq -rs --argjson ns "$(awk '$1 == "ns" { print $2 }' "$out")" '
		    (map(select(.type=="observation"))[0]) as $o |
		    (map(select(.type=="hit")) | map(.time_ns)) as $t |
		    [$o.targets[0].counted // "-", ($t | length),
		     (map(select(.type=="tally")) | group_by([.ip, .tid]) | map(last.hits) | add // "-"),
		     (if ($t | length) > 1 then (($t | max) - ($t | min)) * 100 / $ns | floor else "-" end)] |
		    map(tostring) | join(" ")' "$work/arm.out" 2> /dev/null || echo "- - - -" ;;
	floor)
		awk '$1 == "tallied" { print $4, "-", $2, "-", ($8 > 0 ? $6 / $8 : "-") }' \
		    "$work/floor.out" ;;
	perf-record)
		echo "- $(perf script -i "$work/perf.data" -F ip 2> /dev/null | wc -l) - -" ;;
	*)
		echo "- - - -" ;;
	esac
}

# run_row NAME: one run of row NAME (stress_run's line)
run_row() {
	case $1 in
	unwatched)	stress_run none ;;
	floor)		stress_run floor ;;
	floor-wpev)	stress_run floor "$B/bench/tally-floor.bpf.o" wpev ;;
	floor-wpprog)	stress_run floor "$B/bench/wp.bpf.o" ;;
	bpf)		stress_run wp --backend bpf ;;
	bpf-regs)	stress_run wp --backend bpf --regs ;;
	bpf-if)		stress_run wp --backend bpf --if 'value == 1' ;;
	bpf-last)	stress_run wp --backend bpf --last 64 ;;
	perf)		stress_run wp --backend perf ;;
	perf-regs)	stress_run wp --backend perf --regs ;;
	perf-record)	stress_run perf-record ;;
	esac
}

# The rows, K rounds, interleaved: each round runs every row once, its
# order turned by one each round; a line "ROUND ns cpu switches writes
# counted hits tallied span" per run into $work/run.NAME.
rows_list="unwatched floor floor-wpev floor-wpprog bpf bpf-regs bpf-if perf perf-regs"
# --last on bpf: its row where wp-arm takes it
last_why=""
if wp-arm --help 2>&1 | grep -q -- '--last'; then
	last_why=$(stress_run wp --backend bpf --last 64 2>&1 >/dev/null | head -n 1)
	[ -z "$last_why" ] && rows_list="$rows_list bpf-last"
fi
command -v perf > /dev/null && rows_list="$rows_list perf-record"
read -r -a rowv <<< "$rows_list"
for k in "${rowv[@]}"; do : > "$work/run.$k"; done
for ((r = 0; r < K; r++)); do
	for ((j = 0; j < ${#rowv[@]}; j++)); do
		k=${rowv[(j + r) % ${#rowv[@]}]}
		echo "$r $(run_row "$k")" >> "$work/run.$k"
	done
done
# wp-arm perf against perf record, whose margin is the narrowest: KP
# rounds in all, the two rows alone in the rounds after the first K,
# their order turned each round
KP=${WP_BENCH_PERF_REPEAT:-$((2 * K))}
if [ -e "$work/run.perf-record" ]; then
	for ((r = K; r < KP; r++)); do
		order="perf perf-record"
		[ $((r % 2)) = 1 ] && order="perf-record perf"
		for k in $order; do
			echo "$r $(run_row "$k")" >> "$work/run.$k"
		done
	done
fi

# inexact NAME: a line per run of row NAME whose counts are not the
# target's writes, with its figures and each count that differs, over
# (more: extra traps, as TCG raises spurious ones) or under (fewer:
# lost).  Exact are the tallies and the kernel's count (else, perf, the
# samples; perf record: its samples).
inexact() {
	awk -v k="$1" '
	    function off(name, v) {
		if (v == w) return
		why = why (why == "" ? "" : ", ")
		if (v == "-" || v == "")
			why = why name " unknown"
		else if (v + 0 > w + 0) {
			why = why sprintf("%s %d over", name, v - w); over = 1
		} else {
			why = why sprintf("%s %d under", name, w - v); under = 1
		}
	    }
	    { w = $5; c = $6; h = $7; y = $8; why = ""; over = under = 0
		if (k == "unwatched") next
		if (k == "perf-record") off("samples", h)
		else {
			off("counted", c)
			if (y == "-") off("hits", h); else off("tallied", y)
		}
		if (why == "") next
		if (over) why = why "; over: extra traps (TCG raises spurious ones)"
		if (under) why = why "; under: lost"
		printf "  %-13s round %s: writes %s counted %s hits %s tallied %s: %s\n",
		    k, $1, w, c, h, y, why }' "$work/run.$1"
}

# exact NAME: yes when every run of row NAME has its counts (inexact)
exact() {
	if [ -s "$work/run.$1" ] && [ -z "$(inexact "$1")" ]; then
		echo yes
	else
		echo no
	fi
}

# stat A [B [F]]: the median of field F (2: ns, default; 3: cpu; 4:
# switches; 9: span) of row A's runs, or of their ratios to row B's in
# the same round, with the lowest and highest: "MED LO HI" (- - -: none)
stat() {
	awk -v f="${3:-2}" -v b="${2:-}" '
	    FILENAME != ARGV[ARGC - 1] { base[$1] = $f; next }
	    $f != "-" && $f != "" && (b == "" || base[$1] > 0) {
		v[n++] = b == "" ? $f : $f / base[$1] }
	    END {
		if (n == 0) { print "- - -"; exit }
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
		print m, v[0], v[n - 1] }' ${2:+"$work/run.$2"} "$work/run.$1"
}

# fastest A B: A's fastest run (wall) over B's, B's from the rounds A
# ran (perf record runs more rounds than the other rows)
fastest() {
	awk 'FILENAME == ARGV[1] { in_a[$1] = 1; if (a == "" || $2 < a) a = $2; next }
	    ($1 in in_a) && (b == "" || $2 < b) { b = $2 }
	    END { print (b > 0) ? a / b : "-" }' "$work/run.$1" "$work/run.$2"
}

# ratio_line LABEL A B GOAL: A / B, wall and cpu, median [lo-hi], and
# the fastest run's wall time of A over B's (a loaded host only ever
# adds time)
ratio_line() {
	local wm wl wh cm cl ch fa fb
	[ -s "$work/run.$2" ] && [ -s "$work/run.$3" ] || return 0
	read -r wm wl wh < <(stat "$2" "$3" 2)
	read -r cm cl ch < <(stat "$2" "$3" 3)
	[ "$wm" = - ] && return 0
	LC_ALL=C printf '  %-36s %5.2f [%4.2f-%4.2f] %5.2f  %5.2f [%4.2f-%4.2f]  %s\n' \
	    "$1" "$wm" "$wl" "$wh" "$(fastest "$2" "$3")" \
	    "$cm" "$cl" "$ch" "$4"
}

# per hit, one thread: the median of five runs each, taken in turns
KH=5
# med FILE: the median of the numbers in FILE
med() { sort -n "$1" | sed -n "$(( (KH + 1) / 2 ))p"; }
# floor_cost COMMAND...: ns per hit of one in-process floor run (its
# loop with the breakpoint, less the same loop before it was armed: after
# the close, TCG runs it as slowly as with the breakpoint), its samples
floor_cost() {
	"$@" | awk -v n="$N" '
	    $1 == "ns" { t = $2; s = $4 } $1 == "before" { p = $2 }
	    END { printf "%.0f %d\n", (t - p) / n, s }'
}
: > "$work/plain"; : > "$work/wbpf"; : > "$work/wperf"; : > "$work/fl"; : > "$work/flwp"
: > "$work/tfl"; : > "$work/prh"
for ((i = 0; i < KH; i++)); do
	loop_ns "$N" 0 >> "$work/plain"
	loop_ns "$N" 0 floor >> "$work/tfl"
	loop_ns "$N" 0 bpf >> "$work/wbpf"; read -r bc bh bl < "$work/counts"
	loop_ns "$N" 0 perf >> "$work/wperf"; read -r pc ph pl < "$work/counts"
	command -v perf > /dev/null && loop_ns "$N" 0 perf-record >> "$work/prh"
	floor_cost "$B/bench/bp-floor" "$N" >> "$work/fl"
	# the same in-process floor with wp-arm's event attributes (clock,
	# cpu, inherit)
	floor_cost taskset -c 0 "$B/bench/bp-floor" "$N" wp >> "$work/flwp"
done
plain=$(med "$work/plain")
wbpf=$(med "$work/wbpf")
wperf=$(med "$work/wperf")
tfloor=$(med "$work/tfl")
prhit=$([ -s "$work/prh" ] && med "$work/prh")
read -r fc floor_samples < <(med "$work/fl")
fcw=$(med "$work/flwp" | cut -d' ' -f1)

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

echo "guest clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null)"
echo "issue 23 and 24 ratios: one guest run; the three-thread loop ($((R * 12)) writes) run $K times"
echo "(wp-arm perf and perf record: $KP times, the two alone in the rounds after the first $K)"
echo "under each row, the rows interleaved; each figure the median of the $K same-round ratios"
echo "[lowest-highest].  wall: the loop's run time (what the goals are set in); cpu: the target's"
echo "own CPU time (user and system, all its threads, from its getrusage: the kernel's work at"
echo "each trap is in it, the watcher's is not); fastest: the ratio of the rows' fastest runs"
echo "(wall; a loaded host only ever adds time)."
echo "                                          wall         fastest  cpu                goal"
ratio_line "wp-arm bpf / BPF tally floor" bpf floor "<= 1.25"
ratio_line "wp-arm bpf --regs / BPF tally floor" bpf-regs floor "<= 1.50"
ratio_line "wp-arm bpf / perf record -c 1" bpf perf-record "< 1"
ratio_line "wp-arm perf / perf record -c 1" perf perf-record "<= 1"
ratio_line "bpf --if (matches none) / bpf" bpf-if bpf "<= 1.05 (issue 24)"
ratio_line "bpf --last 64 / bpf" bpf-last bpf "<= 1.10 (issue 24)"
[ -n "$last_why" ] && echo "  bpf --last 64 / bpf: not run: $last_why"
awk -v n="$N" -v pl="$plain" -v wb="$wbpf" -v wp="$wperf" -v fc="$fc" -v tf="$tfloor" -v pr="$prhit" 'BEGIN {
	if (fc <= 0)
		exit
	printf "  per hit, one thread, median of 5 (the in-process floor: bench/bp-floor.c):\n"
	printf "  %-38s %5.2f   %s\n", "wp-arm bpf / in-process floor", (wb - pl) / n / fc, "<= 3"
	printf "  %-38s %5.2f   %s\n", "wp-arm perf / in-process floor", (wp - pl) / n / fc, "<= 3"
	if (pr != "")
		printf "  %-38s %5.2f   (every hit through a ring, as wp-arm perf)\n", "perf record -c 1 / in-process floor", (pr - pl) / n / fc
	# the kernel'"'"'s part: a BPF program that only counts, on the same
	# breakpoint; wp-arm bpf runs one, so cannot go below it
	printf "  %-38s %5.2f   (the kernel'"'"'s part)\n", "BPF tally floor / in-process floor", (tf - pl) / n / fc
}'
ex=yes
for k in "${rowv[@]}"; do
	case $k in unwatched|perf-record|bpf-last) continue ;; esac
	[ "$(exact "$k")" = yes ] || ex=no
done
echo "  counts exact on every run of every wp-arm and floor row: $ex (goal yes)"
[ -s "$work/run.perf-record" ] &&
	echo "  perf record -c 1 sampled every write on every run: $(exact perf-record)"
for k in bpf bpf-regs perf perf-regs; do
	printf '  %-10s last sample at %s%% of the loop (median; goal >= 90)\n' "$k" \
	    "$(stat "$k" "" 9 | cut -d' ' -f1)"
done
echo
echo "where wp-arm bpf's cost over the floor goes (same rounds, same figures):"
ratio_line "floor on wp-arm's events / floor" floor-wpev floor "(per thread and CPU, its attributes)"
ratio_line "wp-arm's program / floor's program" floor-wpprog floor "(on the floor's events)"
ratio_line "wp-arm bpf / wp-arm's program alone" bpf floor-wpprog "(the watcher's own share)"
echo "  the program's own time per hit (kernel.bpf_stats, median): the floor's" \
    "$(stat floor "" 10 | cut -d' ' -f1 | cut -d. -f1) ns," \
    "wp-arm's $(stat floor-wpprog "" 10 | cut -d' ' -f1 | cut -d. -f1) ns"
echo
echo "the three-thread loop, $((R * 12)) writes, per row: guest ns, median [lowest-highest] of $K;"
echo "the target's CPU ns and context switches (medians), counts of the median-time run:"
for k in "${rowv[@]}"; do
	read -r wm wl wh < <(stat "$k" "" 2)
	read -r cm _ _ < <(stat "$k" "" 3)
	read -r sm _ _ < <(stat "$k" "" 4)
	read -r _ _ _ _ w c h y sp _ < <(sort -k2,2n "$work/run.$k" | sed -n "$(( (K + 1) / 2 ))p")
	LC_ALL=C printf '  %-13s %11.0f [%.0f-%.0f] cpu %11.0f sw %4.0f  writes %s counted %s hits %s tallied %s span %s%%  exact %s\n' \
	    "$k" "$wm" "$wl" "$wh" "$cm" "$sm" "$w" "$c" "$h" "$y" "$sp" "$(exact "$k")"
done
# the runs behind each "exact no": which count was off, and which way
inexact_runs=$(for k in "${rowv[@]}"; do inexact "$k"; done)
if [ -n "$inexact_runs" ]; then
	echo "the runs whose counts were not the target's writes (each row's \"exact no\"):"
	echo "$inexact_runs"
fi
echo
awk -v n="$N" -v p="$plain" -v wb="$wbpf" -v wp="$wperf" -v fc="$fc" -v tf="$tfloor" \
    -v pr="$prhit" -v fs="$floor_samples" -v fw="$fcw" -v g="$gdb_cost" 'BEGIN {
	printf "cost per hit, one thread, %d writes, ns of guest time, median of 5 (floor sampled %d):\n", n, fs
	printf "  in-process breakpoint sampling (floor): %9.0f\n", fc
	printf "  the floor with wp-arm'"'"'s attributes:    %9.0f\n", fw
	printf "  with the BPF tally floor attached:      %9.0f\n", (tf - p) / n
	printf "  with wp-arm (bpf) attached:             %9.0f\n", (wb - p) / n
	printf "  with wp-arm --backend perf attached:    %9.0f\n", (wp - p) / n
	if (pr != "") printf "  with perf record -c 1 attached:         %9.0f\n", (pr - p) / n
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

rm -rf "$work"
