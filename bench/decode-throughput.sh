#!/bin/bash
# wp-decode throughput: a one-million-hit capture on ten writer sites,
# decoded by wp-decode and, side by side in the same run, printed by
# `jq -c .` (a floor for just parsing and printing JSON).  Prints both
# rates and their ratio; the target is wp-decode at least 3x faster.
#
# usage: bench/decode-throughput.sh [hits]   (make first)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
n=${1:-1000000}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT

"$b/targets/stores" > "$work/ready" &
pid=$!
until [ -s "$work/ready" ]; do sleep 0.05; done
"$b/wp-resolve" -p "$pid" -l 8 wpt_buf > "$work/capture.ndjson"
slide=$(jq -r 'select(.type=="session") | .pie_slide' "$work/capture.ndjson")
# the address after the first instruction of ten store functions
ips=$(objdump -d --no-show-raw-insn "$b/targets/stores" | awk '
	/^[0-9a-f]+ <st_(reg[1248h]|imm[1248]|movnti)>:/ { want = 2; next }
	want && /^ +[0-9a-f]+:/ { if (--want == 0) { a = $1; sub(/:/, "", a); print a } }' |
	while read -r a; do printf "0x%x\n" $(( 0x$a + slide )); done)
[ "$(wc -l <<< "$ips")" -eq 10 ] || { echo "expected 10 store sites" >&2; exit 1; }
awk -v n="$n" -v ips="$(tr '\n' ' ' <<< "$ips")" 'BEGIN {
	k = split(ips, ip, " ")
	for (i = 0; i < n; i++)
		printf "{\"type\":\"hit\",\"target\":0,\"pid\":42,\"tid\":%d,\"cpu\":%d,\"time_ns\":%d,\"ip\":\"%s\",\"regs\":{\"rax\":\"0x1\",\"rdi\":\"0x%x\",\"rsp\":\"0x7ffc0000\"}}\n", 42 + i % 4, i % 2, i * 1000, ip[i % k + 1], i
}' >> "$work/capture.ndjson"
lines=$(wc -l < "$work/capture.ndjson")

t0=$(date +%s.%N)
"$b/wp-decode" "$work/capture.ndjson" > "$work/decoded"
t1=$(date +%s.%N)
jq -c . "$work/capture.ndjson" > "$work/jq"
t2=$(date +%s.%N)
grep -o "\"confidence\":\"[a-z]*\"" "$work/decoded" | sort | uniq -c >&2
[ "$(grep -c '"confidence":"high"' "$work/decoded")" -eq "$n" ] ||
	{ echo "wp-decode did not decode every hit with high confidence" >&2; exit 1; }
awk -v l="$lines" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	d = b - a; j = c - b
	printf "records: %d\n", l
	printf "wp-decode: %.2f s, %.0f records/s\n", d, l / d
	printf "jq -c .:   %.2f s, %.0f records/s\n", j, l / j
	printf "ratio wp-decode/jq: %.1fx (target >= 3x)\n", j / d
}'
