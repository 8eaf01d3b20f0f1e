#!/usr/bin/env bats
# The cross build for AArch64: make arm64 builds the four tools (and the
# front command) for aarch64 into O/arm64, with
# the arm64 cross compiler and Debian's multiarch :arm64 libraries.

load helpers

TOP=$BATS_TEST_DIRNAME/..

# need_cross: skips where the cross compiler or a library is missing.
need_cross() {
	local p
	command -v aarch64-linux-gnu-gcc > /dev/null ||
		skip "aarch64-linux-gnu-gcc is not installed (make arm64-deps installs gcc-aarch64-linux-gnu)"
	command -v dpkg-query > /dev/null ||
		skip "no dpkg-query to tell whether the :arm64 libraries are installed"
	for p in libelf-dev:arm64 libdw-dev:arm64 libcapstone-dev:arm64 libbpf-dev:arm64 \
	    zlib1g-dev:arm64; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' ||
			skip "$p is not installed (make arm64-deps installs it)"
	done
}

@test "make arm64: wp-resolve, wp-arm, wp-decode and wp-report for ARM aarch64 in O/arm64" {
	need_cross
	local o=$BATS_TEST_TMPDIR/build t built=$WP_BUILD
	# make check built them (arm64-guest-build): those are checked, and
	# make's plan for a fresh O= is read; elsewhere they are built here
	if [ ! -x "$built/arm64/wp-arm" ]; then
		run --separate-stderr nice -n 15 make -j2 -C "$TOP" O="$o" arm64
		[ "$status" -eq 0 ] || fail "make arm64 failed: $(tail -n 20 <<< "$stderr")"
		built=$o
		# nothing of the host's build
		[ ! -e "$o/wp-decode" ] || fail "make arm64 built the host's tools too"
	else
		run --separate-stderr make -n -C "$TOP" O="$o" arm64
		assert_success
		grep -q -- "-o $o/arm64/wp-arm " <<< "$output" ||
			fail "make arm64 would not build $o/arm64/wp-arm: $(tail -n 5 <<< "$output")"
		! grep -E -- "-o $o/(wp-[a-z]+|lib[a-z]+\.a|cmd/[^ ]+\.o) " <<< "$output" ||
			fail "make arm64 would build the host's tools too"
	fi
	for t in wp-resolve wp-arm wp-decode wp-report; do
		run file -b "$built/arm64/$t"
		assert_output --partial "ARM aarch64"
	done
	[ -x "$built/arm64/wp" ] || fail "no front command in O/arm64"
}

@test "make arm64: a missing package is named, with how to install it" {
	run --separate-stderr sh "$TOP/tests/deps.sh" -n wp-no-such-package:arm64
	assert_failure 1
	assert_equal "$(head -n 1 <<< "$stderr")" "wp: missing packages: wp-no-such-package:arm64"
	assert_output ""
	[[ $stderr == *"run: make arm64-deps"* ]] || fail "no way to install them: $stderr"
}
