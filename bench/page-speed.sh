#!/bin/bash
# The page backend's speed: the run time of tests/targets/page-game.c
# (measured by the target itself, from its start signal to its last
# write) unwatched, under --backend page, and under single-step (the
# ptrace backend), on
#   (a) a game-like loop: one write of the watched field per frame of
#       about a millisecond of arithmetic       goal: page within 1.5x
#                                                of unwatched
#   (b) a tight write loop of the watched field goal: page at least 50x
#                                                faster than single-step
#   (c) a hot neighbour on the watched page, written in a tight loop,
#       the field once every 1000               reported, with the
#                                                neighbour's share of
#                                                the faults
# Single-step is estimated from a short single-stepped run (fewer frames
# and less work a frame, fewer writes), scaled to the full run, as
# /work/shared/page-proof/pageproof.c does: a full one would take hours.
# Ratios from one run.  Until wp-arm has the page backend, its rows say
# so and are skipped.
# Row (b) also says what a fault costs: the target's time, wp-arm's
# system calls (strace -c -f, where strace is installed), the target's
# context switches; and the floor on this machine, bench/fault-floor.c:
# a bare tracer making only the calls a fault needs, and a bare
# single-step loop, whose ratio bounds single-step/page while a tracer
# stops for every fault; and the bound where the target resolves its own
# faults in a SIGSEGV handler, with no tracer.
#
# usage: bench/page-speed.sh [frames [writes [work]]]   (make first; work:
# the arithmetic of a frame, default 900000 iterations)
set -euo pipefail
. "$(dirname "$0")/page-lib.sh"
frames=${1:-1000}
writes=${2:-200000}
iters=${3:-900000}
# where the page backend's observation counts its page neighbours' faults
nf_field=${PAGE_NEIGHBOUR_FAULTS:-.page.faults_neighbour}

[ -x "$b/targets/page-game" ] || { echo "page-speed: make first" >&2; exit 1; }
# PAGE_SPEED_BACKEND=ptrace runs the page rows with another backend, to
# check this script before the page backend exists
pb=${PAGE_SPEED_BACKEND:-page}
page=1
[ "$pb" != page ] ||
	"$b/wp-arm" --help 2> /dev/null | grep -qE -- '--backend [^ ]*page' ||
	page=0

# run BACKEND ARGS...: page-game ARGS, unwatched (BACKEND none) or
# watched with BACKEND (page-lib.sh's game)
run() {
	local backend=$1
	shift
	game "$backend" -- "$@"
}

ms() {
	awk -v ns="$1" 'BEGIN { printf "%.1f ms", ns / 1e6 }'
}


# row NAME FULL-ARGS... -- SCALE SHORT-ARGS...: the three rows of a case;
# single-step from the short run, times SCALE
row() {
	local name=$1 plain_ns plain_sum page_ns page_sum ss_ns nf hits
	shift
	local full=() short_scale
	while [ "$1" != -- ]; do full+=("$1"); shift; done
	shift
	short_scale=$1
	shift
	run none "${full[@]}"
	plain_ns=$RUN_NS plain_sum=$RUN_SUM
	run ptrace "$@"
	ss_ns=$(awk -v ns="$RUN_NS" -v k="$short_scale" 'BEGIN { printf "%.0f", ns * k }')
	printf '%s\n' "$name"
	printf '  unwatched      %12s\n' "$(ms "$plain_ns")"
	printf '  single-step    %12s  (estimated)  %sx unwatched\n' \
	    "$(ms "$ss_ns")" "$(ratio "$ss_ns" "$plain_ns")"
	if [ "$page" -eq 0 ]; then
		echo "  page           skipped: the page backend is not built into wp-arm"
		return 0
	fi
	run "$pb" "${full[@]}"
	page_ns=$RUN_NS page_sum=$RUN_SUM
	[ "$page_sum" = "$plain_sum" ] ||
		echo "  page: the target's sum $page_sum differs from unwatched $plain_sum" >&2
	printf '  %-14s %12s  %sx unwatched, single-step/page %sx' \
	    "$pb" "$(ms "$page_ns")" "$(ratio "$page_ns" "$plain_ns")" \
	    "$(ratio "$ss_ns" "$page_ns")"
	case $name in
	"(a)"*) printf '   (goal: within 1.5x of unwatched)\n' ;;
	"(b)"*) printf '   (goal: single-step/page at least 50x)\n'
		fault_cost "$plain_ns" "$page_ns" ;;
	*)
		nf=$(jq -r "select(.type==\"observation\") | $nf_field // \"null\"" "$work/obs")
		hits=$(jq -r 'select(.type=="observation") | .accepted_hits' "$work/obs")
		if [ "$nf" = null ]; then
			printf '   (neighbour faults: %s not in the observation)\n' "$nf_field"
		else
			printf '   (goal: reported)\n  neighbour faults %s, watched %s: the neighbour'"'"'s share %s%%\n' \
			    "$nf" "$hits" "$(awk -v n="$nf" -v h="$hits" 'BEGIN { printf "%.1f", (n + h > 0 ? 100 * n / (n + h) : 0) }')"
		fi ;;
	esac
}

