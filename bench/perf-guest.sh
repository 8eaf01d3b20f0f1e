#!/bin/bash
# Runs inside the QEMU guest (tests/vm/run-guest --bench), where
# breakpoints fire.  Prints, from one run:
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
	printf "ratio wp-arm/floor: %.2f\n", wc / fc
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
rm -rf "$work"
