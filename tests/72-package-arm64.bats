#!/usr/bin/env bats
# The arm64 Debian package, cross-built on this machine: make deb
# DEB_ARCH=arm64 runs dpkg-buildpackage -aarm64 (once, for the file,
# from a copy of the sources) with the cross compiler and Debian's
# multiarch :arm64 libraries, and lintian accepts what it leaves.  The
# arm64 guest installs and runs it (tests/live/61-arm64-deb.bats).
# Run only when asked (WP_CHECK_DEB_ARM64=1): the build takes over a
# minute of the suite's time.

load helpers

TOP=$BATS_TEST_DIRNAME/..

wp_version() {
	sed -n 's/^#define WP_VERSION "\(.*\)"$/\1/p' "$TOP/lib/util.h"
}

# why_not: why the arm64 package cannot be built here (nothing: it can)
why_not() {
	local p
	[ "$(dpkg --print-architecture 2> /dev/null)" = arm64 ] &&
		{ echo "this machine is arm64: make deb builds its package natively (tests/70-package.bats)"; return; }
	command -v dpkg-buildpackage > /dev/null ||
		{ echo "dpkg-buildpackage is not installed (make deps installs dpkg-dev)"; return; }
	command -v dh > /dev/null ||
		{ echo "dh is not installed (make deps installs debhelper)"; return; }
	command -v aarch64-linux-gnu-gcc > /dev/null ||
		{ echo "aarch64-linux-gnu-gcc is not installed (make arm64-deps installs gcc-aarch64-linux-gnu)"; return; }
	for p in libc6-dev:arm64 libelf-dev:arm64 libdw-dev:arm64 \
	    libcapstone-dev:arm64 libbpf-dev:arm64 zlib1g-dev:arm64; do
		dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'ok installed' ||
			{ echo "$p is not installed (make arm64-deps installs it)"; return; }
	done
	# 80 s of the suite's time on two loaded cores (26 s of CPU)
	[ "${WP_CHECK_DEB_ARM64:-0}" = 1 ] ||
		echo "the arm64 package's cross build runs only when asked (WP_CHECK_DEB_ARM64=1)"
}

setup_file() {
	[ -z "$(why_not)" ] || return 0
	local d=$BATS_FILE_TMPDIR
	nice -n 10 make -C "$TOP" O="$d/build" DEBJOBS=2 DEB_ARCH=arm64 deb \
	    > "$d/make.log" 2>&1
	echo $? > "$d/make.status"
	dpkg -x "$d/build/deb/wp_$(wp_version)_arm64.deb" "$d/root" 2>> "$d/make.log"
}

# need_deb: skips where the package cannot be cross-built here, fails
# with the build's log where make deb did; sets DEB and ROOT.
need_deb() {
	local why
	why=$(why_not)
	[ -z "$why" ] || skip "$why"
	[ "$(cat "$BATS_FILE_TMPDIR/make.status")" = 0 ] ||
		fail "make deb DEB_ARCH=arm64 failed: $(tail -n 30 "$BATS_FILE_TMPDIR/make.log")"
	DEB=$BATS_FILE_TMPDIR/build/deb/wp_$(wp_version)_arm64.deb
	ROOT=$BATS_FILE_TMPDIR/root
}

@test "package arm64: make deb DEB_ARCH=arm64 leaves wp_VERSION_arm64.deb in O/deb, built for arm64 with its libraries as dependencies" {
	need_deb
	[ -f "$DEB" ] || fail "no $(basename "$DEB") in O/deb: $(ls "$BATS_FILE_TMPDIR/build/deb")"
	assert_equal "$(cd "$BATS_FILE_TMPDIR/build/deb" && ls -d */ 2> /dev/null)" ""
	run dpkg-deb -f "$DEB" Package Version Architecture
	assert_output "Package: wp
Version: $(wp_version)
Architecture: arm64"
	# dpkg-shlibdeps found the arm64 libraries the tools link
	run dpkg-deb -f "$DEB" Depends
	local l t
	for l in libbpf1 libc6 libcapstone4 libdw1 libelf1; do
		assert_output --regexp "(^|, )$l( |,|$)"
	done
	for t in wp-resolve wp-arm wp-decode wp-report; do
		run readelf -h "$ROOT/usr/bin/$t"
		assert_line --regexp '^ +Machine: +AArch64$'
		# stripped by the cross strip: the debug information went to
		# wp-dbgsym
		run readelf -S "$ROOT/usr/bin/$t"
		refute_output --partial .debug_info
	done
	[ -f "$BATS_FILE_TMPDIR/build/deb/wp-dbgsym_$(wp_version)_arm64.deb" ] ||
		fail "no wp-dbgsym_$(wp_version)_arm64.deb"
	# the front command is the same script as amd64's
	cmp "$ROOT/usr/bin/wp" "$TOP/cmd/wp"
}

@test "package arm64: lintian finds no error and no warning" {
	need_deb
	command -v lintian > /dev/null ||
		skip "lintian is not installed (make deps installs it)"
	run --separate-stderr lintian "$DEB"
	assert_equal "$(grep -E '^(E|W): ' <<< "$output")" ""
	assert_success
}
