#!/bin/bash
# How often a SIGKILL of wp-arm's tracing child (wp-trace) kills the
# target, per tracing backend: a thread stopped after a single-step keeps
# the trap flag and the step's SIGTRAP, and the kernel, as the tracer
# exits, lets it go with both (see CAVEATS in wp-arm(1)).  Each trial
# watches a target, kills wp-trace at a random moment 0.1 to 0.6 s into
# the watch, and sees how the target ends; the rate is the share of the
# watch's time in which some thread carried the trap flag.  Beside it,
# the steps each backend made (the ptrace backend's observation: steps;
# the page backend's: stepped, each a window of the flag), from one
# watch of the same target to its end.
#
# Targets: "busy", two threads writing the watched word in a tight loop
# (mt-writer), and "tick", two threads writing it 1000 times a second,
# asleep in between (truth tick).
#
# usage: bench/tracer-kill.sh [trials]   (make first)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
trials=${1:-10}
work=$(mktemp -d)
tpid=
trap 'kill -9 $tpid 2>/dev/null; rm -rf "$work"' EXIT
export PATH=$b:$PATH

# start KIND: the target, its pid in tpid, its ready line in work/ready
start() {
	case $1 in
	busy)	"$b/targets/mt-writer" -t 2 -n 2000000000 > "$work/ready" 2>&1 & ;;
	tick)	"$b/targets/truth" tick 2 > "$work/ready" 2>&1 & ;;
	esac
	tpid=$!
	until [ -s "$work/ready" ]; do sleep 0.02; done
}

# watch KIND BACKEND SECS: wp-arm on the target, in the background
watch() {
	rm -f "$work/arm.out"
	wp-resolve -p "$tpid" wpt_counter -l 8 |
	    wp-arm --backend "$2" -d "$3" > "$work/arm.out" 2> /dev/null &
	apid=$!
	until grep -q '"type":"armed"' "$work/arm.out" 2> /dev/null; do
		kill -0 "$apid" 2> /dev/null || return 1
		sleep 0.02
	done
	[ "$1" = busy ] && kill -USR1 "$tpid"
	return 0
}

# trial KIND BACKEND: prints how the target ended (alive, or its signal)
trial() {
	local trace st
	start "$1"
	watch "$1" "$2" 30 || { echo "not-armed"; kill -9 "$tpid"; return; }
	sleep "0.$((RANDOM % 6 + 1))"
	trace=$(ps -o pid= --ppid "$apid" | head -n 1)
	kill -9 $trace
	wait "$apid" 2> /dev/null
	sleep 0.3
	if kill -0 "$tpid" 2> /dev/null; then
		echo alive
		kill -9 "$tpid"
		wait "$tpid" 2> /dev/null
	else
		wait "$tpid"
		st=$?
		[ "$st" -gt 128 ] && kill -l $((st - 128)) || echo "exit $st"
	fi
}

# steps KIND BACKEND: one second of watching, its stepping counters
steps() {
	start "$1"
	watch "$1" "$2" 1 || { echo "not armed"; kill -9 "$tpid"; return; }
	wait "$apid"
	jq -r 'select(.type == "observation") |
	    if .ptrace then "steps \(.ptrace.steps) in \(.elapsed_ms) ms"
	    else "stepped \(.page.stepped), emulated \(.page.emulated) of \(.page.faults_watched) faults in \(.elapsed_ms) ms" end' \
	    "$work/arm.out"
	kill -9 "$tpid"
	wait "$tpid" 2> /dev/null
}

exec 3>&2 2> /dev/null	# not the shell's word on each target killed
for kind in busy tick; do
	for be in ptrace page; do
		ends=$(for ((i = 0; i < trials; i++)); do trial "$kind" "$be"; done |
		    sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }')
		printf '%-5s %-6s killed wp-trace %d times: target %s; %s\n' \
		    "$kind" "$be" "$trials" "$ends" "$(steps "$kind" "$be")"
	done
done
