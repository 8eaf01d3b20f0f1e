#!/bin/bash
# Runs inside the QEMU guest (tests/vm/run-guest --bench), where
# breakpoints fire.  Prints, from one run:
#   - the run time of a tight loop on three threads (tests/targets/stress)
#     unwatched and under each backend, perf record and the in-process
#     BPF tally floor (bench/bpf-floor), as ratios, with the counts;
#   - per backend, the highest write rate with exact counts and no lost
#     sample;
#   - the target's cost per hit with wp-arm attached, as ratios to the
#     in-process breakpoint-sampling floor (bench/bp-floor.c) and to
#     gdb's hardware watchpoint on the same loop;
#   - the highest hit rate with zero lost records for the default ring.
# Absolute times under TCG mean nothing; the ratios are the result.
set -u
B=${WP_BUILD:-/wp/build}
N=${WP_BENCH_HITS:-20000}
NG=${WP_BENCH_GDB_HITS:-300}
work=$(mktemp -d)

# loop_ns N SPIN [watch]: the loop's time, unwatched or under wp-arm
loop_ns() {
	local out=$work/loop.out pid
	"$B/bench/hit-loop" "$1" "$2" > "$out" &
	pid=$!
	until [ -s "$out" ]; do sleep 0.05; done
	if [ "${3:-}" = watch ]; then
		rm -f "$work/arm.out"
		wp-resolve -p "$pid" hitvar | wp-arm --backend perf -d 600s -n 100000000 > "$work/arm.out" &
		until grep -q '"type":"armed"' "$work/arm.out" 2>/dev/null; do sleep 0.05; done
		kill -USR1 "$pid"
		wait
		jq -r 'select(.type=="observation") | "\(.accepted_hits) \(.lost_events.total) \(.stop_reason)"' \
			"$work/arm.out" > "$work/counts"
	else
		kill -USR1 "$pid"
		wait "$pid"
	fi
	awk '/^ns/ { print $2 }' "$out"
}

plain=$(loop_ns "$N" 0)
watched=$(loop_ns "$N" 0 watch)
read -r wp_hits wp_lost _ < "$work/counts"
read -r _ floor_ns _ floor_samples < <("$B/bench/bp-floor" "$N" | head -n 1)
floor_plain=$("$B/bench/bp-floor" "$N" | awk '/^plain/ { print $2 }')
# the same in-process floor with wp-arm's event attributes (clock, cpu, inherit)
read -r _ floorwp_ns _ _ < <(taskset -c 0 "$B/bench/bp-floor" "$N" wp | head -n 1)

gdb_cost=""
if command -v gdb > /dev/null; then
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
	else
		echo "gdb: no hardware watchpoint result:"; tail -n 5 "$work/gdb.log"
	fi
fi

awk -v n="$N" -v p="$plain" -v w="$watched" -v f="$floor_ns" -v fp="$floor_plain" \
    -v fs="$floor_samples" -v fw="$floorwp_ns" -v g="$gdb_cost" -v wh="$wp_hits" -v wl="$wp_lost" 'BEGIN {
	wc = (w - p) / n; fc = (f - fp) / n
	printf "hits per run: %d (wp-arm accepted %d, lost %d; floor sampled %d)\n", n, wh, wl, fs
	printf "cost per hit, ns of guest time:\n"
	printf "  in-process breakpoint sampling (floor): %9.0f\n", fc
	printf "  the floor with wp-arm'"'"'s attributes:    %9.0f\n", (fw - fp) / n
	printf "  with wp-arm attached:                   %9.0f\n", wc
	if (g != "") printf "  gdb hardware watchpoint:                %9.0f\n", g
	if (fc > 0) printf "ratio wp-arm/floor: %.2f\n", wc / fc
	else printf "ratio wp-arm/floor: not measured (the floor is within the noise of TCG)\n"
	if (g != "") printf "ratio gdb/wp-arm: %.1fx (gdb stops the target on every hit)\n", g / wc
}'

