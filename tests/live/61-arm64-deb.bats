#!/usr/bin/env bats
# The arm64 Debian package, installed and run in the arm64 guest: make
# deb DEB_ARCH=arm64 built it on an x86-64 machine (tests/72-package-arm64.bats
# checks it there), tests/vm/run-guest-arm64 puts it in /wp/deb when
# WP_DEB_ARM64 names it (make guest-arm64-deb), and busybox's dpkg
# installs it here.  Without the package, or on another machine, each
# test skips and says so.

load ../helpers

# the package in the guest, if run-guest-arm64 was given one
deb_file() {
	ls /wp/deb/wp_*_arm64.deb 2> /dev/null | head -n 1
}

setup_file() {
	[ "$(uname -m)" = aarch64 ] && [ -n "$(deb_file)" ] || return 0
	dpkg -i --force-depends "$(deb_file)" > "$BATS_FILE_TMPDIR/dpkg.log" 2>&1
	echo $? > "$BATS_FILE_TMPDIR/dpkg.status"
}

# need_deb: skips where this is not the arm64 guest or it was given no
# package, fails with dpkg's output where the install failed; sets DEB
# and VERSION (the package's).
need_deb() {
	[ "$(uname -m)" = aarch64 ] ||
		skip "needs an arm64 machine (this one is $(uname -m)): the arm64 guest runs it"
	DEB=$(deb_file)
	[ -n "$DEB" ] ||
		skip "no arm64 package in this guest (make guest-arm64-deb builds one and puts it here: WP_DEB_ARM64)"
	[ "$(cat "$BATS_FILE_TMPDIR/dpkg.status")" = 0 ] ||
		fail "dpkg -i $DEB failed: $(cat "$BATS_FILE_TMPDIR/dpkg.log")"
	VERSION=$(dpkg-deb -f "$DEB" | sed -n 's/^Version: //p')
}

# installed CMD ARGS...: CMD from the package's /usr/bin, with no build
# directory on PATH
installed() {
	env -u WP_BUILD PATH=/usr/bin:/bin:/sbin "$@"
}

@test "arm64 package: dpkg installs it, the tools in /usr/bin built for this machine" {
	need_deb
	run --separate-stderr dpkg -l
	assert_line --regexp "^ii +wp +$VERSION\$"
	local t
	for t in wp-resolve wp-arm wp-decode wp-report; do
		run --separate-stderr readelf -h "/usr/bin/$t"
		assert_line --regexp '^ +Machine: +AArch64$'
	done
	[ -x /usr/bin/wp ] || fail "no /usr/bin/wp"
	[ -e /usr/share/man/man1/wp.1.gz ] || fail "no wp(1) installed"
}

@test "arm64 package: the installed wp --version and wp doctor" {
	need_deb
	run --separate-stderr installed wp --version
	assert_success
	assert_output "wp $VERSION"
	run --separate-stderr installed wp doctor --json
	assert_success
	# "Linux RELEASE, MACHINE"
	assert_equal "$(jq -r '.machine | sub(".*, "; "")' <<< "$output")" aarch64
	assert_equal "$(jq -r '.breakpoints.fire' <<< "$output")" true
}

@test "arm64 package: the installed wp watches a live target with perf, every write counted" {
	need_deb
	start_target mt-writer -t 2 -n 300
	local save=$BATS_TEST_TMPDIR/raw.ndjson out=$BATS_TEST_TMPDIR/report.json
	installed wp watch --json --backend perf --save "$save" -d 120s "$TPID" wpt_counter \
	    > "$out" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$! p arm=
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	# its records, to the contract check (teardown)
	WOUT=$save
	# the wp-arm that runs is the installed one (the guest has no pgrep)
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2> /dev/null)" = /usr/bin/wp-arm ] && arm=${p#/proc/}
	done
	[ -n "$arm" ] || fail "no wp-arm of the package runs"
	kill -USR1 "$TPID"
	wait "$w" || fail "wp watch: $(cat "$BATS_TEST_TMPDIR/err")"
	run jq -r '[.complete, .watches[0].accepted_hits, .watches[0].writer_sites[0].writer_function, .watches[0].writer_sites[0].hits, (.watches[0].threads | length), .observation.stop_reason] | map(tostring) | join(" ")' "$out"
	assert_output "true 600 write_counter 600 2 target_exited"
}
