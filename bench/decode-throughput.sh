#!/bin/bash
# wp-decode throughput: a one-million-hit capture on ten writer sites and
# four threads, each hit as `wp-arm --backend perf --regs` writes it
# (the 18 registers perf samples, about 500 bytes a line), decoded by
# wp-decode and, side by side in the same run, printed by `jq -c .` (a
# floor for just parsing and printing JSON): output thrown away, and in
# a pipeline as in `wp watch` (where wp-decode flushes its output as its
# input runs dry).  Then `wp report` of the capture end to end
# (wp-decode | wp-report) against wp-report of the decoded stream alone.
# Prints the rates and the ratios; the targets are wp-decode at least
# 20x faster than jq, and the end to end report within 2x of wp-report.
#
# usage: bench/decode-throughput.sh [hits]   (make first)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${WP_BUILD:-$top/build}
n=${1:-1000000}
# in memory where there is a tmpfs: a disk's writeback is not the tools'
work=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT

"$b/targets/stores" > "$work/ready" &
pid=$!
until [ -s "$work/ready" ]; do sleep 0.05; done
"$b/wp-resolve" -p "$pid" -l 8 wpt_buf > "$work/capture.ndjson"
printf '{"type":"armed","backend":"perf_breakpoint","pid":%d,"threads":4,"targets":1,"cpus":2,"events":16,"ring_pages":64,"regs":true,"clock":"CLOCK_MONOTONIC","time_base_ns":"0x1000"}\n' \
	"$pid" >> "$work/capture.ndjson"
slide=$(jq -r 'select(.type=="session") | .pie_slide' "$work/capture.ndjson")
# the address after the first instruction of ten store functions
ips=$(objdump -d --no-show-raw-insn "$b/targets/stores" | awk '
	/^[0-9a-f]+ <st_(reg[1248h]|imm[1248]|movnti)>:/ { want = 2; next }
	want && /^ +[0-9a-f]+:/ { if (--want == 0) { a = $1; sub(/:/, "", a); print a } }' |
	while read -r a; do printf "0x%x\n" $(( 0x$a + slide )); done)
[ "$(wc -l <<< "$ips")" -eq 10 ] || { echo "expected 10 store sites" >&2; exit 1; }
# rax..r15 in perf's order, values as a live process has them
awk -v n="$n" -v pid="$pid" -v ips="$(tr '\n' ' ' <<< "$ips")" 'BEGIN {
	k = split(ips, ip, " ")
	for (i = 0; i < n; i++) {
		t = i % 4
		sp = 2147483647 - t * 8392704 - 4096 - (i % 8) * 16
		s = ip[i % k + 1]
		printf "{\"type\":\"hit\",\"target\":0,\"pid\":%d,\"tid\":%d,\"cpu\":%d,\"time_ns\":%d,\"ip\":\"%s\",\"regs\":{", pid, pid + t, i % 2, 1000000000 + i * 997, s
		printf "\"rax\":\"0x7ffff7e1%04x\",\"rbx\":\"0x5555%08x\",\"rcx\":\"0x7ffff7e9%04x\",\"rdx\":\"0xffffffffffff%04x\",", i % 65536, 1431671456 + t * 64, i % 65536, i % 65536
		printf "\"rsi\":\"0x7ffff%07x\",\"rdi\":\"0x%x\",\"rbp\":\"0x7fff%08x\",\"rsp\":\"0x7fff%08x\",", 125829120 + t * 4096, i, sp + 64, sp
		printf "\"rip\":\"%s\",\"rflags\":\"0x%x\",\"r8\":\"0x7ffff7%06x\",\"r9\":\"0x8080808080808080\",", s, i % 2 ? 582 : 518, 14135296 + t * 4096
		printf "\"r10\":\"0x7ffff7c2%04x\",\"r11\":\"0x%x\",\"r12\":\"0x9b3c5f1e2d4a6b00\",\"r13\":\"0x7fffffffe0b8\",", i % 65536, 582
		printf "\"r14\":\"0xfefefefefefefeff\",\"r15\":\"0x7ffff7ffd040\"}}\n"
	}
}' >> "$work/capture.ndjson"
printf '{"type":"observation","backend":"perf_breakpoint","pid":%d,"duration_requested_ms":5000,"elapsed_ms":5000,"max_events":%d,"stop_reason":"duration","stop_detail":null,"error":null,"truncated_by_max_events":false,"accepted_hits":%d,"thread_coverage":{"seeded_tids":4,"inherited_tids":0,"dynamically_attached_tids":0,"unattached_tids":0,"exited_tids":0,"failed_tids":[],"forked_processes":0,"excluded_other_process_events":0,"ambiguous_events":0,"unparsed_records":0,"partial_coverage":false,"partial_coverage_reasons":[]},"lost_events":{"known":true,"total":0,"lost_records":0,"reasons":[]},"counts_are_lower_bound":false,"tallied":false,"follow_mode":null,"follow_mode_reason":null,"targets":[{"id":0,"hits":%d,"counted":%d,"lost":0,"latest_value":"0x0"}],"follows":[],"target_alive_after":true}\n' \
	"$pid" "$n" "$n" "$n" "$n" >> "$work/capture.ndjson"
