# Sourced by the page backend's benchmarks (page-speed.sh, page-fast.sh,
# page-real.sh): their set-up, the watch they start, the page-game run
# they time, and the figures' arithmetic.  Before sourcing: $0 the
# benchmark, set -euo pipefail.
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
work=$(mktemp -d)
pids=()
main=$BASHPID
trap '[ "$BASHPID" = "$main" ] || exit; for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null || true; done; rm -rf "$work"' EXIT
WRAP=()

# watch PID SYMBOL BACKEND [WP-ARM OPTION...]: wp-arm with BACKEND (run
# under WRAP, when set) on SYMBOL of PID in the background (WPID), until
# it ends; its armed and observation records in $work/obs.  Returns once
# armed; exits with wp-arm's messages when it is not.
watch() {
	local pid=$1 sym=$2 backend=$3 i
	shift 3
	: > "$work/obs"
	{ "$b/wp-resolve" -p "$pid" --backend "$backend" "$sym" |
		${WRAP[@]+"${WRAP[@]}"} "$b/wp-arm" --backend "$backend" "$@" \
		    -d inf -n 1000000000 --interval 0 2> "$work/w.err" |
		grep --line-buffered -E '"type":"(armed|observation)"' \
		    > "$work/obs"; } &
	WPID=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q '"type":"armed"' "$work/obs" && return 0
		sleep 0.05
	done
	cat "$work/w.err" >&2
	exit 1
}

# game BACKEND [WP-ARM OPTION...] -- ARGS...: tests/targets/page-game
# ARGS, unwatched (BACKEND none) or its wpt_score watched by wp-arm with
# BACKEND; sets RUN_NS, RUN_SUM and RUN_SW (the target's own time, sum
# and context switches) and RUN_MOVES (the observation's tracer_moves,
# or -).
game() {
	local backend=$1 pid opts=()
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	rm -f "$work/t.out"
	"$b/targets/page-game" "$@" > "$work/t.out" &
	pid=$!
	pids+=("$pid")
	until grep -q "\"pid\":$pid," "$work/t.out" 2> /dev/null; do
		sleep 0.02
	done
	: > "$work/obs"
	[ "$backend" = none ] ||
		watch "$pid" wpt_score "$backend" ${opts[@]+"${opts[@]}"}
	kill -USR1 "$pid"
	wait "$pid"
	[ "$backend" = none ] || wait "$WPID" || true
	RUN_NS=$(awk '/^run_ns/ { print $2 }' "$work/t.out")
	RUN_SUM=$(awk '/^sum/ { print $2 }' "$work/t.out")
	RUN_SW=$(awk '/^switches/ { print $2 }' "$work/t.out")
	RUN_MOVES=$(jq -r 'select(.type=="observation") | .page.tracer_moves // "-"' "$work/obs" 2> /dev/null || echo -)
	[ -n "$RUN_NS" ] || { echo "page-game did not finish" >&2; exit 1; }
}

# median FILE: the median of the numbers in FILE, one a line
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# ratio A B: A / B, two decimals
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}

# machine: the CPU, CPUs, hypervisor, whether breakpoints fire, load
machine() {
	local virt bp
	virt=$(systemd-detect-virt --vm 2> /dev/null || true)
	[ -n "$virt" ] || { grep -qw hypervisor /proc/cpuinfo && virt="a hypervisor" || virt=none; }
	if "$b/wp-arm" --check-bp > /dev/null 2>&1; then bp="fire"; else bp="do not fire"; fi
	printf '%s, %s CPUs, virtualisation: %s, hardware breakpoints %s, load average %s\n' \
	    "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	    "$(nproc)" "$virt" "$bp" "$(cut -d' ' -f1 /proc/loadavg)"
}
