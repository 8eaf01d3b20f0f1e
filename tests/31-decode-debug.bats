#!/usr/bin/env bats
# One debug lookup for names, lines and call chains: a stripped program
# whose debug file is given once (--debug-file, or a --debug-dir build-id
# tree) gets its writer's source line and its callers' frames named
# from that one file.

load helpers

# stripped_callers: a copy of callers stripped of symbols and DWARF as
# $D/callers-s, its debug file $D/callers.debug, ID its build-id; runs
# it (caller_a twice, caller_b three times) and watches wpt_counter with
# the ptrace backend, call chains on, wp-resolve given RESOLVE_OPTS.
stripped_callers() {
	D=$BATS_TEST_TMPDIR/dbg
	mkdir -p "$D"
	cp "$T/callers" "$D/callers-s"
	objcopy --only-keep-debug "$T/callers" "$D/callers.debug"
	strip --strip-all "$D/callers-s"
	ID=$(readelf -n "$D/callers-s" | awk '/Build ID/ { print $3 }')
	TOUT=$BATS_TEST_TMPDIR/s.out
	"$D/callers-s" -a 2 -b 3 -c 0 > "$TOUT" &
	TPID=$!
	WP_TARGET_PIDS+=("$TPID")
	wait_for "$TOUT" pid 10
	# wpt_counter is named by the debug file only
	# shellcheck disable=SC2086
	watch_start $RESOLVE_OPTS wpt_counter -- --backend ptrace --callchain -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	local src=$BATS_TEST_DIRNAME/targets/callers.c
	SET=$(grep -n 'wpt_counter = v;' "$src" | cut -d: -f1)
	CA=$(grep -n 'set_counter(1);' "$src" | cut -d: -f1)
	CB=$(grep -n 'set_counter(2);' "$src" | cut -d: -f1)
	# main's call, not via's (which comes before main)
	MA=$(grep -n '		caller_a();' "$src" | tail -n 1 | cut -d: -f1)
	MB=$(grep -n '		caller_b();' "$src" | cut -d: -f1)
}

# named: per hit, the writer's function and line, then its first two
# callers' functions and lines.
named() {
	jq -r 'select(.type=="hit") | [.writer.function, .writer.source.line,
		(.callers[:2][] | (.symbol // "null" | sub("\\+0x[0-9a-f]+$"; "")), .source.line)] |
		map(tostring) | join(" ")'
}

# want: what named prints when the debug file was used.
want() {
	local k
	for k in 1 2; do echo "set_counter $SET caller_a $CA main $MA"; done
	for k in 1 2 3; do echo "set_counter $SET caller_b $CB main $MB"; done
}

@test "wp-decode --debug-file, given once: the writer's line and its callers' frames, from the one debug file" {
	RESOLVE_OPTS="--debug-file $BATS_TEST_TMPDIR/callers.debug"
	objcopy --only-keep-debug "$T/callers" "$BATS_TEST_TMPDIR/callers.debug"
	stripped_callers
	# without it: neither the writer nor the callers are named
	run --separate-stderr wp-decode < "$WOUT"
	assert_success
	assert_equal "$stderr" "wp-decode: no debug info for $D/callers-s (build-id $ID; none under /usr/lib/debug/.build-id/, give it with --debug-file): source lines unknown"
	run jq -r 'select(.type=="hit") | "\(.writer.source) \(.callers[0].symbol) \(.callers[0].source)"' <<< "$output"
	assert_output "$(for k in 1 2 3 4 5; do echo "null null null"; done)"
	run --separate-stderr wp-decode --debug-file "$D/callers.debug" < "$WOUT"
	assert_success
	assert_equal "$stderr" ""
	run named <<< "$output"
	assert_output "$(want)"
}

@test "wp-decode --debug-dir: the build-id tree under it names the writer's line and its callers" {
	local root=$BATS_TEST_TMPDIR/root id
	id=$(readelf -n "$T/callers" | awk '/Build ID/ { print $3 }')
	mkdir -p "$root/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$T/callers" "$root/.build-id/${id:0:2}/${id:2}.debug"
	RESOLVE_OPTS="--debug-dir $root"
	stripped_callers
	run --separate-stderr wp-decode --debug-dir "$root" < "$WOUT"
	assert_success
	assert_equal "$stderr" ""
	run named <<< "$output"
	assert_output "$(want)"
	# a debug file of another build names nothing
	run --separate-stderr wp-decode --debug-file "$T/stores" < "$WOUT"
	assert_success
	run jq -r 'select(.type=="hit") | "\(.writer.source) \(.callers[0].symbol)"' <<< "$output"
	assert_output "$(for k in 1 2 3 4 5; do echo "null null"; done)"
}

@test "wp watch of a buffer that libc's memset and memcpy write: the writers in libc are named with their source lines from the system's debug file (libc6-dbg)" {
	local libc id
	libc=$(ldd "$T/fill-libc" | awk '$1 == "libc.so.6" { print $3 }')
	libc=$(readlink -f "$libc")
	id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
	[ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
		skip "no debug file of $libc (build-id $id) under /usr/lib/debug/.build-id: libc6-dbg is not installed"
	start_target fill-libc -n 5
	watch_start --backend page wpt_fill -l 256 -- --backend page -d 120s
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	watch_wait
	assert_equal "$WSTATUS" 0
	# the target's own, as unwatched
	assert_equal "$(sed -n 2,4p "$TOUT" | tr '\n' ' ')" "memset 5 memcpy 5 done "
	run --separate-stderr sh -c "wp-decode < '$WOUT' | wp-report --json"
	assert_success
	# no "no debug info for .../libc.so.6 ...: source lines unknown"
	assert_equal "$stderr" ""
	local doc=$output
	# every write by one of libc's memset or memmove (memcpy's), each
	# named with its assembly source's line; each store instruction runs
	# the same in every one of the 5 calls of a size
	run jq -r '.watches[0].writer_sites[] | [(.module | split("/") | last), (.writer_function | sub("_(avx512|avx2|evex|sse2)[a-z0-9_]*$"; "")), (.source.file | split("/") | last | sub("-.*"; "")), (.source.line > 0), (.hits % 5 == 0)] | @tsv' <<< "$doc"
	assert_success
	assert_equal "$(sort -u <<< "$output" | cut -f 1,4,5 | sort -u)" "libc.so.6	true	true"
	assert_equal "$(cut -f 2,3 <<< "$output" | sort -u | tr '\t\n' ': ')" "__memmove:memmove __memset:memset "
	assert_equal "$(jq -c '.watches[0] | [.counted, (.writer_sites | map(.hits) | add)]' <<< "$doc")" "$(jq -c '.watches[0] | [.counted, .counted]' <<< "$doc")"
}
