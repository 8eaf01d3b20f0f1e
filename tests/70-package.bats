#!/usr/bin/env bats
# The Debian package: make deb builds it (once, for the file, from a
# copy of the sources), lintian finds no error in it, and what it
# installs works from a root of its own, never the system's.

load helpers

TOP=$BATS_TEST_DIRNAME/..

# the version lib/util.h gives every command
wp_version() {
	sed -n 's/^#define WP_VERSION "\(.*\)"$/\1/p' "$TOP/lib/util.h"
}

setup_file() {
	command -v dpkg-buildpackage > /dev/null && command -v dh > /dev/null ||
		return 0
	local d=$BATS_FILE_TMPDIR
	touch "$d/start"
	make -C "$TOP" O="$d/build" DEBJOBS=2 deb > "$d/make.log" 2>&1
	echo $? > "$d/make.status"
	dpkg -x "$d/build/deb/wp_$(wp_version)_amd64.deb" "$d/root" 2>> "$d/make.log"
}

# need_deb: skips where the packaging tools are missing, fails with the
# build's log where make deb did; sets DEB and ROOT (where it is unpacked).
need_deb() {
	command -v dpkg-buildpackage > /dev/null ||
		skip "dpkg-buildpackage is not installed (make deps installs dpkg-dev)"
	command -v dh > /dev/null ||
		skip "dh is not installed (make deps installs debhelper)"
	[ "$(cat "$BATS_FILE_TMPDIR/make.status")" = 0 ] ||
		fail "make deb failed: $(tail -n 30 "$BATS_FILE_TMPDIR/make.log")"
	DEB=$BATS_FILE_TMPDIR/build/deb/wp_$(wp_version)_amd64.deb
	ROOT=$BATS_FILE_TMPDIR/root
}

# installed CMD ARGS...: runs CMD with the package's /usr/bin first on
# PATH and no build directory on it.
installed() {
	env -u WP_BUILD PATH="$ROOT/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

@test "package: debian/changelog's version is WP_VERSION of lib/util.h" {
	local v
	v=$(wp_version)
	[ -n "$v" ] || fail "no WP_VERSION in lib/util.h"
	run sed -n '1s/^wp (\([^)]*\)) .*/\1/p' "$TOP/debian/changelog"
	assert_output "$v"
}

@test "package: make deb leaves wp_VERSION_amd64.deb in O/deb, the work tree as it was" {
	need_deb
	[ -f "$DEB" ] || fail "no $(basename "$DEB") in O/deb: $(ls "$BATS_FILE_TMPDIR/build/deb")"
	# the copy it was built from is gone; nothing was built in the tree
	# or written beside it
	assert_equal "$(cd "$BATS_FILE_TMPDIR/build/deb" && ls -d */ 2>/dev/null)" ""
	[ ! -e "$TOP/debian/wp" ] && [ ! -e "$TOP/debian/files" ] ||
		fail "the package was built in the work tree"
	run find "$TOP/.." -maxdepth 1 -name 'wp_*' -newer "$BATS_FILE_TMPDIR/start"
	assert_output ""
	run dpkg-deb -f "$DEB" Package Version Architecture
	assert_output "Package: wp
Version: $(wp_version)
Architecture: amd64"
	# the libraries the tools link, as the package's dependencies
	run dpkg-deb -f "$DEB" Depends
	local l
	for l in libbpf1 libc6 libcapstone4 libdw1 libelf1; do
		assert_output --regexp "(^|, )$l( |,|$)"
	done
	# and none they do not (wp-report's JSON is lib's own)
	refute_output --partial libjson-c
}

@test "package: lintian finds no error" {
	need_deb
	command -v lintian > /dev/null ||
		skip "lintian is not installed (make deps installs it)"
	run --separate-stderr lintian "$DEB"
	assert_equal "$(grep '^E: ' <<< "$output")" ""
	assert_success
}

@test "package: the tools, man pages, completion and docs where Debian puts them" {
	need_deb
	local f t
	for f in usr/bin/wp usr/bin/wp-resolve usr/bin/wp-arm usr/bin/wp-decode \
	    usr/bin/wp-report usr/share/man/man1/wp.1.gz \
	    usr/share/man/man1/wp-arm.1.gz usr/share/man/man7/wp-records.7.gz \
	    usr/share/doc/wp/copyright usr/share/doc/wp/README.md.gz; do
		[ -e "$ROOT/$f" ] || fail "$f is not in the package"
	done
	for t in wp-resolve wp-arm wp-decode wp-report; do
		assert_equal "$(readlink "$ROOT/usr/share/bash-completion/completions/$t")" wp
	done
	# the license once, in debian/copyright's form
	[ ! -e "$ROOT/usr/share/doc/wp/LICENSE" ] || fail "LICENSE beside copyright"
	grep -q '^License: GPL-2.0-or-later$' "$ROOT/usr/share/doc/wp/copyright"
}

@test "package: the installed wp --version and man wp" {
	need_deb
	run --separate-stderr installed wp --version
	assert_success
	assert_output "wp $(wp_version)"
	run --separate-stderr installed wp-arm --version
	assert_output "wp-arm $(wp_version)"
	command -v man > /dev/null || skip "man is not installed"
	run --separate-stderr env MANPATH="$ROOT/usr/share/man" man -w wp
	assert_output "$ROOT/usr/share/man/man1/wp.1.gz"
	run --separate-stderr env MANPATH="$ROOT/usr/share/man" MANWIDTH=80 man -P cat wp
	assert_success
	assert_line --regexp '^ +wp — which instructions write to this address of a running process$'
	assert_line --regexp '^ +wp watch \[-v\]'
}

@test "package: the installed wp watches a live target with ptrace, every write counted" {
	need_deb
	start_target mt-writer -t 2 -n 300
	local save=$BATS_TEST_TMPDIR/raw.ndjson out=$BATS_TEST_TMPDIR/report.json
	installed wp watch --json --backend ptrace --save "$save" -d 120s "$TPID" wpt_counter \
	    > "$out" 2> "$BATS_TEST_TMPDIR/err" &
	local w=$! p arm=
	wait_armed "$save" "$w" "$BATS_TEST_TMPDIR/err"
	# the wp-arm that runs is the installed one
	for p in $(pgrep -x wp-arm); do
		[ "$(readlink "/proc/$p/exe")" = "$ROOT/usr/bin/wp-arm" ] && arm=$p
	done
	[ -n "$arm" ] || fail "no wp-arm of the package runs"
	kill -USR1 "$TPID"
	wait "$w" || fail "wp watch: $(cat "$BATS_TEST_TMPDIR/err")"
	run jq -r '[.complete, .watches[0].accepted_hits, .watches[0].writer_sites[0].writer_function, .watches[0].writer_sites[0].hits, (.watches[0].threads | length), .observation.stop_reason] | map(tostring) | join(" ")' "$out"
	assert_output "true 600 write_counter 600 2 target_exited"
}
