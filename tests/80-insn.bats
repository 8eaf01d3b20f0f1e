#!/usr/bin/env bats
# The second question (issue 43): which addresses does this instruction
# write (and read)?  wp-resolve --insn checks and decodes the site.

load helpers

# store_in FILE FUNCTION: the static address of the first plain store
# mov %reg,(%reg) of the function, as objdump shows it.
store_in() {
	objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit }
			on && /mov +%r[a-z0-9]+,\(%r[a-z0-9]+\)$/ { sub(":", "", $1); print "0x" $1; exit }'
}

@test "wp-resolve --insn: a store instruction, decoded, its operand in the site record" {
	start_target insn-walk
	run --separate-stderr wp-resolve -p "$TPID" --insn wpt_walk_store --insn "insn-walk+$(static_of "$T/insn-walk" wpt_walk_add)" -a rw
	assert_success
	assert_equal "$stderr" ""
	assert_contract <(echo "$output")
	sites=$(grep '"type":"site"' <<< "$output")
	assert_equal "$(jq -c '[.id, .runtime_addr, .insn, .insn_len, .access, .operand.writes, .operand.reads, .operand.width, .operand.base, .operand.index, .operand.scale, .operand.disp]' <<< "$sites")" \
		"[0,\"$(tinfo store)\",\"mov qword ptr [rdi + rax*8], rdx\",4,\"rw\",true,false,8,\"rdi\",\"rax\",8,\"0x0\"]
[1,\"$(tinfo add)\",\"add qword ptr [rdi + rax*8], 1\",5,\"rw\",true,true,8,\"rdi\",\"rax\",8,\"0x0\"]"
	# a uprobe's place: the file and the offset in it
	assert_equal "$(jq -r '[.region, .file_offset, .static_addr] | join(" ")' <<< "$(head -n 1 <<< "$sites")")" \
		"$T/insn-walk $(static_of "$T/insn-walk" wpt_walk_store) $(static_of "$T/insn-walk" wpt_walk_store)"
}

@test "wp-resolve --insn: in a shared library, and in a stripped program by its runtime address and MODULE+0xOFF" {
	start_target shlib-writer
	off=$(store_in "$T/libwpt.so" wpt_lib_write)
	[ -n "$off" ] || fail "no plain store in wpt_lib_write"
	run --separate-stderr wp-resolve -p "$TPID" --insn "libwpt.so+$off"
	assert_success
	site=$(grep '"type":"site"' <<< "$output")
	assert_equal "$(jq -r '[.module, .static_addr, .operand.writes, .operand.reads] | map(tostring) | join(" ")' <<< "$site")" \
		"$(realpath "$T/libwpt.so") $off true false"
	assert_regex "$(jq -r .insn <<< "$site")" '^mov qword ptr \[r[a-z0-9]+\], r[a-z0-9]+$'
	start_target insn-walk-stripped
	run --separate-stderr wp-resolve -p "$TPID" --insn "$(tinfo store)" --insn "insn-walk-stripped+$(static_of "$T/insn-walk" wpt_walk_store)"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(grep '"type":"site"' <<< "$output" | jq -r .runtime_addr | sort -u)" "$(tinfo store)"
}

@test "wp-resolve --insn: refusals name the site, status 1" {
	start_target insn-walk
	store=$(tinfo store)
	for bad in "wpt_walk_store+1|wpt_walk_store+1: at $(hexadd "$store" 1): not the start of an instruction (inside 'mov qword ptr [rdi + rax*8], rdx' at $store)" \
		"$(tinfo array)|$(tinfo array): not in executable code ([heap] rw-p)" \
		"0x10|0x10: not mapped in pid $TPID" \
		"nosuchsymbol|"; do
		run --separate-stderr wp-resolve -p "$TPID" --insn "${bad%%|*}"
		assert_failure 1
		assert_equal "$output" ""
		[ -z "${bad#*|}" ] || assert_equal "$stderr" "wp-resolve: ${bad#*|}"
	done
	# an instruction that accesses no memory, and a load without -a rw
	lea=$(objdump -d --no-show-raw-insn "$T/insn-walk" | awk '/\tlea /{ sub(":", "", $1); print "0x" $1; exit }')
	run --separate-stderr wp-resolve -p "$TPID" --insn "insn-walk+$lea"
	assert_failure 1
	assert_regex "$stderr" "^wp-resolve: insn-walk\+$lea: at 0x[0-9a-f]+: 'lea [^']*' accesses no memory$"
	load=$(objdump -d --no-show-raw-insn "$T/insn-walk" | awk '/\tmov +(0x[0-9a-f]+)?\(%r[a-z0-9]+\),%r[a-z0-9]+$/{ sub(":", "", $1); print "0x" $1; exit }')
	run --separate-stderr wp-resolve -p "$TPID" --insn "insn-walk+$load"
	assert_failure 1
	assert_regex "$stderr" "^wp-resolve: insn-walk\+$load: at 0x[0-9a-f]+: 'mov [^']*' only reads memory: -a rw counts its reads$"
	run --separate-stderr wp-resolve -p "$TPID" -a rw --insn "insn-walk+$load"
	assert_success
	assert_equal "$(grep '"type":"site"' <<< "$output" | jq -c '[.operand.writes, .operand.reads]')" '[false,true]'
}