lines=$(wc -l < "$work/capture.ndjson")
bytes=$(wc -c < "$work/capture.ndjson")

# Each tool runs with its output thrown away (/dev/null: the tool's own
# work) and as in a pipeline, between two cats; wp-decode also from a
# file into a file.  Each is timed by the CPU it spent (user + system:
# the machine may be shared) and by the wall clock.
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$work/$out.time" "$@"
}
# twice each, in turns, the quicker run kept: the machine may be shared
for i in 1 2; do
	timed null$i "$b/wp-decode" "$work/capture.ndjson" > /dev/null
	timed jqnull$i jq -c . "$work/capture.ndjson" > /dev/null
done
for t in null jqnull; do
	cat "$work/${t}1.time" "$work/${t}2.time" |
		awk '{ print $0, $2 + $3 }' | sort -k 4n | head -n 1 |
		cut -d' ' -f1-3 > "$work/$t.time"
done
cat "$work/capture.ndjson" | timed piped "$b/wp-decode" | cat > "$work/piped"
cat "$work/capture.ndjson" | timed jq jq -c . | cat > "$work/jq"
timed decode "$b/wp-decode" "$work/capture.ndjson" > "$work/decoded"
# `wp report` of the capture, end to end, against wp-report of the
# decoded stream alone
timed report "$b/wp-report" "$work/decoded" > "$work/report.txt"
t0=$(date +%s.%N)
timed e2e-decode "$b/wp-decode" "$work/capture.ndjson" |
	timed e2e-report "$b/wp-report" > "$work/report-e2e.txt"
t1=$(date +%s.%N)
cmp -s "$work/report.txt" "$work/report-e2e.txt" ||
	{ echo "wp report end to end and wp-report differ" >&2; exit 1; }
grep -o "\"confidence\":\"[a-z]*\"" "$work/decoded" | sort | uniq -c >&2
[ "$(grep -c '"confidence":"high"' "$work/decoded")" -eq "$n" ] ||
	{ echo "wp-decode did not decode every hit with high confidence" >&2; exit 1; }
cmp -s "$work/decoded" "$work/piped" ||
	{ echo "wp-decode wrote other records into a pipe" >&2; exit 1; }
cpu() { awk '{ print $2 + $3 }' "$work/$1.time"; }
wall() { awk '{ print $1 }' "$work/$1.time"; }
awk -v l="$lines" -v by="$bytes" -v nw="$(wall null)" -v nc="$(cpu null)" \
    -v qw="$(wall jqnull)" -v qc="$(cpu jqnull)" -v pw="$(wall piped)" \
    -v pc="$(cpu piped)" -v jw="$(wall jq)" -v jc="$(cpu jq)" \
    -v dw="$(wall decode)" -v dc="$(cpu decode)" 'function f(x) { return x > 0 ? x : 0.01 }
	BEGIN {
	nw = f(nw); nc = f(nc); pw = f(pw); pc = f(pc); dc = f(dc)
	printf "records: %d, %.0f bytes each\n", l, by / l
	printf "                                 wall s    cpu s   records/s of cpu\n"
	printf "wp-decode > /dev/null:          %7.2f  %7.2f  %10.0f  (%.0f MB/s in)\n", nw, nc, l / nc, by / nc / 1e6
	printf "jq -c . > /dev/null:            %7.2f  %7.2f  %10.0f\n", qw, qc, l / qc
	printf "wp-decode in a pipeline:        %7.2f  %7.2f  %10.0f\n", pw, pc, l / pc
	printf "jq -c . in a pipeline:          %7.2f  %7.2f  %10.0f\n", jw, jc, l / jc
	printf "wp-decode from file to file:    %7.2f  %7.2f  %10.0f\n", dw, dc, l / dc
	printf "ratio jq/wp-decode: %.1fx by CPU time (target >= 20x), %.1fx by wall clock\n", qc / nc, qw / nw
	printf "ratio jq/wp-decode in a pipeline: %.1fx by CPU time, %.1fx by wall clock\n", jc / pc, jw / pw
}'
awk -v rw="$(wall report)" -v rc="$(cpu report)" -v ew="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    -v ec="$(awk -v a="$(cpu e2e-decode)" -v b="$(cpu e2e-report)" 'BEGIN { print a + b }')" 'BEGIN {
	if (rw <= 0) rw = 0.01; if (rc <= 0) rc = 0.01
	printf "wp-report of the decoded stream: %7.2f  %7.2f\n", rw, rc
	printf "wp-decode | wp-report:          %7.2f  %7.2f\n", ew, ec
	printf "ratio end to end/wp-report alone: %.2fx by wall clock (target <= 2x), %.2fx by CPU time\n", ew / rw, ec / rc
}'
