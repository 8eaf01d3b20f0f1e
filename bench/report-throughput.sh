#!/bin/bash
# wp-report throughput: a one-million-hit decoded stream through
# `wp-report --json`, and side by side in the same run through
# `jq -s 'group_by(.writer.static_ip) | map(length)'` over the same file.
# Prints both times, the ratio (target: wp-report at least 10x faster)
# and wp-report's peak memory against the input size.
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

t0=$(date +%s.%N)
/usr/bin/time -f %M -o "$work/rss" "$b/wp-report" --json "$work/in.ndjson" > "$work/report.json"
t1=$(date +%s.%N)
jq -s 'group_by(.writer.static_ip) | map(length)' "$work/in.ndjson" > "$work/jq.json"
t2=$(date +%s.%N)
[ "$(jq '[.watches[].accepted_hits] | add' "$work/report.json")" -eq "$n" ] ||
	{ echo "wp-report did not count every hit" >&2; exit 1; }
awk -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" -v rss="$(cat "$work/rss")" -v mb="$size" 'BEGIN {
	printf "hits: %d (%d MB of NDJSON)\n", n, mb
	printf "wp-report --json: %.2f s, peak memory %.1f MB\n", b - a, rss / 1024
	printf "jq -s group_by:   %.2f s\n", c - b
	printf "ratio jq/wp-report: %.1fx (target >= 10x)\n", (c - b) / (b - a)
}'