best=0
for spin in 3000 1000 300 100 30 10 0; do
	ns=$(loop_ns 20000 "$spin" watch)
	read -r HITS LOST _ < "$work/counts"
	rate=$(awk -v n=20000 -v t="$ns" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
	echo "rate $rate hits/s (spin $spin): lost $LOST, accepted $HITS"
	if [ "$LOST" = 0 ] && [ "$HITS" = 20000 ]; then best=$rate; else break; fi
done
echo "highest hit rate with zero lost records (default 64-page rings): $best hits/s of guest time"
# ---- counting: one tight loop on three threads, every way to watch it ----
R=${WP_BENCH_ROUNDS:-500}

# stress_run HOW [wp-arm ARGS]: HOW is none, perf-record or wp; prints
# "ns writes counted hits tallied" of one run
stress_run() {
	local how=$1 out=$work/s.out pid addr rp
	shift
	rm -f "$out" "$work/arm.out"
	"$B/targets/stress" -t 2 -r "$R" > "$out" &
	pid=$!
	until [ -s "$out" ]; do sleep 0.05; done
	addr=$(head -n 1 "$out" | jq -r .stress)
	case $how in
	none)
		kill -USR1 "$pid"; wait "$pid" ;;
	perf-record)
		perf record -q -e "mem:$addr:w" -c 1 -p "$pid" -o "$work/perf.data" > /dev/null 2>&1 &
		rp=$!
		sleep 2
		kill -USR1 "$pid"; wait "$pid"
		kill -INT "$rp" 2> /dev/null; wait "$rp" ;;
	wp)
		wp-resolve -p "$pid" -l 8 "$addr" | wp-arm -d 600s -n 100000000 "$@" > "$work/arm.out" &
		until grep -q '"type":"armed"' "$work/arm.out" 2>/dev/null; do sleep 0.05; done
		kill -USR1 "$pid"; wait ;;
	esac
	printf '%s %s ' "$(awk '$1 == "ns" { print $2 }' "$out")" "$(awk '$1 == "writes" { print $2 }' "$out")"
	if [ "$how" = wp ]; then
		jq -rs '(map(select(.type=="observation"))[0]) as $o | [$o.targets[0].counted, $o.accepted_hits, (map(select(.type=="tally")) | group_by([.ip, .tid]) | map(last.hits) | add // "-")] | map(tostring) | join(" ")' "$work/arm.out"
	else
		echo "- - -"
	fi
}

echo
echo "a tight loop on three threads, $((R * 12)) writes (times in ns of guest time):"
read -r t_plain w_plain _ < <(stress_run none)
printf '  %-30s %12s  %s\n' "unwatched" "$t_plain" "1.00"
for cfg in "bpf:--backend bpf" "bpf --regs:--backend bpf --regs" \
    "perf:--backend perf" "perf --regs:--backend perf --regs"; do
	name=${cfg%%:*}
	read -r t w c h y < <(stress_run wp ${cfg#*:})
	printf '  %-30s %12s  %5.2f  writes %s counted %s hits %s tallied %s\n' \
		"wp-arm $name" "$t" "$(awk -v a="$t" -v b="$t_plain" 'BEGIN { print a / b }')" "$w" "$c" "$h" "$y"
done
if command -v perf > /dev/null; then
	read -r t _ < <(stress_run perf-record)
	printf '  %-30s %12s  %5.2f\n' "perf record -c 1" "$t" "$(awk -v a="$t" -v b="$t_plain" 'BEGIN { print a / b }')"
else
	echo "  perf record: no perf in the guest"
fi
read -r _ fns _ ftal < <("$B/bench/bpf-floor" "$((R * 12))" | head -n 1)
fplain=$("$B/bench/bpf-floor" "$((R * 12))" | awk '/^plain/ { print $2 }')
printf '  %-30s %12s  (%s tallied; one thread, in-process; unwatched loop %s)\n' "BPF tally floor" "$fns" "$ftal" "$fplain"

# highest_rate BACKEND: the fastest loop (hit-loop) with exact counts
# and every hit written
highest_rate() {
	local best=0 spin ns c h y
	for spin in 3000 1000 300 100 30 10 0; do
		out=$work/loop.out
		rm -f "$out" "$work/arm.out"
		"$B/bench/hit-loop" 20000 "$spin" > "$out" &
		pid=$!
		until [ -s "$out" ]; do sleep 0.05; done
		wp-resolve -p "$pid" hitvar | wp-arm --backend "$1" -d 600s -n 100000000 > "$work/arm.out" &
		until grep -q '"type":"armed"' "$work/arm.out" 2>/dev/null; do sleep 0.05; done
		kill -USR1 "$pid"
		wait
		ns=$(awk '/^ns/ { print $2 }' "$out")
		read -r c h < <(jq -r 'select(.type=="observation") | "\(.targets[0].counted) \(.accepted_hits)"' "$work/arm.out")
		rate=$(awk -v n=20000 -v t="$ns" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
		echo "  $1: $rate writes/s (spin $spin): counted $c, hits $h"
		if [ "$c" = 20000 ] && [ "$h" = 20000 ]; then best=$rate; else break; fi
	done
	echo "  $1: highest rate with exact counts and every hit written: $best writes/s"
}
echo
echo "the highest write rate each backend keeps up with (20000 writes, one thread):"
highest_rate bpf
highest_rate perf
rm -rf "$work"
echo
WP_BUILD=$B bash /wp/bench/callchain-cost.sh 2000