# faults: the faults of the last watched run
faults() {
	jq -r 'select(.type=="observation") | .page.faults_watched + .page.faults_neighbour' "$work/obs"
}

# calls N: wp-arm's system calls (by name, and "total") watching N
# writes of the tight loop, from strace -c -f
calls() {
	WRAP=(strace -f -c -o "$work/strace.$1")
	run "$pb" -m tight -n "$1"
	WRAP=()
	awk '$NF == "total" { print "total", $4; next }
	    $1 ~ /^[0-9.]+$/ && NF >= 5 { print $NF, $4 }' "$work/strace.$1" |
		sort > "$work/calls.$1"
}

# fault_cost PLAIN-NS PAGE-NS: what a fault of the last page run cost the
# target, wp-arm's calls a fault, and this machine's floor
fault_cost() {
	local nf sn=2000
	nf=$(faults)
	printf '  a fault:  %s us of the target'"'"'s time, %s context switches of the target\n' \
	    "$(awk -v a="$1" -v b="$2" -v n="$nf" 'BEGIN { printf "%.1f", (n > 0 ? (b - a) / n / 1000 : 0) }')" \
	    "$(ratio "$RUN_SW" "$nf")"
	if command -v strace > /dev/null; then
		calls 0
		calls "$sn"
		nf=$(faults)
		join -a 2 -e 0 -o 0,1.2,2.2 "$work/calls.0" "$work/calls.$sn" |
			awk -v n="$nf" '{ d = ($3 - $2) / n } $1 == "total" { t = d; next }
			    d >= 0.05 { s = s sprintf("%s%s %.1f", s == "" ? "" : ", ", $1, d) }
			    END { printf "            %.1f system calls of wp-arm (%s)\n", t, s }'
	else
		echo "            (wp-arm's system calls a fault: strace is not installed)"
	fi
	if [ -x /usr/bin/time ]; then
		WRAP=(/usr/bin/time -f "cpu %U %S")
		run "$pb" -m tight -n "$sn"
		WRAP=()
		nf=$(faults)
		awk -v n="$nf" '$1 == "cpu" { printf "            wp-arm'"'"'s own CPU time: %.1f us user, %.1f us system (its start spread over the faults)\n", $2 * 1e6 / n, $3 * 1e6 / n }' "$work/w.err"
	fi
	if cc -O2 -o "$work/fault-floor" "$top/bench/fault-floor.c" 2> /dev/null &&
	    "$work/fault-floor" "$sn" > "$work/floor"; then
		awk '{ v[$1] = $2 } END {
		    printf "  floor:    bench/fault-floor.c, a bare tracer making only those calls: %.1f us\n", v["fault_ns"] / 1000
		    printf "            a fault, %.1f us a bare single-step, %.2f steps a write on its\n", v["step_ns"] / 1000, v["steps_per_write"]
		    printf "            loop: single-step/page at most %.1fx there\n", v["bound"]
		    printf "            the same faults resolved in the target by a SIGSEGV handler\n"
		    printf "            (no tracer): %.1f us a fault, single-step/page at most %.1fx\n", v["inproc_ns"] / 1000, v["bound_inproc"] }' "$work/floor"
	fi
	cat <<-EOF
	  left:     per write a fault, a ptrace stop, a switch to wp-arm and one back: a
	            fault costs about one single-step, so single-step/page is about the
	            instructions stepped per write.  A handler in the target saves the
	            round trip, not the fault and its signal: the floor's second bound
	            is what such a design could reach on this machine
	EOF
}

echo "page-game run times (the target's own clock), one run each:"
row "(a) game-like loop: $frames frames of $iters iterations, one write each" \
    -m game -f "$frames" -c "$iters" -- \
    "$(awk -v f="$frames" 'BEGIN { print f / 2 * 100 }')" \
    -m game -f 2 -c "$(( iters / 100 > 0 ? iters / 100 : 1 ))"
row "(b) tight loop: $writes writes of the watched field" \
    -m tight -n "$writes" -- \
    "$(awk -v n="$writes" 'BEGIN { print n / 2000 }')" -m tight -n 2000
row "(c) hot neighbour: $writes writes of the neighbour, the field every 1000" \
    -m neighbour -n "$writes" -- \
    "$(awk -v n="$writes" 'BEGIN { print n / 2000 }')" -m neighbour -n 2000
