#!/bin/bash
# wp-report throughput: a one-million-hit decoded stream through
# `wp-report --json` and through `wp-report` (the table), and side by
# side in the same run through `jq -s 'group_by(.writer.static_ip) |
# map(length)'` over the same file.  Prints the times (wall clock, and
# CPU: user + system, as the machine may be shared), the ratios (target:
# wp-report --json at least 29x faster than jq) and wp-report's peak
# memory against the input size.
#
# usage: bench/report-throughput.sh [hits]   (make first)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
n=${1:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

head -n 4 "$top/tests/data/report-basic.in.ndjson" > "$work/in.ndjson"
# ten writer sites, four threads, values from registers
awk -v n="$n" 'BEGIN {
	for (i = 0; i < n; i++) {
		s = i % 10
		printf "{\"type\":\"hit\",\"target\":%d,\"pid\":4242,\"tid\":%d,\"cpu\":%d,\"time_ns\":%d,\"ip\":\"0x5555555551%02x\",\"regs\":{\"rax\":\"0x%x\"},\"writer\":{\"trap_ip\":\"0x5555555551%02x\",\"trap_static_ip\":\"0x11%02x\",\"module\":\"/opt/game/bin/game\",\"function\":\"fn%d\",\"function_static\":\"0x1100\",\"writer_ip\":\"0x5555555551%02x\",\"writer_static_ip\":\"0x11%02x\",\"symbol\":\"fn%d+0x%x\",\"source\":{\"file\":\"/src/game.c\",\"line\":%d},\"insn\":\"mov dword ptr [rip + 0x2e9d], eax\",\"confidence\":\"high\",\"candidates\":1,\"reason\":null,\"caveat\":null},\"written_value\":{\"kind\":\"register_store\",\"register\":\"eax\",\"width\":4,\"value\":\"0x%x\"}}\n", i % 2, 4242 + i % 4, i % 2, i * 1000, s * 16 + 6, i, s * 16 + 6, s * 16 + 6, s, s * 16, s * 16, s, s, 10 + s, i
	}
}' >> "$work/in.ndjson"
tail -n 1 "$top/tests/data/report-basic.in.ndjson" >> "$work/in.ndjson"
size=$(du -m "$work/in.ndjson" | cut -f1)

timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/$out.time" "$@"
}
timed json "$b/wp-report" --json "$work/in.ndjson" > "$work/report.json"
timed table "$b/wp-report" "$work/in.ndjson" > "$work/report.txt"
timed jq jq -s 'group_by(.writer.static_ip) | map(length)' "$work/in.ndjson" > "$work/jq.json"
[ "$(jq '[.watches[].accepted_hits] | add' "$work/report.json")" -eq "$n" ] ||
	{ echo "wp-report did not count every hit" >&2; exit 1; }
cpu() { awk '{ print $2 + $3 }' "$work/$1.time"; }
awk -v n="$n" -v mb="$size" 'function f(x) { return x > 0 ? x : 0.01 }
	FILENAME ~ /json.time$/ { jw = f($1); jc = f($2 + $3); jm = $4 }
	FILENAME ~ /table.time$/ { tw = f($1); tc = f($2 + $3); tm = $4 }
	FILENAME ~ /jq.time$/ { qw = f($1); qc = f($2 + $3); qm = $4 }
	END {
	printf "hits: %d (%d MB of NDJSON)\n", n, mb
	printf "                    wall s    cpu s   peak memory\n"
	printf "wp-report --json:  %7.2f  %7.2f  %7.1f MB\n", jw, jc, jm / 1024
	printf "wp-report (table): %7.2f  %7.2f  %7.1f MB\n", tw, tc, tm / 1024
	printf "jq -s group_by:    %7.2f  %7.2f  %7.1f MB\n", qw, qc, qm / 1024
	printf "ratio jq/wp-report --json: %.1fx by CPU time (target >= 29x), %.1fx by wall clock\n", qc / jc, qw / jw
	printf "ratio jq/wp-report (table): %.1fx by CPU time, %.1fx by wall clock\n", qc / tc, qw / tw
}' "$work/json.time" "$work/table.time" "$work/jq.time"
