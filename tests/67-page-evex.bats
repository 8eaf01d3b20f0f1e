#!/usr/bin/env bats
# wp-arm --backend page: AVX-512 stores, as glibc's memmove and memset
# make them (tests/targets/page-evex.c): full zmm and EVEX ymm stores,
# and stores merge-masked by k, are emulated, not stepped; a masked
# store is a hit only on the targets its selected elements reach.

load helpers
load page

# evex_watch ROUNDS: page-evex's fields written by two threads, each a
# target (wpt_zmm, wpt_ymm, wpt_mk, wpt_edge: targets 0-3); wpt_pre, on
# the same page, is not watched.  An unwatched run first, into $PLAIN.
evex_watch() {
	start_target page-evex -n "$1"
	[ "$(tinfo skip)" = false ] ||
		skip "this CPU lacks avx512f or avx512bw: $(grep -m1 -o 'model name.*' /proc/cpuinfo)"
	kill -USR1 "$TPID"
	wait_for "$TOUT" '^done' 60
	PLAIN=$(tail -n +2 "$TOUT")
	start_target page-evex -n "$1"
	rm -f "$BATS_TEST_TMPDIR/watch.out.writers"
	watch_start wpt_zmm wpt_ymm wpt_mk wpt_edge -- --backend page -d 120s
	kill -USR1 "$TPID"
	watch_wait
	wait_for "$TOUT" '^done' 60
}

# after FIELD: the field's bytes after each store that wrote it, in
# order, as the target logged them
after() {
	awk -v f="$1" '$1 == f && NF == 2 { print $2 }' "$TOUT"
}

@test "wp-arm page: AVX-512 zmm, EVEX ymm and k-masked stores on two threads are emulated, none stepped: each writer's hits its own count, each hit the bytes its store left" {
	require_page
	local n=2000 f i=0 watched
	evex_watch "$n"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(obs .counts_are_lower_bound)" false
	# each store left its field as the target's model says, and the
	# target ends as unwatched
	grep -qx "bad 0" "$TOUT" || fail "the target saw stores go wrong: $(grep '^bad' "$TOUT")"
	assert_equal "$(target_output)" "$PLAIN"
	for f in zmm ymm mk; do
		assert_equal "$(own "$f")" "$n"
	done
	# every store of a field a hit on it, with its bytes after that store
	for f in zmm ymm mk edge; do
		assert_equal "$(hits ".target == $i")" "$(own "$f")"
		[ "$(jq -r "select(.type==\"hit\" and .target==$i) | .new_bytes" "$WOUT")" = "$(after "$f")" ] ||
			fail "target $i ($f): the hits' bytes are not those its stores left"
		i=$(( i + 1 ))
	done
	assert_equal "$(writer_hits write_zmm) $(writer_hits write_ymm)" "$n $n"
	assert_equal "$(writer_hits write_masked)" "$n"
	assert_equal "$(writer_hits write_edge)" "$(own edge)"
	# write_edge's odd rounds select bytes of wpt_pre only: each is a
	# page neighbour's fault, no hit on wpt_edge
	assert_equal "$(( $(own edge) + $(own pre) ))" "$n"
	watched=$(( 3 * n + $(own edge) ))
	assert_equal "$(hits)" "$watched"
	assert_equal "$(obs .page.faults_watched)" "$watched"
	assert_equal "$(obs .page.faults_neighbour)" "$(own pre)"
	assert_equal "$(obs .page.stepped)" 0
	assert_equal "$(obs .page.emulated)" $(( watched + $(own pre) ))
}
