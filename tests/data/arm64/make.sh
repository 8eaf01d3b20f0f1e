#!/bin/sh
# Rebuilds the AArch64 fixture of tests/34-decode-arm64.bats: stores, a
# static program without libc (stores.c), and stores.ndjson, the records
# a watch of its variables on arm64 would write: a session of machine
# aarch64, a target per variable, and a hit per store at the store's own
# address (an arm64 watchpoint's PC), the registers before it ran set so
# that its operand lands on the target.  Addresses, bytes and operands
# are objdump's and nm's, never typed in.  @DIR@ stands for this folder.
set -eu
cd "$(dirname "$0")"
P=aarch64-linux-gnu-
${P}gcc -O2 -g -static -nostdlib -ffreestanding -fno-pie -no-pie \
    -march=armv8.1-a -mno-outline-atomics -o stores stores.c

# sym NAME: the static address of a symbol, 0x...
sym() {
	${P}nm stores | awk -v s="$1" '$3 == s { sub(/^0+/, "", $1); print "0x" $1 }'
}
# at FUNC MNEMONIC: "ADDR OPERANDS" of FUNC's first MNEMONIC
at() {
	${P}objdump -d stores | awk -v f="<$1>:" -v m="$2" '
		$2 == f { g = 1; next }
		g && NF == 0 { exit }
		g && $3 == m { a = $1; sub(/:$/, "", a); $1 = $2 = $3 = ""
			sub(/^ +/, ""); print "0x" a " " $0; exit }'
}
# disp OPERANDS: the immediate offset of the memory operand, or 0
disp() {
	case $1 in
	*"#"*"]"*) echo "$1" | sed 's/.*#\(-\{0,1\}[0-9]*\)\].*/\1/';;
	*) echo 0;;
	esac
}

BID=$(${P}readelf -n stores | awk '/Build ID/ { print $3 }')
F=@DIR@/stores
{
printf '{"type":"session","schema_version":1,"tool":"wp-resolve","tool_version":"0.1.0","pid":4242,"start_time":100,"exe":"%s","exe_build_id":"%s","bin":null,"bin_build_id":null,"binary_match":"not_checked","arch":"aarch64","machine":"aarch64","pie":false,"pie_slide":"0x0","slot_limit":4,"modules":[{"path":"%s","file":"%s","build_id":"%s","load_bias":"0x0","kind":"exec","main":true}],"mappings":[{"start":"0x400000","end":"0x401000","perms":"r-xp","offset":"0x0","path":"%s","load_bias":"0x0"},{"start":"0x41f000","end":"0x421000","perms":"rw-p","offset":"0x0","path":null,"load_bias":null}],"warnings":[]}\n' \
    "$F" "$BID" "$F" "$F" "$BID" "$F"
id=0
# hit FUNC MNEMONIC VAR OFFSET LEN BASE-REG REGS: a target of LEN bytes
# at VAR+OFFSET and a hit of the store, its base register placing the
# operand on VAR (+ the operand's displacement), with the other REGS.
hit() {
	local a ops base var
	a=$(at "$1" "$2")
	ops=${a#* }
	a=${a%% *}
	var=$(( $(sym "$3") ))
	base=$(( var - $(disp "$ops") ))
	printf '{"type":"target","id":%d,"input":"%s","runtime_addr":"0x%x","static_addr":"0x%x","module":"%s","region":"%s","perms":"rw-p","len":%d,"access":"w","slots":1,"initial_value":"0x0","initial_bytes":null,"warnings":[]}\n' \
	    "$id" "$3" $(( var + $4 )) $(( var + $4 )) "$F" "$F" "$5"
	printf '{"type":"hit","target":%d,"pid":4242,"tid":4242,"cpu":0,"time_ns":%d,"ip":"%s","regs":{%s"%s":"0x%x","sp":"0x7ffffff0","pc":"%s","pstate":"0x60000000"}}\n' \
	    "$id" $(( id * 1000 )) "$a" "$7" "$6" "$base" "$a"
	id=$(( id + 1 ))
}
hit set_score str score 0 8 x1 '"x0":"0x3e8",'
hit set_pos stp pos 8 8 x2 '"x0":"0x3","x1":"0x4",'
hit set_level strb level 0 1 x1 '"x0":"0x1234507",'
hit publish stlr slot 0 8 x1 '"x0":"0x2a",'
hit count_hit ldadd hits 0 8 x1 '"x0":"0x1",'
hit take_lock casa lock 0 4 x2 '"x0":"0x0","x1":"0x1","x3":"0x0",'
hit swap_lives swpal lives 0 4 x1 '"x0":"0x9",'
hit spin_add stxr spins 0 8 x1 '"x0":"0x5","x2":"0x5","x3":"0x0",'
} > stores.ndjson
