#!/usr/bin/env bats
# A module's functions as wp-arm decodes them before arming (lib/dwfl-
# funcs.c through tests/progs/module-funcs.c): its function symbols, and
# the ranges of its unwind table's FDEs that no symbol holds, so that a
# stripped program's functions are found all the same; readelf and nm
# say what they must be.

load helpers

setup() {
	[ -x "$WP_BUILD/progs/module-funcs" ] || skip "no $WP_BUILD/progs/module-funcs (make first)"
}

# fdes FILE: readelf's FDE ranges of FILE, "0xSTART 0xSIZE -", sorted.
fdes() {
	local s e
	readelf --debug-dump=frames "$1" |
		sed -nE 's/.* FDE .* pc=([0-9a-f]+)\.\.([0-9a-f]+)$/\1 \2/p' |
		while read -r s e; do
			printf '%#x %#x -\n' $(( 16#$s )) $(( 16#$e - 16#$s ))
		done | sort
}

# funcs FILE: nm's function symbols with a size, "0xADDR 0xSIZE NAME".
funcs() {
	nm -S "$1" | awk '$3 ~ /^[Tt]$/ { print $1, $2, $4 }' |
		while read -r a s n; do
			printf '%#x %#x %s\n' $(( 16#$a )) $(( 16#$s )) "$n"
		done | sort
}

@test "module funcs: a stripped program's functions are its unwind table's FDE ranges, as readelf lists them" {
	run --separate-stderr "$WP_BUILD/progs/module-funcs" "$T/cond-writers-stripped"
	assert_success
	assert_equal "$(sort <<< "$output")" "$(fdes "$T/cond-writers-stripped")"
	[[ $stderr =~ ^"0 from symbols, $(fdes "$T/cond-writers-stripped" | wc -l) from FDEs in " ]] || fail "$stderr"
	# each function of the unstripped build, writers included, by its
	# start and size
	local f
	while read -r a s n; do
		assert_line "$a $s -"
	done < <(funcs "$T/cond-writers")
	f=$(funcs "$T/cond-writers" | grep -c _writer)
	assert_equal "$f" 8
}

@test "module funcs: an unstripped program's function symbols, and only the FDE ranges none of them holds, each start once" {
	run --separate-stderr "$WP_BUILD/progs/module-funcs" "$T/cond-writers"
	assert_success
	assert_equal "$(grep -v ' -$' <<< "$output" | sort)" "$(funcs "$T/cond-writers")"
	# the FDEs of code no symbol sized (the PLT's)
	assert_equal "$(grep ' -$' <<< "$output" | sort)" \
		"$(fdes "$T/cond-writers" | grep -v -F -f <(funcs "$T/cond-writers" | cut -d' ' -f1 | sed 's/$/ /'))"
	assert_equal "$(cut -d' ' -f1 <<< "$output" | sort | uniq -d)" ""
}

@test "module funcs: in a stripped program, the FDE that holds an address inside a function is that function's, and none holds an address outside every one" {
	local a s n want=() args=()
	while read -r a s n; do
		args+=("$(( a + 1 ))" "$(( a + s - 1 ))")
		want+=("$a $s" "$a $s")
	done < <(funcs "$T/cond-writers" | grep _writer)
	[ "${#args[@]}" = 16 ] || fail "cond-writers' writers: ${#args[@]} addresses"
	# 0: below every function
	run --separate-stderr "$WP_BUILD/progs/module-funcs" "$T/cond-writers-stripped" "${args[@]}" 0
	assert_success
	assert_equal "$output" "$(printf '%s\n' "${want[@]}" none)"
}
