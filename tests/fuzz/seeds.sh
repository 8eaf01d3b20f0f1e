#!/bin/sh
# Seeds the fuzzers' corpora: into DIR/NAME for each harness of
# tests/fuzz, what tests/fuzz/corpus/NAME holds; the streams of
# tests/data, whole and (for the reader) line by line; streams of hits
# on the test targets' stores, their modules the files in BUILD/targets,
# for wp-decode, and what wp-decode makes of them, for wp-report and the
# reader; and the targets' code, in pieces, for the x86 decoder (and
# the arm64 fixture's, tests/data/arm64, for the AArch64 one).
# usage: tests/fuzz/seeds.sh BUILD DIR
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
tmp=$out.tmp
bias=0x555555554000
pid=2147480000		# no process's: wp-decode reads the files

rm -rf "$tmp"
for n in records resolve arm-input decode report x86 a64; do
	mkdir -p "$tmp/$n"
	if [ -d "$top/tests/fuzz/corpus/$n" ]; then
		cp "$top/tests/fuzz/corpus/$n"/* "$tmp/$n/"
	fi
done

for f in "$top"/tests/data/*.ndjson; do
	b=$(basename "$f" .ndjson)
	for n in records arm-input decode report; do
		cp "$f" "$tmp/$n/$b"
	done
	split -l 1 -a 3 "$f" "$tmp/records/$b-"
done

# insns FILE FUNC: the address of each instruction of FUNC, then the
# address after it
insns() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { g = 1; next }
		g && /^[0-9a-f]+ </ { print "0x" $1; exit }
		g && NF == 0 { next }
		g { a = $1; sub(/:$/, "", a); print "0x" a }'
}

# stream FILE FUNC SYMBOL: a session of FILE mapped at $bias, a target
# on SYMBOL, and hits and tallies after each instruction of FUNC
stream() {
	file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	bid=$(readelf -n "$file" | awk '/Build ID/ { print "\"" $3 "\"" }')
	sym=$(nm "$file" | awk -v s="$3" '$3 == s { print "0x" $1; exit }')
	buf=$(printf '0x%x' $((bias + sym)))
	printf '{"type":"session","schema_version":1,"tool":"wp-resolve","tool_version":"0.1.0","pid":%d,"start_time":1,"exe":"%s","exe_build_id":%s,"bin":null,"bin_build_id":null,"binary_match":"not_checked","arch":"x86_64","pie":true,"pie_slide":"%s","slot_limit":4,"modules":[{"path":"%s","file":"%s","build_id":%s,"load_bias":"%s","kind":"dyn","main":true}],"mappings":[{"start":"%s","end":"0x%x","perms":"r-xp","offset":"0x0","path":"%s","load_bias":"%s"}],"warnings":[]}\n' \
	    "$pid" "$file" "${bid:-null}" "$bias" "$file" "$file" \
	    "${bid:-null}" "$bias" "$bias" $((bias + 0x10000)) "$file" "$bias"
	printf '{"type":"target","id":0,"input":"%s","runtime_addr":"%s","static_addr":"%s","module":"%s","region":"%s","perms":"rw-p","len":8,"access":"w","slots":1,"initial_value":"0x0","initial_bytes":"0000000000000000","warnings":[]}\n' \
	    "$3" "$buf" "$sym" "$file" "$file"
	first=
	for a in $(insns "$file" "$2"); do
		if [ -z "$first" ]; then
			first=$a
			prev=$a
			continue
		fi
		ip=$(printf '0x%x' $((bias + a)))
		wip=$(printf '0x%x' $((bias + prev)))
		printf '{"type":"hit","target":0,"pid":%d,"tid":%d,"cpu":0,"time_ns":1000,"ip":"%s","regs":{"rax":"%s","rdi":"0x2","rsi":"0x99","rsp":"0x7ffc0000","rflags":"0x246"}}\n' \
		    "$pid" "$pid" "$ip" "$buf"
		printf '{"type":"hit","target":0,"pid":%d,"tid":%d,"cpu":1,"time_ns":2000,"ip":"%s"}\n' \
		    "$pid" "$pid" "$ip"
		printf '{"type":"hit","target":0,"pid":%d,"tid":%d,"cpu":null,"time_ns":3000,"ip":"%s","writer_ip":"%s","new_value":"0x5","new_bytes":"0500000000000000","flags":[],"signal":null}\n' \
		    "$pid" "$pid" "$ip" "$wip"
		printf '{"type":"tally","target":0,"tid":%d,"ip":"%s","hits":3,"first_value":"0x1","last_value":"0x3","unchanged":1,"time_ns":4000}\n' \
		    "$pid" "$ip"
		prev=$a
	done
}

obs='{"type":"observation","backend":"perf_breakpoint","pid":%d,"duration_requested_ms":1000,"elapsed_ms":1000,"max_events":0,"stop_reason":"duration","stop_detail":null,"error":null,"truncated_by_max_events":false,"accepted_hits":3,"counts_are_lower_bound":false,"tallied":false,"follow_mode":null,"follow_mode_reason":null,"targets":[{"id":0,"hits":3,"counted":3,"lost":0,"latest_value":"0x5"}],"follows":[],"target_alive_after":false}\n'
for fn in $(nm "$build/targets/stores" | awk '$3 ~ /^st_/ { print $3 }'); do
	stream "$build/targets/stores" "$fn" wpt_buf > "$tmp/decode/stores-$fn"
done
stream "$build/targets/mt-writer" write_counter wpt_counter \
    > "$tmp/decode/mt-writer"
stream "$build/targets/libwpt.so" wpt_lib_write wpt_lib_counter \
    > "$tmp/decode/libwpt"
for f in "$tmp"/decode/stores-* "$tmp/decode/mt-writer" "$tmp/decode/libwpt"; do
	b=$(basename "$f")
	cp "$f" "$tmp/arm-input/$b"
	{ "$build/wp-decode" < "$f"; printf "$obs" "$pid"; } \
	    > "$tmp/report/$b" 2> /dev/null || true
	cp "$tmp/report/$b" "$tmp/records/$b"
done

for f in stores mt-writer libwpt.so; do
	objcopy -O binary --only-section=.text "$build/targets/$f" "$tmp/text"
	split -b 64 -a 3 "$tmp/text" "$tmp/x86/$f-"
	rm -f "$tmp/text"
done
a64=$top/tests/data/arm64
objcopy -I elf64-little -O binary --only-section=.text "$a64/stores" \
    "$tmp/text"
split -b 64 -a 3 "$tmp/text" "$tmp/a64/stores-"
rm -f "$tmp/text"
sed "s|@DIR@|$a64|g" "$a64/stores.ndjson" > "$tmp/decode/arm64-stores"

# large inputs for make fuzz's long run (the 8 KB runs cannot reach
# them): an object of 200,000 members; one of escaped names, the last a
# repeat; an array of 100,000 objects
mkdir -p "$tmp/records-large"
awk -v n=200000 'BEGIN {
	printf "{\"type\":\"x\""; for (i = 0; i < n; i++) printf ",\"k%d\":%d", i, i
	print "}" }' > "$tmp/records-large/members"
awk -v n=200000 'BEGIN {
	printf "{\"type\":\"x\""; for (i = 0; i < n; i++) printf ",\"\\u006b%d\":0", i
	print ",\"k7\":1}" }' > "$tmp/records-large/escaped-dup"
awk -v n=100000 'BEGIN {
	printf "{\"type\":\"x\",\"l\":["; for (i = 0; i < n; i++) printf "%s{\"a%d\":[]}", i ? "," : "", i
	print "]}" }' > "$tmp/records-large/elements"

rm -rf "$out"
mv "$tmp" "$out"
